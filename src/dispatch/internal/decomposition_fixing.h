// Reduced-cost fixing from the decomposition bound (decomposition.h): path-reduced-cost
// fixing (Irnich, Desaulniers, Desrosiers and Hadjar, INFORMS JOC 2010) on the job side,
// the cheapest pattern on the slot side. At the prices pi of a bound D(pi) = sum_j J_j +
// sum_t S_t + B, the bound of the schedules that put job j in choice c in slot t is
//
//   D(pi | x_{j,t} = y_{j,t} = c) = D(pi) - J_j - S_t + J_j(t, c) + S_t(j, c),
//
// with J_j(t, c) the job side's cheapest path through (t, c) and S_t(j, c) the cheapest
// pattern of slot t with that choice. Fixing both copies keeps weak duality, so this is a
// valid bound of that part of the search space. J_j(t, c) is the least forward value +
// edge cost + backward value over the train edges of mode c - 1 that run through slot t
// (or the waits out of slot t for c = 0): one forward and one backward DP pass per job
// (path_dp_backward.h). Graphs with side resources or restarts fall back to one DP per
// (slot, choice) with every other choice of the slot blocked (at the root only).
//
// At the root every choice whose bound reaches the cutoff is removed; the surviving choices
// of a (job, slot), as a range of levels (dual.h's SlotRestriction), become restrictions of
// the branch-and-bound root, where the Lagrangian node bounds honour them too. At every
// branch-and-bound node with the decomposition bound the removed choices are kept as a
// mask (holes included) that both sides honour and the node's children inherit.
#ifndef CKPTDP_DISPATCH_INTERNAL_DECOMPOSITION_FIXING_H_
#define CKPTDP_DISPATCH_INTERNAL_DECOMPOSITION_FIXING_H_

#include <limits>
#include <vector>

#include "dispatch/internal/dual.h"

namespace ckptdp::internal {

struct RootFixings {
  // At most one per (job, slot): the range of levels its surviving choices span. A range
  // with no level, (top, top], means no choice survived: no schedule is below the cutoff.
  std::vector<SlotRestriction> restrictions;
  // The least bound of the removed choices: every schedule outside the restrictions costs
  // at least this (infinity when nothing was removed).
  double removed_bound = std::numeric_limits<double>::infinity();
  int removed_choices = 0;
  int choices = 0;
};

// Blocks, in job j's `costs`, the modes of the choices `excluded` marks ([(t - release) *
// (M + 1) + choice]) and forbids waiting in the slots whose idle choice it marks.
void ExcludeChoices(const ScenarioContext& context, int j, const std::vector<char>& excluded,
                    EdgeCosts& costs);

// A node's fixing: marks in `excluded` (sized like `bounds` when empty) every choice whose
// bound reaches `cutoff`.
struct NodeFixing {
  int removed = 0;  // newly marked choices
  // The least bound of the newly marked ones (infinity when none): every schedule of the
  // node that makes one of them costs at least this.
  double removed_bound = std::numeric_limits<double>::infinity();
};
NodeFixing ExcludeAboveCutoff(const std::vector<std::vector<double>>& bounds, double cutoff,
                              std::vector<std::vector<char>>& excluded);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_DECOMPOSITION_FIXING_H_
