#include "export/internal/state_graph.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace ckptdp::export_internal {

StateRules::StateRules(const CheckpointGraph& graph)
    : graph_(graph),
      resources_(graph.min_run_slots() > 1 || graph.max_pauses() >= 0),
      // As in PathSolver::SolveWithResources: the cap is >= 1 so that pauses are seen.
      run_cap_(resources_ ? std::max(1, graph.min_run_slots()) : 0),
      pause_cap_(resources_ && graph.max_pauses() >= 0 ? graph.max_pauses() : 0),
      count_pauses_(resources_ && graph.max_pauses() >= 0) {}

bool StateRules::IsSink(const GraphState& s) const {
  if (s.slot != graph_.deadline() || s.segment != graph_.segments()) return false;
  // A block shorter than min_run_slots may not end the path either.
  return !resources_ || s.run_slots == 0 || s.run_slots == run_cap_;
}

std::optional<GraphState> StateRules::Wait(const GraphState& s) const {
  if (s.slot >= graph_.deadline()) return std::nullopt;
  const bool at_end = s.segment == graph_.segments();
  GraphState next = s;
  next.slot = s.slot + 1;
  if (!resources_) {
    // Waiting after the last segment is boundary idle; before it, checkpoint waiting.
    if (at_end ? !graph_.boundary_idle_allowed() : !graph_.allow_wait()) return std::nullopt;
    return next;
  }
  if (s.run_slots == 0) {  // already idle: the pause (if any) was counted when it began
    if (at_end ? !graph_.boundary_idle_allowed() : !graph_.allow_wait()) return std::nullopt;
    return next;
  }
  if (s.run_slots < run_cap_) return std::nullopt;  // the block is too short to stop
  next.run_slots = 0;
  if (at_end) {
    if (!graph_.boundary_idle_allowed()) return std::nullopt;
    return next;  // idling after the last segment is not a pause
  }
  if (!graph_.allow_wait()) return std::nullopt;
  if (count_pauses_) {
    if (s.pauses >= pause_cap_) return std::nullopt;
    ++next.pauses;
  }
  return next;
}

GraphState StateRules::Train(const GraphState& s, int slots, int dk) const {
  GraphState next = s;
  next.slot = s.slot + slots;
  next.segment = s.segment + dk;
  if (resources_) next.run_slots = std::min(run_cap_, s.run_slots + slots);
  return next;
}

JobStateGraph BuildJobStateGraph(const CheckpointGraph& graph) {
  const StateRules rules(graph);
  const int release = graph.release(), deadline = graph.deadline();
  const int segments = graph.segments(), max_dk = graph.max_dk();
  const int layers = deadline - release + 1, width = segments + 1;
  const int c_width = rules.run_cap() + 1, p_width = rules.pause_cap() + 1;
  const auto index = [&](const GraphState& s) {
    return ((static_cast<size_t>(s.slot - release) * width + s.segment) * c_width + s.run_slots) *
               p_width +
           s.pauses;
  };
  const size_t total = static_cast<size_t>(layers) * width * c_width * p_width;
  std::vector<GraphState> state_of(total);
  for (int ti = 0; ti < layers; ++ti) {
    for (int k = 0; k <= segments; ++k) {
      for (int c = 0; c < c_width; ++c) {
        for (int p = 0; p < p_width; ++p) {
          const GraphState s{release + ti, k, c, p};
          state_of[index(s)] = s;
        }
      }
    }
  }

  // Forward: every edge out of a reachable state, in increasing time of the tail (the
  // dense index is time-major and every edge moves forward in time).
  std::vector<char> reachable(total, 0);
  std::vector<GraphEdge> candidates;  // endpoints as dense indices for now
  reachable[index(rules.Source())] = 1;
  for (size_t i = 0; i < total; ++i) {
    if (!reachable[i]) continue;
    const GraphState& s = state_of[i];
    if (std::optional<GraphState> next = rules.Wait(s)) {
      const size_t j = index(*next);
      reachable[j] = 1;
      candidates.push_back({static_cast<int>(i), static_cast<int>(j), -1, 0});
    }
    const int dk_limit = std::min(max_dk, segments - s.segment);
    for (int m = 0; m < graph.num_modes(); ++m) {
      for (int dk = 1; dk <= dk_limit; ++dk) {
        const int l = graph.duration(m, dk);
        if (s.slot + l > deadline) break;  // durations grow with dk
        const size_t j = index(rules.Train(s, l, dk));
        reachable[j] = 1;
        candidates.push_back({static_cast<int>(i), static_cast<int>(j), m, dk});
      }
    }
  }

  std::vector<char> sink(total, 0);
  for (size_t i = 0; i < total; ++i) sink[i] = rules.IsSink(state_of[i]);
  JobStateGraph out =
      KeepUsefulStates(state_of, reachable, candidates, index(rules.Source()), sink);
  out.resources = rules.resources();
  return out;
}

