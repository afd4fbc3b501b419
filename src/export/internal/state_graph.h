// A job's checkpoint-state graph written out explicitly for the MILP export.
//
// The engine never materialises the graph: its DP (dispatch/path_dp.cc) walks states and
// edges implicitly. The export needs them as columns and rows, and they must be exactly the
// DP's: the same wait rule (checkpoint waiting before segment K, boundary idle after it),
// the same train edges (graph modes, dk <= max_dk, ending by the deadline), and with
// operators' limits the same resource-expanded states (run length capped at min_run_slots,
// pauses used). StateRules is that transition function; BuildJobStateGraph enumerates it
// and keeps only states on some source-sink path, which keeps the models small.
#ifndef CKPTDP_EXPORT_INTERNAL_STATE_GRAPH_H_
#define CKPTDP_EXPORT_INTERNAL_STATE_GRAPH_H_

#include <optional>
#include <string>
#include <vector>

#include "ckptdp/graph.h"

namespace ckptdp::export_internal {

enum class RunState {
  kUntracked,  // a job without restart overheads
  kRunning,    // an edge in `layout` ended here: training on in it is free
  kPaused,     // paused, the last run was in `layout`
  kNew,        // no previous layout that matters (not started; or reshard is free)
  kChange,     // the layout-change hub of (slot, segment): left a layout, enters another
};

struct GraphState {
  int slot = 0;
  int segment = 0;
  int run_slots = 0;  // length of the current training block, capped (resources only)
  int pauses = 0;     // pauses used so far (only when max_pauses >= 0)
  // Run state (only for jobs with restart overheads, restart_graph.h): what the job is doing
  // when it stands at (slot, segment) and the feasible mode of its current or last layout.
  RunState run = RunState::kUntracked;
  int layout = -1;
  friend bool operator==(const GraphState&, const GraphState&) = default;
};

// The DP's transition rules for one job (PathSolver::SolvePlain / SolveWithResources).
class StateRules {
 public:
  explicit StateRules(const CheckpointGraph& graph);

  // Whether the job needs the resource-expanded states (engine: HasSideResources).
  bool resources() const { return resources_; }
  int run_cap() const { return run_cap_; }
  int pause_cap() const { return pause_cap_; }

  GraphState Source() const { return {graph_.release(), 0, 0, 0}; }
  bool IsSink(const GraphState& s) const;
  // The state after waiting one slot, or nullopt if the rules forbid waiting here.
  std::optional<GraphState> Wait(const GraphState& s) const;
  // The state after a train edge of `slots` slots covering `dk` segments.
  GraphState Train(const GraphState& s, int slots, int dk) const;

 private:
  const CheckpointGraph& graph_;
  bool resources_;
  int run_cap_;
  int pause_cap_;
  bool count_pauses_;
};

struct GraphEdge {
  int from = 0;  // indices into JobStateGraph::states
  int to = 0;
  int graph_mode = -1;                  // -1: wait edge; else the CheckpointGraph mode
  int dk = 0;                           // segments covered by a train edge
  Overhead overhead = Overhead::kNone;  // restart overhead the train edge pays
  bool continues_initial = false;       // the edge continues Job::initial from slot 0
  bool into_hub = false;  // a zero-time arc from a running/paused state to its kChange hub
};

struct JobStateGraph {
  bool resources = false;
  bool restarts = false;           // states carry the run state (restart_graph.h)
  std::vector<GraphState> states;  // kept: reachable from the source and reaching a sink
  int source = -1;                 // index into states, -1 if the sink is unreachable
  std::vector<int> sinks;
  std::vector<GraphEdge> edges;  // between kept states
};

// Restart graphs (graph.has_restarts()) are built by BuildRestartStateGraph instead.
JobStateGraph BuildJobStateGraph(const CheckpointGraph& graph);

// Keeps the states of `state_of` (dense) that are reachable and lie on a path to a sink,
// and the candidate edges (endpoints as dense indices) between kept states.
JobStateGraph KeepUsefulStates(const std::vector<GraphState>& state_of,
                               const std::vector<char>& reachable,
                               const std::vector<GraphEdge>& candidates, size_t source,
                               const std::vector<char>& sink);

// Column and row names (see ckptdp/export.h for the scheme).
std::string StateSuffix(bool resources, const GraphState& s);
std::string WaitName(int job, bool resources, const GraphState& s);
std::string TrainName(int job, int feasible_mode, bool resources, const GraphState& s, int dk);
std::string FlowRowName(int job, bool resources, const GraphState& s);
// The arc from s (running or paused in a layout) into the layout-change hub of its
// (slot, segment), and the hub's row forbidding to leave it in the layout it entered from.
std::string HubArcName(int job, const GraphState& s);
std::string HubRowName(int job, const GraphState& hub, int feasible_mode);

}  // namespace ckptdp::export_internal

#endif  // CKPTDP_EXPORT_INTERNAL_STATE_GRAPH_H_
