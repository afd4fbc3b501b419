#include "dispatch/internal/convex_pwl.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A random convex PWL: increasing slopes over random piece lengths, starting at x0.
ConvexPwl RandomConvex(std::mt19937& rng, double x0, int pieces) {
  std::uniform_real_distribution<double> slope(-3, 3), len(0.1, 2.0), y0(-5, 5);
  std::vector<double> slopes(pieces);
  for (double& s : slopes) s = slope(rng);
  std::sort(slopes.begin(), slopes.end());
  std::vector<PwlPoint> pts{{x0, y0(rng)}};
  for (double s : slopes) {
    const double dx = len(rng);
    pts.push_back({pts.back().x + dx, pts.back().y + s * dx});
  }
  return ConvexPwl::LowerHull(pts);
}

// Slopes strictly increasing (beyond the merge tolerance) and x strictly increasing.
void RequireStrictlyConvex(const ConvexPwl& f) {
  const auto p = f.points();
  for (size_t i = 1; i < p.size(); ++i) REQUIRE(p[i].x > p[i - 1].x);
  for (size_t i = 2; i < p.size(); ++i) {
    const double s1 = (p[i - 1].y - p[i - 2].y) / (p[i - 1].x - p[i - 2].x);
    const double s2 = (p[i].y - p[i - 1].y) / (p[i].x - p[i - 1].x);
    REQUIRE(s2 > s1);
  }
}

TEST_CASE("LowerHull takes the convex envelope and merges collinear points", "[convex_pwl]") {
  // (1,2) lies above the chord (0,0)-(2,1): the envelope skips it. Input order is arbitrary.
  const ConvexPwl f = ConvexPwl::LowerHull({{3, 2}, {1, 2}, {0, 0}, {4, 4}, {2, 1}});
  const auto p = f.points();
  REQUIRE(p.size() == 4);
  CHECK(p[0].x == 0);
  CHECK(p[1].x == 2);
  CHECK(p[2].x == 3);
  CHECK(p[3].x == 4);
  CHECK(f.Eval(1) == Approx(0.5));
  CHECK(f.Eval(3.5) == Approx(3));

  const ConvexPwl line = ConvexPwl::LowerHull({{0, 0}, {1, 1}, {2, 2}, {3, 4}});
  REQUIRE(line.points().size() == 3);  // (1,1) is collinear
  CHECK(line.points()[1].x == 2);

  // Duplicate x: the lower y counts.
  const ConvexPwl dup = ConvexPwl::LowerHull({{1, 5}, {0, 0}, {1, 3}, {2, 8}});
  CHECK(dup.Eval(1) == Approx(3));
  // Nearly equal x (within tolerance) are one point.
  const ConvexPwl near = ConvexPwl::LowerHull({{0, 0}, {1, 1}, {1 + 1e-12, 0.5}, {2, 3}});
  REQUIRE(near.points().size() == 3);
  CHECK(near.Eval(1) == Approx(0.5));
}

TEST_CASE("Eval interpolates and is +inf outside the domain", "[convex_pwl]") {
  const ConvexPwl f = ConvexPwl::LowerHull({{-1, 2}, {0, 0}, {2, 1}});
  CHECK(f.Eval(-0.5) == Approx(1));
  CHECK(f.Eval(1) == Approx(0.5));
  CHECK(f.Eval(2) == Approx(1));
  CHECK(f.Eval(2 + 1e-12) == Approx(1));  // rounding outside: clamped
  CHECK(f.Eval(2.001) == kInf);
  CHECK(f.Eval(-1.001) == kInf);
  CHECK(ConvexPwl().Eval(0) == kInf);
  const ConvexPwl s = ConvexPwl::Single(3, 7);
  CHECK(s.Eval(3) == 7);
  CHECK(s.Eval(3.1) == kInf);
}

TEST_CASE("Mirrored and Restricted", "[convex_pwl]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (int rep = 0; rep < 50; ++rep) {
    const ConvexPwl f = RandomConvex(rng, -2, 1 + rep % 5);
    const ConvexPwl m = f.Mirrored();
    CHECK(m.lo() == -f.hi());
    CHECK(m.hi() == -f.lo());
    const double a = f.lo() - 0.5 + u(rng) * (f.hi() - f.lo());
    const double b = std::max(a, f.lo()) + 0.01 + u(rng) * (f.hi() - f.lo());
    const ConvexPwl r = f.Restricted(a, b);
    REQUIRE_FALSE(r.empty());
    CHECK(r.lo() == Approx(std::max(a, f.lo())));
    CHECK(r.hi() == Approx(std::min(b, f.hi())));
    RequireStrictlyConvex(r);
    for (int k = 0; k <= 20; ++k) {
      const double x = f.lo() + (f.hi() - f.lo()) * k / 20.0;
      CHECK(m.Eval(-x) == Approx(f.Eval(x)).margin(1e-12));
      if (x >= r.lo() && x <= r.hi()) CHECK(r.Eval(x) == Approx(f.Eval(x)).margin(1e-12));
      if (x < r.lo() - 1e-6 || x > r.hi() + 1e-6) CHECK(r.Eval(x) == kInf);
    }
  }
  const ConvexPwl f = ConvexPwl::LowerHull({{0, 0}, {1, 1}});
  CHECK(f.Restricted(2, 3).empty());
  const ConvexPwl point = f.Restricted(1, 5);
  REQUIRE(point.points().size() == 1);
  CHECK(point.Eval(1) == 1);
}

