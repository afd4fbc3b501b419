#include "ckptdp/workload.h"

#include <algorithm>
#include <cmath>

namespace ckptdp {

int64_t RobustCeil(double x) {
  const double nearest = std::round(x);
  if (std::abs(x - nearest) <= 1e-9 * std::max(1.0, std::abs(x))) {
    return static_cast<int64_t>(nearest);
  }
  return static_cast<int64_t>(std::ceil(x));
}

double FlopsCoefficient(const ModelCoefficients& model) {
  // Narayanan et al. (SC'21) eq. 3: 72 B s l h^2 (...) counts forward + backward (3 passes
  // of 24 B s l h^2); full activation recomputation adds a fourth pass, 96.
  return model.activation_recomputation ? 96.0 : 72.0;
}

double FlopsPerIteration(const Job& job, const ModelCoefficients& model) {
  const double b = job.batch, s = job.seq_len, l = job.layers, h = job.hidden, v = job.vocab;
  // The logit layer is not recomputed, so its share is V/(16 l h) with recomputation and
  // V/(12 l h) without (its 6 B s h V FLOPs divided by chi_F B s l h^2).
  const double vocab_divisor = model.activation_recomputation ? 16.0 : 12.0;
  return FlopsCoefficient(model) * b * s * l * h * h *
         (1.0 + s / (6.0 * h) + v / (vocab_divisor * l * h));
}

Workload ComputeWorkload(const Job& job, const ModelCoefficients& model) {
  Workload w;
  w.flops_per_iteration = FlopsPerIteration(job, model);
  const double tokens_per_iteration = static_cast<double>(job.batch) * job.seq_len;
  w.iterations_total = RobustCeil(job.tokens / tokens_per_iteration);
  w.iterations_window = RobustCeil(job.daily_ratio * static_cast<double>(w.iterations_total));
  w.compute_flops = static_cast<double>(w.iterations_window) * w.flops_per_iteration;
  w.segments = job.segments;
  w.segment_flops = w.compute_flops / job.segments;
  return w;
}

}  // namespace ckptdp
