// Path DP with restart overheads (docs/model.md, "Restarts"). A state (slot, segment) is
// expanded by the job's run state at that slot: running in graph mode m (an edge in mode m
// ended exactly there), or paused (with its last layout when a reshard overhead makes it
// matter), or not started yet. An edge then costs its overhead class's duration:
// continuing the running layout is free, a start after a pause pays resume, a start in
// another layout pays resume + reshard. Jobs without overheads or an initial run never
// come here and keep SolvePlain's K + 1 states per slot.
//
// State rows (the backward pass's view): 0..M-1 are "running in mode m". Idle rows follow:
// with a reshard overhead, M + m is "paused, last layout m" and 2M is "no previous layout
// in this graph"; without one, the single row M is every paused or unstarted state (they
// all pay resume alone). Stored per layer (value_): the M running rows, then with a
// reshard overhead M "last layout" rows (min of running in m and paused after m), without
// one a single row (the min over every state). A paused state of the next layer is the
// stored row where the wait is allowed, so idle rows are never stored; "not started" is
// finite at segment 0 only and is handled as a scalar. Like SolvePlain, predecessors are
// not stored: the backward pass re-finds them by exact comparison of the forward pass's
// own sums.
//
// Speed (docs/model.md, "Restarts"; docs/benchmarks.md, "Restart overheads"): an edge's
// cost depends on its mode and its start and end slots only, so edges of a mode whose
// overhead classes round to the same number of slots are relaxed once from the union
// (elementwise min) of the classes' sources; min commutes exactly with adding the cost, so
// this is exact. Rows that no edge has entered are neither filled nor read, and loops run
// over the band of segments that can be on a path at that slot.
#include <algorithm>
#include <limits>

#include "dispatch/internal/path_dp.h"

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr Overhead kClasses[] = {Overhead::kNone, Overhead::kResume, Overhead::kRestart};

struct Rows {
  int modes = 0;
  bool reshard = false;
  int rows = 0;
  int none_row = 0;        // no previous layout (or the single idle row)
  int start_row = 0;       // the state at (release, 0)
  Overhead first_start{};  // what a start from none_row pays
  int IdleOf(int mode) const { return reshard ? modes + mode : modes; }
};

Rows MakeRows(const CheckpointGraph& g) {
  Rows r;
  r.modes = g.num_modes();
  r.reshard = g.reshard_minutes() > 0;
  r.rows = r.reshard ? 2 * r.modes + 1 : r.modes + 1;
  r.none_row = r.reshard ? 2 * r.modes : r.modes;
  // A job running at slot 0 that pauses first has its initial layout as the previous one.
  r.start_row = g.initial_mode() >= 0 ? r.IdleOf(g.initial_mode()) : r.none_row;
  r.first_start = g.initial_outside() ? Overhead::kRestart : Overhead::kResume;
  return r;
}

// a == b ? x : y over loaded values: the loops that use it are vectorised (-O3, see
// src/CMakeLists.txt) into a compare and a blend, so no branch is taken on the outcome,
// which changes unpredictably from segment to segment.
inline double SelectIfEqual(double a, double b, double x, double y) { return a == b ? x : y; }

// The rows an edge of mode `m` paying overhead `o` may start from (the backward pass's view
// of the forward pass's source rows).
void SourceRows(const CheckpointGraph& g, const Rows& r, int m, Overhead o, std::vector<int>& out) {
  out.clear();
  if (o == Overhead::kNone) {
    out.push_back(m);
    return;
  }
  if (g.initial_only(m)) return;  // a pruned initial layout serves the initial run only
  if (o == Overhead::kResume) {
    if (r.reshard) {
      out.push_back(r.IdleOf(m));
      if (r.first_start == Overhead::kResume) out.push_back(r.none_row);
    } else {
      out.push_back(r.none_row);
      for (int other = 0; other < r.modes; ++other) {
        if (other != m) out.push_back(other);
      }
    }
    return;
  }
  if (!r.reshard) return;  // kRestart lasts as long as kResume: handled there
  for (int other = 0; other < r.modes; ++other) {
    if (other == m) continue;
    out.push_back(other);
    out.push_back(r.IdleOf(other));
  }
  if (r.first_start == Overhead::kRestart) out.push_back(r.none_row);
}