TEST_CASE("InfConvolution matches brute-force minimisation", "[convex_pwl]") {
  std::mt19937 rng(42);
  for (int rep = 0; rep < 200; ++rep) {
    const ConvexPwl f = RandomConvex(rng, -3, 1 + rep % 6);
    const ConvexPwl g =
        (rep % 10 == 0) ? ConvexPwl::Single(1.5, 2.0) : RandomConvex(rng, -1, 1 + (rep / 3) % 5);
    const ConvexPwl h = ConvexPwl::InfConvolution(f, g);
    RequireStrictlyConvex(h);
    CHECK(h.lo() == Approx(f.lo() + g.lo()));
    CHECK(h.hi() == Approx(f.hi() + g.hi()));
    for (int k = 0; k <= 50; ++k) {
      const double z = h.lo() + (h.hi() - h.lo()) * k / 50.0;
      // min_x f(x) + g(z - x) is attained at a breakpoint of f or of g(z - .), or at a
      // domain end: enumerate them all.
      std::vector<double> xs;
      for (const PwlPoint& p : f.points()) xs.push_back(p.x);
      for (const PwlPoint& p : g.points()) xs.push_back(z - p.x);
      double brute = kInf;
      for (double x : xs) brute = std::min(brute, f.Eval(x) + g.Eval(z - x));
      CHECK(h.Eval(z) == Approx(brute).margin(1e-9));
    }
  }
}

TEST_CASE("InfConvolution merges equal slopes", "[convex_pwl]") {
  const ConvexPwl f = ConvexPwl::LowerHull({{0, 0}, {1, -1}, {2, 0}});
  const ConvexPwl g = ConvexPwl::LowerHull({{0, 0}, {3, -3}, {4, -2}});
  const ConvexPwl h = ConvexPwl::InfConvolution(f, g);
  // Slope -1 pieces (lengths 1 and 3) merge, as do the slope 1 pieces.
  REQUIRE(h.points().size() == 3);
  CHECK(h.points()[1].x == Approx(4));
  CHECK(h.points()[1].y == Approx(-4));
  CHECK(h.hi() == Approx(6));
  CHECK(h.Eval(6) == Approx(-2));
  CHECK(ConvexPwl::InfConvolution(f, ConvexPwl()).empty());
}

TEST_CASE("MinimizeShiftedSum finds the exact minimum", "[convex_pwl]") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> shift(-3, 3);
  int found = 0;
  for (int rep = 0; rep < 300; ++rep) {
    const ConvexPwl f = RandomConvex(rng, -2, 1 + rep % 30);
    const ConvexPwl g = RandomConvex(rng, -2, 1 + rep % 4);
    const double e = shift(rng);
    const auto r = MinimizeShiftedSum(f, g, e);
    std::vector<double> ys;
    for (const PwlPoint& p : f.points()) ys.push_back(p.x);
    for (const PwlPoint& p : g.points()) ys.push_back(p.x + e);
    double brute = kInf;
    for (double y : ys) brute = std::min(brute, f.Eval(y) + g.Eval(y - e));
    for (int k = 0; k <= 1000; ++k) {
      const double y = f.lo() + (f.hi() - f.lo()) * k / 1000.0;
      brute = std::min(brute, f.Eval(y) + g.Eval(y - e));
    }
    if (brute == kInf) {
      CHECK_FALSE(r.has_value());
      continue;
    }
    ++found;
    REQUIRE(r.has_value());
    CHECK(r->value == Approx(brute).margin(1e-9));
    CHECK(f.Eval(r->y) + g.Eval(r->y - e) == Approx(r->value).margin(1e-9));
  }
  CHECK(found > 100);
}

TEST_CASE("MinimizeShiftedSum breaks ties toward y = e", "[convex_pwl]") {
  const ConvexPwl flat_f = ConvexPwl::LowerHull({{0, 1}, {10, 1}});
  const ConvexPwl flat_g = ConvexPwl::LowerHull({{-5, 0}, {5, 0}});
  const auto r = MinimizeShiftedSum(flat_f, flat_g, 3);
  REQUIRE(r.has_value());
  CHECK(r->y == 3);
  CHECK(r->value == 1);
  // e outside f's domain: the nearest end.
  const auto r2 = MinimizeShiftedSum(flat_f, flat_g, 12);
  REQUIRE(r2.has_value());
  CHECK(r2->y == Approx(10));
  CHECK_FALSE(MinimizeShiftedSum(flat_f, flat_g, 20).has_value());
}

}  // namespace
}  // namespace ckptdp::internal
