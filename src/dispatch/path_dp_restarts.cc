// Path DP with restart overheads (docs/model.md, "Restarts"). A state (slot, segment) is
// expanded by the job's run state at that slot: running in graph mode m (an edge in mode m
// ended exactly there), or paused (with its last layout when a reshard overhead makes it
// matter), or not started yet. An edge then costs its overhead class's duration:
// continuing the running layout is free, a start after a pause pays resume, a start in
// another layout pays resume + reshard. Jobs without overheads or an initial run never
// come here and keep SolvePlain's K + 1 states per slot.
//
// Rows: 0..M-1 are "running in mode m". Idle rows follow: with a reshard overhead, M + m
// is "paused, last layout m" and 2M is "no previous layout in this graph"; without one, the
// single row M is every paused or unstarted state (they all pay resume alone). value_
// holds the running rows ([layer][mode][segment]), idle_ the idle rows, each layer written
// whole by the waits. Like SolvePlain, predecessors are not stored: the backward pass
// re-finds them by exact comparison of the forward pass's own sums.
//
// Speed (docs/benchmarks.md, "Restart overheads"): an edge's cost depends on its mode and
// its start and end slots only, so edges of a mode whose overhead classes round to the same
// number of slots are relaxed once from the union (elementwise min) of the classes'
// sources; min commutes exactly with adding the cost, so this is exact. Rows that no edge
// or wait has entered are flagged dead and skipped without a scan.
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

bool WaitAllowedAt(const CheckpointGraph& g, int k) {
  return k == g.segments() ? g.boundary_idle_allowed() : g.allow_wait();
}

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

}  // namespace

