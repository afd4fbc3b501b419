#include "dispatch/internal/schedule_rescue.h"

#include <chrono>
#include <cmath>

namespace ckptdp::internal {

std::optional<RescuedSchedule> ScheduleWithFewerGpus(const Instance& instance, Scenario scenario,
                                                     const SolveOptions& options,
                                                     const Deadline& deadline) {
  // The copies' solves ask for a schedule, not for a proof (as the capacity probes of
  // resource_diagnosis.cc do), and run on this process alone.
  SolveOptions quick;
  quick.gap = 1e-2;
  quick.max_iterations = options.max_iterations;
  quick.threads = options.threads;
  quick.max_nodes = 0;
  quick.decomposition_iterations = 0;
  quick.neighbourhood_stall_rounds = 0;  // the incumbent's local search comes after
  quick.diagnose_capacity = false;
  quick.rescue_with_fewer_gpus = false;  // one level: the copies do not rescue themselves
  quick.stop = options.stop;
  int last = instance.site.gpu_capacity;
  for (double share : {0.98, 0.96, 0.92, 0.84}) {
    const double left_s =
        std::chrono::duration<double>(deadline.at() - Deadline::Clock::now()).count();
    if (deadline.Passed() || left_s <= 0) return std::nullopt;
    const int gpus = static_cast<int>(std::floor(share * instance.site.gpu_capacity));
    if (gpus >= last || gpus <= 0) continue;
    last = gpus;
    Instance copy = instance;
    copy.site.gpu_capacity = gpus;
    quick.time_limit_s = left_s / 4;
    absl::StatusOr<Result> r = SolveScenario(copy, scenario, quick);
    // A copy below some job's least layout is bad input there: fewer GPUs will not help.
    if (!r.ok() || r->status == SolveStatus::kInfeasible) return std::nullopt;
    if (!r->schedule.jobs.empty()) return RescuedSchedule{std::move(r->schedule), gpus};
  }
  return std::nullopt;
}

}  // namespace ckptdp::internal
