// Structural parallel efficiency of a 3D layout: the share of an iteration spent in
// useful compute once the pipeline bubble and the communication that is not hidden are
// added (Narayanan et al., SC'21, sections 2-3). docs/model.md derives every term.
#include "ckptdp/modes.h"
#include "modes/internal/iteration_time.h"

namespace ckptdp {
namespace internal {

IterationTime ModelIterationTime(const Job& job, const Site& site, const ModelCoefficients& model,
                                 const ParallelLayout& a) {
  IterationTime t;
  const double n = a.Gpus();
  const double flops = FlopsPerIteration(job, model);
  t.compute_s = flops / (n * site.gpu_peak_tflops * 1e12);

  const double micro_batches =
      static_cast<double>(job.batch) / (static_cast<double>(a.d) * model.micro_batch_size);
  // 1F1B bubble: (p - 1) / m of the compute time (eq. of Narayanan et al.: (p-1)/(m+p-1)
  // of the total).
  t.bubble_s = t.compute_s * (a.p - 1) / micro_batches;

  // One micro-batch's activation tensor between layers: b s h values of 2 bytes.
  const double activation_bytes = 2.0 * model.micro_batch_size * job.seq_len * job.hidden;
  const double layers_per_stage = static_cast<double>(job.layers) / a.p;
  if (a.q > 1) {
    // Megatron tensor parallelism: 2 all-reduces forward and 2 backward per layer, 2 more
    // when the forward pass is recomputed; a ring all-reduce moves 2 (q-1)/q of the data.
    const double all_reduces = model.activation_recomputation ? 6.0 : 4.0;
    const double ring = 2.0 * (a.q - 1) / a.q;
    t.tensor_s = layers_per_stage * micro_batches * all_reduces * ring * activation_bytes /
                 (model.tp_bandwidth_gb_per_s * 1e9);
  }
  if (a.p > 1) {
    // Point-to-point between stages: one send forward and one backward per micro-batch,
    // scattered over the q tensor ranks (scatter/gather optimisation).
    t.pipeline_s =
        2.0 * micro_batches * activation_bytes / a.q / (model.pp_bandwidth_gb_per_s * 1e9);
  }
  if (a.d > 1) {
    // Ring all-reduce of the fp16 gradients of this rank's p q share of the model; the part
    // overlapped with the backward pass is hidden.
    const double gradient_bytes = 2.0 * job.params / (static_cast<double>(a.p) * a.q);
    const double ring = 2.0 * (a.d - 1) / a.d;
    t.data_s =
        (1.0 - model.dp_overlap) * ring * gradient_bytes / (model.dp_bandwidth_gb_per_s * 1e9);
  }
  return t;
}

}  // namespace internal

double StructuralEfficiency(const Job& job, const Site& site, const ModelCoefficients& model,
                            const ParallelLayout& layout) {
  const internal::IterationTime t = internal::ModelIterationTime(job, site, model, layout);
  return t.compute_s / t.Total();
}

}  // namespace ckptdp
