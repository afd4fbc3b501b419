#include "dispatch/internal/convex_pwl.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double XTol(double x) { return kPwlXTol * (1.0 + std::abs(x)); }

double Slope(const PwlPoint& a, const PwlPoint& b) { return (b.y - a.y) / (b.x - a.x); }

// s2 is no larger than s1 up to the slope tolerance: the middle point of the two pieces
// is not a strict convex kink.
bool NotSteeper(double s1, double s2) {
  return s2 <= s1 + kPwlSlopeTol * std::max({1.0, std::abs(s1), std::abs(s2)});
}

}  // namespace

ConvexPwl ConvexPwl::Single(double x, double y) {
  ConvexPwl f;
  f.points_.push_back({x, y});
  return f;
}

ConvexPwl ConvexPwl::LowerHull(std::vector<PwlPoint> points) {
  std::sort(points.begin(), points.end(), [](const PwlPoint& a, const PwlPoint& b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
  });
  ConvexPwl f;
  f.points_.reserve(points.size());
  for (const PwlPoint& p : points) {
    std::vector<PwlPoint>& h = f.points_;
    if (!h.empty() && p.x - h.back().x <= XTol(h.back().x)) {
      // Same x within tolerance: the lower point counts. Keep the first x so that the
      // left end of the domain is exact; a lower y may break convexity to the left, so
      // re-insert it through the hull step below.
      if (p.y >= h.back().y) continue;
      PwlPoint q{h.back().x, p.y};
      h.pop_back();
      while (h.size() >= 2 && NotSteeper(Slope(h[h.size() - 2], h.back()), Slope(h.back(), q))) {
        h.pop_back();
      }
      h.push_back(q);
      continue;
    }
    // Monotone chain: drop the last point while it is not strictly below the chord.
    while (h.size() >= 2 && NotSteeper(Slope(h[h.size() - 2], h.back()), Slope(h.back(), p))) {
      h.pop_back();
    }
    h.push_back(p);
  }
  return f;
}

void ConvexPwl::Append(PwlPoint p) {
  if (!points_.empty() && p.x - points_.back().x <= XTol(points_.back().x)) {
    // A piece shorter than the tolerance: an interior breakpoint moves onto p; the left
    // end of the domain stays where it is and absorbs the piece.
    if (points_.size() == 1) return;
    points_.pop_back();
  }
  while (points_.size() >= 2) {
    const double s1 = Slope(points_[points_.size() - 2], points_.back());
    const double s2 = Slope(points_.back(), p);
    // Collinear within tolerance: one piece. (Inputs are convex, so s2 >= s1 otherwise.)
    if (std::abs(s2 - s1) > kPwlSlopeTol * std::max({1.0, std::abs(s1), std::abs(s2)})) break;
    points_.pop_back();
  }
  points_.push_back(p);
}

double ConvexPwl::Eval(double x) const {
  if (points_.empty()) return kInf;
  if (x < lo() - XTol(lo()) || x > hi() + XTol(hi())) return kInf;
  if (x <= lo()) return points_.front().y;
  if (x >= hi()) return points_.back().y;
  auto it = std::upper_bound(points_.begin(), points_.end(), x,
                             [](double v, const PwlPoint& p) { return v < p.x; });
  const PwlPoint& b = *it;
  const PwlPoint& a = *(it - 1);
  return a.y + (b.y - a.y) * ((x - a.x) / (b.x - a.x));
}

ConvexPwl ConvexPwl::Mirrored() const {
  ConvexPwl f;
  f.points_.reserve(points_.size());
  for (auto it = points_.rbegin(); it != points_.rend(); ++it) f.points_.push_back({-it->x, it->y});
  return f;
}

ConvexPwl ConvexPwl::Restricted(double lo_x, double hi_x) const {
  if (points_.empty()) return {};
  double a = std::max(lo_x, lo());
  double b = std::min(hi_x, hi());
  if (a > b) {
    if (a - b > XTol(a)) return {};
    a = b = 0.5 * (a + b);
  }
  if (b - a <= XTol(a)) return Single(a, Eval(a));
  ConvexPwl f;
  f.points_.reserve(points_.size() + 2);
  f.points_.push_back({a, Eval(a)});
  for (const PwlPoint& p : points_) {
    if (p.x > a && p.x < b) f.Append(p);
  }
  f.Append({b, Eval(b)});
  return f;
}

