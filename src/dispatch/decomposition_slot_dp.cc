#include "dispatch/internal/decomposition_slot_dp.h"

#include <algorithm>
#include <limits>

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

void UnitPatternDp::Forward(const UnitDpShape& shape, std::span<const double> table,
                            std::span<const double> level_value) {
  const int n = shape.jobs(), levels = shape.levels;
  left_.assign(static_cast<size_t>(n + 1) * levels, kInf);
  std::copy(level_value.begin(), level_value.begin() + levels, left_.begin());
  for (int k = 0; k < n; ++k) {
    const double* in = left_.data() + static_cast<size_t>(k) * levels;
    double* out = left_.data() + static_cast<size_t>(k + 1) * levels;
    for (int i = shape.offset[k]; i < shape.offset[k + 1]; ++i) {
      const double p = table[i];
      if (p == -kInf) continue;  // excluded by a restriction
      const int u = shape.units[i];
      // An elementwise min (vectorised at -O3, src/CMakeLists.txt); no argmin here:
      // Minimise finds it again on its one path.
      double* shifted = out - u;
      for (int g = u; g < levels; ++g) shifted[g] = std::min(shifted[g], in[g] - p);
    }
  }
}

UnitDpMinimum UnitPatternDp::Minimise(const UnitDpShape& shape, std::span<const double> table,
                                      std::span<const double> level_value, std::span<int> choice) {
  Forward(shape, table, level_value);
  const int n = shape.jobs(), levels = shape.levels;
  const double value = left_[static_cast<size_t>(n) * levels];
  if (value == kInf) return {kInf, 0};
  // Back from "nothing left to fill" after the last job: each job's choice and the units
  // it filled.
  // The lowest choice whose value reproduces s_{k+1}(g) exactly (the same floating-point
  // operation as in Forward): the tie-break of a strict comparison in choice order.
  int g = 0;
  for (int k = n - 1; k >= 0; --k) {
    const double* in = left_.data() + static_cast<size_t>(k) * levels;
    const double target = left_[static_cast<size_t>(k + 1) * levels + g];
    int c = -1;
    for (int i = shape.offset[k]; i < shape.offset[k + 1] && c < 0; ++i) {
      const int h = g + shape.units[i];
      if (table[i] != -kInf && h < levels && in[h] - table[i] == target) {
        c = i - shape.offset[k];
      }
    }
    choice[k] = c;
    g += shape.units[shape.offset[k] + c];
  }
  return {value, g};
}

double UnitPatternDp::ChoiceMinima(const UnitDpShape& shape, std::span<const double> table,
                                   std::span<const double> level_value,
                                   std::vector<double>& with_choice) {
  Forward(shape, table, level_value);
  const int n = shape.jobs(), levels = shape.levels;
  // w_n(0) = 0; w_k(g) = min_c w_{k+1}(g - units(c)) - p_k(c).
  used_.assign(static_cast<size_t>(n + 1) * levels, kInf);
  used_[static_cast<size_t>(n) * levels] = 0.0;
  with_choice.assign(shape.offset.back(), kInf);
  for (int k = n - 1; k >= 0; --k) {
    const double* left = left_.data() + static_cast<size_t>(k) * levels;
    const double* in = used_.data() + static_cast<size_t>(k + 1) * levels;
    double* out = used_.data() + static_cast<size_t>(k) * levels;
    for (int i = shape.offset[k]; i < shape.offset[k + 1]; ++i) {
      const double p = table[i];
      if (p == -kInf) continue;
      const int u = shape.units[i];
      double best = kInf;
      for (int g = u; g < levels; ++g) {
        // Job k's choice i with g units left before it: the jobs before and after.
        best = std::min(best, left[g] - p + in[g - u]);
        out[g] = std::min(out[g], in[g - u] - p);
      }
      with_choice[i] = best;
    }
  }
  return left_[static_cast<size_t>(n) * levels];
}

}  // namespace ckptdp::internal