// Row sources of one (layer, mode)'s edges by class mask, without "not started" (nullptr:
// none but it), each computed when a group first needs it. It replaces a recursive lambda
// over the solver's locals, which GCC did not inline: with a struct of copies the DP runs
// about 4 % fewer instructions (callgrind, the 128-job week).
struct ModeSources {
  const double* run;     // running in m (kNone)
  const double* self;    // with reshard: last layout m; without: running in m
  const double* paused;  // paused in m (reshard) or the idle row; nullptr: none
  const double* best1;   // best and second best over the layouts a change starts from
  const double* best2;
  const double* infinite;  // a row of +inf
  double* const* buffer;   // scratch rows by mask
  int k0, k1;              // the segments [k0, k1) that edges leave from
  bool reshard, self_live, others_live, continues_initial;
  const double* src[8] = {};

  // The other layouts' last states: best1 where m is not (one of) the best, else best2.
  const double* Others() {
    if (src[4] != nullptr || !others_live) return src[4];
    if (!self_live) return src[4] = best1;
    double* out = buffer[4];
    for (int k = k0; k < k1; ++k) out[k] = SelectIfEqual(self[k], best1[k], best2[k], best1[k]);
    return src[4] = out;
  }

  // Masks with a row of their own: 1, 2, 4 and 6.
  const double* Single(int mask) {
    if (src[mask] != nullptr) return src[mask];
    double* out = buffer[mask];
    switch (mask) {
      case 1:
        return src[1] = run;
      case 2: {
        if (reshard || !others_live) return src[2] = paused;
        // Without reshard: the idle row and the other layouts' running states.
        const double* ref = self_live ? self : infinite;
        const double* idle = paused != nullptr ? paused : infinite;
        for (int k = k0; k < k1; ++k) {
          out[k] = std::min(idle[k], SelectIfEqual(ref[k], best1[k], best2[k], best1[k]));
        }
        return src[2] = out;
      }
      case 4:
        return Others();
      default:  // 6
        // Paused in m or another layout's last state: min(paused, best2) where m is the
        // best, best1 elsewhere (best1 <= last-layout m <= paused m there).
        if (paused == nullptr) return Others();
        if (!others_live) return paused;
        for (int k = k0; k < k1; ++k) {
          out[k] = SelectIfEqual(self[k], best1[k], std::min(paused[k], best2[k]), best1[k]);
        }
        return src[6] = out;
    }
  }

  // Any mask: the others are the running row's union with a single one.
  const double* Of(int mask) {
    if (mask == 1 || mask == 2 || mask == 4 || mask == 6) return Single(mask);
    if (src[mask] != nullptr) return src[mask];
    // Running or paused in m: this layer's last-layout row (reshard), whose start state
    // only exists where kResume is removed (continues_initial).
    if (mask == 3 && reshard && !continues_initial) return src[3] = self_live ? self : nullptr;
    const double* a = Single(1);
    const double* b = Single(mask ^ 1);
    if (a == nullptr || b == nullptr) return src[mask] = a == nullptr ? b : a;
    double* out = buffer[mask];
    for (int k = k0; k < k1; ++k) out[k] = std::min(a[k], b[k]);
    return src[mask] = out;
  }
};

}  // namespace

