// Reduced-cost fixing from the decomposition bound (decomposition.h), in the spirit of
// path-reduced-cost fixing (Irnich, Desaulniers, Desrosiers and Hadjar, INFORMS JOC 2010):
// at the prices pi of the best bound D(pi) = sum_j J_j + sum_t S_t + B, the bound of the
// schedules that put job j in choice c in slot t is
//
//   D(pi | x_{j,t} = y_{j,t} = c) = D(pi) - J_j - S_t + J_j(t, c) + S_t(j, c),
//
// with J_j(t, c) the job side's cheapest path through (t, c) (the path DP with every other
// choice of slot t blocked) and S_t(j, c) the cheapest pattern of slot t with that choice.
// Fixing both copies keeps weak duality, so this is a valid bound of that part of the
// search space. Every choice whose bound reaches the cutoff is removed; the surviving
// choices of a (job, slot), as a range of levels (dual.h's SlotRestriction), become
// restrictions of the branch-and-bound root, where the Lagrangian node bounds honour them.
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

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_DECOMPOSITION_FIXING_H_
