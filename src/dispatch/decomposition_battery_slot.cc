// The battery inside the decomposition's slot side (decomposition.h; docs/engine.md, "The
// battery inside the slot side").
//
// Copied with a linear price per slot, the battery works as free storage between the
// patterns that the dual mixes in one slot (docs/engine.md, "Why S6 stays at 1.29 %").
// Here the slot side is instead one DP over the slots whose stage picks a pattern p and a
// net battery power b and whose state is the state of charge E, so that a mixture of
// slot-side solutions mixes whole battery trajectories:
//
//   min over (p_t, b_t) of  sum_t SlotCostUsd_t(L_{p_t} + b_t) + w |b_t| - rho_t b_t
//                                  - price_t(p_t)
//   s.t. E_t = E_{t-1} + dE(b_t), |b_t| <= P, L_{p_t} + b_t >= 0,
//        soc_min <= E_t <= soc_max, E_0 = soc_initial, E_T = the final SoC,
//
// with dE the battery model's SoC change (efficiencies; battery_dp.h), w the wear per kW
// over a slot and rho_t the net power's copy price when it is kept beside the DP
// (DecompositionOptions::battery_slot_copy; else 0). The wear is charged here; beside it the
// copy's battery side (the exact battery DP at prices rho) runs without wear, so that every
// cost is counted in one block of the decomposition, as weak duality needs.
//
// E is continuous; the DP runs over K cells [soc_min + k delta, soc_min + (k + 1) delta]
// and relaxes each transition: from cell c to cell c + d the slot may take any b with
// dE(b) in [(d - 1) delta, (d + 1) delta]. Proof that this is a relaxation (so that
// weak duality, hence the bound, holds): take any feasible schedule and let c_t be a cell
// holding E_t (the start and final cells hold E_0 and E_T: that is how they are picked).
// Then E_t - E_{t-1} lies in [lo(c_t) - hi(c_{t-1}), hi(c_t) - lo(c_{t-1})] =
// [(d - 1) delta, (d + 1) delta] for d = c_t - c_{t-1}, so slot t's stage at d (a minimum
// over that interval and over the patterns) is at most the schedule's cost in slot t, and
// the DP's minimum over cell paths is at most the schedule's cost. The relaxation's
// weakness: each slot may gain up to delta of energy the dynamics do not give, so the
// bound loses up to about T delta kWh of energy's worth (docs/benchmarks.md measures it
// against the cell count).
//
// The stage's minimum is exact: f_p(b) = SlotCostUsd(L_p + b) + w |b| - rho b is convex in
// b (SlotCostUsd is convex in the load), so its minimum over an interval is its
// unconstrained minimiser clamped into the interval, and that minimiser lies at an end of
// [max(-P, -L_p), P], at b = 0 or at a kink of SlotCostUsd (SlotCostKinksKw). The interval
// ends are SoC-step edges, whose costs are tabled once per pattern, or max(-P, -L_p).
#include <algorithm>
#include <cmath>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "dispatch/internal/battery_dp.h"
#include "dispatch/internal/decomposition.h"

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The net power (kW) whose SoC change over a slot is `de` (kWh): battery_dp.h's dE inverted.
double NetPower(const BatteryModel& m, double de) {
  return de >= 0 ? de / (m.charge_efficiency * m.step_hours)
                 : de * m.discharge_efficiency / m.step_hours;
}

