// Per-GPU memory of a 3D-parallel layout, eq. (11) of the paper. The coefficients and
// their sources (Rajbhandari et al. 2020 for model states, Korthikanti et al. 2023 for
// activations) are documented in docs/model.md.
#include <algorithm>

#include "ckptdp/modes.h"

namespace ckptdp {
namespace {

constexpr double kBytesPerGb = 1e9;

// Samples whose activations the first pipeline stage holds at once.
double InFlightSamples(const Job& job, const ModelCoefficients& model, const ParallelLayout& a) {
  const double replica_batch = static_cast<double>(job.batch) / a.d;  // B / d
  if (model.activation_schedule == ActivationSchedule::kGPipe) return replica_batch;
  // 1F1B (Narayanan et al. 2021): stage 1 keeps at most p micro-batches in flight.
  const double micro_batches = replica_batch / model.micro_batch_size;
  return model.micro_batch_size * std::min<double>(a.p, micro_batches);
}

}  // namespace

double ModeMemoryGb(const Job& job, const ModelCoefficients& model, const ParallelLayout& a) {
  const double pq = static_cast<double>(a.p) * a.q;
  // Model states: omega_s bytes per parameter, split over the p*q model-parallel ranks.
  // ZeRO-1 sharding splits the fp32 optimizer part (12 of the 16 bytes) over d as well.
  double state_bytes_per_param = model.state_bytes_per_param;
  if (model.optimizer_sharding) {
    const double optimizer_bytes = std::max(0.0, model.state_bytes_per_param - 4.0);
    state_bytes_per_param = (model.state_bytes_per_param - optimizer_bytes) + optimizer_bytes / a.d;
  }
  const double state = state_bytes_per_param * job.params / pq;

  const double samples = InFlightSamples(job, model, a);
  const double s = job.seq_len, q = a.q;
  const double per_layer = model.act_bytes_hidden * samples * s * job.hidden / q +
                           model.act_bytes_ffn * samples * s * job.ffn_hidden / q +
                           model.act_bytes_attention * samples * s * s * job.heads / q;
  const double recompute = model.activation_recomputation ? model.recompute_factor : 1.0;
  const double layers_per_stage = static_cast<double>(job.layers) / a.p;
  const double activations = recompute * layers_per_stage * per_layer +
                             model.act_bytes_output * samples * s * job.hidden / q +
                             model.act_bytes_vocab * samples * s * job.vocab / q;

  const double working = state + activations;
  return (working * (1.0 + model.memory_other_fraction)) / kBytesPerGb + model.memory_reserved_gb;
}

}  // namespace ckptdp