PathSolution PathSolver::SolveRestarts(const CheckpointGraph& g, const EdgeCosts& costs) {
  const int release = g.release(), deadline = g.deadline(), segments = g.segments();
  const int layers = deadline - release + 1, width = segments + 1, max_dk = g.max_dk();
  const Rows r = MakeRows(g);
  const int modes = r.modes, idle_rows = r.rows - r.modes;
  const size_t run_layer = static_cast<size_t>(modes) * width;
  const size_t idle_layer = static_cast<size_t>(idle_rows) * width;
  value_.resize(static_cast<size_t>(layers) * run_layer);
  idle_.resize(static_cast<size_t>(layers) * idle_layer);
  auto at = [&](int ti, int row) {
    return row < modes ? value_.data() + ti * run_layer + row * width
                       : idle_.data() + ti * idle_layer + (row - modes) * width;
  };
  // live_[layer][row]: whether an edge or a wait has entered the row. A row is filled with
  // +inf when first entered; rows never entered (most (layer, mode) pairs: an edge in that
  // mode must end exactly there) are neither filled nor read.
  // Only the band of segments [k_min_, k_max_] of a layer can be on a path: below it the
  // deadline is out of reach, above it even the fastest edges cannot have got there. Rows
  // are filled, read and relaxed over the band only.
  k_min_.resize(layers);
  k_max_.resize(layers);
  const int initial = g.initial_mode();
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
  auto in_band = [&](int ti, int k) { return k >= k_min_[ti] && k <= k_max_[ti]; };

  live_.assign(static_cast<size_t>(layers) * r.rows, 0);
  auto live = [&](int ti, int row) { return live_[ti * r.rows + row] != 0; };
  auto enter = [&](int ti, int row) {
    double* p = at(ti, row);
    unsigned char& flag = live_[ti * r.rows + row];
    if (flag == 0) {
      if (k_min_[ti] <= k_max_[ti]) std::fill(p + k_min_[ti], p + k_max_[ti] + 1, kInf);
      flag = 1;
    }
    return p;
  };
  auto value = [&](int ti, int row, int k) {
    return live(ti, row) && in_band(ti, k) ? at(ti, row)[k] : kInf;
  };
  if (in_band(0, 0)) enter(0, r.start_row)[0] = 0.0;

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

  // Scratch rows: best and second best (with multiplicity) over the layouts a layout change
  // starts from, the union of every state (`all`), then per mode the class sources and
  // their unions by class mask (kNone = bit 0, kResume = bit 1, kRestart = bit 2).
  rows_.assign(static_cast<size_t>(9) * width, kInf);
  double* best1 = rows_.data();
  double* best2 = best1 + width;
  double* all = best2 + width;
  double* buffer[8] = {};  // buffer[1] is unused: kNone's source is the running row itself
  for (int mask = 2; mask < 8; ++mask) buffer[mask] = all + (mask - 1) * width;

  for (int ti = 0; ti + 1 < layers; ++ti) {
    const int tau = release + ti;
    const int k0 = k_min_[ti];
    // Sources: the band, without the last segment (no train edge leaves it).
    const int k1 = std::min(segments, k_max_[ti] + 1);
    if (k0 < k1) {
      // A layout change starts from another layout's running or paused state (without a
      // reshard overhead: from another layout's running state; paused ones are one row).
      std::fill(best1 + k0, best1 + k1, kInf);
      std::fill(best2 + k0, best2 + k1, kInf);
      int layouts_live = 0;
      for (int m = 0; m < modes; ++m) {
        const bool run_live = live(ti, m);
        const bool idle_live = r.reshard && live(ti, r.IdleOf(m));
        if (!run_live && !idle_live) continue;  // all infinite: changes neither best
        ++layouts_live;
        const double* a = run_live ? at(ti, m) : at(ti, r.IdleOf(m));
        const double* b = run_live && idle_live ? at(ti, r.IdleOf(m)) : a;
        for (int k = k0; k < k1; ++k) {
          const double x = std::min(a[k], b[k]);
          best2[k] = std::min(best2[k], std::max(best1[k], x));
          best1[k] = std::min(best1[k], x);
        }
      }
      // The paused-or-unstarted row that is not per layout (the single idle row without a
      // reshard overhead, "not started" with one).
      const bool none_live = live(ti, r.none_row);
      const double* none = at(ti, r.none_row);
      if (none_live) {
        for (int k = k0; k < k1; ++k) all[k] = std::min(best1[k], none[k]);
      } else {
        std::copy(best1 + k0, best1 + k1, all + k0);
      }
      for (int m = 0; m < modes; ++m) {
        const bool run_live = live(ti, m);
        const int idle_row = r.IdleOf(m);
        const bool idle_live = r.reshard && live(ti, idle_row);
        const bool self_live = run_live || idle_live;
        const bool others_live = layouts_live > (self_live ? 1 : 0);
        // Which classes have a source with a finite value, by the rules of the model.
        int classes = run_live ? 1 : 0;
        if (!g.initial_only(m)) {  // a pruned initial layout serves the initial run only
          if (r.reshard) {
            if (idle_live || (none_live && r.first_start == Overhead::kResume)) classes |= 2;
            if (others_live || (none_live && r.first_start == Overhead::kRestart)) classes |= 4;
          } else if (none_live || others_live) {
            classes |= 2;  // kRestart lasts as long as kResume: its sources are kResume's
          }
        }
        // A job running at slot 0 that trains on in the same layout continues its run: it
        // does not restart it.
        const bool continues_initial = ti == 0 && m == initial;
        if (continues_initial) classes &= ~2;
        if (classes == 0) continue;
        // When every class is merged, the union of their sources is the union of every
        // state: all rows feed one of the classes (unless a rule removed one).
        const bool all_feed = !g.initial_only(m) && !continues_initial;
        const double* src[8] = {};
        src[1] = at(ti, m);
        // The states of the other layouts: best1 where m is not (one of) the best.
        auto other = [&]() -> const double* {
          if (!self_live) return best1;
          double* out = buffer[4];
          const double* a = run_live ? at(ti, m) : at(ti, idle_row);
          const double* b = run_live && idle_live ? at(ti, idle_row) : a;
          for (int k = k0; k < k1; ++k) {
            out[k] = std::min(a[k], b[k]) == best1[k] ? best2[k] : best1[k];
          }
          return out;
        };
        auto single = [&](int c) -> const double* {
          if (c == 1) {
            if (!r.reshard) {  // the idle row, or another layout's running state
              if (!others_live) return none;
              const double* o = other();
              if (!none_live) return o;
              double* out = buffer[2];
              for (int k = k0; k < k1; ++k) out[k] = std::min(none[k], o[k]);
              return out;
            }
            const bool with_none = none_live && r.first_start == Overhead::kResume;
            if (!with_none) return at(ti, idle_row);
            if (!idle_live) return none;
            double* out = buffer[2];
            const double* idle = at(ti, idle_row);
            for (int k = k0; k < k1; ++k) out[k] = std::min(idle[k], none[k]);
            return out;
          }
          const bool with_none = none_live && r.first_start == Overhead::kRestart;
          if (!others_live) return none;
          const double* o = other();
          if (!with_none) return o;
          double* out = buffer[4];  // other() wrote here, or returned best1
          for (int k = k0; k < k1; ++k) out[k] = std::min(o[k], none[k]);
          return out;
        };
        auto source = [&](int mask) -> const double* {
          if (all_feed && (classes & ~mask) == 0) return all;
          if (src[mask] != nullptr) return src[mask];
          const int low = mask & -mask;
          if (mask == low) {
            src[mask] = single(low == 2 ? 1 : 2);
            return src[mask];
          }
          // Unions are built from single sources, computed first (they share buffers 2, 4).
          const double* a = src[low] != nullptr ? src[low] : (src[low] = single(low == 2 ? 1 : 2));
          const int high = mask ^ low;
          const double* b =
              src[high] != nullptr ? src[high] : (src[high] = single(high == 2 ? 1 : 2));
          double* out = buffer[mask];
          for (int k = k0; k < k1; ++k) out[k] = std::min(a[k], b[k]);
          src[mask] = out;
          return out;
        };
        const double* row = costs.prefix.data() + static_cast<size_t>(m) * (costs.slots + 1);
        int open = classes;
        for (int dk = 1; dk <= std::min(max_dk, segments - k0); ++dk) {
          int end[3] = {0, 0, 0};
          for (int c = 0; c < 3; ++c) {
            if ((open >> c & 1) == 0) continue;
            end[c] = tau + g.duration(m, dk, kClasses[c]);
            // Durations grow with dk and a blocked slot stays blocked for longer edges.
            if (end[c] > deadline || !costs.Allowed(m, tau, end[c])) open &= ~(1 << c);
          }
          if (open == 0) break;
          // Classes whose edges end in the same slot are relaxed once from the union of
          // their sources: min commutes exactly with adding the edge's cost.
          int done = 0;
          for (int c = 0; c < 3; ++c) {
            if ((open >> c & 1) == 0 || (done >> c & 1) != 0) continue;
            int mask = 1 << c;
            for (int c2 = c + 1; c2 < 3; ++c2) {
              if ((open >> c2 & 1) != 0 && end[c2] == end[c]) mask |= 1 << c2;
            }
            done |= mask;
            const double* s = source(mask);
            const int te = end[c] - release;
            const double cost = row[end[c]] - row[tau];
            double* dst = enter(te, m) + dk;
            const int lo = std::max(k0, k_min_[te] - dk), hi = std::min(k1 - 1, segments - dk);
            for (int k = lo; k <= hi; ++k) dst[k] = std::min(dst[k], s[k] + cost);
          }
        }
      }
    }
    // Waits into layer ti + 1: running in m -> paused in m; paused stays paused.
    if (k0 > segments || !costs.WaitAllowed(tau)) continue;
    const int lo = std::max(k0, k_min_[ti + 1]);
    const int hi = std::min(k_max_[ti], g.allow_wait() ? segments - 1 : -1);  // k < K
    const bool boundary = g.boundary_idle_allowed() && lo <= segments && k_max_[ti] == segments;
    for (int row = 0; row < r.rows; ++row) {
      if (!live(ti, row)) continue;
      const double* src = at(ti, row);
      double* dst = enter(ti + 1, row < modes ? r.IdleOf(row) : row);
      for (int k = lo; k <= hi; ++k) dst[k] = std::min(dst[k], src[k]);
      if (boundary) dst[segments] = std::min(dst[segments], src[segments]);
    }
  }

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
