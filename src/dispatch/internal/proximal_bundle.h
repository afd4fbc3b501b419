// A proximal bundle method (Kiwiel, Math. Prog. 46, 1990; Lemarechal's survey in the
// Handbooks in OR 1, 1989) for maximising a concave, nonsmooth function D given by an
// oracle: at y, the value D(y) and one supergradient g. It serves the decomposition dual
// (decomposition.h) and knows nothing about it.
//
// The bundle holds cuts D(x) <= c_i + g_i . x. Around the stability centre x^ (the best
// point so far) the next trial point maximises the cutting-plane model minus a proximal
// term:
//
//   y = argmax_x  min_i (c_i + g_i . x) - (u / 2) |x - x^|^2.
//
// Its dual is a small QP over the convex-combination weights w of the cuts (the master):
//
//   min_{w in simplex}  sum_i w_i a_i + |G w|^2 / (2 u),     y = x^ + G w / u,
//
// with a_i = c_i + g_i . x^ - D(x^) >= 0, the cut's linearisation error at the centre. The
// model predicts the increase delta = sum_i w_i a_i + |G w|^2 / u. A trial that gains at
// least kSeriousFraction of delta moves the centre (serious step); otherwise its cut only
// refines the model (null step). The proximal weight u follows Kiwiel's safeguarded
// rules: smaller after a serious step that the model predicted well (longer steps), larger
// after a null step whose cut shows the model far too optimistic (shorter steps).
//
// Each cut carries a payload (a vector the caller chooses, e.g. the oracle's primal point)
// that the weights combine like the cuts: the aggregate payload is a convex combination of
// the oracle's answers, the fractional primal the volume algorithm also yields.
#ifndef CKPTDP_DISPATCH_INTERNAL_PROXIMAL_BUNDLE_H_
#define CKPTDP_DISPATCH_INTERNAL_PROXIMAL_BUNDLE_H_

#include <cstddef>
#include <vector>

namespace ckptdp::internal {

// The master QP: min_{w >= 0, sum w = 1} a . w + (1 / (2 u)) w' Q w, with Q = G' G
// (symmetric positive semidefinite, row-major k x k). Solved by pairwise exchanges of
// weight (a projected method on the simplex that moves mass from the worst used cut to
// the best one with an exact line search, as SMO does for support vector machines) until
// the KKT conditions hold to `tolerance` (relative to the gradient's scale). `w` is the
// warm start (any point of the simplex; resized and reset to a vertex if its size is
// wrong) and the answer. Returns the objective.
double SolveSimplexQp(const std::vector<double>& q, const std::vector<double>& a, double u,
                      std::vector<double>& w, double tolerance = 1e-12);

struct ProximalBundleOptions {
  int max_cuts = 100;             // bundle size (>= 2); beyond it, unused cuts go, then aggregation
  double qp_tolerance = 1e-8;     // the master's KKT tolerance (SolveSimplexQp)
  double serious_fraction = 0.1;  // a trial gaining this fraction of delta is serious
  double min_weight = 1e-9;       // u stays within [min_weight, max_weight]
  double max_weight = 1e12;
};

class ProximalBundle {
 public:
  // Starts at x0 with D(x0), a supergradient g0 there and its payload; u0 > 0 is the
  // first proximal weight (a step of about |g0| / u0).
  ProximalBundle(std::vector<double> x0, double value, const std::vector<double>& g0,
                 std::vector<double> payload, double u0, ProximalBundleOptions options = {});

  // Solves the master and writes the next trial point into y; returns delta, the
  // increase the model predicts there (0 when the model says the centre is optimal).
  double Next(std::vector<double>& y);

  // The oracle's answer at the last trial y: a serious step moves the centre to y. Returns
  // whether it was serious.
  bool Report(const std::vector<double>& y, double value, const std::vector<double>& g,
              std::vector<double> payload);

  const std::vector<double>& centre() const { return centre_; }
  double centre_value() const { return centre_value_; }
  double weight() const { return u_; }
  int cuts() const { return static_cast<int>(cuts_.size()); }
  // sum_i w_i payload_i at the last master solution (the start's payload before it).
  std::vector<double> AggregatePayload() const;

 private:
  struct Cut {
    std::vector<double> g;
    double c = 0;  // D(x) <= c + g . x
    std::vector<double> payload;
    int unused = 0;  // master solves in a row with zero weight
  };
  void AddCut(Cut cut);
  void RemoveCut(std::size_t i);
  // a_i at the current centre.
  void Errors(std::vector<double>& a) const;
  // Replaces the bundle by its aggregate cut (the weights' combination, exact for the
  // master's last solution, so the next master loses nothing it needs).
  void Aggregate();

  ProximalBundleOptions options_;
  std::vector<double> centre_;
  double centre_value_;
  double u_;
  std::vector<Cut> cuts_;
  std::vector<double> q_;       // Gram matrix of the cuts' g, cuts() x cuts()
  std::vector<double> w_;       // the master's weights
  double delta_ = 0;            // predicted increase at the last trial
  double aggregate_error_ = 0;  // sum_i w_i a_i at the last master solution
  int serious_in_row_ = 0;
};

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_PROXIMAL_BUNDLE_H_
