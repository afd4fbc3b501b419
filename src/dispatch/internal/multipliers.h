// The Lagrangian multipliers of the two coupling rows of every slot (docs/engine.md).
#ifndef CKPTDP_DISPATCH_INTERNAL_MULTIPLIERS_H_
#define CKPTDP_DISPATCH_INTERNAL_MULTIPLIERS_H_

#include <vector>

namespace ckptdp::internal {

struct Multipliers {
  std::vector<double> lambda;  // USD per kW of AIDC load, per slot (the power balance)
  std::vector<double> mu;      // USD per GPU, per slot (the GPU capacity), >= 0

  bool empty() const { return lambda.empty(); }
  friend bool operator==(const Multipliers&, const Multipliers&) = default;
};

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_MULTIPLIERS_H_