JobStateGraph KeepUsefulStates(const std::vector<GraphState>& state_of,
                               const std::vector<char>& reachable,
                               const std::vector<GraphEdge>& candidates, size_t source,
                               const std::vector<char>& sink) {
  const size_t total = state_of.size();
  // Backward: a state is useful if some edge leads from it to a useful state or a sink.
  // Edges were generated in increasing time of their tails, so walking them in reverse
  // sees every head's final mark before the edges into it.
  std::vector<char> useful(total, 0);
  for (size_t i = 0; i < total; ++i) {
    if (reachable[i] && sink[i]) useful[i] = 1;
  }
  for (auto e = candidates.rbegin(); e != candidates.rend(); ++e) {
    if (useful[e->to]) useful[e->from] = 1;
  }

  JobStateGraph out;
  std::vector<int> kept(total, -1);
  for (size_t i = 0; i < total; ++i) {
    if (!reachable[i] || !useful[i]) continue;
    kept[i] = static_cast<int>(out.states.size());
    out.states.push_back(state_of[i]);
    if (sink[i]) out.sinks.push_back(kept[i]);
  }
  out.source = kept[source];
  if (out.source < 0) {  // no path at all: an empty graph
    out.states.clear();
    out.sinks.clear();
    return out;
  }
  for (GraphEdge e : candidates) {
    if (kept[e.from] < 0 || kept[e.to] < 0) continue;
    e.from = kept[e.from];
    e.to = kept[e.to];
    out.edges.push_back(e);
  }
  return out;
}

std::string StateSuffix(bool resources, const GraphState& s) {
  switch (s.run) {
    case RunState::kRunning:
      return absl::StrCat("_r", s.layout);
    case RunState::kPaused:
      return absl::StrCat("_s", s.layout);
    case RunState::kNew:
      return "_s";
    case RunState::kChange:
      return "_h";
    case RunState::kUntracked:
      break;
  }
  return resources ? absl::StrCat("_c", s.run_slots, "_p", s.pauses) : std::string();
}

std::string WaitName(int job, bool resources, const GraphState& s) {
  return absl::StrCat("w_j", job, "_t", s.slot, "_k", s.segment, StateSuffix(resources, s));
}

std::string TrainName(int job, int feasible_mode, bool resources, const GraphState& s, int dk) {
  return absl::StrCat("x_j", job, "_m", feasible_mode, "_t", s.slot, "_k", s.segment, "_n", dk,
                      StateSuffix(resources, s));
}

std::string FlowRowName(int job, bool resources, const GraphState& s) {
  return absl::StrCat("flow_j", job, "_t", s.slot, "_k", s.segment, StateSuffix(resources, s));
}

std::string HubArcName(int job, const GraphState& s) {
  return absl::StrCat("h_j", job, "_t", s.slot, "_k", s.segment, StateSuffix(false, s));
}

std::string HubRowName(int job, const GraphState& hub, int feasible_mode) {
  return absl::StrCat("chg_j", job, "_t", hub.slot, "_k", hub.segment, "_m", feasible_mode);
}

}  // namespace ckptdp::export_internal
