#include "support/reference_path.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/r_c_shortest_paths.hpp>

namespace ckptdp::internal {
namespace {

constexpr int kWaitArc = -1;
constexpr int kNoLayout = -1;       // the job has not run yet and was not running at slot 0
constexpr int kOutsideLayout = -2;  // running at slot 0 in a layout that is not a graph mode

struct VertexProp {
  int slot = 0;
  int segment = 0;
};

// Everything about an edge is precomputed here, so the resource extension function only
// reads the arc: the graph is built once per solve and never changes during it.
struct ArcProp {
  int index = 0;        // edge index map required by r_c_shortest_paths (unused by it)
  int mode = kWaitArc;  // graph mode of a train edge, kWaitArc for a wait edge
  int start_slot = 0;
  int end_slot = 0;
  int from_segment = 0;
  int to_segment = 0;
  double cost = 0;
  Overhead overhead = Overhead::kNone;  // the restart class whose duration the arc has
  bool continues_initial = false;       // the arc continues the initial run from slot 0
};

// vecS/vecS gives the vertex_index map for free; directedS because paths only go forward
// in time. Parallel edges (several modes between the same two nodes) are allowed.
using Graph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, VertexProp, ArcProp>;
using Edge = boost::graph_traits<Graph>::edge_descriptor;

// The label of a partial path. `slot` is implied by the resident vertex; it is kept only so
// that operator< pops labels in time order, which makes the label-setting search process a
// vertex after all its predecessors and so keeps the number of labels small.
struct Resources {
  int slot = 0;
  double cost = 0;
  bool in_block = false;      // the last edge was a train edge
  int block = 0;              // slots of the current block (consecutive train edges); 0 if idle
  int pauses = 0;             // waits that directly followed a train edge while 0 < k < K
  int last_mode = kNoLayout;  // layout of the previous run (restarts)
  bool fresh = true;          // no edge taken yet

  // A strict weak order is all the priority queue needs; it is total on the fields, so the
  // search is deterministic.
  friend bool operator<(const Resources& a, const Resources& b) {
    return std::make_tuple(a.slot, a.cost, a.pauses, a.in_block, -a.block, a.last_mode, a.fresh) <
           std::make_tuple(b.slot, b.cost, b.pauses, b.in_block, -b.block, b.last_mode, b.fresh);
  }
};

// Resource extension: applies the operators' rules edge by edge, written from their
// definition rather than from the DP's state encoding.
class ExtendLabel {
 public:
  explicit ExtendLabel(const CheckpointGraph& g)
      : deadline_(g.deadline()),
        segments_(g.segments()),
        allow_wait_(g.allow_wait()),
        boundary_idle_(g.boundary_idle_allowed()),
        min_run_(g.min_run_slots()),
        max_pauses_(g.max_pauses()),
        graph_(g) {}

  // The restart class a train edge in `mode` must pay after `prev` (docs/model.md), or
  // nullopt if the edge may not follow it at all.
  std::optional<Overhead> Required(const Resources& prev, int mode) const {
    const bool running = prev.in_block;
    if (running && prev.last_mode == mode) return Overhead::kNone;
    if (graph_.initial_only(mode)) return std::nullopt;  // the pruned initial layout: its run only
    if (!running && prev.last_mode == mode) {
      if (prev.fresh) return std::nullopt;  // at slot 0 in its own layout the job continues
      return Overhead::kResume;
    }
    if (prev.last_mode == kNoLayout) return Overhead::kResume;
    return Overhead::kRestart;
  }

  bool operator()(const Graph& graph, Resources& next, const Resources& prev,
                  const Edge& edge) const {
    const ArcProp& arc = graph[edge];
    next = prev;
    next.slot = arc.end_slot;
    next.fresh = false;
    if (arc.mode != kWaitArc) {
      if (graph_.has_restarts()) {
        if (arc.continues_initial) {
          if (!prev.fresh) return false;
        } else {
          const std::optional<Overhead> required = Required(prev, arc.mode);
          if (!required.has_value() || *required != arc.overhead) return false;
        }
        next.last_mode = arc.mode;
      }
      next.cost = prev.cost + arc.cost;
      const int length = arc.end_slot - arc.start_slot;
      next.block = prev.in_block ? prev.block + length : length;
      next.in_block = true;
      // The sink has no out-edges: a block that reaches it ends there and must already be
      // long enough. Checking here keeps short-block labels out of the Pareto set.
      if (arc.end_slot == deadline_ && arc.to_segment == segments_ && next.block < min_run_) {
        return false;
      }
      return true;
    }
    // Wait edges are only built where the scenario allows them; re-check anyway so that the
    // oracle does not depend on how the graph was built.
    const bool after_last = arc.from_segment == segments_;
    if (after_last ? !boundary_idle_ : !allow_wait_) return false;
    if (prev.in_block) {
      // This wait ends a block (before a pause or before boundary idle).
      if (prev.block < min_run_) return false;
      // Only the first wait after training starts a pause; waits before the first train
      // edge (never in a block) and after the last segment (boundary idle) are not pauses.
      if (!after_last && arc.from_segment > 0) {
        ++next.pauses;
        if (max_pauses_ >= 0 && next.pauses > max_pauses_) return false;
      }
    }
    next.in_block = false;
    next.block = 0;
    return true;
  }