// min_i a[i] + b[i] over n terms (+infinity if none), in four independent lanes: the
// stages and the DP spend their time here, and one lane chains every compare. With SSE2
// the lanes are two pairs of packed doubles (minpd(x, m) is x < m ? x : m, as std::min(m,
// x); the sums are the same, and a minimum does not depend on the order): GCC's -O2 does
// not vectorise this loop itself.
double MinOfSums(const double* a, const double* b, size_t n) {
  double m0 = kInf, m1 = kInf, m2 = kInf, m3 = kInf;
  size_t i = 0;
#if defined(__SSE2__)
  __m128d v01 = _mm_set1_pd(kInf), v23 = _mm_set1_pd(kInf);
  for (; i + 4 <= n; i += 4) {
    v01 = _mm_min_pd(_mm_add_pd(_mm_loadu_pd(a + i), _mm_loadu_pd(b + i)), v01);
    v23 = _mm_min_pd(_mm_add_pd(_mm_loadu_pd(a + i + 2), _mm_loadu_pd(b + i + 2)), v23);
  }
  m0 = _mm_cvtsd_f64(v01);
  m1 = _mm_cvtsd_f64(_mm_unpackhi_pd(v01, v01));
  m2 = _mm_cvtsd_f64(v23);
  m3 = _mm_cvtsd_f64(_mm_unpackhi_pd(v23, v23));
#endif
  for (; i + 4 <= n; i += 4) {
    m0 = std::min(m0, a[i] + b[i]);
    m1 = std::min(m1, a[i + 1] + b[i + 1]);
    m2 = std::min(m2, a[i + 2] + b[i + 2]);
    m3 = std::min(m3, a[i + 3] + b[i + 3]);
  }
  for (; i < n; ++i) m0 = std::min(m0, a[i] + b[i]);
  return std::min(std::min(m0, m1), std::min(m2, m3));
}

}  // namespace

bool DecompositionBound::BuildBatterySlot(const DecompositionOptions& options) {
  const ScenarioContext& c = *c_;
  const Instance& in = *c.instance;
  const BatteryModel m = BatteryModel::FromInputs(c.power);
  if (!ValidateBatteryModel(m).ok()) return false;
  BatteryGrid g;
  const double range = m.soc_max_kwh - m.soc_min_kwh;
  g.cells = range > 0 ? options.battery_cells : 1;
  g.delta_kwh = range / g.cells;
  auto cell = [&](double e) {
    if (g.delta_kwh <= 0) return 0;
    return std::clamp(static_cast<int>(std::floor((e - m.soc_min_kwh) / g.delta_kwh)), 0,
                      g.cells - 1);
  };
  g.start_cell = cell(m.soc_initial_kwh);
  g.final_cell = cell(m.FinalSoc());
  const double power_kw = m.power_kw;
  const double de_max = m.charge_efficiency * power_kw * m.step_hours;
  const double de_min = -power_kw * m.step_hours / m.discharge_efficiency;
  if (g.delta_kwh > 0) {
    // Beyond these no b within [-P, P] reaches the interval.
    g.d_max = std::min(g.cells - 1, static_cast<int>(std::floor(de_max / g.delta_kwh)) + 1);
    g.d_min = std::max(-(g.cells - 1), static_cast<int>(std::ceil(de_min / g.delta_kwh)) - 1);
  }
  const int edges = g.d_max - g.d_min + 3;
  for (int e = g.d_min - 1; e <= g.d_max + 1; ++e) {
    const double de = std::clamp(e * g.delta_kwh, de_min, de_max);
    g.edge_b.push_back(std::clamp(NetPower(m, de), -power_kw, power_kw));
  }
  int64_t table = 0;
  for (const Slot& s : slots_) {
    table += static_cast<int64_t>(s.cost.size() / candidates_) * edges;
    if (table > options.max_battery_table) return false;
  }
  g.wear_usd_per_kw = m.wear_usd_per_kwh * m.step_hours;
  g.slots.resize(c.slots());
  for (int t = 0; t < c.slots(); ++t) {
    const Slot& s = slots_[t];
    BatterySlot& bs = g.slots[t];
    const int n = static_cast<int>(s.jobs.size());
    const size_t patterns = s.cost.size() / candidates_;
    const std::vector<double> kinks = SlotCostKinksKw(c.power, t);
    bs.candidates = 3 + static_cast<int>(kinks.size());
    for (size_t p = 0; p < patterns; ++p) {
      // The pattern's load, summed as Build summed it.
      double load = in.site.base_load_kw;
      for (int k = 0; k < n; ++k) {
        const int choice = s.entry[p * n + k] - s.price_offset[k];
        if (choice > 0) load += in.site.pue * c.jobs[s.jobs[k]]->it_power_kw(choice - 1);
      }
      const double b_lo = std::max(-power_kw, -load);
      bs.load_kw.push_back(load);
      bs.b_lo.push_back(b_lo);
      bs.cost_lo.push_back(SlotCostUsd(c.power, t, load + b_lo));
      auto candidate = [&](double b) {
        b = std::clamp(b, b_lo, power_kw);
        bs.cand_b.push_back(b);
        // The wear, as the stage adds it: the iterations only subtract rho b.
        bs.cand_value.push_back(SlotCostUsd(c.power, t, load + b) +
                                g.wear_usd_per_kw * std::abs(b));
      };
      candidate(b_lo);
      candidate(0.0);
      candidate(power_kw);
      for (double k : kinks) candidate(k - load);
    }
    // Each candidate's edge interval, once: b* is always a candidate (edge_b is
    // nondecreasing; -1 below the first edge).
    for (double b : bs.cand_b) {
      bs.cand_edge.push_back(
          static_cast<int>(std::upper_bound(g.edge_b.begin(), g.edge_b.end(), b) -
                           g.edge_b.begin()) -
          1);
    }
    // Edge-major, so that a stage takes each edge's cheapest pattern in one pass.
    bs.edge_cost.resize(static_cast<size_t>(edges) * patterns);
    for (int e = 0; e < edges; ++e) {
      const double b = g.edge_b[e];
      for (size_t p = 0; p < patterns; ++p) {
        bs.edge_cost[e * patterns + p] =
            b >= bs.b_lo[p] ? SlotCostUsd(c.power, t, bs.load_kw[p] + b) : kInf;
      }
    }
  }
  battery_ = std::move(g);
  return true;
}

