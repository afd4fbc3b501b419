// Pareto pruning of eq. (15): mode a is dropped when some mode b has n_b <= n_a,
// P_b <= P_a, X_b >= X_a and is strictly better in at least one of the three.
//
// Equal modes (same GPUs, power and throughput, different layouts) do not dominate each
// other, so ParetoPrune keeps every one of them, in input order (docs/model.md: "ties are
// kept"; BuildJobModes sorts the feasible modes by (gpus, power, -throughput, p, q, d)
// first, so which layouts are kept and their order are deterministic).
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ckptdp/modes.h"
#include "support/paper_instance.h"

namespace ckptdp {
namespace {

Mode MakeMode(const ParallelLayout& layout, double it_power_kw, double throughput_flops) {
  Mode m;
  m.layout = layout;
  m.gpus = layout.Gpus();
  m.it_power_kw = it_power_kw;
  m.throughput_flops = throughput_flops;
  return m;
}

std::vector<bool> EffectiveFlags(const std::vector<Mode>& modes) {
  std::vector<bool> flags;
  for (const Mode& m : modes) flags.push_back(m.effective);
  return flags;
}

// eq. (15), written out independently of ParetoPrune.
bool Dominates(const Mode& b, const Mode& a) {
  return b.gpus <= a.gpus && b.it_power_kw <= a.it_power_kw &&
         b.throughput_flops >= a.throughput_flops &&
         (b.gpus < a.gpus || b.it_power_kw < a.it_power_kw ||
          b.throughput_flops > a.throughput_flops);
}

TEST_CASE("A mode beaten in one criterion and tied in the others is dropped", "[modes][pareto]") {
  SECTION("more throughput on the same GPUs and power") {
    std::vector<Mode> modes = {MakeMode({4, 2, 1}, 3.2, 1.0e15), MakeMode({2, 4, 1}, 3.2, 1.2e15)};
    CHECK(ParetoPrune(modes) == std::vector<int>{1});
    CHECK(EffectiveFlags(modes) == std::vector<bool>{false, true});
  }
  SECTION("less power for the same GPUs and throughput") {
    std::vector<Mode> modes = {MakeMode({4, 2, 1}, 3.2, 1.0e15), MakeMode({2, 4, 1}, 3.0, 1.0e15)};
    CHECK(ParetoPrune(modes) == std::vector<int>{1});
  }
  SECTION("fewer GPUs for the same power and throughput") {
    std::vector<Mode> modes = {MakeMode({2, 2, 2}, 3.2, 1.0e15), MakeMode({1, 1, 4}, 3.2, 1.0e15)};
    CHECK(ParetoPrune(modes) == std::vector<int>{1});
  }
}

TEST_CASE("Trade-offs between GPUs, power and throughput are all kept", "[modes][pareto]") {
  std::vector<Mode> modes = {MakeMode({1, 1, 8}, 3.2, 1.0e15), MakeMode({1, 1, 16}, 6.4, 1.9e15),
                             MakeMode({1, 2, 16}, 12.8, 3.5e15)};
  CHECK(ParetoPrune(modes) == std::vector<int>{0, 1, 2});
  CHECK(EffectiveFlags(modes) == std::vector<bool>{true, true, true});
}

TEST_CASE("Equal modes are all kept, in input order", "[modes][pareto]") {
  // (2,4,1) and (4,2,1): 8 GPUs, 3.2 kW, 1e15 FLOP/s each. Neither is strictly better.
  std::vector<Mode> modes = {MakeMode({2, 4, 1}, 3.2, 1.0e15), MakeMode({4, 2, 1}, 3.2, 1.0e15),
                             MakeMode({1, 1, 16}, 6.4, 1.8e15)};
  CHECK(ParetoPrune(modes) == std::vector<int>{0, 1, 2});
  // Reversed input: the same layouts survive, in the new order.
  std::vector<Mode> reversed(modes.rbegin(), modes.rend());
  CHECK(ParetoPrune(reversed) == std::vector<int>{0, 1, 2});
  CHECK(reversed[1].layout == ParallelLayout{4, 2, 1});
  CHECK(reversed[2].layout == ParallelLayout{2, 4, 1});
  // A mode strictly better than both drops both.
  modes.push_back(MakeMode({8, 1, 1}, 3.2, 1.1e15));
  CHECK(ParetoPrune(modes) == std::vector<int>{2, 3});
}

TEST_CASE("A mode dominated only by a dominated mode is still dropped", "[modes][pareto]") {
  // c dominates b dominates a: eq. (15) compares with every feasible mode, so a goes too.
  std::vector<Mode> modes = {MakeMode({1, 1, 8}, 3.2, 1.0e15), MakeMode({1, 1, 8}, 3.2, 1.1e15),
                             MakeMode({1, 1, 8}, 3.1, 1.1e15)};
  modes[0].effective = true;  // stale flags are overwritten
  CHECK(ParetoPrune(modes) == std::vector<int>{2});
  CHECK(EffectiveFlags(modes) == std::vector<bool>{false, false, true});
}

TEST_CASE("Pruning nothing returns nothing", "[modes][pareto]") {
  std::vector<Mode> none;
  CHECK(ParetoPrune(none).empty());
}

TEST_CASE("The paper's effective modes are exactly the undominated feasible ones",
          "[modes][pareto]") {
  const Instance& in = testing::PaperInstance();
  for (int j = 0; j < static_cast<int>(in.jobs.size()); ++j) {
    INFO(in.jobs[j].name);
    absl::StatusOr<JobModes> jm = BuildJobModes(in, j);
    REQUIRE(jm.ok());
    const std::vector<Mode>& f = jm->feasible;
    std::vector<int> flagged;
    for (int i = 0; i < static_cast<int>(f.size()); ++i) {
      const bool dominated =
          std::any_of(f.begin(), f.end(), [&](const Mode& b) { return Dominates(b, f[i]); });
      CHECK(f[i].effective == !dominated);
      if (f[i].effective) flagged.push_back(i);
    }
    CHECK(jm->effective == flagged);
  }
}

TEST_CASE("The paper case's mode counts are the ones docs/model.md reports", "[modes][pareto]") {
  // docs/model.md, "Counts on the paper case": 193 / 158 feasible, 15 / 27 effective.
  absl::StatusOr<std::vector<JobModes>> all = BuildAllModes(testing::PaperInstance());
  REQUIRE(all.ok());
  const JobModes& a = (*all)[testing::PaperJobIndex("LLM-A-13B")];
  const JobModes& b = (*all)[testing::PaperJobIndex("LLM-B-33B")];
  CHECK(a.feasible.size() == 193);
  CHECK(a.effective.size() == 15);
  CHECK(b.feasible.size() == 158);
  CHECK(b.effective.size() == 27);
  // Both baselines are dominated (docs/model.md): (8,2,32) beats LLM-A's (4,4,32).
  CHECK_FALSE(a.feasible[a.baseline].effective);
  CHECK_FALSE(b.feasible[b.baseline].effective);
}

}  // namespace
}  // namespace ckptdp
