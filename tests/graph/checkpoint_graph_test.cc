// The checkpoint-state graph of one job (section IV-A): train-edge durations with the
// ceiling of eq. (24b), the graph's modes, wait-edge switches, fewest slots to finish and
// reachability. Jobs and modes are made by hand so that every duration is known exactly:
// eq. (24): C_e = (dk / K) C_j and l(a, dk) = ceil(C_e / (X_a dt)), i.e.
// l(a, dk) = ceil(dk * W / (X_a dt)) with W = C_j / K the work of one segment.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ckptdp/graph.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"

namespace ckptdp {
namespace {

constexpr double kSlotSeconds = 3600.0;  // dt: 60-minute slots

struct HandMadeJob {
  Instance instance;
  JobModes modes;
};

// One job of `segments` segments of `segment_flops` each, in [release, deadline), with one
// mode per entry of `throughputs` (mode i uses 8 (i + 1) GPUs at 0.4 kW each), all
// effective; mode 0 is the baseline.
HandMadeJob MakeJob(int release, int deadline, int segments, double segment_flops,
                    const std::vector<double>& throughputs) {
  HandMadeJob out;
  out.instance.time.step_minutes = 60;
  out.instance.time.slots = deadline;
  Job job;
  // Not `= "J"`: GCC 12 under ASan warns falsely there (-Wrestrict, GCC bug 105329).
  job.name = std::string("J");
  job.release_slot = release;
  job.deadline_slot = deadline;
  job.segments = segments;
  out.instance.jobs.push_back(job);
  out.modes.workload.segments = segments;
  out.modes.workload.compute_flops = segments * segment_flops;
  out.modes.workload.segment_flops = segment_flops;
  for (size_t i = 0; i < throughputs.size(); ++i) {
    Mode m;
    m.layout = {1, 1, 8 * static_cast<int>(i + 1)};
    m.gpus = m.layout.Gpus();
    m.it_power_kw = 0.4 * m.gpus;
    m.throughput_flops = throughputs[i];
    m.effective = true;
    m.baseline = i == 0;
    out.modes.feasible.push_back(m);
    out.modes.effective.push_back(static_cast<int>(i));
  }
  out.modes.baseline = 0;
  return out;
}

CheckpointGraph Graph(const HandMadeJob& j, const GraphOptions& options = {}) {
  return CheckpointGraph(j.instance, 0, j.modes, options);
}

std::vector<int> Durations(const CheckpointGraph& g, int mode) {
  std::vector<int> out;
  for (int dk = 1; dk <= g.max_dk(); ++dk) out.push_back(g.duration(mode, dk));
  return out;
}

TEST_CASE("A segment that fills whole slots takes exactly that many (eq. 24b)", "[graph]") {
  // X dt = 1e15 * 3600 = 3.6e18 FLOP per slot, W = 7.2e18: each segment is 2 full slots,
  // so l(dk) = ceil(2 dk) = 2 dk, with no slot added by the ceiling.
  const HandMadeJob j = MakeJob(0, 24, 3, 2 * 1e15 * kSlotSeconds, {1e15});
  const CheckpointGraph g = Graph(j);
  REQUIRE(g.max_dk() == 3);
  CHECK(Durations(g, 0) == std::vector<int>{2, 4, 6});
}

TEST_CASE("Work just above whole slots occupies one more slot (eq. 24b)", "[graph]") {
  // W = 2.000002 slots of work: l(1) = ceil(2.000002) = 3, l(2) = ceil(4.000004) = 5,
  // l(3) = ceil(6.000006) = 7. The partly used last slot counts as occupied, so one
  // 2-segment edge (5 slots) is shorter than two 1-segment edges (6).
  const HandMadeJob j = MakeJob(0, 24, 3, 2.000002 * 1e15 * kSlotSeconds, {1e15});
  const CheckpointGraph g = Graph(j);
  CHECK(Durations(g, 0) == std::vector<int>{3, 5, 7});
  CHECK(g.duration(0, 2) < 2 * g.duration(0, 1));
  CHECK(g.MinimumSlotsFor(2) == 5);
  CHECK(g.MinimumSlotsFor(3) == 7);
}

TEST_CASE("Floating-point round-off does not add a slot (eq. 24b)", "[graph]") {
  // X = 1e15 / 7 and W = 7.2e18 / 7: exactly 2 slots per segment, but the division gives
  // 2.0000000000000004 in double, whose plain ceiling would be 3.
  const double throughput = 1e15 / 7.0;
  const double segment_flops = 7200e15 / 7.0;
  REQUIRE(segment_flops / (throughput * kSlotSeconds) > 2.0);
  const HandMadeJob j = MakeJob(0, 24, 3, segment_flops, {throughput});
  CHECK(Durations(Graph(j), 0) == std::vector<int>{2, 4, 6});
}

TEST_CASE("Edges longer than the window are clamped to window + 1", "[graph]") {
  // l = 2, 4, 6 in the 3-slot window [10, 13): 4 and 6 are clamped to window + 1 = 4,
  // a length no edge of this window can use.
  const HandMadeJob j = MakeJob(10, 13, 3, 2 * 1e15 * kSlotSeconds, {1e15});
  CHECK(Durations(Graph(j), 0) == std::vector<int>{2, 4, 4});
}

TEST_CASE("max_segments_per_run bounds the longest train edge", "[graph]") {
  HandMadeJob j = MakeJob(0, 24, 4, 2 * 1e15 * kSlotSeconds, {1e15});
  j.instance.jobs[0].max_segments_per_run = 2;
  const CheckpointGraph g = Graph(j);
  CHECK(g.max_dk() == 2);
  CHECK(Durations(g, 0) == std::vector<int>{2, 4});
  CHECK(g.MinimumSlotsToFinish() == 8);
  j.instance.jobs[0].max_segments_per_run = 9;  // more than K: K
  CHECK(Graph(j).max_dk() == 4);
}

TEST_CASE("Graph modes are the effective ones plus the baseline, or the baseline only", "[graph]") {
  HandMadeJob j = MakeJob(0, 24, 2, 2 * 1e15 * kSlotSeconds, {1e15, 2e15, 3e15});
  // Mode 0 (the baseline) dominated and pruned: the graph still offers it, last.
  j.modes.feasible[0].effective = false;
  j.modes.effective = {1, 2};
  const CheckpointGraph all = Graph(j);
  REQUIRE(all.num_modes() == 3);
  CHECK(all.feasible_index(0) == 1);
  CHECK(all.feasible_index(1) == 2);
  CHECK(all.feasible_index(2) == 0);
  CHECK(all.gpus(0) == 16);
  CHECK(all.it_power_kw(0) == Approx(6.4));
  CHECK(all.gpus(2) == 8);
  // W = 2 slots of work at 1e15: 1 slot at 2e15, ceil(2/3) = 1 slot at 3e15.
  CHECK(Durations(all, 0) == std::vector<int>{1, 2});
  CHECK(Durations(all, 1) == std::vector<int>{1, 2});  // ceil(0.67) = 1, ceil(1.33) = 2
  CHECK(Durations(all, 2) == std::vector<int>{2, 4});

  const CheckpointGraph fixed = Graph(j, {.allow_wait = false, .baseline_only = true});
  REQUIRE(fixed.num_modes() == 1);
  CHECK(fixed.feasible_index(0) == 0);
  CHECK(fixed.MinimumSlotsToFinish() == 4);
}

TEST_CASE("Wait edges follow the scenario and the job's boundary rule", "[graph]") {
  HandMadeJob j = MakeJob(0, 24, 2, 2 * 1e15 * kSlotSeconds, {1e15});
  // Checkpoint waits (tau, k) -> (tau + 1, k), k < K, eq. (22): on unless the scenario
  // forbids them (S2); waiting at k = K (boundary idle) is the job's own setting.
  CHECK(Graph(j).allow_wait());
  CHECK_FALSE(Graph(j, {.allow_wait = false}).allow_wait());
  CHECK_FALSE(Graph(j).boundary_idle_allowed());
  j.instance.jobs[0].boundary_idle_allowed = true;
  j.instance.jobs[0].min_run_slots = 3;
  j.instance.jobs[0].max_pauses = 1;
  const CheckpointGraph g = Graph(j, {.allow_wait = false});
  CHECK(g.boundary_idle_allowed());
  CHECK_FALSE(g.allow_wait());
  CHECK(g.min_run_slots() == 3);
  CHECK(g.max_pauses() == 1);
  // Waits change neither the durations nor the fewest slots to finish.
  CHECK(Durations(g, 0) == Durations(Graph(j), 0));
  CHECK(g.MinimumSlotsToFinish() == 4);
}

TEST_CASE("Fewest slots to finish combine edges of every mode and length", "[graph]") {
  // Mode 0: 1.5 slots per segment, l = 2, 3, 5, 6; mode 1: 2 slots, l = 2, 4, 6, 8.
  // Fewest slots for r segments: 0, 2, 3, min(5, 2 + 3) = 5, min(6, 3 + 3, 2 + 5) = 6.
  const double w = 2 * 1e15 * kSlotSeconds;
  const HandMadeJob j = MakeJob(0, 24, 4, w, {w / (1.5 * kSlotSeconds), 1e15});
  const CheckpointGraph g = Graph(j);
  REQUIRE(Durations(g, 0) == std::vector<int>{2, 3, 5, 6});
  REQUIRE(Durations(g, 1) == std::vector<int>{2, 4, 6, 8});
  const std::vector<int> fewest = {0, 2, 3, 5, 6};
  for (int r = 0; r <= 4; ++r) CHECK(g.MinimumSlotsFor(r) == fewest[r]);
  CHECK(g.MinimumSlotsToFinish() == 6);
}

TEST_CASE("The sink is reachable iff the fastest path fits in the window", "[graph]") {
  // Mode 0 needs 2.000002 slots per segment: 3 segments take ceil(6.000006) = 7 slots.
  const double w = 2.000002 * 1e15 * kSlotSeconds;
  SECTION("a window of exactly the fastest path") {
    const CheckpointGraph g = Graph(MakeJob(3, 10, 3, w, {1e15}));
    CHECK(g.Reachable());
    CHECK(g.UnreachableReason().empty());
  }
  SECTION("one slot short") {
    const CheckpointGraph g = Graph(MakeJob(3, 9, 3, w, {1e15}));
    CHECK_FALSE(g.Reachable());
    CHECK(g.UnreachableReason() ==
          "job J cannot finish: its fastest path needs 7 slots but its window [3, 9) has 6 "
          "(short by 1 slots)");
  }
  SECTION("a faster mode makes it reachable again") {
    const CheckpointGraph g = Graph(MakeJob(3, 9, 3, w, {1e15, 2e15}));
    CHECK(g.MinimumSlotsToFinish() == 4);  // ceil(3 * 1.000001) = 4 at 2e15
    CHECK(g.Reachable());
  }
}

TEST_CASE("Edges of one dk and duration form one group, whatever their mode", "[graph]") {
  // W = 2 slots of work at X = 1e15: mode 0 takes l = 2, 4, 6; mode 1 (1.2e15) takes
  // ceil(1.67 dk) = 2, 4, 5; mode 2 (2e15) takes 1, 2, 3. The DP relaxes each group once.
  const CheckpointGraph g = Graph(MakeJob(0, 24, 3, 2 * 1e15 * kSlotSeconds, {1e15, 1.2e15, 2e15}));
  struct Expected {
    int dk, duration;
    std::vector<int> modes;
  };
  const std::vector<Expected> expected = {{1, 1, {2}}, {1, 2, {0, 1}}, {2, 2, {2}}, {2, 4, {0, 1}},
                                          {3, 3, {2}}, {3, 5, {1}},    {3, 6, {0}}};
  REQUIRE(g.end_groups().size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const CheckpointGraph::EndGroup& group = g.end_groups()[i];
    CHECK(group.dk == expected[i].dk);
    CHECK(group.duration == expected[i].duration);
    const auto first = g.end_group_modes().begin() + group.first;
    CHECK(std::vector<int>(first, first + group.count) == expected[i].modes);
  }
  CHECK(g.end_group_begin(1) == 0);
  CHECK(g.end_group_begin(2) == 2);
  CHECK(g.end_group_begin(3) == 4);
  CHECK(g.end_group_begin(4) == 7);  // the end of the last dk's groups
}

TEST_CASE("Train edges are counted over every start slot, segment, mode and length", "[graph]") {
  // K = 2, one mode with l = 2, 4, window [0, 5): from k = 0, dk = 1 fits for tau = 0..3
  // (4 edges) and dk = 2 for tau = 0..1 (2); from k = 1, dk = 1 for tau = 0..3 (4).
  const CheckpointGraph g = Graph(MakeJob(0, 5, 2, 2 * 1e15 * kSlotSeconds, {1e15}));
  CHECK(g.CountTrainEdges() == 10);
}

}  // namespace
}  // namespace ckptdp