double DecompositionBound::BatteryWindow(int t, size_t i, int di, double rho, double& b) const {
  const BatteryGrid& g = battery_;
  const BatterySlot& bs = g.slots[t];
  const size_t patterns = bs.load_kw.size(), p = bs.live[i];
  const double lo_b = g.edge_b[di], hi_b = g.edge_b[di + 2];
  const double lo = std::max(lo_b, bs.b_lo[p]);
  if (lo > hi_b) return kInf;  // the pattern cannot discharge that much
  double cost = 0;
  if (bs.b_star[i] < lo) {
    b = lo;
    cost = lo_b >= bs.b_lo[p] ? bs.edge_cost[di * patterns + p] : bs.cost_lo[p];
  } else if (bs.b_star[i] > hi_b) {
    b = hi_b;
    cost = bs.edge_cost[(di + 2) * patterns + p];
  } else {
    b = bs.b_star[i];
    return bs.base[i];
  }
  return bs.prices[i] + cost + g.wear_usd_per_kw * std::abs(b) - rho * b;
}

void DecompositionBound::RefreshBatteryLive() {
  BatteryGrid& g = battery_;
  const size_t edges = g.edge_b.size();
  for (size_t t = 0; t < g.slots.size(); ++t) {
    const Slot& s = slots_[t];
    BatterySlot& bs = g.slots[t];
    const int n = static_cast<int>(s.jobs.size());
    const size_t patterns = bs.load_kw.size();
    bs.live.clear();
    for (size_t p = 0; p < patterns; ++p) {
      bool live = true;
      for (int k = 0; k < n && live && !s.excluded.empty(); ++k) {
        live = !s.excluded[s.entry[p * n + k]];
      }
      if (live) bs.live.push_back(static_cast<int>(p));
    }
    bs.live_edge_cost.clear();
    if (bs.live.size() == patterns) continue;
    bs.live_edge_cost.resize(edges * bs.live.size());
    double* out = bs.live_edge_cost.data();
    for (size_t e = 0; e < edges; ++e) {
      const double* row = bs.edge_cost.data() + e * patterns;
      for (int p : bs.live) *out++ = row[p];
    }
  }
  g.live_stale = false;
}

