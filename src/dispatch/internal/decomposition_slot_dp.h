// The decomposition's slot oracle for many jobs (decomposition.h): the cheapest pattern of
// one slot by a DP over GPU units instead of an enumeration of the patterns.
//
// When every mode's IT power is proportional to its GPUs (P = n P_g, docs/model.md: the
// default, comm_power_kw_per_gpu = 0), a pattern's load, and so its slot cost with or
// without the battery's copy, depends on its GPU total alone. The GPU totals are counted in
// units u, the gcd of the active jobs' mode GPU counts, and level g (g u GPUs) exists when
// g u is within the capacity and its load within the site cap. With the level's value
// V(g) (its cost at the prices of the battery and contract copies) and the choices' prices
// p_k(c) (idle priced 0, an excluded choice -infinity),
//
//   S_t = min_g min_{choices c_k with sum_k units(c_k) = g} V(g) - sum_k p_k(c_k),
//
// a knapsack over the active jobs in the GPU units left to fill: s_0(g) = V(g),
// s_{k+1}(g - units(c)) = min s_k(g) - p_k(c), S_t = s_n(0). Each path subtracts the prices in
// the enumeration's order, so a pattern's value is the enumeration's up to the rounding of
// its load (n P_g summed per job there, per unit here). One evaluation costs one pass over
// (job, level, choice) cells: the DP's cells instead of the patterns' entries.
//
// Ties go to the lowest choice index at every stage, from the last job back, so the
// argmin, and with it the subgradient and x-bar, is deterministic.
#ifndef CKPTDP_DISPATCH_INTERNAL_DECOMPOSITION_SLOT_DP_H_
#define CKPTDP_DISPATCH_INTERNAL_DECOMPOSITION_SLOT_DP_H_

#include <cstdint>
#include <span>
#include <vector>

namespace ckptdp::internal {

// One slot's shape: per active job k its choices [offset[k], offset[k + 1]) of the price
// table (offset has one entry more than the jobs, the last the table's size) and each
// choice's GPU units.
struct UnitDpShape {
  std::vector<int> offset;
  std::vector<int> units;  // like the price table
  int levels = 0;          // g = 0 .. levels - 1
  int jobs() const { return static_cast<int>(offset.size()) - 1; }
  // The DP's cells: (job, level, choice) triples one evaluation visits.
  int64_t Cells() const { return static_cast<int64_t>(levels) * (offset.back()); }
};

// A slot's minimum and the GPU level of the pattern that attains it.
struct UnitDpMinimum {
  double value = 0;
  int level = 0;
};

class UnitPatternDp {
 public:
  // min over the patterns of level_value[g] - sum_k table[chosen_k] (+infinity when no
  // pattern has a finite value); choice[k] receives job k's choice (index within its
  // range), valid when the value is finite.
  UnitDpMinimum Minimise(const UnitDpShape& shape, std::span<const double> table,
                         std::span<const double> level_value, std::span<int> choice);

  // The same minimum restricted to every choice in turn: with_choice[i] for table entry i
  // (+infinity when no pattern with it has a finite value). Returns the unrestricted
  // minimum.
  double ChoiceMinima(const UnitDpShape& shape, std::span<const double> table,
                      std::span<const double> level_value, std::vector<double>& with_choice);

 private:
  // s_k for k = 0..n, (n + 1) x levels.
  void Forward(const UnitDpShape& shape, std::span<const double> table,
               std::span<const double> level_value);
  std::vector<double> left_;  // s_k(g): GPU units g still to fill by jobs k..n-1
  std::vector<double> used_;  // w_k(g): jobs k..n-1 use exactly g units (ChoiceMinima)
  std::vector<int> reach_;    // the most units jobs k..n-1 can fill (Forward)
};

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_DECOMPOSITION_SLOT_DP_H_
