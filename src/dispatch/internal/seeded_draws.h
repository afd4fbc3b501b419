// Random draws of the primal search that are the same on every standard library (unlike
// std::uniform_int_distribution): results must not depend on the platform either.
#ifndef CKPTDP_DISPATCH_INTERNAL_SEEDED_DRAWS_H_
#define CKPTDP_DISPATCH_INTERNAL_SEEDED_DRAWS_H_

#include <cstdint>
#include <random>
#include <vector>

namespace ckptdp::internal {

// A uniform draw from [0, n).
inline int Draw(std::mt19937_64& rng, int n) {
  return static_cast<int>(rng() % static_cast<std::uint64_t>(n));
}

// Draws an index with probability proportional to `weight` (all zero: uniformly).
inline int DrawWeighted(std::mt19937_64& rng, const std::vector<double>& weight) {
  double total = 0;
  for (double w : weight) total += w;
  const int n = static_cast<int>(weight.size());
  if (!(total > 0)) return Draw(rng, n);
  // 53 random bits as a fraction in [0, 1): the same on every platform.
  const double r = static_cast<double>(rng() >> 11) * 0x1.0p-53 * total;
  double acc = 0;
  for (int j = 0; j < n; ++j) {
    acc += weight[j];
    if (r < acc) return j;
  }
  return n - 1;
}

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_SEEDED_DRAWS_H_
