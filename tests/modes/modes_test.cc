// Feasible modes (eqs. 8-14): which layouts are runnable, which fit in memory and under the
// GPU cap, and what BuildJobModes records for each. The rules are written out here from
// docs/model.md ("Runnable layouts") and checked against an exhaustive enumeration.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <tuple>

#include "ckptdp/modes.h"
#include "support/paper_instance.h"

namespace ckptdp {
namespace {

using testing::PaperInstance;
using testing::PaperJob;

std::string Defect(const ParallelLayout& a, const ModelCoefficients& model) {
  return LayoutDefect(PaperJob("LLM-A-13B"), PaperInstance().site, model, a);
}
std::string Defect(const ParallelLayout& a) { return Defect(a, PaperInstance().model); }

TEST_CASE("Runnable layouts: divisibility, node size, batch and GPU cap", "[modes][feasible]") {
  // LLM-A: l = 40, n_h = 40, h = 5120, h_f = 13824, B = 2048; 8-GPU nodes, 2048 GPUs.
  CHECK(Defect({4, 4, 32}).empty());  // the baseline
  CHECK(Defect({40, 1, 8}).empty());
  CHECK_THAT(Defect({0, 1, 8}), Catch::Contains("must be >= 1"));
  CHECK_THAT(Defect({3, 1, 8}), Catch::Contains("p=3 does not divide layers=40"));
  CHECK_THAT(Defect({1, 3, 8}), Catch::Contains("q=3 does not divide heads=40"));
  // q = 20 divides n_h = 40 and h = 5120 but not h_f = 13824.
  CHECK_THAT(Defect({1, 20, 8}), Catch::Contains("q=20 does not divide ffn_hidden=13824"));
  // With h_f = 20480, q = 10 divides n_h, h and h_f, but spans more than one 8-GPU node.
  Job wide_ffn = PaperJob("LLM-A-13B");
  wide_ffn.ffn_hidden = 20480;
  CHECK_THAT(LayoutDefect(wide_ffn, PaperInstance().site, PaperInstance().model, {1, 10, 8}),
             Catch::Contains("q=10 exceeds gpus_per_node=8"));
  CHECK_THAT(Defect({1, 1, 24}), Catch::Contains("d=24 does not divide batch=2048"));
  CHECK_THAT(Defect({8, 8, 64}), Catch::Contains("p*q*d=4096 exceeds gpu_capacity=2048"));
  CHECK_THAT(Defect({5, 1, 1}), Catch::Contains("p*q*d=5 is not a whole number of 8-GPU nodes"));
  ModelCoefficients any_gpus = PaperInstance().model;
  any_gpus.whole_nodes = false;
  CHECK(Defect({5, 1, 1}, any_gpus).empty());
  ModelCoefficients micro4 = PaperInstance().model;
  micro4.micro_batch_size = 4;
  // B / d = 2048 / 1024 = 2 sequences per replica: not a whole micro-batch of 4.
  CHECK_THAT(Defect({1, 1, 1024}, micro4),
             Catch::Contains("batch/d=2 is not a multiple of micro_batch_size=4"));
  CHECK(Defect({1, 1, 512}, micro4).empty());
}

// eq. (14) with the rules of docs/model.md, independently of LayoutDefect: the set of
// (p, q, d) a job may run in.
std::set<std::tuple<int, int, int>> ExpectedFeasible(const Instance& in, const Job& job) {
  std::set<std::tuple<int, int, int>> out;
  for (int p = 1; p <= job.layers; ++p) {
    if (job.layers % p != 0) continue;
    for (int q = 1; q <= in.site.gpus_per_node; ++q) {
      if (job.heads % q != 0 || job.hidden % q != 0 || job.ffn_hidden % q != 0) continue;
      for (int d = 1; d <= job.batch; ++d) {
        if (job.batch % d != 0 || (job.batch / d) % in.model.micro_batch_size != 0) continue;
        const int n = p * q * d;
        if (n > in.site.gpu_capacity || n % in.site.gpus_per_node != 0) continue;
        if (ModeMemoryGb(job, in.model, {p, q, d}) > in.site.gpu_memory_gb) continue;
        out.emplace(p, q, d);
      }
    }
  }
  return out;
}

void CheckFeasibleSet(const Instance& in) {
  for (int j = 0; j < static_cast<int>(in.jobs.size()); ++j) {
    const Job& job = in.jobs[j];
    INFO(job.name << ", gpu_capacity " << in.site.gpu_capacity << ", gpu_memory_gb "
                  << in.site.gpu_memory_gb);
    absl::StatusOr<JobModes> jm = BuildJobModes(in, j);
    REQUIRE(jm.ok());
    std::set<std::tuple<int, int, int>> got;
    for (const Mode& m : jm->feasible) {
      got.emplace(m.layout.p, m.layout.q, m.layout.d);
      CHECK(m.gpus <= in.site.gpu_capacity);
      CHECK(m.memory_gb <= in.site.gpu_memory_gb);
    }
    CHECK(got.size() == jm->feasible.size());  // no layout twice
    CHECK(got == ExpectedFeasible(in, job));
  }
}

TEST_CASE("The feasible set is every runnable layout that fits, and nothing else",
          "[modes][feasible]") {
  SECTION("the paper's site") { CheckFeasibleSet(PaperInstance()); }
  SECTION("a smaller GPU cap") {
    Instance in = PaperInstance();
    in.site.gpu_capacity = 1024;  // still above both baselines (512 and 768 GPUs)
    CheckFeasibleSet(in);
  }
  SECTION("less GPU memory") {
    Instance in = PaperInstance();
    in.site.gpu_memory_gb = 32;  // LLM-B's baseline needs 29.8 GB
    CheckFeasibleSet(in);
  }
}

TEST_CASE("Every feasible mode's numbers follow eqs. (10), (11) and (13)", "[modes][feasible]") {
  const Instance& in = PaperInstance();
  for (int j = 0; j < static_cast<int>(in.jobs.size()); ++j) {
    const Job& job = in.jobs[j];
    INFO(job.name);
    absl::StatusOr<JobModes> jm = BuildJobModes(in, j);
    REQUIRE(jm.ok());
    REQUIRE(jm->baseline >= 0);
    CHECK(jm->feasible[jm->baseline].layout == job.baseline);
    for (size_t i = 0; i < jm->feasible.size(); ++i) {
      const Mode& m = jm->feasible[i];
      CHECK(m.gpus == m.layout.p * m.layout.q * m.layout.d);  // eq. (9)
      CHECK(m.memory_gb == ModeMemoryGb(job, in.model, m.layout));
      const double eta =
          jm->kernel_efficiency * StructuralEfficiency(job, in.site, in.model, m.layout);
      CHECK(m.efficiency == Approx(eta).epsilon(1e-12));
      CHECK(m.throughput_flops == Approx(m.gpus * 312e12 * eta).epsilon(1e-12));  // eq. (10)
      // eq. (13) with the default P_comm coefficient 0: 0.4 kW per training GPU.
      CHECK(m.it_power_kw == Approx(0.4 * m.gpus).epsilon(1e-12));
      CHECK(m.baseline == (static_cast<int>(i) == jm->baseline));
    }
    // Sorted by (gpus, power, -throughput, p, q, d): the order ties are kept in.
    const auto key = [](const Mode& m) {
      return std::make_tuple(m.gpus, m.it_power_kw, -m.throughput_flops, m.layout.p, m.layout.q,
                             m.layout.d);
    };
    CHECK(std::is_sorted(jm->feasible.begin(), jm->feasible.end(),
                         [&](const Mode& x, const Mode& y) { return key(x) < key(y); }));
  }
}

TEST_CASE("eta_0 is calibrated so the baseline delivers C_j in exactly the window",
          "[modes][feasible]") {
  const Instance& in = PaperInstance();
  for (const std::string name : {"LLM-A-13B", "LLM-B-33B"}) {
    INFO(name);
    absl::StatusOr<JobModes> jm = BuildJobModes(in, testing::PaperJobIndex(name));
    REQUIRE(jm.ok());
    const Mode& base = jm->feasible[jm->baseline];
    CHECK(base.throughput_flops * 24 * 3600.0 == Approx(jm->workload.compute_flops).epsilon(1e-12));
  }
  // docs/model.md: eta_0 = 0.536 (LLM-A) and 0.501 (LLM-B).
  CHECK(BuildJobModes(in, testing::PaperJobIndex("LLM-A-13B"))->kernel_efficiency ==
        Approx(0.536).margin(5e-4));
  CHECK(BuildJobModes(in, testing::PaperJobIndex("LLM-B-33B"))->kernel_efficiency ==
        Approx(0.501).margin(5e-4));
}

TEST_CASE("A baseline that is not runnable or does not fit is bad input", "[modes][feasible]") {
  SECTION("above the GPU cap") {
    Instance in = PaperInstance();
    in.site.gpu_capacity = 512;  // LLM-B's baseline (6,4,32) needs 768
    absl::StatusOr<JobModes> jm = BuildJobModes(in, testing::PaperJobIndex("LLM-B-33B"));
    REQUIRE(jm.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(jm.status().message()),
               Catch::Contains("jobs[1].baseline: p*q*d=768 exceeds gpu_capacity=512"));
  }
  SECTION("above the GPU memory") {
    Instance in = PaperInstance();
    in.site.gpu_memory_gb = 16;  // LLM-A's baseline needs 19.4 GB
    absl::StatusOr<JobModes> jm = BuildJobModes(in, testing::PaperJobIndex("LLM-A-13B"));
    REQUIRE(jm.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(jm.status().message()),
               Catch::Contains("jobs[0].baseline: (p,q,d)=(4,4,32) needs 19.4 GB per GPU"));
  }
  SECTION("too slow even at 100% kernel efficiency") {
    Instance in = PaperInstance();
    in.jobs[0].deadline_slot = 2;  // C_j in 2 h would need eta_0 > 1
    absl::StatusOr<JobModes> jm = BuildJobModes(in, 0);
    REQUIRE(jm.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(jm.status().message()), Catch::Contains("needs eta_0="));
  }
}

}  // namespace
}  // namespace ckptdp