 private:
  int deadline_, segments_;
  bool allow_wait_, boundary_idle_;
  int min_run_, max_pauses_;
  const CheckpointGraph& graph_;
};

// `a` dominates `b` (both at the same vertex, hence the same slot) if every completion of
// `b` is also a completion of `a` at no higher cost:
//  - in_block must match: a label in a block may extend it, an idle one starts a new block
//    (and needs min_run_slots again); an idle label waits for free, a busy one uses a pause.
//  - cost and pauses (when limited) no larger.
//  - in a block, a block length no shorter, compared after capping at min_run_slots (beyond
//    it every length can end the block, so longer is no better).
// The relation is a preorder and the extension is monotone in it, so pruning is exact.
class Dominates {
 public:
  explicit Dominates(const CheckpointGraph& g)
      : block_cap_(std::max(g.min_run_slots(), 0)), pauses_limited_(g.max_pauses() >= 0) {}

  bool operator()(const Resources& a, const Resources& b) const {
    if (a.in_block != b.in_block) return false;
    if (a.last_mode != b.last_mode || a.fresh != b.fresh) return false;
    if (a.cost > b.cost) return false;
    if (pauses_limited_ && a.pauses > b.pauses) return false;
    if (a.in_block && std::min(a.block, block_cap_) < std::min(b.block, block_cap_)) {
      return false;
    }
    return true;
  }

 private:
  int block_cap_;
  bool pauses_limited_;
};

}  // namespace

PathSolution ReferenceShortestPath(const CheckpointGraph& g, const EdgeCosts& costs) {
  PathSolution out;
  const int release = g.release(), deadline = g.deadline(), segments = g.segments();
  if (deadline < release || segments < 0) return out;
  const int width = segments + 1, layers = deadline - release + 1;
  auto vertex = [&](int slot, int k) { return (slot - release) * width + k; };

  Graph graph(static_cast<size_t>(layers) * width);
  int next_arc = 0;
  for (int t = release; t <= deadline; ++t) {
    for (int k = 0; k <= segments; ++k) {
      graph[vertex(t, k)] = VertexProp{t, k};
      if (t < deadline && (k < segments ? g.allow_wait() : g.boundary_idle_allowed()) &&
          costs.WaitAllowed(t)) {
        ArcProp wait{next_arc++, kWaitArc, t, t + 1, k, k, 0.0};
        boost::add_edge(vertex(t, k), vertex(t + 1, k), wait, graph);
      }
      // Every (mode, dk, overhead class) is tried: unlike the DP, no early exit that relies
      // on durations growing with dk. Which class an edge must pay is the labels' business.
      for (int m = 0; m < g.num_modes(); ++m) {
        for (int dk = 1; dk <= std::min(g.max_dk(), segments - k); ++dk) {
          for (Overhead o : {Overhead::kNone, Overhead::kResume, Overhead::kRestart}) {
            if (o != Overhead::kNone && !g.has_restarts()) break;
            const int end = t + g.duration(m, dk, o);
            if (end > deadline || !costs.Allowed(m, t, end)) continue;
            ArcProp train{next_arc++, m, t, end, k, k + dk, costs.Cost(m, t, end), o};
            boost::add_edge(vertex(t, k), vertex(end, k + dk), train, graph);
          }
          // The initial run goes on from slot 0 with part of its first segment done.
          if (m == g.initial_mode() && t == 0 && k == 0) {
            const int end = g.initial_duration(dk);
            if (end > deadline || !costs.Allowed(m, t, end)) continue;
            ArcProp train{next_arc++,      m,   t, end, k, k + dk, costs.Cost(m, t, end),
                          Overhead::kNone, true};
            boost::add_edge(vertex(t, k), vertex(end, k + dk), train, graph);
          }
        }
      }
    }
  }

  const auto source = boost::vertex(vertex(release, 0), graph);
  const auto sink = boost::vertex(vertex(deadline, segments), graph);
  std::vector<std::vector<Edge>> paths;
  std::vector<Resources> labels;
  Resources initial;
  initial.slot = release;
  initial.last_mode = g.initial_mode() >= 0 ? g.initial_mode()
                      : g.initial_outside() ? kOutsideLayout
                                            : kNoLayout;
  // The all-Pareto overload: the single-solution overload of Boost 1.74 stops at the first
  // label popped at the sink, which is not the cheapest one in general (boostorg/graph#363).
  boost::r_c_shortest_paths(graph, boost::get(boost::vertex_index, graph),
                            boost::get(&ArcProp::index, graph), source, sink, paths, labels,
                            initial, ExtendLabel(g), Dominates(g));

  int best = -1;
  for (int i = 0; i < static_cast<int>(labels.size()); ++i) {
    // Labels at the sink are all feasible (the extension rejects short final blocks); the
    // first of equally cheap ones is taken so that the result is deterministic.
    if (best < 0 || labels[i].cost < labels[best].cost) best = i;
  }
  if (best < 0) return out;
  out.feasible = true;
  out.cost = labels[best].cost;
  // r_c_shortest_paths returns the edges from the sink back to the source.
  for (auto it = paths[best].rbegin(); it != paths[best].rend(); ++it) {
    const ArcProp& arc = graph[*it];
    if (arc.mode == kWaitArc) continue;
    Run run;
    run.start_slot = arc.start_slot;
    run.end_slot = arc.end_slot;
    run.from_segment = arc.from_segment;
    run.to_segment = arc.to_segment;
    run.mode = g.feasible_index(arc.mode);
    run.overhead_minutes = g.OverheadMinutes(arc.overhead);
    run.continues_initial = arc.continues_initial;
    out.runs.push_back(run);
  }
  return out;
}

}  // namespace ckptdp::internal