void DecompositionBound::BatteryPatternPrices(const DecompositionPrices& prices, int t) {
  FillTable(prices, t);
  const Slot& s = slots_[t];
  BatteryGrid& g = battery_;
  BatterySlot& bs = g.slots[t];
  const int n = static_cast<int>(s.jobs.size());
  const size_t live = bs.live.size();
  const double rho = battery_copy_ ? prices.battery[t] : 0.0;
  bs.prices.resize(live);
  bs.base.resize(live);
  bs.b_star.resize(live);
  bs.b_star_edge.resize(live);
  for (size_t i = 0; i < live; ++i) {
    const size_t p = bs.live[i];
    double q = 0;
    for (int k = 0; k < n; ++k) q -= s.table[s.entry[p * n + k]];
    bs.prices[i] = q;
    // The unconstrained minimum of f_p over its candidates.
    const size_t at = p * bs.candidates;
    const double* value = bs.cand_value.data() + at;
    const double* cand_b = bs.cand_b.data() + at;
    double best = kInf;
    int best_k = -1;
    for (int k = 0; k < bs.candidates; ++k) {
      const double v = value[k] - rho * cand_b[k];
      if (v < best) {
        best = v;
        best_k = k;
      }
    }
    bs.b_star[i] = best_k >= 0 ? cand_b[best_k] : bs.b_lo[p];
    // (No candidate below +infinity: base is +infinity and the stage skips the pattern.)
    bs.b_star_edge[i] = best_k >= 0 ? bs.cand_edge[at + best_k] : -1;
    bs.base[i] = q + best;
  }
}

void DecompositionBound::BatteryStage(const DecompositionPrices& prices, int t) {
  BatteryPatternPrices(prices, t);
  BatteryGrid& g = battery_;
  const BatterySlot& bs = g.slots[t];
  const size_t live = bs.live.size();
  const double rho = battery_copy_ ? prices.battery[t] : 0.0;
  // Transition d's interval [b_lo_e, b_hi_e] (edges e = di, di + 2): each pattern's minimum
  // over it is at its minimiser b* when b* lies inside, else at the nearer edge. So the
  // stage is the least of the cheapest pattern at either edge (any pattern's value at an
  // edge is attained inside) and the cheapest minimum with b* in [b_di, b_{di+2}) (edge
  // intervals di and di + 1; a b* at b_{di+2} is counted by that edge): exact, in one pass
  // over (edge, live pattern) and one over the live patterns.
  const int edges = static_cast<int>(g.edge_b.size());
  g.edge_value.assign(edges, kInf);
  g.bucket_value.assign(edges, kInf);
  g.bucket_pattern.assign(edges, -1);
  // The edge's pattern is found again only where the DP's path takes it (StagePattern).
  const double* edge_cost = bs.LiveEdgeCost();
  for (int e = 0; e < edges; ++e) {
    const double b = g.edge_b[e];
    g.edge_value[e] = MinOfSums(bs.prices.data(), edge_cost + static_cast<size_t>(e) * live, live) +
                      g.wear_usd_per_kw * std::abs(b) - rho * b;
  }
  for (size_t i = 0; i < live; ++i) {
    if (!(bs.base[i] < kInf)) continue;
    const int e = bs.b_star_edge[i];  // the last edge at or below b*
    if (e < 0 || bs.base[i] >= g.bucket_value[e]) continue;
    g.bucket_value[e] = bs.base[i];
    g.bucket_pattern[e] = static_cast<int>(i);
  }
  const int nd = g.d_max - g.d_min + 1;
  for (int di = 0; di < nd; ++di) {
    double best = kInf, best_b = 0;
    int best_p = -1;
    auto offer = [&](double v, int p, double b) {
      if (v < best) {
        best = v;
        best_p = p;
        best_b = b;
      }
    };
    offer(g.edge_value[di], -1 - di, g.edge_b[di]);  // -1 - e: edge e's pattern
    offer(g.edge_value[di + 2], -3 - di, g.edge_b[di + 2]);
    for (int e : {di, di + 1}) {
      if (g.bucket_pattern[e] >= 0) {
        offer(g.bucket_value[e], g.bucket_pattern[e], bs.b_star[g.bucket_pattern[e]]);
      }
    }
    const size_t at = static_cast<size_t>(t) * nd + di;
    g.stage[at] = best;
    g.stage_pattern[at] = best_p;
    g.stage_b[at] = best_b;
  }
}

