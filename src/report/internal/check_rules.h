// The checker's rule groups. Each appends the violations it finds to a report; none of
// them fails. They read the parsed result (check_parse.h), the instance and its modes.
#ifndef CKPTDP_REPORT_INTERNAL_CHECK_RULES_H_
#define CKPTDP_REPORT_INTERNAL_CHECK_RULES_H_

#include <optional>
#include <string>
#include <vector>

#include "ckptdp/check.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "report/internal/check_parse.h"

namespace ckptdp::check_internal {

// GPUs and training IT power per slot, recomputed from the runs with the mode model's
// values (the reported values where a run's layout is not a feasible mode).
struct RecomputedLoad {
  std::vector<int> gpus;
  std::vector<double> train_it_kw;
};

// format, instance name, status, objective / bound / gap presence, diagnosis.
void CheckHeader(const Instance& instance, const ResultRecord& result, CheckReport& report);

// The site block against the instance (check_site.cc).
void CheckSite(const Instance& instance, const ResultRecord& result, CheckReport& report);

// Job headers and runs: modes, timing, segment chain, run lengths, completion, scenario
// rules (check_jobs.cc). Returns the load the runs put on every slot.
RecomputedLoad CheckJobs(const Instance& instance, const std::vector<JobModes>& modes,
                         const ResultRecord& result, CheckReport& report);

// Series, load, site limits, power balance and battery per slot (check_slots.cc).
void CheckSlots(const Instance& instance, const ResultRecord& result, const RecomputedLoad& load,
                CheckReport& report);

// Metrics, objective, bound and gap, and cost_reduction_pct against S1 (check_metrics.cc).
// The grid contract (issue #19): per slot the import cap, export only where priced and
// within its cap, renewable_first; returns the contract's terms of the cost (carbon plus
// demand charge minus export revenue) and checks its metrics.
double CheckGridContract(const Instance& instance, const ResultRecord& result, CheckReport& report);

void CheckMetrics(const Instance& instance, const std::vector<JobModes>& modes,
                  const ResultRecord& result, CheckReport& report);

// Cost of the fixed baseline S1, computed from the instance alone: every job runs its
// baseline mode continuously from its release for ceil(C / (X step)) slots, no battery, and
// each slot's power side is dispatched at least cost. nullopt (with `why_not` set) when
// that schedule breaks the window, the GPU capacity or the site power cap.
std::optional<double> BaselineCostUsd(const Instance& instance, const std::vector<JobModes>& modes,
                                      std::string* why_not);

}  // namespace ckptdp::check_internal

#endif  // CKPTDP_REPORT_INTERNAL_CHECK_RULES_H_
