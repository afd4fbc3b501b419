// Per-GPU memory of eq. (11) on named layouts of the paper's jobs. Each expected value is
// worked out by hand from docs/model.md ("Memory (eq. 11)"), with the defaults written out:
//   state       = omega_s N / (p q),                omega_s = 16 bytes per parameter
//   samples     = b min(p, B / (d b)) with 1F1B,    B / d with GPipe; b = 1
//   per layer   = (lambda_h s h + lambda_f s h_f + lambda_a s^2 n_h) samples / q,
//                 lambda_h = 18, lambda_f = 4, lambda_a = 5
//   activations = rho_rec (l / p) per layer + (lambda_o s h + lambda_v s V) samples / q,
//                 rho_rec = 0.06 with full recomputation (1 without), lambda_o = lambda_v = 4
//   M^GPU       = (1 + delta_other) (state + activations) / 1e9 + M_0,
//                 delta_other = 0.10, M_0 = 4 GB
#include <catch2/catch.hpp>

#include "ckptdp/modes.h"
#include "support/paper_instance.h"

namespace ckptdp {
namespace {

using testing::PaperInstance;
using testing::PaperJob;

// LLM-A's activation bytes per sample before the split over q: one layer (s = 2048,
// h = 5120, h_f = 13824, n_h = 40) and the last stage's layer norm and logits (V = 32000).
constexpr double kLlmALayerBytes = 18.0 * 2048 * 5120 + 4.0 * 2048 * 13824 + 5.0 * 2048 * 2048 * 40;
constexpr double kLlmAOutputBytes = 4.0 * 2048 * 5120 + 4.0 * 2048 * 32000;

// (1 + delta_other) (state + activations) / 1e9 + M_0, in GB.
double GpuGb(double state_bytes, double activation_bytes) {
  return 1.10 * (state_bytes + activation_bytes) / 1e9 + 4.0;
}

TEST_CASE("Memory of LLM-A's baseline (4,4,32) follows eq. (11)", "[modes][memory]") {
  // state: 16 * 13e9 / (4 * 4) = 13e9 bytes.
  const double state = 16.0 * 13e9 / (4 * 4);
  // 1F1B: B / (d b) = 2048 / 32 = 64 micro-batches, min(p = 4, 64) = 4 samples in flight.
  const double samples = 4;
  // per layer with s = 2048, h = 5120, h_f = 13824, n_h = 40, q = 4.
  const double per_layer = kLlmALayerBytes * samples / 4;
  // l / p = 40 / 4 = 10 layers per stage; final layer norm and fp32 logits with V = 32000.
  const double activations = 0.06 * 10 * per_layer + kLlmAOutputBytes * samples / 4;
  const double expected = GpuGb(state, activations);
  CHECK(expected == Approx(19.38745719808).epsilon(1e-12));  // the sum above, evaluated

  CHECK(ModeMemoryGb(PaperJob("LLM-A-13B"), PaperInstance().model, {4, 4, 32}) ==
        Approx(expected).epsilon(1e-12));
}

TEST_CASE("Memory of LLM-B's baseline (6,4,32) follows eq. (11)", "[modes][memory]") {
  const double state = 16.0 * 32.5e9 / (6 * 4);
  const double samples = 6;  // min(p = 6, 2048 / 32 = 64)
  // s = 2048, h = 6656, h_f = 17920, n_h = 52, q = 4; l / p = 60 / 6 = 10.
  const double per_layer =
      (18.0 * 2048 * 6656 + 4.0 * 2048 * 17920 + 5.0 * 2048 * 2048 * 52) * samples / 4;
  const double activations =
      0.06 * 10 * per_layer + (4.0 * 2048 * 6656 + 4.0 * 2048 * 32000) * samples / 4;
  const double expected = GpuGb(state, activations);
  CHECK(expected == Approx(29.8236983535).epsilon(1e-10));

  CHECK(ModeMemoryGb(PaperJob("LLM-B-33B"), PaperInstance().model, {6, 4, 32}) ==
        Approx(expected).epsilon(1e-12));
}

TEST_CASE("1F1B holds only the micro-batches a replica has when there are fewer than p",
          "[modes][memory]") {
  // LLM-A (8,1,512): B / (d b) = 2048 / 512 = 4 micro-batches < p = 8, so 4 samples.
  const double state = 16.0 * 13e9 / 8;
  const double samples = 4;
  const double per_layer = kLlmALayerBytes * samples / 1;
  const double activations = 0.06 * (40.0 / 8) * per_layer + kLlmAOutputBytes * samples / 1;
  CHECK(ModeMemoryGb(PaperJob("LLM-A-13B"), PaperInstance().model, {8, 1, 512}) ==
        Approx(GpuGb(state, activations)).epsilon(1e-12));
}

TEST_CASE("With micro-batches of b sequences, 1F1B holds b min(p, m) samples", "[modes][memory]") {
  ModelCoefficients model = PaperInstance().model;
  model.micro_batch_size = 2;
  // LLM-A (4,4,32): m = 2048 / (32 * 2) = 32 micro-batches, 2 * min(4, 32) = 8 samples.
  const double state = 16.0 * 13e9 / 16;
  const double samples = 8;
  const double per_layer = kLlmALayerBytes * samples / 4;
  const double activations = 0.06 * 10 * per_layer + kLlmAOutputBytes * samples / 4;
  CHECK(ModeMemoryGb(PaperJob("LLM-A-13B"), model, {4, 4, 32}) ==
        Approx(GpuGb(state, activations)).epsilon(1e-12));
}

TEST_CASE("GPipe holds the whole replica batch B/d, as eq. (11) reads literally",
          "[modes][memory]") {
  ModelCoefficients model = PaperInstance().model;
  model.activation_schedule = ActivationSchedule::kGPipe;
  // LLM-A (4,4,32): B / d = 64 samples instead of 4.
  const double state = 16.0 * 13e9 / 16;
  const double samples = 2048.0 / 32;
  const double per_layer = kLlmALayerBytes * samples / 4;
  const double activations = 0.06 * 10 * per_layer + kLlmAOutputBytes * samples / 4;
  CHECK(ModeMemoryGb(PaperJob("LLM-A-13B"), model, {4, 4, 32}) ==
        Approx(GpuGb(state, activations)).epsilon(1e-12));
}

TEST_CASE("ZeRO-1 splits the 12 optimizer bytes of omega_s over d", "[modes][memory]") {
  ModelCoefficients model = PaperInstance().model;
  model.optimizer_sharding = true;
  // LLM-A (4,4,32): (4 + 12 / 32) bytes per parameter over p q = 16 ranks.
  const double state = (4.0 + 12.0 / 32) * 13e9 / 16;
  const double samples = 4;
  const double per_layer = kLlmALayerBytes * samples / 4;
  const double activations = 0.06 * 10 * per_layer + kLlmAOutputBytes * samples / 4;
  CHECK(ModeMemoryGb(PaperJob("LLM-A-13B"), model, {4, 4, 32}) ==
        Approx(GpuGb(state, activations)).epsilon(1e-12));
}

TEST_CASE("Without recomputation every layer's activations are kept (rho = 1)", "[modes][memory]") {
  ModelCoefficients model = PaperInstance().model;
  model.activation_recomputation = false;
  const double state = 16.0 * 13e9 / 16;
  const double samples = 4;
  const double per_layer = kLlmALayerBytes * samples / 4;
  const double activations = 1.0 * 10 * per_layer + kLlmAOutputBytes * samples / 4;
  const double expected = GpuGb(state, activations);
  CHECK(ModeMemoryGb(PaperJob("LLM-A-13B"), model, {4, 4, 32}) == Approx(expected).epsilon(1e-12));
  // 31.2 GB against 19.4 GB when only the layer inputs are kept.
  CHECK(expected == Approx(31.183853312).epsilon(1e-10));
}

TEST_CASE("Pure data parallelism replicates all model states on every GPU", "[modes][memory]") {
  // LLM-A (1,1,256): 16 * 13e9 bytes = 208 GB of states alone, above 80 GB.
  const double state = 16.0 * 13e9;
  const double samples = 1;  // min(p = 1, 2048 / 256 = 8)
  const double per_layer = kLlmALayerBytes * samples;
  const double activations = 0.06 * 40 * per_layer + kLlmAOutputBytes * samples;
  const double expected = GpuGb(state, activations);
  CHECK(ModeMemoryGb(PaperJob("LLM-A-13B"), PaperInstance().model, {1, 1, 256}) ==
        Approx(expected).epsilon(1e-12));
  CHECK(expected > 208.0 * 1.1);
}

}  // namespace
}  // namespace ckptdp