int DecompositionBound::StagePattern(int t, int pick) const {
  const BatterySlot& bs = battery_.slots[t];
  if (pick >= 0) return bs.live[pick];
  // Edge e's cheapest live pattern, by the same sums as its stage value.
  const size_t live = bs.live.size(), e = static_cast<size_t>(-1 - pick);
  const double* cost = bs.LiveEdgeCost() + e * live;
  size_t best = 0;
  double best_value = bs.prices[0] + cost[0];
  for (size_t i = 1; i < live; ++i) {
    const double v = bs.prices[i] + cost[i];
    if (v < best_value) {
      best_value = v;
      best = i;
    }
  }
  return bs.live[best];
}

bool DecompositionBound::SolveBatterySlotSide(const DecompositionPrices& prices,
                                              DecompositionPoint& out) {
  const ScenarioContext& c = *c_;
  const Instance& in = *c.instance;
  BatteryGrid& g = battery_;
  const int slots = c.slots(), cells = g.cells, nd = g.d_max - g.d_min + 1;
  g.stage.resize(static_cast<size_t>(slots) * nd);
  g.stage_b.resize(g.stage.size());
  g.stage_pattern.resize(g.stage.size());
  if (g.live_stale) RefreshBatteryLive();
  for (int t = 0; t < slots; ++t) BatteryStage(prices, t);
  // Backward values over the cells: V_T is 0 at the final cell, V_t(c) = min_d stage_t(d) +
  // V_{t+1}(c + d).
  g.backward.assign(static_cast<size_t>(slots + 1) * cells, kInf);
  g.backward[static_cast<size_t>(slots) * cells + g.final_cell] = 0;
  for (int t = slots - 1; t >= 0; --t) {
    const double* stage = g.stage.data() + static_cast<size_t>(t) * nd;
    const double* next = g.backward.data() + static_cast<size_t>(t + 1) * cells;
    double* here = g.backward.data() + static_cast<size_t>(t) * cells;
    for (int cell = 0; cell < cells; ++cell) {
      const int lo = std::max(0, -cell - g.d_min),
                hi = std::min(nd - 1, cells - 1 - cell - g.d_min);
      here[cell] = lo <= hi ? MinOfSums(stage + lo, next + cell + g.d_min + lo, hi - lo + 1) : kInf;
    }
  }
  const double value = g.backward[g.start_cell];
  if (!(value < kInf)) return false;  // no pattern, or no trajectory, fits the restrictions
  out.slot_side = value;
  out.slot_battery_kw.assign(battery_copy_ ? slots : 0, 0.0);
  out.contract_slack.assign(contract_units_.size(), 0.0);
  // The forward pass recovers the DP's choices: the subgradient's slot side.
  int cell = g.start_cell;
  for (int t = 0; t < slots; ++t) {
    const double* stage = g.stage.data() + static_cast<size_t>(t) * nd;
    const double* next = g.backward.data() + static_cast<size_t>(t + 1) * cells;
    const int lo = std::max(0, -cell - g.d_min), hi = std::min(nd - 1, cells - 1 - cell - g.d_min);
    int pick = lo;
    double best = kInf;
    for (int di = lo; di <= hi; ++di) {
      const double v = stage[di] + next[cell + g.d_min + di];
      if (v < best) {
        best = v;
        pick = di;
      }
    }
    const size_t at = static_cast<size_t>(t) * nd + pick;
    const int p = StagePattern(t, g.stage_pattern[at]);
    const Slot& s = slots_[t];
    const int n = static_cast<int>(s.jobs.size());
    for (int k = 0; k < n; ++k) {
      const int j = s.jobs[k];
      out.slot_choice[j][t - in.jobs[j].release_slot] = s.entry[p * n + k] - s.price_offset[k];
    }
    if (battery_copy_) out.slot_battery_kw[t] = g.stage_b[at];
    cell += g.d_min + pick;
  }
  return true;
}