ConvexPwl ConvexPwl::InfConvolution(const ConvexPwl& f, const ConvexPwl& g) {
  if (f.empty() || g.empty()) return {};
  const std::vector<PwlPoint>& fp = f.points_;
  const std::vector<PwlPoint>& gp = g.points_;
  ConvexPwl h;
  h.points_.reserve(fp.size() + gp.size() - 1);
  h.points_.push_back({fp[0].x + gp[0].x, fp[0].y + gp[0].y});
  size_t i = 1, j = 1;
  // After taking the first i-1 pieces of f and j-1 of g the merged function sits exactly
  // at fp[i-1] + gp[j-1]; computing it from the inputs (not by accumulating steps) keeps
  // rounding from drifting over long merges.
  while (i < fp.size() || j < gp.size()) {
    const bool take_f =
        j == gp.size() || (i < fp.size() && Slope(fp[i - 1], fp[i]) <= Slope(gp[j - 1], gp[j]));
    if (take_f) {
      ++i;
    } else {
      ++j;
    }
    h.Append({fp[i - 1].x + gp[j - 1].x, fp[i - 1].y + gp[j - 1].y});
  }
  return h;
}

std::optional<ShiftedArgmin> MinimizeShiftedSum(const ConvexPwl& f, const ConvexPwl& g, double e) {
  if (f.empty() || g.empty()) return std::nullopt;
  double ylo = std::max(f.lo(), g.lo() + e);
  double yhi = std::min(f.hi(), g.hi() + e);
  if (ylo > yhi) {
    if (ylo - yhi > XTol(ylo)) return std::nullopt;
    ylo = yhi = 0.5 * (ylo + yhi);
  }
  auto sum = [&](double y) { return f.Eval(y) + g.Eval(y - e); };

  // Candidates: both ends, y = e, every breakpoint of the shifted g (g is a stage cost
  // with a handful of pieces), and the best breakpoint of f, found by bisection because
  // a convex function sampled at increasing points is a unimodal sequence.
  struct Candidate {
    double y;
    double value;
  };
  Candidate cands[64];
  int count = 0;
  std::vector<Candidate> overflow;
  auto add = [&](double y) {
    const Candidate c{y, sum(y)};
    if (count < 64) {
      cands[count++] = c;
    } else {
      overflow.push_back(c);
    }
  };
  add(ylo);
  add(yhi);
  if (e >= ylo && e <= yhi) add(e);
  for (const PwlPoint& p : g.points()) {
    const double y = p.x + e;
    if (y > ylo && y < yhi) add(y);
  }
  const std::span<const PwlPoint> fp = f.points();
  auto first = std::upper_bound(fp.begin(), fp.end(), ylo,
                                [](double v, const PwlPoint& p) { return v < p.x; });
  auto last = std::lower_bound(fp.begin(), fp.end(), yhi,
                               [](const PwlPoint& p, double v) { return p.x < v; });
  if (first < last) {
    ptrdiff_t lo_i = first - fp.begin();
    ptrdiff_t hi_i = (last - fp.begin()) - 1;
    while (lo_i < hi_i) {
      const ptrdiff_t mid = lo_i + (hi_i - lo_i) / 2;
      if (sum(fp[mid + 1].x) < sum(fp[mid].x)) {
        lo_i = mid + 1;
      } else {
        hi_i = mid;
      }
    }
    add(fp[lo_i].x);
  }

  double best = kInf;
  for (int k = 0; k < count; ++k) best = std::min(best, cands[k].value);
  for (const Candidate& c : overflow) best = std::min(best, c.value);
  const double tie = best + 1e-12 * std::max(1.0, std::abs(best));
  ShiftedArgmin result{ylo, best};
  double best_move = kInf;
  auto consider = [&](const Candidate& c) {
    if (c.value <= tie && std::abs(c.y - e) < best_move) {
      best_move = std::abs(c.y - e);
      result.y = c.y;
    }
  };
  for (int k = 0; k < count; ++k) consider(cands[k]);
  for (const Candidate& c : overflow) consider(c);
  return result;
}

}  // namespace ckptdp::internal
