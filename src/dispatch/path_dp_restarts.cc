// Path DP with restart overheads (docs/model.md, "Restarts"). A state (slot, segment) is
// expanded by the job's run state at that slot: running in graph mode m (an edge in mode m
// ended exactly there), or paused (with its last layout when a reshard overhead makes it
// matter), or not started yet. An edge then costs its overhead class's duration:
// continuing the running layout is free, a start after a pause pays resume, a start in
// another layout pays resume + reshard. Jobs without overheads or an initial run never
// come here and keep SolvePlain's K + 1 states per slot.
//
// Layout of value_: [layer][row][segment]. Rows 0..M-1 are "running in mode m". Idle rows
// follow: with a reshard overhead, M + m is "paused, last layout m" and 2M is "no previous
// layout in this graph"; without one, the single row M is every paused or unstarted state
// (they all pay resume alone). Like SolvePlain, predecessors are not stored: the backward
// pass re-finds them by exact comparison of the forward pass's own sums.
#include <algorithm>
#include <limits>

#include "dispatch/internal/path_dp.h"

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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
  const int modes = r.modes;
  const size_t layer_size = static_cast<size_t>(r.rows) * width;
  value_.assign(static_cast<size_t>(layers) * layer_size, kInf);
  auto at = [&](int ti, int row) { return value_.data() + ti * layer_size + row * width; };
  at(0, r.start_row)[0] = 0.0;
  k_min_.resize(layers);
  for (int ti = 0; ti < layers; ++ti) {
    int k = 0;
    while (k <= segments && g.MinimumSlotsFor(segments - k) > deadline - release - ti) ++k;
    k_min_[ti] = k;
  }
  // The initial run's first edge needs less than a full segment: keep the source alive.
  const int initial = g.initial_mode();
  if (initial >= 0) k_min_[0] = 0;

  // The initial run continues from slot 0 (release is 0): edges over segments [0, dk).
  if (initial >= 0 && release == 0) {
    const double* row = costs.prefix.data() + static_cast<size_t>(initial) * (costs.slots + 1);
    for (int dk = 1; dk <= std::min(max_dk, segments); ++dk) {
      const int end = g.initial_duration(dk);
      if (end > deadline || !costs.Allowed(initial, 0, end)) break;
      if (dk < k_min_[end]) continue;
      double& dst = at(end, initial)[dk];
      dst = std::min(dst, row[end] - row[0]);
    }
  }

  // Per-layer source rows: best1/best2 (and the mode of best1) over the other layouts'
  // states, then per mode the resume and restart sources.
  rows_.assign(static_cast<size_t>(5) * width, kInf);
  double* best1 = rows_.data();
  double* best2 = best1 + width;
  double* resume_src = best2 + width;
  double* restart_src = resume_src + width;
  double* other = restart_src + width;
  arg_best_.assign(width, -1);
  constexpr Overhead kClasses[] = {Overhead::kNone, Overhead::kResume, Overhead::kRestart};

  for (int ti = 0; ti + 1 < layers; ++ti) {
    const int tau = release + ti;
    const int k0 = k_min_[ti];
    if (k0 > segments) continue;
    // Waits: running -> paused in the same layout; paused stays paused.
    if (costs.WaitAllowed(tau)) {
      const int lo = std::max(k0, k_min_[ti + 1]);
      for (int row = 0; row < r.rows; ++row) {
        const double* src = at(ti, row);
        double* dst = at(ti + 1, row < modes ? r.IdleOf(row) : row);
        const int hi = g.allow_wait() ? segments - 1 : -1;
        for (int k = lo; k <= hi; ++k) dst[k] = std::min(dst[k], src[k]);
        if (g.boundary_idle_allowed() && lo <= segments) {
          dst[segments] = std::min(dst[segments], src[segments]);
        }
      }
    }
    if (k0 >= segments) continue;  // no train edge leaves the last segment
    // Best and second best over layouts of the states a layout change starts from.
    std::fill(best1 + k0, best1 + width, kInf);
    std::fill(best2 + k0, best2 + width, kInf);
    for (int m = 0; m < modes; ++m) {
      const double* run = at(ti, m);
      const double* idle = at(ti, r.IdleOf(m));
      for (int k = k0; k < segments; ++k) {
        const double x = r.reshard ? std::min(run[k], idle[k]) : run[k];
        if (x < best1[k]) {
          best2[k] = best1[k];
          best1[k] = x;
          arg_best_[k] = m;
        } else if (x < best2[k]) {
          best2[k] = x;
        }
      }
    }
    const double* none = at(ti, r.none_row);
    for (int m = 0; m < modes; ++m) {
      const double* src_of[3] = {at(ti, m), resume_src, restart_src};
      bool live[3] = {false, false, false};
      for (int k = k0; k < segments; ++k) live[0] |= src_of[0][k] < kInf;
      if (!g.initial_only(m)) {
        const double* idle = at(ti, r.IdleOf(m));
        for (int k = k0; k < segments; ++k) {
          other[k] = arg_best_[k] == m ? best2[k] : best1[k];
          if (r.reshard) {
            resume_src[k] =
                r.first_start == Overhead::kResume ? std::min(idle[k], none[k]) : idle[k];
            restart_src[k] =
                r.first_start == Overhead::kRestart ? std::min(other[k], none[k]) : other[k];
          } else {
            resume_src[k] = std::min(none[k], other[k]);
          }
          live[1] |= resume_src[k] < kInf;
          live[2] |= r.reshard && restart_src[k] < kInf;
        }
      }
      // A job running at slot 0 that trains on in the same layout continues its run: it
      // does not restart it.
      if (ti == 0 && m == initial) live[1] = false;
      const double* row = costs.prefix.data() + static_cast<size_t>(m) * (costs.slots + 1);
      for (int c = 0; c < 3; ++c) {
        if (!live[c]) continue;
        const double* src = src_of[c];
        for (int dk = 1; dk <= std::min(max_dk, segments - k0); ++dk) {
          const int end = tau + g.duration(m, dk, kClasses[c]);
          // Durations grow with dk and a blocked slot stays blocked for longer edges.
          if (end > deadline || !costs.Allowed(m, tau, end)) break;
          const int te = end - release;
          const double cost = row[end] - row[tau];
          double* dst = at(te, m) + dk;
          const int lo = std::max(k0, k_min_[te] - dk), hi = segments - dk;
          for (int k = lo; k <= hi; ++k) dst[k] = std::min(dst[k], src[k] + cost);
        }
      }
    }
  }

  PathSolution out;
  int ti = layers - 1, k = segments, state_row = -1;
  double best = kInf;
  for (int row = 0; row < r.rows; ++row) {
    if (at(ti, row)[k] < best) {
      best = at(ti, row)[k];
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
    const double v = at(ti, state_row)[k];
    bool stepped = false;
    if (state_row >= modes) {
      if (costs.WaitAllowed(tau - 1) && WaitAllowedAt(g, k)) {
        for (int row = 0; row < r.rows && !stepped; ++row) {
          const int into = row < modes ? r.IdleOf(row) : row;
          if (into == state_row && at(ti - 1, row)[k] == v) {
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
            if (at(ti - l, from)[k - dk] + cost != v) continue;
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
