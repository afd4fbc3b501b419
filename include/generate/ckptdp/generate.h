// Instance generator (`ckptdp generate`): synthetic but realistic dispatch problems.
//
// Jobs are drawn from a zoo of published LLaMA-, GPT- and Pythia-style architectures
// (1B to 70B parameters) with varied token targets, batches, release slots and windows;
// each job's baseline and daily ratio are chosen so that the calibrated kernel efficiency
// eta_0 lands in [0.35, 0.55]: the baseline fills its window exactly (tight), and the
// site has room for faster modes (feasible, flexible). The site is scaled to the jobs and
// the series repeat the paper's day with seeded day-to-day variation. docs/generator.md
// documents every rule.
//
// Reproducible: the same options give the same instance, byte for byte after
// InstanceToJson, on every platform (a portable PRNG, integer draws and IEEE arithmetic
// only; no <random> distributions, no libm transcendental functions).
#ifndef CKPTDP_GENERATE_H_
#define CKPTDP_GENERATE_H_

#include <cstdint>

#include "ckptdp/instance.h"
#include "ckptdp/status.h"

namespace ckptdp {

struct GenerateOptions {
  int jobs = 0;           // --jobs, [1, 100000]
  int hours = 0;          // --hours, [1, 8784] (366 days)
  int step_minutes = 60;  // --step-minutes, [1, 1440], must divide hours * 60
  int segments = 12;      // --segments, K of every job, [1, 1000]
  int gpus = 0;           // --gpus: GPU capacity, a multiple of 8; 0 = scaled to the jobs
  uint64_t seed = 1;      // --seed
};

// Checks the options; errors name the command-line flag ("--hours: must be ...").
absl::Status ValidateGenerateOptions(const GenerateOptions& options);

// A valid instance (ValidateInstance and BuildAllModes accept it, every job's graph can
// reach its sink). Fails with InvalidArgument for bad options or when --gpus is too small
// for the jobs' smallest baselines.
absl::StatusOr<Instance> GenerateInstance(const GenerateOptions& options);

}  // namespace ckptdp

#endif  // CKPTDP_GENERATE_H_
