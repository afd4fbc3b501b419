// Sweeps: one scenario solved for several values of one instance parameter (Fig. 12).
//
// Each point is an independent solve of a modified copy of the instance. The points run in
// parallel, but every point is solved single-threaded, so a point's result does not depend
// on how the points were scheduled: two runs of the same sweep give the same numbers
// (unless a wall-clock time limit cuts a solve short).
#ifndef CKPTDP_SWEEP_H_
#define CKPTDP_SWEEP_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ckptdp/engine.h"
#include "ckptdp/instance.h"
#include "ckptdp/result.h"
#include "ckptdp/status.h"

namespace ckptdp {

// The parameters a sweep can vary (docs/reproduction.md, "Fig. 12"):
//   segments                K of every job (integer >= 1);
//   gpu-capacity            site.gpu_capacity, N_GPU^max (integer >= 1);
//   renewable-ratio         PV and wind series multiplied by the value: the paper's
//                           renewable-to-AIDC ratio relative to the instance (1 = as given);
//   renewable-energy-ratio  PV and wind scaled so that renewable energy over the horizon /
//                           AIDC energy of the fixed baseline (S1) equals the value;
//   battery-energy          battery.energy_kwh, with the SoC bounds and the initial SoC
//                           scaled in proportion (kWh, > 0).
const std::vector<std::string>& SweepParameterNames();

// InvalidArgument listing the valid names if `param` is not one of them.
absl::Status CheckSweepParameter(std::string_view param);

// A copy of `instance` with `param` set to `value`, validated. InvalidArgument if the value
// does not fit the parameter (e.g. 2.5 segments) or makes the instance invalid.
absl::StatusOr<Instance> ApplySweepParameter(const Instance& instance, std::string_view param,
                                             double value);

// Renewable energy available over the horizon (PV + wind), MWh.
double RenewableEnergyMwh(const Instance& instance);

// AIDC energy of the fixed baseline (S1) over the horizon, MWh. Fails if S1 has no schedule.
absl::StatusOr<double> BaselineAidcEnergyMwh(const Instance& instance);

struct SweepPoint {
  double value = 0;
  // The point's result (which may be kInfeasible), or why it could not be solved, e.g. a
  // GPU capacity below a job's baseline mode. A failing point never aborts the sweep.
  absl::StatusOr<Result> result;
  RestartCounts restarts;  // of the point's schedule (zero without one)
};

// Called after each point finishes, from the worker that solved it (serialised: never
// twice at the same time), with the number of points done so far.
using SweepProgress = std::function<void(int done, int total)>;

// Solves `scenario` for every value, in parallel, with `options` except threads = 1 and no
// solver log. Results are in the order of `values`. Fails only on an unknown parameter or
// invalid options; anything that goes wrong at one point is recorded in that point.
absl::StatusOr<std::vector<SweepPoint>> RunSweep(const Instance& instance, Scenario scenario,
                                                 std::string_view param,
                                                 const std::vector<double>& values,
                                                 const SolveOptions& options,
                                                 const SweepProgress& progress = {});

}  // namespace ckptdp

#endif  // CKPTDP_SWEEP_H_
