// Workload: from an LLM task descriptor to compute (section III-B, eqs. 5-7).
#ifndef CKPTDP_WORKLOAD_H_
#define CKPTDP_WORKLOAD_H_

#include <cstdint>

#include "ckptdp/instance.h"

namespace ckptdp {

struct Workload {
  double flops_per_iteration = 0;  // F_iter, eq. (5)
  int64_t iterations_total = 0;    // I = ceil(D / (B s)), eq. (6)
  int64_t iterations_window = 0;   // I^day = ceil(r I): iterations due by the deadline
  double compute_flops = 0;        // C_j = I^day F_iter
  int segments = 0;                // K
  double segment_flops = 0;        // C_j / K, the work between two checkpoints
};

// ceil(x) that forgives floating-point round-off: a value within 1e-9 (relative) of an
// integer is that integer, so 2.0000000001 -> 2 while 2.001 -> 3. Every ceiling of a
// ratio of FLOPs (iterations, slots per segment) goes through it.
int64_t RobustCeil(double x);

// chi_F of eq. (5): 96 with full activation recomputation (one extra forward pass),
// 72 without (Narayanan et al., SC'21, eq. 3).
double FlopsCoefficient(const ModelCoefficients& model);

// F_iter = chi_F B s l h^2 (1 + s/(6h) + V/(v l h)), v = 16 with recomputation, 12 without.
double FlopsPerIteration(const Job& job, const ModelCoefficients& model);

Workload ComputeWorkload(const Job& job, const ModelCoefficients& model);

}  // namespace ckptdp

#endif  // CKPTDP_WORKLOAD_H_
