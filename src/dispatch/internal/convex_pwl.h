// Convex piecewise-linear functions of one variable on a closed interval.
//
// The battery dynamic program (battery_dp.h) carries its value functions exactly in this
// form: a function is the list of its breakpoints (x_i, y_i), x strictly increasing, slopes
// strictly increasing, linear in between and +infinity outside [x_0, x_n]. A single point
// is a valid function (domain [x_0, x_0]); no points means +infinity everywhere (empty).
//
// Tolerances are explicit and the only ones used: two x closer than kPwlXTol*(1+|x|) are
// the same breakpoint, and two adjacent slopes closer than kPwlSlopeTol*max(1,|s|) are the
// same piece (the middle breakpoint is dropped). Evaluation accepts x up to the x
// tolerance outside the domain (it clamps), so that rounding in a shifted domain does not
// turn a feasible point infeasible.
#ifndef CKPTDP_DISPATCH_INTERNAL_CONVEX_PWL_H_
#define CKPTDP_DISPATCH_INTERNAL_CONVEX_PWL_H_

#include <optional>
#include <span>
#include <vector>

namespace ckptdp::internal {

inline constexpr double kPwlXTol = 1e-9;
inline constexpr double kPwlSlopeTol = 1e-12;

struct PwlPoint {
  double x = 0;
  double y = 0;
};

class ConvexPwl {
 public:
  ConvexPwl() = default;  // empty: +infinity everywhere

  // The function that is `y` at `x` and +infinity elsewhere.
  static ConvexPwl Single(double x, double y);

  // The convex envelope (lower convex hull) of a finite point set, on [min x, max x].
  // Points may come in any order; for equal x the lowest y counts. This is the only way
  // to build a function from arbitrary data, so every ConvexPwl is convex by construction.
  static ConvexPwl LowerHull(std::vector<PwlPoint> points);

  bool empty() const { return points_.empty(); }
  double lo() const { return points_.front().x; }  // requires !empty()
  double hi() const { return points_.back().x; }
  std::span<const PwlPoint> points() const { return points_; }

  // f(x); +infinity outside the domain (beyond the tolerance) or if empty.
  double Eval(double x) const;

  // x -> f(-x).
  ConvexPwl Mirrored() const;

  // f restricted to [lo, hi] (intersected with the domain); empty if they do not meet.
  ConvexPwl Restricted(double lo, double hi) const;

  // Infimal convolution (f □ g)(z) = min_{x + y = z} f(x) + g(y), exact: the domain is
  // the Minkowski sum, the value at the left end is f(lo) + g(lo), and the pieces of both
  // follow in order of slope. Empty if either is empty.
  static ConvexPwl InfConvolution(const ConvexPwl& f, const ConvexPwl& g);

 private:
  // Appends a point right of the last one, merging collinear pieces and points that
  // coincide within the x tolerance.
  void Append(PwlPoint p);

  std::vector<PwlPoint> points_;
};

struct ShiftedArgmin {
  double y = 0;      // a minimiser (ties: the one with y - e closest to 0)
  double value = 0;  // the minimum of f(y) + g(y - e)
};

// min over y of f(y) + g(y - e), exact (a convex PWL sum attains its minimum at a
// breakpoint of f or of the shifted g). Among minimisers within a relative 1e-12 of the
// minimum, prefers the one whose g-argument y - e is closest to 0: in the battery DP that
// is the trajectory that moves the battery least. nullopt if the domains do not meet.
std::optional<ShiftedArgmin> MinimizeShiftedSum(const ConvexPwl& f, const ConvexPwl& g, double e);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_CONVEX_PWL_H_