void DecompositionBound::BatterySlotChoiceIncrements(const DecompositionPrices& prices,
                                                     std::vector<std::vector<double>>& increments) {
  const ScenarioContext& c = *c_;
  BatteryGrid& g = battery_;
  const int slots = c.slots(), cells = g.cells, nd = g.d_max - g.d_min + 1;
  // Forward values F_t(c): the cheapest cell path from the start cell to c in t slots.
  g.forward.assign(static_cast<size_t>(slots + 1) * cells, kInf);
  g.forward[g.start_cell] = 0;
  for (int t = 0; t < slots; ++t) {
    const double* stage = g.stage.data() + static_cast<size_t>(t) * nd;
    const double* here = g.forward.data() + static_cast<size_t>(t) * cells;
    double* next = g.forward.data() + static_cast<size_t>(t + 1) * cells;
    for (int cell = 0; cell < cells; ++cell) {
      if (!(here[cell] < kInf)) continue;
      const int lo = std::max(0, -cell - g.d_min),
                hi = std::min(nd - 1, cells - 1 - cell - g.d_min);
      for (int di = lo; di <= hi; ++di) {
        double& v = next[cell + g.d_min + di];
        v = std::min(v, here[cell] + stage[di]);
      }
    }
  }
  const double value = g.backward[g.start_cell];
  increments.resize(slots);
  std::vector<double> through(nd);
  for (int t = 0; t < slots; ++t) {
    // Slot t's scratch (the patterns' prices and minimisers) is SolveBatterySlotSide's at pi.
    const BatterySlot& bs = g.slots[t];
    const double rho = battery_copy_ ? prices.battery[t] : 0.0;
    // through(d): the cheapest rest of a trajectory that makes step d in slot t.
    const double* before = g.forward.data() + static_cast<size_t>(t) * cells;
    const double* after = g.backward.data() + static_cast<size_t>(t + 1) * cells;
    for (int di = 0; di < nd; ++di) {
      double best = kInf;
      const int d = g.d_min + di;
      for (int cell = std::max(0, -d); cell < std::min(cells, cells - d); ++cell) {
        best = std::min(best, before[cell] + after[cell + d]);
      }
      through[di] = best;
    }
    const Slot& s = slots_[t];
    const int n = static_cast<int>(s.jobs.size());
    std::vector<double>& inc = increments[t];
    inc.assign(s.table.size(), kInf);
    for (size_t i = 0; i < bs.live.size(); ++i) {
      if (!(bs.prices[i] < kInf)) continue;
      const size_t p = bs.live[i];
      double best = kInf;
      for (int di = 0; di < nd; ++di) {
        if (!(through[di] < kInf)) continue;
        double b = 0;
        best = std::min(best, through[di] + BatteryWindow(t, i, di, rho, b));
      }
      for (int k = 0; k < n; ++k) {
        double& v = inc[s.entry[p * n + k]];
        v = std::min(v, best);
      }
    }
    for (double& v : inc) v -= value;  // +infinity stays
  }
}

}  // namespace ckptdp::internal
