// Structural parallel efficiency t_compute / t_iteration on named layouts, each term worked
// out by hand from docs/model.md ("Throughput (eq. 10)") with the defaults written out:
//   t_compute = F_iter / (n R_g),                       R_g = 312 TFLOP/s
//   bubble    = t_compute (p - 1) / m,                  m = B / (d b), b = 1
//   tensor    = (l / p) m 6 (2 (q - 1) / q) 2 b s h / 150 GB/s   (6 all-reduces with recompute)
//   pipeline  = 2 m (2 b s h / q) / 12.5 GB/s
//   data      = (1 - 0.5) (2 (d - 1) / d) (2 N / (p q)) / 12.5 GB/s
#include <catch2/catch.hpp>

#include "ckptdp/modes.h"
#include "support/paper_instance.h"

namespace ckptdp {
namespace {

using testing::PaperInstance;
using testing::PaperJob;

// F_iter of LLM-A by eq. (5): 96 B s l h^2 (1 + s/(6h) + V/(16 l h)).
constexpr double kLlmAFlops = 96.0 * 2048 * 2048 * 40 * 5120.0 * 5120.0 *
                              (1.0 + 2048.0 / (6.0 * 5120) + 32000.0 / (16.0 * 40 * 5120));
// One micro-batch's activations between layers: 2 bytes * b s h.
constexpr double kLlmAActivationBytes = 2.0 * 1 * 2048 * 5120;

double Efficiency(const ParallelLayout& layout) {
  return StructuralEfficiency(PaperJob("LLM-A-13B"), PaperInstance().site, PaperInstance().model,
                              layout);
}

TEST_CASE("A single GPU spends the whole iteration computing", "[modes][efficiency]") {
  // p = q = d = 1: no bubble, no communication.
  CHECK(Efficiency({1, 1, 1}) == 1.0);
}

TEST_CASE("Efficiency of LLM-A's baseline (4,4,32) from its five terms", "[modes][efficiency]") {
  const double compute = kLlmAFlops / (512 * 312e12);
  const double m = 2048.0 / 32;  // micro-batches per replica
  const double bubble = compute * (4 - 1) / m;
  const double tensor = (40.0 / 4) * m * 6 * (2.0 * 3 / 4) * kLlmAActivationBytes / 150e9;
  const double pipeline = 2 * m * (kLlmAActivationBytes / 4) / 12.5e9;
  const double data = 0.5 * (2.0 * 31 / 32) * (2 * 13e9 / 16) / 12.5e9;
  const double expected = compute / (compute + bubble + tensor + pipeline + data);
  CHECK(expected == Approx(0.7178423922).epsilon(1e-9));
  CHECK(Efficiency({4, 4, 32}) == Approx(expected).epsilon(1e-12));
}

TEST_CASE("Pure data parallelism pays only the unhidden gradient all-reduce",
          "[modes][efficiency]") {
  // LLM-A (1,1,256): every GPU holds all 13e9 parameters' fp16 gradients.
  const double compute = kLlmAFlops / (256 * 312e12);
  const double data = 0.5 * (2.0 * 255 / 256) * (2 * 13e9) / 12.5e9;
  CHECK(Efficiency({1, 1, 256}) == Approx(compute / (compute + data)).epsilon(1e-12));
}

TEST_CASE("Pipeline parallelism pays the bubble and the inter-stage sends", "[modes][efficiency]") {
  // LLM-A (2,1,8): m = 2048 / 8 = 256 micro-batches, no tensor parallelism (q = 1).
  const double compute = kLlmAFlops / (16 * 312e12);
  const double m = 2048.0 / 8;
  const double bubble = compute * (2 - 1) / m;
  const double pipeline = 2 * m * kLlmAActivationBytes / 12.5e9;
  const double data = 0.5 * (2.0 * 7 / 8) * (2 * 13e9 / 2) / 12.5e9;
  CHECK(Efficiency({2, 1, 8}) ==
        Approx(compute / (compute + bubble + pipeline + data)).epsilon(1e-12));
}

TEST_CASE("Less tensor parallelism beats LLM-A's baseline on the same 512 GPUs",
          "[modes][efficiency]") {
  // docs/model.md: (8,2,32) dominates the baseline (4,4,32), 8% more throughput: two fewer
  // NVLink all-reduce partners cost less than the longer pipeline bubble.
  const double compute = kLlmAFlops / (512 * 312e12);
  const double m = 2048.0 / 32;
  const double bubble = compute * (8 - 1) / m;
  const double tensor = (40.0 / 8) * m * 6 * (2.0 * 1 / 2) * kLlmAActivationBytes / 150e9;
  const double pipeline = 2 * m * (kLlmAActivationBytes / 2) / 12.5e9;
  const double data = 0.5 * (2.0 * 31 / 32) * (2 * 13e9 / 16) / 12.5e9;
  const double expected = compute / (compute + bubble + tensor + pipeline + data);
  CHECK(Efficiency({8, 2, 32}) == Approx(expected).epsilon(1e-12));
  CHECK(Efficiency({8, 2, 32}) / Efficiency({4, 4, 32}) == Approx(1.0835).epsilon(1e-4));
}

TEST_CASE("Communication power is its coefficient times GPUs times the communication share",
          "[modes][efficiency]") {
  // eq. (13): P = n P_g + P_comm, P_comm = c n (tensor + pipeline + data) / t_iteration
  // (docs/model.md), here for LLM-A's baseline (4,4,32) with c = 0.1 kW per GPU.
  Instance in = PaperInstance();
  in.model.comm_power_kw_per_gpu = 0.1;
  const double compute = kLlmAFlops / (512 * 312e12);
  const double m = 2048.0 / 32;
  const double bubble = compute * 3 / m;
  const double tensor = (40.0 / 4) * m * 6 * (2.0 * 3 / 4) * kLlmAActivationBytes / 150e9;
  const double pipeline = 2 * m * (kLlmAActivationBytes / 4) / 12.5e9;
  const double data = 0.5 * (2.0 * 31 / 32) * (2 * 13e9 / 16) / 12.5e9;
  const double share = (tensor + pipeline + data) / (compute + bubble + tensor + pipeline + data);
  const double expected_kw = 512 * 0.4 + 0.1 * 512 * share;

  const int job = testing::PaperJobIndex("LLM-A-13B");
  absl::StatusOr<JobModes> jm = BuildJobModes(in, job);
  REQUIRE(jm.ok());
  CHECK(jm->feasible[jm->baseline].it_power_kw == Approx(expected_kw).epsilon(1e-12));
}

}  // namespace
}  // namespace ckptdp
