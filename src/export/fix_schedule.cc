// FixSchedule: pins a model's job columns to one schedule, leaving the power side free.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ckptdp/export.h"
#include "ckptdp/graph.h"
#include "export/internal/model_builder.h"
#include "export/internal/restart_graph.h"
#include "export/internal/state_graph.h"

namespace ckptdp {
namespace {

using export_internal::ColumnIndex;
using export_internal::GraphOptionsOf;
using export_internal::GraphState;
using export_internal::StateRules;
using export_internal::TrainName;
using export_internal::UsesGraph;
using export_internal::WaitName;

std::string RunText(const Job& job, int r, const Run& run) {
  return absl::StrCat("job ", job.name, " run ", r, " (slots ", run.start_slot, "-", run.end_slot,
                      ", segments ", run.from_segment, "->", run.to_segment, ", mode ", run.mode,
                      ")");
}

// Segment counts of back-to-back train edges in graph mode m that together cover `dk`
// segments in exactly `slots` slots: one edge when the run is an edge (fewest edges first),
// several when a run was recorded whole but the graph limits edges to max_dk segments
// (S1 and S5 record the baseline as one run). Empty if there is no such chain.
std::vector<int> SplitRun(const CheckpointGraph& graph, int m, int dk, int slots) {
  if (dk <= graph.max_dk() && graph.duration(m, dk) == slots) return {dk};
  // Breadth-first over (segments done, slots used), so the chain found has fewest edges.
  const int width = slots + 1;
  std::vector<int> parent((dk + 1) * width, -2);  // -2 unseen; else previous state
  std::vector<int> queue = {0};
  parent[0] = -1;
  for (size_t head = 0; head < queue.size(); ++head) {
    const int k = queue[head] / width, used = queue[head] % width;
    for (int piece = 1; piece <= std::min(graph.max_dk(), dk - k); ++piece) {
      const int next_used = used + graph.duration(m, piece);
      if (next_used > slots) break;
      const int next = (k + piece) * width + next_used;
      if (parent[next] != -2) continue;
      parent[next] = queue[head];
      queue.push_back(next);
    }
  }
  const int goal = dk * width + slots;
  if (parent[goal] == -2) return {};
  std::vector<int> pieces;
  for (int state = goal; state != 0; state = parent[state]) {
    pieces.push_back(state / width - parent[state] / width);
  }
  std::reverse(pieces.begin(), pieces.end());
  return pieces;
}

// GraphPathColumns for a job with restart overheads: each run is one train edge (the engine's
// restart DP reports one run per edge), paying the overhead its run state implies.
absl::StatusOr<std::vector<std::string>> RestartPathColumns(const Instance& instance,
                                                            Scenario scenario,
                                                            const CheckpointGraph& graph, int j,
                                                            const std::vector<int>& graph_mode,
                                                            const std::vector<Run>& runs) {
  using export_internal::FeasibleLayout;
  using export_internal::RestartRules;
  const Job& job = instance.jobs[j];
  const RestartRules rules(graph);
  std::vector<std::string> names;
  GraphState s = rules.Source();
  const auto wait_until = [&](int slot, const std::string& why) -> absl::Status {
    while (s.slot < slot) {
      std::optional<GraphState> next = rules.Wait(s);
      if (!next) {
        return absl::InvalidArgumentError(absl::StrCat(
            "fix: job ", job.name, " waits in slot ", s.slot, " at segment ", s.segment,
            " where scenario ", std::string(ScenarioName(scenario)), " forbids it (", why, ")"));
      }
      names.push_back(WaitName(j, false, FeasibleLayout(graph, s)));
      s = *next;
    }
    return absl::OkStatus();
  };
  for (int r = 0; r < static_cast<int>(runs.size()); ++r) {
    const Run& run = runs[r];
    const std::string what = RunText(job, r, run);
    if (run.start_slot < s.slot || run.from_segment != s.segment) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fix: ", what, " does not continue the path at slot ", s.slot, ", segment ", s.segment));
    }
    CKPTDP_RETURN_IF_ERROR(wait_until(run.start_slot, absl::StrCat("before ", what)));
    const int m =
        run.mode >= 0 && run.mode < static_cast<int>(graph_mode.size()) ? graph_mode[run.mode] : -1;
    const int dk = run.to_segment - run.from_segment;
    const int slots = run.end_slot - run.start_slot;
    bool edge = m >= 0 && dk >= 1 && dk <= graph.max_dk() && run.to_segment <= graph.segments();
    if (edge && m == graph.initial_mode() && rules.InitialEdgeFrom(s)) {
      edge = graph.initial_duration(dk) == slots;
    } else if (edge) {
      const std::optional<Overhead> o = rules.TrainOverhead(s, m);
      edge = o && graph.duration(m, dk, *o) == slots;
    }
    if (!edge) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fix: ", what, " is not a train edge of scenario ", std::string(ScenarioName(scenario)),
          " from the job's run state there (mode, segments or the length with its restart "
          "overhead, docs/model.md \"Restarts\", do not match)"));
    }
    if (rules.ViaHub(s, m)) {  // a change of layout goes through the (slot, segment)'s hub
      names.push_back(export_internal::HubArcName(j, FeasibleLayout(graph, s)));
      s = RestartRules::Hub(s);
    }
    names.push_back(TrainName(j, run.mode, false, FeasibleLayout(graph, s), dk));
    s = rules.Train(s, m, slots, dk);
  }
  CKPTDP_RETURN_IF_ERROR(wait_until(job.deadline_slot, "after the last run"));
  if (s.segment != job.segments) {
    return absl::InvalidArgumentError(absl::StrCat("fix: job ", job.name,
                                                   "'s schedule does not end at segment ",
                                                   job.segments, " by slot ", job.deadline_slot));
  }
  return names;
}

