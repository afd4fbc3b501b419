// Costs of train edges, kept outside the graph (as in OR-Tools' DAG shortest paths):
// the cost of running graph mode m through slots [a, b) is prefix[m][b] - prefix[m][a].
// The engine rewrites the prefix sums every iteration; the graph never changes.
#ifndef CKPTDP_DISPATCH_INTERNAL_EDGE_COSTS_H_
#define CKPTDP_DISPATCH_INTERNAL_EDGE_COSTS_H_

#include <vector>

namespace ckptdp::internal {

struct EdgeCosts {
  int slots = 0;  // T
  int modes = 0;
  std::vector<double> prefix;  // modes x (T + 1)
  // next_blocked[m][t]: first slot >= t in which mode m does not fit the residual GPU or
  // power capacity (T if none). Empty: nothing is blocked.
  std::vector<int> next_blocked;  // modes x (T + 1)
  // wait_forbidden[t] != 0: the job must train through slot t (no checkpoint wait, no idle
  // before release of the slot, no idle after finishing). Empty: waiting is never forbidden.
  // Branch and bound sets it; the engine's pricing leaves it empty.
  std::vector<char> wait_forbidden;  // T
  // Progress limits of branch and bound (progress_branching.h): the segments done by the
  // start of slot t, the state's segment at t or, inside a train edge, the segment it
  // started from, must lie in [progress_lo[t], progress_hi[t]]. Empty: no limits. Only the
  // DPs without restart states honour them (ProgressLimitsSupported).
  std::vector<int> progress_lo, progress_hi;  // T + 1
  // Workspace of the pricing functions, kept here so that re-pricing does not allocate.
  std::vector<double> scratch_served, scratch_base_cost;

  void Resize(int num_modes, int num_slots) {
    modes = num_modes;
    slots = num_slots;
    prefix.assign(static_cast<size_t>(modes) * (slots + 1), 0.0);
  }
  double* PrefixRow(int m) { return prefix.data() + static_cast<size_t>(m) * (slots + 1); }
  double Cost(int m, int a, int b) const {
    const double* row = prefix.data() + static_cast<size_t>(m) * (slots + 1);
    return row[b] - row[a];
  }
  double SlotCost(int m, int t) const { return Cost(m, t, t + 1); }
  bool WaitAllowed(int t) const { return wait_forbidden.empty() || wait_forbidden[t] == 0; }
  bool HasProgressLimits() const { return !progress_lo.empty(); }
  bool Allowed(int m, int a, int b) const {
    return next_blocked.empty() || next_blocked[static_cast<size_t>(m) * (slots + 1) + a] >= b;
  }
};

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_EDGE_COSTS_H_
