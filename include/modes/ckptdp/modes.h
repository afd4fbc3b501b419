// Modes: execution-feasible 3D-parallel configurations of a job (sections III-C, III-D).
//
// Every (p, q, d) that is runnable (divisibility, node size, GPU cap) and fits in GPU
// memory (eq. 11-12) is a feasible mode, with throughput X = n R_g eta(a) (eq. 10) and IT
// power P = n P_g + P_comm (eq. 13). The effective modes are the Pareto-optimal ones in
// (GPUs, IT power, throughput), eq. (15). The models and their sources: docs/model.md.
#ifndef CKPTDP_MODES_H_
#define CKPTDP_MODES_H_

#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/workload.h"

namespace ckptdp {

struct Mode {
  ParallelLayout layout;
  int gpus = 0;                 // n = p q d
  double efficiency = 0;        // eta(a) = eta_0 * structural efficiency
  double throughput_flops = 0;  // X, FLOP/s
  double memory_gb = 0;         // M^GPU, per GPU
  double it_power_kw = 0;       // P^IT
  bool effective = false;       // survives Pareto pruning
  bool baseline = false;        // the job's S1 mode
};

struct JobModes {
  Workload workload;
  double kernel_efficiency = 0;  // eta_0, calibrated or given
  std::vector<Mode> feasible;    // sorted by (gpus, it_power_kw, -throughput, p, q, d)
  std::vector<int> effective;    // indices into `feasible`, in the same order
  int baseline = -1;             // index into `feasible`
  int initial = -1;              // the layout of Job::initial, index into `feasible` (-1: none)
};

// Per-GPU memory in GB of `layout` for `job` (eq. 11).
double ModeMemoryGb(const Job& job, const ModelCoefficients& model, const ParallelLayout& layout);

// Structural parallel efficiency in (0, 1]: pipeline bubble, tensor-, pipeline- and
// data-parallel communication (docs/model.md). Multiply by eta_0 for eta(a).
double StructuralEfficiency(const Job& job, const Site& site, const ModelCoefficients& model,
                            const ParallelLayout& layout);

// Why a layout is not runnable, or "" if it is (divisibility, node size, capacity, batch).
std::string LayoutDefect(const Job& job, const Site& site, const ModelCoefficients& model,
                         const ParallelLayout& layout);

// Every runnable layout of `job` (LayoutDefect empty) that fits in GPU memory (eq. 11-12),
// in increasing (p, q, d): the layouts of the feasible modes. The generator picks its
// baselines among them too.
std::vector<ParallelLayout> FeasibleLayouts(const Job& job, const Site& site,
                                            const ModelCoefficients& model);

// Marks `effective` on each mode: kept unless another has no more GPUs, no more power,
// at least the throughput, and is strictly better in one (eq. 15). Returns their indices.
std::vector<int> ParetoPrune(std::vector<Mode>& modes);

// All feasible and effective modes of job `job_index`. Fails if the baseline layout is
// not runnable or does not fit in memory, if calibration would need eta_0 > 1, or if the
// job's initial layout (Job::initial) is not one of its feasible modes.
absl::StatusOr<JobModes> BuildJobModes(const Instance& instance, int job_index);
absl::StatusOr<std::vector<JobModes>> BuildAllModes(const Instance& instance);

}  // namespace ckptdp

#endif  // CKPTDP_MODES_H_