// The names of the columns on the schedule's path through job j's state graph, walking the
// engine's transition rules: waits up to each run, the run's train edge, waits to the end.
absl::StatusOr<std::vector<std::string>> GraphPathColumns(const Instance& instance,
                                                          Scenario scenario, const JobModes& modes,
                                                          int j, const std::vector<Run>& runs) {
  const Job& job = instance.jobs[j];
  const CheckpointGraph graph(instance, j, modes, GraphOptionsOf(scenario));
  const StateRules rules(graph);
  std::vector<int> graph_mode(modes.feasible.size(), -1);
  for (int m = 0; m < graph.num_modes(); ++m) graph_mode[graph.feasible_index(m)] = m;
  if (graph.has_restarts()) {
    return RestartPathColumns(instance, scenario, graph, j, graph_mode, runs);
  }

  std::vector<std::string> names;
  GraphState s = rules.Source();
  const auto wait_until = [&](int slot, const std::string& why) -> absl::Status {
    while (s.slot < slot) {
      std::optional<GraphState> next = rules.Wait(s);
      if (!next) {
        return absl::InvalidArgumentError(
            absl::StrCat("fix: job ", job.name, " waits in slot ", s.slot, " at segment ",
                         s.segment, " where scenario ", std::string(ScenarioName(scenario)),
                         " and the job's limits forbid it (", why, ")"));
      }
      names.push_back(WaitName(j, rules.resources(), s));
      s = *next;
    }
    return absl::OkStatus();
  };
  for (int r = 0; r < static_cast<int>(runs.size()); ++r) {
    const Run& run = runs[r];
    const std::string what = RunText(job, r, run);
    if (run.start_slot < s.slot || run.from_segment != s.segment) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fix: ", what, " does not continue the path at slot ", s.slot, ", segment ", s.segment));
    }
    CKPTDP_RETURN_IF_ERROR(wait_until(run.start_slot, absl::StrCat("before ", what)));
    const int m =
        run.mode >= 0 && run.mode < static_cast<int>(graph_mode.size()) ? graph_mode[run.mode] : -1;
    const int dk = run.to_segment - run.from_segment;
    if (m < 0 || dk < 1 || run.to_segment > graph.segments()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fix: ", what, " is not a train run of scenario ", std::string(ScenarioName(scenario)),
          " (its mode is not in the graph or its segments are out of range)"));
    }
    const std::vector<int> pieces = SplitRun(graph, m, dk, run.end_slot - run.start_slot);
    if (pieces.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fix: ", what, " is not a chain of train edges of scenario ",
          std::string(ScenarioName(scenario)), " (eq. 24 lengths and max_segments_per_run ",
          graph.max_dk(), " cannot make ", dk, " segments last exactly ",
          run.end_slot - run.start_slot, " slots)"));
    }
    for (int piece : pieces) {
      names.push_back(TrainName(j, run.mode, rules.resources(), s, piece));
      s = rules.Train(s, graph.duration(m, piece), piece);
    }
  }
  CKPTDP_RETURN_IF_ERROR(wait_until(job.deadline_slot, "after the last run"));
  if (!rules.IsSink(s)) {
    return absl::InvalidArgumentError(absl::StrCat("fix: job ", job.name,
                                                   "'s schedule does not end at segment ",
                                                   job.segments, " by slot ", job.deadline_slot));
  }
  return names;
}

// S3: y = 1 in every slot a run covers.
std::vector<std::string> SlotColumns(int j, const std::vector<Run>& runs) {
  std::vector<std::string> names;
  for (const Run& run : runs) {
    for (int t = run.start_slot; t < run.end_slot; ++t) {
      names.push_back(absl::StrCat("y_j", j, "_m", run.mode, "_t", t));
    }
  }
  return names;
}

}  // namespace

absl::Status FixSchedule(MilpModel& model, const Instance& instance,
                         const std::vector<JobModes>& modes, const Schedule& schedule) {
  const int jobs = static_cast<int>(instance.jobs.size());
  if (static_cast<int>(schedule.jobs.size()) != jobs || static_cast<int>(modes.size()) != jobs) {
    return absl::InvalidArgumentError(
        absl::StrCat("fix: the schedule has ", schedule.jobs.size(), " jobs, the instance ", jobs));
  }
  const bool checkpoints = UsesGraph(model.scenario);
  const auto index = ColumnIndex(model);
  std::vector<int> on_path;
  for (int j = 0; j < jobs; ++j) {
    absl::StatusOr<std::vector<std::string>> names =
        checkpoints ? GraphPathColumns(instance, model.scenario, modes[j], j, schedule.jobs[j])
                    : SlotColumns(j, schedule.jobs[j]);
    if (!names.ok()) return names.status();
    for (const std::string& name : *names) {
      const auto it = index.find(name);
      if (it == index.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "fix: column ", name, " of job ", instance.jobs[j].name,
            "'s schedule is not in the model (an edge off every feasible path, or a mode the "
            "scenario does not allow)"));
      }
      on_path.push_back(it->second);
    }
  }
  for (MilpColumn& c : model.columns) {
    const ColumnKind k = c.role.kind;
    if (k == ColumnKind::kWait || k == ColumnKind::kTrain || k == ColumnKind::kSlotMode ||
        k == ColumnKind::kLayoutChange) {
      c.lower = c.upper = 0;
    }
  }
  for (int c : on_path) model.columns[c].lower = model.columns[c].upper = 1;
  return absl::OkStatus();
}

}  // namespace ckptdp
