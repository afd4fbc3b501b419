#include "dispatch/internal/decomposition_slot_dp.h"

#include <algorithm>
#include <limits>

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// out[g] = min(out[g], in[g] - p) for g in [0, n): the DP's one hot loop. On x86-64 it is
// compiled for AVX-512, AVX2 and the baseline, and the loader picks the widest the CPU has
// (GCC's target_clones): an elementwise subtract and min round the same in every width (no
// multiply to contract into an FMA), so results are bit-identical across machines. Measured
// on the generated 8-job fleet (docs/benchmarks.md): the forward pass is about 60 % of a
// decomposition node's time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void ShiftedMin(double* __restrict out, const double* __restrict in, double p, int n) {
  for (int g = 0; g < n; ++g) out[g] = std::min(out[g], in[g] - p);
}

// The first choice of a stage: out[g] = in[g] - p, the same value as ShiftedMin on a row
// of +infinity (min(+inf, x) = x), without filling the row first.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void ShiftedCopy(double* __restrict out, const double* __restrict in, double p, int n) {
  for (int g = 0; g < n; ++g) out[g] = in[g] - p;
}

// reach[k]: the most units jobs k..n-1 can fill together (reach[n] = 0). s_k(g) for larger
// g never leads back to "nothing left to fill", so no stage needs it.
void Reach(const UnitDpShape& shape, std::vector<int>& reach) {
  const int n = shape.jobs();
  reach.assign(n + 1, 0);
  for (int k = n - 1; k >= 0; --k) {
    int most = 0;
    for (int i = shape.offset[k]; i < shape.offset[k + 1]; ++i) {
      most = std::max(most, shape.units[i]);
    }
    reach[k] = reach[k + 1] + most;
  }
}

}  // namespace

void UnitPatternDp::Forward(const UnitDpShape& shape, std::span<const double> table,
                            std::span<const double> level_value) {
  const int n = shape.jobs(), levels = shape.levels;
  left_.resize(static_cast<size_t>(n + 1) * levels);
  std::copy(level_value.begin(), level_value.begin() + levels, left_.begin());
  Reach(shape, reach_);
  for (int k = 0; k < n; ++k) {
    const double* in = left_.data() + static_cast<size_t>(k) * levels;
    double* out = left_.data() + static_cast<size_t>(k + 1) * levels;
    // s_{k+1}(g) only for g <= reach[k + 1] (the rest of the row is not written): every
    // value the DP reads (s_{k+1}(g + u) of the next stage, Minimise's and ChoiceMinima's
    // passes) lies within the reach, so the values are those of the full pass. With the
    // capacity binding (a few jobs fill it) this skips the last jobs' stages mostly: 33 %
    // of the cells on the generated 8-job fleet, 22 % on 16 jobs.
    const int width = std::min(levels, reach_[k + 1] + 1);
    int written = 0;  // out[0, written) holds a value, the rest is not yet +infinity
    for (int i = shape.offset[k]; i < shape.offset[k + 1]; ++i) {
      const double p = table[i];
      if (p == -kInf) continue;  // excluded by a restriction
      const int u = shape.units[i];
      if (u >= levels) continue;
      const int count = std::min(width, levels - u);
      // An elementwise min; no argmin here: Minimise finds it again on its one path.
      if (written == 0) {
        ShiftedCopy(out, in + u, p, count);
        written = count;
      } else {
        if (count > written) {
          std::fill(out + written, out + count, kInf);
          written = count;
        }
        ShiftedMin(out, in + u, p, count);
      }
    }
    std::fill(out + written, out + width, kInf);
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
      // w_{k+1}(g - u) is finite only within the reach of jobs k+1..n-1 (and s_k is
      // written only there: Forward).
      const int end = std::min(levels, reach_[k + 1] + u + 1);
      for (int g = u; g < end; ++g) {
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
