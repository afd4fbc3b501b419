// The export's restart state graph in its hub form (export/internal/restart_graph.h) against
// the direct form, which has one train edge per (layout, mode) pair exactly as the engine's
// restart DP walks it. Every source-sink path of each graph is enumerated, the hub rows'
// rule applied (a path leaves a hub in another layout than the one it entered from), and the
// two sets of train-edge sequences (mode, slots, segments, overhead, initial run) must be
// equal: then the two MILPs have the same schedules, hence the same optimum.
#include <catch2/catch.hpp>
#include <set>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ckptdp/graph.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "export/internal/model_builder.h"
#include "export/internal/restart_graph.h"
#include "support/paths.h"

namespace ckptdp {
namespace {

using export_internal::BuildRestartStateGraph;
using export_internal::GraphEdge;
using export_internal::JobStateGraph;
using export_internal::RestartGraphForm;
using export_internal::RunState;

// One train edge of a path: graph mode, start and end slot, from-segment, dk, overhead,
// whether it continues the initial run.
using TrainStep = std::tuple<int, int, int, int, int, int, bool>;
using Schedules = std::set<std::vector<TrainStep>>;

class PathEnumerator {
 public:
  PathEnumerator(const CheckpointGraph& graph, const JobStateGraph& sg, size_t limit)
      : graph_(graph), sg_(sg), limit_(limit), out_(sg.states.size()) {
    for (size_t e = 0; e < sg.edges.size(); ++e) out_[sg.edges[e].from].push_back(e);
  }

  // Every schedule; `paths` counts the paths (equal to the schedules' count when no two
  // paths make the same schedule).
  Schedules Run() {
    if (sg_.source >= 0) Walk(sg_.source, -1);
    return schedules_;
  }
  size_t paths() const { return paths_; }

 private:
  // `entered_from`: the feasible layout the path left for the hub it stands at, else -1.
  void Walk(int state, int entered_from) {
    if (paths_ > limit_) return;
    for (int sink : sg_.sinks) {
      if (sink == state) {
        ++paths_;
        schedules_.insert(steps_);
      }
    }
    for (size_t e : out_[state]) {
      const GraphEdge& edge = sg_.edges[e];
      if (edge.into_hub) {
        Walk(edge.to, sg_.states[state].layout);
        continue;
      }
      if (edge.graph_mode < 0) {
        Walk(edge.to, -1);
        continue;
      }
      if (entered_from >= 0 && graph_.feasible_index(edge.graph_mode) == entered_from) continue;
      steps_.emplace_back(edge.graph_mode, sg_.states[edge.from].slot, sg_.states[edge.to].slot,
                          sg_.states[edge.from].segment, edge.dk, static_cast<int>(edge.overhead),
                          edge.continues_initial);
      Walk(edge.to, -1);
      steps_.pop_back();
    }
  }

  const CheckpointGraph& graph_;
  const JobStateGraph& sg_;
  size_t limit_;
  std::vector<std::vector<size_t>> out_;
  std::vector<TrainStep> steps_;
  Schedules schedules_;
  size_t paths_ = 0;
};

TEST_CASE("export: the restart graph's layout-change hubs keep exactly the direct form's paths",
          "[export]") {
  absl::StatusOr<Instance> loaded =
      LoadInstance(testing::SourcePath("instances/small_2job_8slot.json"));
  REQUIRE(loaded.ok());
  constexpr size_t kLimit = 2'000'000;
  bool hubs_used = false;
  struct Case {
    double reshard;
    bool initial;
    Scenario scenario;
  };
  for (const Case& c :
       {Case{20, false, Scenario::kS4}, Case{20, true, Scenario::kS4}, Case{0, true, Scenario::kS4},
        Case{10, true, Scenario::kS6}, Case{0, false, Scenario::kS6}}) {
    Instance in = *loaded;
    for (Job& job : in.jobs) {
      job.resume_minutes = 30;
      job.reshard_minutes = c.reshard;
    }
    if (c.initial) in.jobs[0].initial = InitialRun{ParallelLayout{8, 1, 8}, 0.5};
    absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(in);
    REQUIRE(modes.ok());
    for (int j = 0; j < static_cast<int>(in.jobs.size()); ++j) {
      INFO(absl::StrCat("reshard ", c.reshard, ", initial ", c.initial, ", ",
                        std::string(ScenarioName(c.scenario)), ", job ", j));
      const CheckpointGraph graph(in, j, (*modes)[j], export_internal::GraphOptionsOf(c.scenario));
      REQUIRE(graph.has_restarts());
      const JobStateGraph direct = BuildRestartStateGraph(graph, RestartGraphForm::kDirect);
      const JobStateGraph hub = BuildRestartStateGraph(graph, RestartGraphForm::kLayoutHubs);
      for (const auto& s : hub.states) hubs_used |= s.run == RunState::kChange;
      PathEnumerator direct_paths(graph, direct, kLimit), hub_paths(graph, hub, kLimit);
      const Schedules a = direct_paths.Run(), b = hub_paths.Run();
      REQUIRE(direct_paths.paths() <= kLimit);
      REQUIRE(hub_paths.paths() <= kLimit);
      INFO(direct_paths.paths() << " direct paths, " << hub_paths.paths() << " hub paths");
      CHECK(!a.empty());
      CHECK(a.size() == direct_paths.paths());  // neither form has two paths per schedule
      CHECK(b.size() == hub_paths.paths());
      CHECK(a == b);
      // The point of the hub form: fewer edges.
      CHECK(hub.edges.size() < direct.edges.size());
    }
  }
  CHECK(hubs_used);
}

}  // namespace
}  // namespace ckptdp
