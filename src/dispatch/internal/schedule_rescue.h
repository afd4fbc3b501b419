// When the engine's root finds no schedule and proves none impossible. Its repairs are
// heuristics and not monotone in the site limits: on the paper case at 1400 GPUs (S4) the
// root found none, while at 1376 GPUs it finds one. A schedule of a copy of the instance
// with fewer GPUs keeps this instance's limits too (it uses at most the copy's GPUs, and
// the rest of the site is the same), so the engine asks quick solves of such copies.
#ifndef CKPTDP_DISPATCH_INTERNAL_SCHEDULE_RESCUE_H_
#define CKPTDP_DISPATCH_INTERNAL_SCHEDULE_RESCUE_H_

#include <optional>

#include "ckptdp/engine.h"
#include "ckptdp/instance.h"
#include "ckptdp/result.h"
#include "dispatch/internal/stop_rules.h"

namespace ckptdp::internal {

struct RescuedSchedule {
  Schedule schedule;
  int gpu_capacity = 0;  // of the copy that gave it
};

// Quick solves (no branching, a 1 % gap, no decomposition bound) of copies with 2, 4, 8
// and 16 % fewer GPUs, in that order, until one gives a schedule; each gets at most a
// quarter of the time left before `deadline`. std::nullopt if none does.
std::optional<RescuedSchedule> ScheduleWithFewerGpus(const Instance& instance, Scenario scenario,
                                                     const SolveOptions& options,
                                                     const Deadline& deadline);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_SCHEDULE_RESCUE_H_
