// Workload stage (section III-B): Table I's task descriptors through eqs. (5)-(7).
//
// Every expected value is computed here from the paper's formulas with Table I's numbers
// written out, never by calling the code under test, so a slip in FlopsPerIteration or
// ComputeWorkload cannot hide behind itself (the checker shares this code with the solver).
// Equation numbers follow docs/model.md's table.
#include <catch2/catch.hpp>
#include <cmath>

#include "ckptdp/instance.h"
#include "ckptdp/workload.h"
#include "support/paper_instance.h"

namespace ckptdp {
namespace {

using testing::PaperInstance;
using testing::PaperJob;

// Iterations of eq. (6) for the paper's batch: B s = 2048 * 2048 = 4,194,304 tokens.
constexpr double kTokensPerIteration = 2048.0 * 2048.0;

TEST_CASE("The paper instance carries Table I's task descriptors", "[workload]") {
  const Instance& in = PaperInstance();
  REQUIRE(in.jobs.size() == 2);
  REQUIRE(in.time.step_minutes == 60);

  const Job& a = PaperJob("LLM-A-13B");  // Table I, LLaMA-13B
  CHECK(a.params == 13.0e9);
  CHECK(a.tokens == 1.0e12);
  CHECK(a.layers == 40);
  CHECK(a.hidden == 5120);
  CHECK(a.ffn_hidden == 13824);
  CHECK(a.heads == 40);
  CHECK(a.seq_len == 2048);
  CHECK(a.vocab == 32000);
  CHECK(a.daily_ratio == 0.049);  // 4.900%
  CHECK(a.segments == 12);
  CHECK(a.deadline_slot - a.release_slot == 24);  // 24 h of 60-minute slots
  CHECK(a.baseline == ParallelLayout{4, 4, 32});
  CHECK(a.baseline.Gpus() == 512);
  CHECK(a.batch == 2048);  // not in Table I: docs/model.md, "Batch B = 2048 sequences"

  const Job& b = PaperJob("LLM-B-33B");  // Table I, LLaMA-33B
  CHECK(b.params == 32.5e9);
  CHECK(b.tokens == 1.4e12);
  CHECK(b.layers == 60);
  CHECK(b.hidden == 6656);
  CHECK(b.ffn_hidden == 17920);
  CHECK(b.heads == 52);
  CHECK(b.seq_len == 2048);
  CHECK(b.vocab == 32000);
  CHECK(b.daily_ratio == 0.02021);  // 2.021%
  CHECK(b.segments == 12);
  CHECK(b.deadline_slot - b.release_slot == 24);
  CHECK(b.baseline == ParallelLayout{6, 4, 32});
  CHECK(b.baseline.Gpus() == 768);
  CHECK(b.batch == 2048);
}

TEST_CASE("LLM-A: FLOPs per iteration, iterations and daily compute from eqs. (5)-(7)",
          "[workload]") {
  const ModelCoefficients& model = PaperInstance().model;
  REQUIRE(model.activation_recomputation);  // the paper's chi_F = 96

  // eq. (5): F_iter = chi_F B s l h^2 (1 + s/(6h) + V/(16 l h)), chi_F = 96.
  const double f_iter = 96.0 * 2048 * 2048 * 40 * 5120.0 * 5120.0 *
                        (1.0 + 2048.0 / (6.0 * 5120) + 32000.0 / (16.0 * 40 * 5120));
  // eq. (6): I = ceil(D / (B s)) = ceil(1e12 / 4,194,304) = ceil(238,418.58) = 238,419;
  // I_day = ceil(r I) = ceil(0.049 * 238,419) = ceil(11,682.53) = 11,683.
  const int64_t iterations = 238419;
  const int64_t iterations_day = 11683;
  REQUIRE(std::ceil(1.0e12 / kTokensPerIteration) == iterations);
  REQUIRE(std::ceil(0.049 * iterations) == iterations_day);
  // eq. (7): C = I_day F_iter, split into K = 12 equal segments.
  const double compute = iterations_day * f_iter;

  const Job& job = PaperJob("LLM-A-13B");
  CHECK(FlopsCoefficient(model) == 96.0);
  CHECK(FlopsPerIteration(job, model) == Approx(f_iter).epsilon(1e-12));
  const Workload w = ComputeWorkload(job, model);
  CHECK(w.flops_per_iteration == Approx(f_iter).epsilon(1e-12));
  CHECK(w.iterations_total == iterations);
  CHECK(w.iterations_window == iterations_day);
  CHECK(w.compute_flops == Approx(compute).epsilon(1e-12));
  CHECK(w.segments == 12);
  CHECK(w.segment_flops == Approx(compute / 12).epsilon(1e-12));
  // The magnitudes docs/model.md quotes (4 significant figures there).
  CHECK(f_iter == Approx(4.544831e17).epsilon(1e-6));
  CHECK(compute == Approx(5.310e21).epsilon(5e-4));
}

TEST_CASE("LLM-B: FLOPs per iteration, iterations and daily compute from eqs. (5)-(7)",
          "[workload]") {
  const ModelCoefficients& model = PaperInstance().model;
  // eq. (5) with l = 60, h = 6656, V = 32000.
  const double f_iter = 96.0 * 2048 * 2048 * 60 * 6656.0 * 6656.0 *
                        (1.0 + 2048.0 / (6.0 * 6656) + 32000.0 / (16.0 * 60 * 6656));
  // eq. (6): I = ceil(1.4e12 / 4,194,304) = ceil(333,786.01) = 333,787;
  // I_day = ceil(0.02021 * 333,787) = ceil(6,745.84) = 6,746.
  const int64_t iterations = 333787;
  const int64_t iterations_day = 6746;
  REQUIRE(std::ceil(1.4e12 / kTokensPerIteration) == iterations);
  REQUIRE(std::ceil(0.02021 * iterations) == iterations_day);
  const double compute = iterations_day * f_iter;  // eq. (7)

  const Workload w = ComputeWorkload(PaperJob("LLM-B-33B"), model);
  CHECK(w.flops_per_iteration == Approx(f_iter).epsilon(1e-12));
  CHECK(w.iterations_total == iterations);
  CHECK(w.iterations_window == iterations_day);
  CHECK(w.compute_flops == Approx(compute).epsilon(1e-12));
  CHECK(w.segment_flops == Approx(compute / 12).epsilon(1e-12));
  CHECK(f_iter == Approx(1.130556e18).epsilon(1e-6));
  CHECK(compute == Approx(7.627e21).epsilon(5e-4));
}

TEST_CASE("Without activation recomputation chi_F is 72 and the logit share V/(12 l h)",
          "[workload]") {
  // docs/model.md, "Workload": forward + backward only (Narayanan et al., SC'21, eq. 3);
  // the logit layer's 6 B s h V FLOPs over 72 B s l h^2 give V / (12 l h).
  ModelCoefficients model = PaperInstance().model;
  model.activation_recomputation = false;
  const double f_iter = 72.0 * 2048 * 2048 * 40 * 5120.0 * 5120.0 *
                        (1.0 + 2048.0 / (6.0 * 5120) + 32000.0 / (12.0 * 40 * 5120));
  CHECK(FlopsCoefficient(model) == 72.0);
  CHECK(FlopsPerIteration(PaperJob("LLM-A-13B"), model) == Approx(f_iter).epsilon(1e-12));
}

// A small descriptor whose token count is a chosen multiple of B s.
Job SmallJob(double tokens, double daily_ratio) {
  Job job;
  job.name = "small";
  job.params = 1e9;
  job.tokens = tokens;
  job.batch = 8;
  job.seq_len = 1024;
  job.layers = 4;
  job.hidden = 1024;
  job.ffn_hidden = 4096;
  job.heads = 8;
  job.vocab = 32000;
  job.daily_ratio = daily_ratio;
  job.segments = 4;
  return job;
}

TEST_CASE("Iterations of eq. (6) are exact ceilings at and just above a whole batch",
          "[workload]") {
  const ModelCoefficients model;
  const double tokens_per_iteration = 8.0 * 1024;  // B s
  // D an exact multiple of B s: I = D / (B s), no extra iteration.
  CHECK(ComputeWorkload(SmallJob(1000 * tokens_per_iteration, 1.0), model).iterations_total ==
        1000);
  // One sequence more (1/8 of an iteration): the partial batch is a whole extra iteration.
  CHECK(
      ComputeWorkload(SmallJob(1000 * tokens_per_iteration + 1024, 1.0), model).iterations_total ==
      1001);
  // I_day = ceil(r I) where r I is an integer that floating point misses: 0.07 * 100 is
  // 7.000000000000001 in double, but eq. (6) asks for ceil(7) = 7, not 8.
  REQUIRE(0.07 * 100 > 7.0);
  const Workload w = ComputeWorkload(SmallJob(100 * tokens_per_iteration, 0.07), model);
  CHECK(w.iterations_total == 100);
  CHECK(w.iterations_window == 7);
  // eq. (7): C = I_day F_iter with F_iter of eq. (5) for B=8, s=1024, l=4, h=1024, V=32000.
  const double f_iter = 96.0 * 8 * 1024 * 4 * 1024.0 * 1024.0 *
                        (1.0 + 1024.0 / (6.0 * 1024) + 32000.0 / (16.0 * 4 * 1024));
  CHECK(w.compute_flops == Approx(7 * f_iter).epsilon(1e-12));
  CHECK(w.segment_flops == Approx(7 * f_iter / 4).epsilon(1e-12));
}

TEST_CASE("RobustCeil forgives round-off within 1e-9 relative and nothing more", "[workload]") {
  CHECK(RobustCeil(2.0) == 2);
  CHECK(RobustCeil(2.0000000001) == 2);  // 5e-11 relative: round-off
  CHECK(RobustCeil(1.9999999999) == 2);
  CHECK(RobustCeil(2.001) == 3);
  CHECK(RobustCeil(2.000001) == 3);  // 5e-7 relative: real work, a whole extra slot
  CHECK(RobustCeil(0.0) == 0);
  CHECK(RobustCeil(0.3) == 1);
  CHECK(RobustCeil(238418.5791015625) == 238419);
}

}  // namespace
}  // namespace ckptdp
