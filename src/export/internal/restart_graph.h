// The state graph of a job with restart overheads (docs/model.md, "Restarts"), written out
// for the MILP export exactly as the engine's DP walks it (dispatch/path_dp_restarts.cc).
//
// A state (slot, segment) is expanded by the job's run state there: running in layout m (an
// edge in m ended exactly there), paused with last layout m, or "new" (not started; when
// reshard is free, every paused state is "new" too, since all of them pay resume alone).
// Edges: a wait pauses a running job (running m -> paused m) or keeps it paused; a train edge
// in mode m pays no overhead from "running m", resume from "paused m" or "new" (or, without
// reshard, from any other running layout), resume + reshard from another layout. The job's
// initial run may continue from (0, 0) in its layout with its head start and no overhead;
// a pruned initial layout serves only that run and its free continuations.
#ifndef CKPTDP_EXPORT_INTERNAL_RESTART_GRAPH_H_
#define CKPTDP_EXPORT_INTERNAL_RESTART_GRAPH_H_

#include <optional>

#include "ckptdp/graph.h"
#include "export/internal/state_graph.h"

namespace ckptdp::export_internal {

// The engine's restart rules over states whose `layout` is a graph mode (not yet a
// feasible-mode index; BuildRestartStateGraph translates for the names).
class RestartRules {
 public:
  explicit RestartRules(const CheckpointGraph& graph);

  GraphState Source() const;
  // The state after waiting one slot, or nullopt if the rules forbid waiting here.
  std::optional<GraphState> Wait(const GraphState& s) const;
  // The overhead a train edge in graph mode m pays from s, or nullopt if the rules forbid
  // starting it there (a pruned initial layout; resuming the initial layout at the release).
  std::optional<Overhead> TrainOverhead(const GraphState& s, int m) const;
  // Whether the initial run can continue from s.
  bool InitialEdgeFrom(const GraphState& s) const;
  // The state after a train edge in graph mode m of `slots` slots covering `dk` segments.
  GraphState Train(const GraphState& s, int m, int slots, int dk) const;

 private:
  const CheckpointGraph& graph_;
  bool reshard_;
};

JobStateGraph BuildRestartStateGraph(const CheckpointGraph& graph);

// `s` with its layout as a feasible-mode index, as names and JobStateGraph states use it.
GraphState FeasibleLayout(const CheckpointGraph& graph, GraphState s);

}  // namespace ckptdp::export_internal

#endif  // CKPTDP_EXPORT_INTERNAL_RESTART_GRAPH_H_
