// When no schedule is found: which site resource binds (the GPU capacity or the site power
// cap), and how much of it a schedule needs, found by quick solves of modified copies.
#ifndef CKPTDP_DISPATCH_INTERNAL_RESOURCE_DIAGNOSIS_H_
#define CKPTDP_DISPATCH_INTERNAL_RESOURCE_DIAGNOSIS_H_

#include <string>
#include <vector>

#include "ckptdp/engine.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "ckptdp/result.h"

namespace ckptdp::internal {

// One line that starts with the resource it is about ("GPU capacity: ...", "site power cap:
// ...", or "site limits: ..." when raising neither alone helped). What it prints never
// contradicts itself: the capacity it names is the least at which a schedule was actually
// found, every smaller one it says "none was found" for was tried, and infeasibility is
// claimed only where a probe proved it. `proven_infeasible` says whether the caller's own
// solve proved the instance infeasible; `remaining_s` bounds the time spent (a quarter of
// the caller's limit at most).
std::string DiagnoseResources(const Instance& instance, const std::vector<JobModes>& modes,
                              Scenario scenario, const SolveOptions& options, double remaining_s,
                              bool proven_infeasible);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_RESOURCE_DIAGNOSIS_H_