PathSolution PathSolver::SolveRestarts(const CheckpointGraph& g, const EdgeCosts& costs) {
  const int release = g.release(), deadline = g.deadline(), segments = g.segments();
  const int layers = deadline - release + 1, width = segments + 1, max_dk = g.max_dk();
  const Rows r = MakeRows(g);
  const int modes = r.modes;
  const int initial = g.initial_mode();

  // Only the band of segments [k_min_, k_max_] of a layer can be on a path: below it the
  // deadline is out of reach, above it even the fastest edges cannot have got there. Rows
  // are filled, read and relaxed over the band only.
  k_min_.resize(layers);
  k_max_.resize(layers);
  for (int ti = 0; ti < layers; ++ti) {
    int k = 0;
    while (k <= segments && g.MinimumSlotsFor(segments - k) > deadline - release - ti) ++k;
    k_min_[ti] = k;
    // MinimumSlotsFor is a lower bound on any path's time from a checkpoint; the initial
    // run starts part-way through a segment, so it gets no upper limit.
    k = initial >= 0 ? segments : 0;
    while (k < segments && g.MinimumSlotsFor(k + 1) <= ti) ++k;
    k_max_[ti] = k;
  }
  // The initial run's first edge needs less than a full segment: keep the source alive.
  if (initial >= 0) k_min_[0] = 0;
  const int* const kmin = k_min_.data();
  const int* const kmax = k_max_.data();
  auto in_band = [kmin, kmax](int ti, int k) { return k >= kmin[ti] && k <= kmax[ti]; };

  // Stored per layer: the M running rows, then the "last layout" rows. With a reshard
  // overhead, last layout m holds min(running in m, paused after m): the paused state of the
  // next layer is this row where a wait is allowed, so paused rows are never stored.
  // Without one, a single row holds the min over every state: the next layer's idle row.
  // A layer's rows hold only its segments [k_min, k_max of the next layer] (the next layer
  // reads the last-layout rows over its own band), not all K + 1 segments: less memory to
  // touch. Nothing outside these segments is read or written.
  const int last_rows = r.reshard ? modes : 1;
  const int per_layer = modes + last_rows;
  layer_offset_.resize(layers);
  layer_span_.resize(layers);
  size_t stored = width;  // leading padding: an offset minus k_min stays in the buffer
  for (int ti = 0; ti < layers; ++ti) {
    layer_span_[ti] = std::max(0, kmax[std::min(ti + 1, layers - 1)] - kmin[ti] + 1);
    layer_offset_[ti] = stored - kmin[ti];  // the offset of segment 0
    stored += static_cast<size_t>(per_layer) * layer_span_[ti];
  }
  value_.resize(stored);
  live_.assign(static_cast<size_t>(layers) * per_layer, 0);
  double* const values = value_.data();
  unsigned char* const flags = live_.data();
  const size_t* const offset = layer_offset_.data();
  const int* const span = layer_span_.data();
  // Row `row` of layer ti, indexed by segment (valid over the layer's stored segments).
  auto at = [values, offset, span](int ti, int row) {
    return values + offset[ti] + static_cast<size_t>(row) * span[ti];
  };
  auto live = [flags, per_layer](int ti, int row) { return flags[ti * per_layer + row] != 0; };
  // A running row is filled with +inf when an edge first enters it: most (layer, mode)
  // pairs are never entered (an edge in that mode must end exactly there) and cost nothing.
  auto enter = [at, flags, per_layer, kmin, kmax](int ti, int row) {
    double* p = at(ti, row);
    unsigned char& flag = flags[ti * per_layer + row];
    if (flag == 0) {
      std::fill(p + kmin[ti], p + kmax[ti] + 1, kInf);
      flag = 1;
    }
    return p;
  };
  auto wait_ok = [&](int ti, int k) {  // a wait from layer ti to ti + 1 at segment k
    return costs.WaitAllowed(release + ti) && WaitAllowedAt(g, k);
  };
  // The job has not started: state (ti, 0) of the "no previous layout" row (reshard only;
  // without reshard the idle row holds it).
  none_ok_.assign(layers, 0);
  if (r.reshard && r.start_row == r.none_row) {
    for (int ti = 0; ti < layers && in_band(ti, 0) && (ti == 0 || wait_ok(ti - 1, 0)); ++ti) {
      none_ok_[ti] = 1;
    }
  }
  // Values of every state of the model (the backward pass's view), from the stored rows.
  auto value = [&](int ti, int row, int k) -> double {
    if (!in_band(ti, k)) return kInf;
    if (row < modes) return live(ti, row) ? at(ti, row)[k] : kInf;
    if (r.reshard && row == r.none_row) return none_ok_[ti] != 0 && k == 0 ? 0.0 : kInf;
    if (ti == 0) return row == r.start_row && k == 0 ? 0.0 : kInf;
    const int last = r.reshard ? row : modes;  // paused after m <- last layout m
    return wait_ok(ti - 1, k) && live(ti - 1, last) ? at(ti - 1, last)[k] : kInf;
  };

  // The initial run continues from slot 0 (release is 0): edges over segments [0, dk).
  if (initial >= 0 && release == 0) {
    const double* row = costs.prefix.data() + static_cast<size_t>(initial) * (costs.slots + 1);
    for (int dk = 1; dk <= std::min(max_dk, segments); ++dk) {
      const int end = g.initial_duration(dk);
      if (end > deadline || !costs.Allowed(initial, 0, end)) break;
      if (dk < k_min_[end]) continue;
      double& dst = enter(end, initial)[dk];
      dst = std::min(dst, row[end] - row[0]);
    }
  }

  // Edges of a mode and dk grouped by end: classes whose overheads round to the same number
  // of slots form one group, relaxed once from the union of their sources (min commutes
  // exactly with adding the edge's cost). groups_[group_begin_[m] .. group_begin_[m + 1]):
  // mode m's groups by dk, then by duration, each with its class mask (kNone = bit 0,
  // kResume = bit 1, kRestart = bit 2). One flat list per mode keeps the relaxation loop
  // short.
  groups_.clear();
  group_begin_.resize(modes + 1);
  for (int m = 0; m < modes; ++m) {
    group_begin_[m] = static_cast<int>(groups_.size());
    for (int dk = 1; dk <= max_dk; ++dk) {
      const size_t first = groups_.size();
      for (int c = 0; c < 3; ++c) {
        const int l = g.duration(m, dk, kClasses[c]);
        if (groups_.size() > first && groups_.back().duration == l) {
          groups_.back().mask |= 1 << c;  // durations do not decrease with the class
        } else {
          groups_.push_back(Group{dk, l, 1 << c});
        }
      }
    }
  }
  group_begin_[modes] = static_cast<int>(groups_.size());

  // Scratch rows: best and second best (with multiplicity) over the layouts a layout change
  // starts from, the union of every state, "not started" (0 at segment 0), +inf, then per
  // mode the class sources and their unions by class mask.
  rows_.assign(static_cast<size_t>(11) * width, kInf);
  double* best1 = rows_.data();
  double* best2 = best1 + width;
  double* all_scratch = best2 + width;
  double* zero = all_scratch + width;
  zero[0] = 0.0;
  const double* infinite = zero + width;
  double* buffer[8] = {};  // buffer[1] is unused: kNone's source is the running row itself
  for (int mask = 2; mask < 8; ++mask) buffer[mask] = zero + mask * width;

  const int slots = costs.slots;
  const int* const blocked = costs.next_blocked.empty() ? nullptr : costs.next_blocked.data();
  const Group* const plan = groups_.data();
  for (int ti = 0; ti + 1 < layers; ++ti) {
    const int tau = release + ti;
    const int k0 = k_min_[ti], kb = k_max_[ti];
    if (k0 > kb) continue;  // no state of this layer is on a path
    // Sources of train edges: the band without the last segment (no edge leaves it).
    const int k1 = std::min(segments, kb + 1);
    // Rows past the band up to the next layer's band top read as +inf (paused sources of
    // the next layer are this layer's rows).
    const int k_next = k_max_[std::min(ti + 1, layers - 1)];
    const bool waited = ti > 0 && costs.WaitAllowed(tau - 1);
    const bool idle_wait = waited && g.allow_wait();  // the wait into this layer, k < K
    const bool last_wait = waited && g.boundary_idle_allowed() && kb == segments;  // k = K
    // 1. The stored "last layout" rows of this layer (every edge into it is relaxed), and
    // the best and second best over layouts of the states a layout change starts from
    // (with reshard: the last-layout rows; without: the running rows).
    std::fill(best1 + k0, best1 + k1, kInf);
    std::fill(best2 + k0, best2 + k1, kInf);
    int layouts_live = 0;
    auto add_best = [&](int k, double x) {
      const double b1 = best1[k], b2 = best2[k];
      const double high = b1 < x ? x : b1;
      best2[k] = high < b2 ? high : b2;
      best1[k] = x < b1 ? x : b1;
    };
    if (r.reshard) {
      for (int m = 0; m < modes; ++m) {
        const bool run_live = live(ti, m);
        const bool prev_live = waited && live(ti - 1, modes + m);
        const bool start = ti == 0 && m == initial;  // paused in the initial layout at (0, 0)
        if (!run_live && !prev_live && !start) continue;
        flags[ti * per_layer + modes + m] = 1;
        double* dst = at(ti, modes + m);
        const double* run = run_live ? at(ti, m) : infinite;
        const double* prev = at(ti - (ti > 0 ? 1 : 0), modes + m);
        const double* paused = start ? zero : prev_live && idle_wait ? prev : infinite;
        ++layouts_live;
        // With one side +inf the min is the other side: one load less per segment.
        const double* only = paused == infinite ? run : !run_live ? paused : nullptr;
        if (only != nullptr) {
          for (int k = k0; k < k1; ++k) {
            dst[k] = only[k];
            add_best(k, only[k]);
          }
        } else {
          for (int k = k0; k < k1; ++k) {
            const double x = std::min(run[k], paused[k]);
            dst[k] = x;
            add_best(k, x);
          }
        }
        if (kb == segments) {
          dst[segments] =
              prev_live && last_wait ? std::min(run[segments], prev[segments]) : run[segments];
        }
        std::fill(dst + kb + 1, dst + k_next + 1, kInf);
      }
    } else {
      for (int m = 0; m < modes; ++m) {
        if (!live(ti, m)) continue;
        ++layouts_live;
        const double* run = at(ti, m);
        for (int k = k0; k < k1; ++k) add_best(k, run[k]);
      }
      // The idle row: waited from the previous layer's, or the start; then every state.
      const bool prev_live = waited && live(ti - 1, modes);
      const double* prev = at(ti - (ti > 0 ? 1 : 0), modes);
      const double* idle = ti == 0 ? zero : prev_live && idle_wait ? prev : infinite;
      flags[ti * per_layer + modes] = 1;
      double* dst = at(ti, modes);
      for (int k = k0; k < k1; ++k) dst[k] = std::min(idle[k], best1[k]);
      if (kb == segments) {
        double x = prev_live && last_wait ? prev[segments] : kInf;
        for (int m = 0; m < modes; ++m) {
          if (live(ti, m)) x = std::min(x, at(ti, m)[segments]);
        }
        dst[segments] = x;
      }
      std::fill(dst + kb + 1, dst + k_next + 1, kInf);
    }

    // 2. Train edges from this layer.
    if (k0 >= k1) continue;
    // "Not started" (reshard): finite at segment 0 only, so it joins a source by one
    // scalar relaxation instead of a merged row.
    const bool none = r.reshard && none_ok_[ti] != 0 && k0 == 0;
    const double* all = r.reshard ? best1 : at(ti, modes);  // the union of every state
    if (none) {
      std::copy(best1 + k0, best1 + k1, all_scratch + k0);
      all_scratch[0] = std::min(all_scratch[0], 0.0);
      all = all_scratch;
    }

    const double* idle_shared = nullptr;  // without reshard: the idle row (paused or new)
    if (!r.reshard) {
      idle_shared = ti == 0 ? zero : idle_wait && live(ti - 1, modes) ? at(ti - 1, modes) : nullptr;
    }
    const int layout_base = r.reshard ? modes : 0;
    for (int m = 0; m < modes; ++m) {
      const bool run_live = live(ti, m);
      const bool self_live = live(ti, layout_base + m);
      const bool others_live = layouts_live > (self_live ? 1 : 0);
      const double* paused =
          r.reshard ? (idle_wait && live(ti - 1, modes + m) ? at(ti - 1, modes + m) : nullptr)
                    : idle_shared;
      // Which classes have a source with a finite value, by the rules of the model, and
      // which one "not started" feeds.
      int classes = run_live ? 1 : 0;
      int none_class = 0;
      if (!g.initial_only(m)) {  // a pruned initial layout serves the initial run only
        if (r.reshard) {
          if (none) none_class = r.first_start == Overhead::kResume ? 2 : 4;
          if (paused != nullptr || none_class == 2) classes |= 2;
          if (others_live || none_class == 4) classes |= 4;
        } else if (paused != nullptr || others_live) {
          classes |= 2;  // kRestart lasts as long as kResume: its sources are kResume's
        }
      }
      // A job running at slot 0 that trains on in the same layout continues its run: it
      // does not restart it.
      const bool continues_initial = ti == 0 && m == initial;
      if (continues_initial) {
        classes &= ~2;
        if (none_class == 2) none_class = 0;
      }
      if (classes == 0) continue;
      // When every class with a source is in a group, the group's source is the union of
      // every state: each feeds one of the classes (unless a rule removed a class).
      const bool all_feed = !g.initial_only(m) && !continues_initial;
      ModeSources sources{.run = at(ti, m),
                          .self = at(ti, layout_base + m),
                          .paused = paused,
                          .best1 = best1,
                          .best2 = best2,
                          .infinite = infinite,
                          .buffer = buffer,
                          .k0 = k0,
                          .k1 = k1,
                          .reshard = r.reshard,
                          .self_live = self_live,
                          .others_live = others_live,
                          .continues_initial = continues_initial};
      const double* row = costs.prefix.data() + static_cast<size_t>(m) * (costs.slots + 1);
      // Durations grow with dk and a blocked slot stays blocked for longer edges: a group
      // that ends past end_limit closes its classes for the longer edges.
      const int end_limit =
          std::min(deadline, blocked != nullptr ? blocked[m * (slots + 1) + tau] : deadline);
      const int dk_limit = std::min(max_dk, segments - k0);
      int open = classes;
      for (const Group *gp = plan + group_begin_[m], *ge = plan + group_begin_[m + 1];
           gp != ge && open != 0; ++gp) {
        const int dk = gp->dk;
        if (dk > dk_limit) break;
        const int mask = gp->mask & open;
        if (mask == 0) continue;
        const int end = tau + gp->duration;
        if (end > end_limit) {
          open &= ~mask;
          continue;
        }
        const bool whole = all_feed && (classes & ~mask) == 0;
        const double* s = whole ? all : sources.Of(mask);
        const int te = end - release;
        const double cost = row[end] - row[tau];
        // Ends past the band of layer te are never read (and not stored).
        const int lo = std::max(k0, kmin[te] - dk), hi = std::min(k1 - 1, kmax[te] - dk);
        unsigned char& entered = flags[te * per_layer + m];
        double* const into = at(te, m);
        double* dst = into + dk;
        if (entered == 0 && s != nullptr && lo <= hi) {
          // The first edge group into the row writes its values directly and fills only
          // the rest of the band with +inf: one pass instead of a fill and a min.
          entered = 1;
          double* band_end = into + kmax[te] + 1;
          std::fill(into + kmin[te], dst + lo, kInf);
          for (int k = lo; k <= hi; ++k) dst[k] = s[k] + cost;
          if (dst + hi + 1 < band_end) std::fill(dst + hi + 1, band_end, kInf);
        } else {
          dst = enter(te, m) + dk;
          if (s != nullptr) {
            for (int k = lo; k <= hi; ++k) dst[k] = std::min(dst[k], s[k] + cost);
          }
        }
        if (!whole && (mask & none_class) != 0 && lo == 0 && lo <= hi) {
          dst[0] = std::min(dst[0], cost);
        }
      }
    }
  }
  // The last layer's "last layout" rows are not needed: its paused states have no wait out.

  PathSolution out;
  int ti = layers - 1, k = segments, state_row = -1;
  double best = kInf;
  for (int row = 0; row < r.rows; ++row) {
    if (value(ti, row, k) < best) {
      best = value(ti, row, k);
      state_row = row;
    }
  }
  if (state_row < 0) return out;
  out.feasible = true;
  out.cost = best;

  // Backward pass: idle rows are entered by waits only, running rows by train edges only.
  std::vector<int> sources;
  while (ti > 0) {
    const int tau = release + ti;
    const double v = value(ti, state_row, k);
    bool stepped = false;
    if (state_row >= modes) {
      if (costs.WaitAllowed(tau - 1) && WaitAllowedAt(g, k)) {
        for (int row = 0; row < r.rows && !stepped; ++row) {
          const int into = row < modes ? r.IdleOf(row) : row;
          if (into == state_row && value(ti - 1, row, k) == v) {
            state_row = row;
            --ti;
            stepped = true;
          }
        }
      }
    } else {
      const int m = state_row;
      const double* row = costs.prefix.data() + static_cast<size_t>(m) * (costs.slots + 1);
      if (m == initial && release == 0 && k <= max_dk && g.initial_duration(k) == ti &&
          costs.Allowed(m, 0, tau) && row[tau] - row[0] == v) {
        Run run;
        run.start_slot = 0;
        run.end_slot = tau;
        run.from_segment = 0;
        run.to_segment = k;
        run.mode = g.feasible_index(m);
        run.continues_initial = true;
        out.runs.push_back(run);
        ti = 0;
        k = 0;
        state_row = r.start_row;
        stepped = true;
      }
      for (int dk = 1; dk <= std::min(max_dk, k) && !stepped; ++dk) {
        for (Overhead o : kClasses) {
          if (stepped) break;
          const int l = g.duration(m, dk, o);
          if (l > ti) continue;
          const int start = tau - l;
          if (!costs.Allowed(m, start, tau)) continue;
          if (o == Overhead::kResume && m == initial && start == release) continue;  // see above
          const double cost = row[tau] - row[start];
          SourceRows(g, r, m, o, sources);
          for (int from : sources) {
            if (value(ti - l, from, k - dk) + cost != v) continue;
            Run run;
            run.start_slot = start;
            run.end_slot = tau;
            run.from_segment = k - dk;
            run.to_segment = k;
            run.mode = g.feasible_index(m);
            run.overhead_minutes = g.OverheadMinutes(o);
            out.runs.push_back(run);
            ti -= l;
            k -= dk;
            state_row = from;
            stepped = true;
            break;
          }
        }
      }
    }
    if (!stepped) return PathSolution{};  // cannot happen: every finite value has a source
  }
  if (k != 0 || state_row != r.start_row) return PathSolution{};
  std::reverse(out.runs.begin(), out.runs.end());
  return out;
}

}  // namespace ckptdp::internal
