// The proximal bundle method (proximal_bundle.h): its master QP on the simplex against
// solutions worked out by hand, and the method on small nonsmooth concave functions whose
// maximum is known.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "dispatch/internal/proximal_bundle.h"

namespace ckptdp::internal {
namespace {

TEST_CASE("bundle master: the simplex QP meets its KKT solution", "[bundle]") {
  // Q = I, u = 1: min a . w + |w|^2 / 2 on the simplex. With a = (0, 0.5, 2) the used cuts
  // share one gradient a_i + w_i = 0.75: w = (0.75, 0.25, 0), objective 0.125 + 0.3125.
  const std::vector<double> identity = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  std::vector<double> w;
  double value = SolveSimplexQp(identity, {0, 0.5, 2}, 1.0, w);
  REQUIRE(w.size() == 3);
  CHECK(w[0] == Approx(0.75).margin(1e-9));
  CHECK(w[1] == Approx(0.25).margin(1e-9));
  CHECK(w[2] == Approx(0.0).margin(1e-12));
  CHECK(value == Approx(0.125 + 0.3125).margin(1e-9));
  // a = 0: the centre of the simplex.
  value = SolveSimplexQp(identity, {0, 0, 0}, 1.0, w);
  for (double x : w) CHECK(x == Approx(1.0 / 3).margin(1e-9));
  CHECK(value == Approx(1.0 / 6).margin(1e-9));
  // A large proximal weight u makes the linear term win: the vertex with the least a.
  SolveSimplexQp(identity, {3, 1, 2}, 1e9, w);
  CHECK(w[1] == Approx(1.0).margin(1e-6));
  // Singular Q (two equal gradients g1 = g2 = (1, 0), g3 = (-1, 0)): |G w|^2 is zero at
  // w1 + w2 = w3 = 1/2; the linear term a = (1, 0, 0) moves all of the first half to cut 2.
  const std::vector<double> singular = {1, 1, -1, 1, 1, -1, -1, -1, 1};
  w = {1, 0, 0};
  value = SolveSimplexQp(singular, {1, 0, 0}, 1e-3, w);
  CHECK(w[0] == Approx(0.0).margin(1e-9));
  CHECK(w[1] == Approx(0.5).margin(1e-6));
  CHECK(w[2] == Approx(0.5).margin(1e-6));
  CHECK(value == Approx(0.0).margin(1e-9));
}

// D(x) = min(x1, x2, 1 - x1 - x2) - 0.1 |x1 - x2| + the given concave extra: maximal at
// (1/3, 1/3) with value 1/3 (a kink of every piece meets there).
double Kinked(const std::vector<double>& x, std::vector<double>& g) {
  const double pieces[3] = {x[0], x[1], 1 - x[0] - x[1]};
  const int k = static_cast<int>(std::min_element(pieces, pieces + 3) - pieces);
  g = k == 0   ? std::vector<double>{1, 0}
      : k == 1 ? std::vector<double>{0, 1}
               : std::vector<double>{-1, -1};
  const double s = x[0] >= x[1] ? 1.0 : -1.0;
  g[0] -= 0.1 * s;
  g[1] += 0.1 * s;
  return pieces[k] - 0.1 * std::abs(x[0] - x[1]);
}

TEST_CASE("bundle method: maximises a nonsmooth concave function", "[bundle]") {
  std::vector<double> x = {-2.0, 3.0}, g;
  double value = Kinked(x, g);
  // Payload: the supergradient itself, so the aggregate payload is the aggregate G w.
  ProximalBundle bundle(x, value, g, g, 1.0);
  std::vector<double> y;
  int serious = 0, iterations = 0;
  for (; iterations < 200; ++iterations) {
    if (bundle.Next(y) <= 1e-9) break;
    value = Kinked(y, g);
    serious += bundle.Report(y, value, g, g) ? 1 : 0;
  }
  INFO(iterations << " iterations, " << serious << " serious steps");
  CHECK(iterations < 200);  // the model certified the optimum (delta ~ 0)
  CHECK(bundle.centre_value() == Approx(1.0 / 3).margin(1e-7));
  CHECK(bundle.centre()[0] == Approx(1.0 / 3).margin(1e-5));
  CHECK(bundle.centre()[1] == Approx(1.0 / 3).margin(1e-5));
  // The centre's value only rises, and never above the maximum.
  CHECK(bundle.centre_value() <= 1.0 / 3 + 1e-12);
  // The aggregate payload (here the cuts' supergradients) is the optimality certificate: a
  // convex combination of supergradients that vanishes at the maximum.
  const std::vector<double> p = bundle.AggregatePayload();
  CHECK(p[0] == Approx(0.0).margin(1e-6));
  CHECK(p[1] == Approx(0.0).margin(1e-6));
}

TEST_CASE("bundle method: a small bundle aggregates and still converges", "[bundle]") {
  // D(x) = -sum_i c_i |x_i - t_i| in 6 dimensions, maximum 0 at t; with at most 3 cuts the
  // bundle must drop and aggregate cuts along the way.
  const std::vector<double> c = {1, 2, 0.5, 3, 1, 1.5}, t = {1, -2, 0.5, 0, 4, -1};
  auto oracle = [&](const std::vector<double>& x, std::vector<double>& g) {
    double v = 0;
    g.assign(x.size(), 0.0);
    for (size_t i = 0; i < x.size(); ++i) {
      v -= c[i] * std::abs(x[i] - t[i]);
      g[i] = x[i] >= t[i] ? -c[i] : c[i];
    }
    return v;
  };
  std::vector<double> x(6, 0.0), g;
  double value = oracle(x, g);
  ProximalBundleOptions small;
  small.max_cuts = 3;
  ProximalBundle bundle(x, value, g, {}, 1.0, small);
  std::vector<double> y;
  for (int it = 0; it < 2000; ++it) {
    if (bundle.Next(y) <= 1e-9) break;
    value = oracle(y, g);
    bundle.Report(y, value, g, {});
    CHECK(bundle.cuts() <= small.max_cuts);
  }
  CHECK(bundle.centre_value() == Approx(0.0).margin(1e-4));
  CHECK(bundle.centre_value() <= 1e-12);
}

}  // namespace
}  // namespace ckptdp::internal
