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
//
// Layout changes go through a hub (the default form, docs/model.md "The MILP export"): a
// train edge from running/paused m in another mode m' costs the same whatever m is, so
// instead of M x M such edges per (slot, segment, dk), every running/paused state of the
// (slot, segment) has a zero-time arc into one kChange hub there, the hub has one train
// edge per mode and dk, and a row per layout m (HubRowName) forbids entering the hub from m
// and leaving it in m. A unit flow on this acyclic graph is one path, which passes a hub at
// most once, so for integer flows the row is exactly "m' != m": the hub form has the same
// paths (same train edges, overheads and slots) as the direct form.
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
  // Whether a train edge in graph mode m from s is a layout change that the hub form routes
  // through the kChange hub of s's (slot, segment): s runs or paused in another layout.
  bool ViaHub(const GraphState& s, int m) const;
  // The layout-change hub of s's (slot, segment).
  static GraphState Hub(const GraphState& s);
  // Whether the initial run can continue from s.
  bool InitialEdgeFrom(const GraphState& s) const;
  // The state after a train edge in graph mode m of `slots` slots covering `dk` segments.
  GraphState Train(const GraphState& s, int m, int slots, int dk) const;

 private:
  const CheckpointGraph& graph_;
  bool reshard_;
};

enum class RestartGraphForm {
  kLayoutHubs,  // layout changes through one hub per (slot, segment): what the export writes
  kDirect,      // one edge per (layout, mode) pair: the reference the hub form is tested on
};

JobStateGraph BuildRestartStateGraph(const CheckpointGraph& graph,
                                     RestartGraphForm form = RestartGraphForm::kLayoutHubs);

// `s` with its layout as a feasible-mode index, as names and JobStateGraph states use it.
GraphState FeasibleLayout(const CheckpointGraph& graph, GraphState s);

}  // namespace ckptdp::export_internal

#endif  // CKPTDP_EXPORT_INTERNAL_RESTART_GRAPH_H_
