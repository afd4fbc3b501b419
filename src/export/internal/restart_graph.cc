#include "export/internal/restart_graph.h"

#include <algorithm>

namespace ckptdp::export_internal {

RestartRules::RestartRules(const CheckpointGraph& graph)
    : graph_(graph), reshard_(graph.reshard_minutes() > 0) {}

GraphState RestartRules::Source() const {
  GraphState s{graph_.release(), 0, 0, 0, RunState::kNew, -1};
  // A job running at slot 0 that pauses first has its initial layout as the previous one.
  if (reshard_ && graph_.initial_mode() >= 0) {
    s.run = RunState::kPaused;
    s.layout = graph_.initial_mode();
  }
  return s;
}

std::optional<GraphState> RestartRules::Wait(const GraphState& s) const {
  if (s.run == RunState::kChange) return std::nullopt;  // the hub takes no time
  if (s.slot >= graph_.deadline()) return std::nullopt;
  const bool at_end = s.segment == graph_.segments();
  if (at_end ? !graph_.boundary_idle_allowed() : !graph_.allow_wait()) return std::nullopt;
  GraphState next = s;
  next.slot = s.slot + 1;
  if (s.run == RunState::kRunning) {
    next.run = reshard_ ? RunState::kPaused : RunState::kNew;
    if (!reshard_) next.layout = -1;
  }
  return next;
}

std::optional<Overhead> RestartRules::TrainOverhead(const GraphState& s, int m) const {
  if (s.run == RunState::kRunning && s.layout == m) return Overhead::kNone;
  if (graph_.initial_only(m)) return std::nullopt;
  // At the release the initial layout continues the initial run (InitialEdgeFrom) rather
  // than restarting it.
  if (m == graph_.initial_mode() && s.slot == graph_.release()) return std::nullopt;
  if (!reshard_) return Overhead::kResume;  // resume + reshard lasts as long as resume
  if (s.run == RunState::kChange) return Overhead::kRestart;  // the hub's rows forbid m itself
  if (s.run == RunState::kNew) {
    return graph_.initial_outside() ? Overhead::kRestart : Overhead::kResume;
  }
  return s.layout == m ? Overhead::kResume : Overhead::kRestart;
}

bool RestartRules::ViaHub(const GraphState& s, int m) const {
  return (s.run == RunState::kRunning || s.run == RunState::kPaused) && s.layout != m;
}

GraphState RestartRules::Hub(const GraphState& s) {
  return GraphState{s.slot, s.segment, 0, 0, RunState::kChange, -1};
}

bool RestartRules::InitialEdgeFrom(const GraphState& s) const {
  return graph_.initial_mode() >= 0 && graph_.release() == 0 && s == Source();
}

GraphState RestartRules::Train(const GraphState& s, int m, int slots, int dk) const {
  return GraphState{s.slot + slots, s.segment + dk, 0, 0, RunState::kRunning, m};
}

GraphState FeasibleLayout(const CheckpointGraph& graph, GraphState s) {
  if (s.layout >= 0) s.layout = graph.feasible_index(s.layout);
  return s;
}

JobStateGraph BuildRestartStateGraph(const CheckpointGraph& graph, RestartGraphForm form) {
  const bool hubs = form == RestartGraphForm::kLayoutHubs;
  const RestartRules rules(graph);
  const int release = graph.release(), deadline = graph.deadline();
  const int segments = graph.segments(), max_dk = graph.max_dk(), modes = graph.num_modes();
  const int layers = deadline - release + 1, width = segments + 1;
  // Run rows as in the DP: running m (0..M-1), paused m (M..2M-1), new (2M); then the hub
  // (2M+1), after the states that feed it, so that the index stays a topological order.
  const int rows = 2 * modes + 2;
  const auto row_of = [&](const GraphState& s) {
    return s.run == RunState::kRunning  ? s.layout
           : s.run == RunState::kPaused ? modes + s.layout
           : s.run == RunState::kNew    ? 2 * modes
                                        : 2 * modes + 1;
  };
  const auto index = [&](const GraphState& s) {
    return (static_cast<size_t>(s.slot - release) * width + s.segment) * rows + row_of(s);
  };
  const size_t total = static_cast<size_t>(layers) * width * rows;
  std::vector<GraphState> state_of(total);
  for (int ti = 0; ti < layers; ++ti) {
    for (int k = 0; k <= segments; ++k) {
      for (int row = 0; row < rows; ++row) {
        GraphState s{release + ti, k, 0, 0, RunState::kNew, -1};
        if (row < 2 * modes) {
          s.run = row < modes ? RunState::kRunning : RunState::kPaused;
          s.layout = row % modes;
        } else if (row == 2 * modes + 1) {
          s.run = RunState::kChange;
        }
        state_of[index(s)] = s;
      }
    }
  }

  // Forward over reachable states in time order (every edge moves forward in time).
  std::vector<char> reachable(total, 0);
  std::vector<GraphEdge> candidates;
  const size_t source = index(rules.Source());
  reachable[source] = 1;
  const auto add = [&](size_t from, const GraphState& to, GraphEdge e) {
    const size_t j = index(to);
    reachable[j] = 1;
    e.from = static_cast<int>(from);
    e.to = static_cast<int>(j);
    candidates.push_back(e);
  };
  for (size_t i = 0; i < total; ++i) {
    if (!reachable[i]) continue;
    const GraphState& s = state_of[i];
    if (std::optional<GraphState> next = rules.Wait(s)) add(i, *next, GraphEdge{});
    const int dk_limit = std::min(max_dk, segments - s.segment);
    if (rules.InitialEdgeFrom(s)) {
      const int m = graph.initial_mode();
      for (int dk = 1; dk <= dk_limit; ++dk) {
        const int end = s.slot + graph.initial_duration(dk);
        if (end > deadline) break;
        GraphEdge e;
        e.graph_mode = m;
        e.dk = dk;
        e.continues_initial = true;
        add(i, rules.Train(s, m, end - s.slot, dk), e);
      }
    }
    if (hubs && dk_limit > 0 && (s.run == RunState::kRunning || s.run == RunState::kPaused)) {
      GraphEdge e;
      e.into_hub = true;
      add(i, RestartRules::Hub(s), e);
    }
    for (int m = 0; m < modes; ++m) {
      if (hubs && rules.ViaHub(s, m)) continue;
      const std::optional<Overhead> o = rules.TrainOverhead(s, m);
      if (!o) continue;
      for (int dk = 1; dk <= dk_limit; ++dk) {
        const int end = s.slot + graph.duration(m, dk, *o);
        if (end > deadline) break;  // durations grow with dk
        GraphEdge e;
        e.graph_mode = m;
        e.dk = dk;
        e.overhead = *o;
        add(i, rules.Train(s, m, end - s.slot, dk), e);
      }
    }
  }
  std::vector<char> sink(total, 0);
  for (size_t i = 0; i < total; ++i) {
    sink[i] = state_of[i].slot == deadline && state_of[i].segment == segments &&
              state_of[i].run != RunState::kChange;
  }
  JobStateGraph out = KeepUsefulStates(state_of, reachable, candidates, source, sink);
  out.restarts = true;
  // Names and roles speak of feasible modes.
  for (GraphState& s : out.states) s = FeasibleLayout(graph, s);
  return out;
}

}  // namespace ckptdp::export_internal
