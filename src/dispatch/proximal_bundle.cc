#include "dispatch/internal/proximal_bundle.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ckptdp::internal {
namespace {

double Dot(const std::vector<double>& x, const std::vector<double>& y) {
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

// Serious steps in a row (each gaining too little of delta to shrink u by itself) after
// which the proximal weight halves.
constexpr int kSeriousToShrink = 3;
// Pairwise exchanges per cut at most: warm-started from the last weights the master
// needs few, and a cap keeps a zigzagging solve from dominating an iteration (measured on
// the paper S6 dual: 400 took 2x the CPU time for the same bound after 1000 iterations).
constexpr int kMaxExchangesPerCut = 20;

}  // namespace

double SolveSimplexQp(const std::vector<double>& q, const std::vector<double>& a, double u,
                      std::vector<double>& w, double tolerance) {
  const size_t k = a.size();
  if (k == 0) return 0;
  if (w.size() != k) w.assign(k, 0.0);
  double sum = 0;
  for (double& x : w) sum += (x = std::max(x, 0.0));
  if (!(sum > 0)) {
    std::fill(w.begin(), w.end(), 0.0);
    w[k - 1] = 1.0;
  } else {
    for (double& x : w) x /= sum;
  }
  // qw = Q w, kept up to date by each exchange; grad_i = a_i + (Q w)_i / u.
  std::vector<double> qw(k, 0.0);
  for (size_t i = 0; i < k; ++i) {
    if (w[i] == 0) continue;
    for (size_t r = 0; r < k; ++r) qw[r] += q[r * k + i] * w[i];
  }
  const int max_exchanges = kMaxExchangesPerCut * static_cast<int>(k) + 1000;
  for (int it = 0; it < max_exchanges; ++it) {
    // The used cut with the largest gradient gives weight to the cut with the smallest:
    // at the optimum (KKT) every used cut has the smallest gradient.
    size_t hi = k, lo = 0;
    double g_hi = 0, g_lo = a[0] + qw[0] / u, scale = 1;
    for (size_t i = 0; i < k; ++i) {
      const double g = a[i] + qw[i] / u;
      scale = std::max(scale, std::abs(g));
      if (g < g_lo) {
        g_lo = g;
        lo = i;
      }
      if (w[i] > 0 && (hi == k || g > g_hi)) {
        g_hi = g;
        hi = i;
      }
    }
    if (hi == k || hi == lo || g_hi - g_lo <= tolerance * scale) break;
    // Moving t from hi to lo changes the objective by -t (g_hi - g_lo) + t^2 curv / 2.
    const double curv = (q[hi * k + hi] + q[lo * k + lo] - 2 * q[hi * k + lo]) / u;
    double t = curv > 0 ? (g_hi - g_lo) / curv : w[hi];
    t = std::min(t, w[hi]);
    if (t <= 0) break;
    w[hi] -= t;
    w[lo] += t;
    if (w[hi] < 1e-15) {  // exactly off the support, so it stops counting as used
      w[lo] += w[hi];
      w[hi] = 0;
    }
    for (size_t r = 0; r < k; ++r) qw[r] += t * (q[r * k + lo] - q[r * k + hi]);
  }
  return Dot(a, w) + Dot(w, qw) / (2 * u);
}

ProximalBundle::ProximalBundle(std::vector<double> x0, double value, const std::vector<double>& g0,
                               std::vector<double> payload, double u0,
                               ProximalBundleOptions options)
    : options_(options),
      centre_(std::move(x0)),
      centre_value_(value),
      u_(std::clamp(u0, options.min_weight, options.max_weight)) {
  // The aggregate and the newest cut at least.
  options_.max_cuts = std::max(options_.max_cuts, 2);
  AddCut({g0, value - Dot(g0, centre_), std::move(payload), 0});
  w_.assign(1, 1.0);
}

void ProximalBundle::Errors(std::vector<double>& a) const {
  a.resize(cuts_.size());
  for (size_t i = 0; i < cuts_.size(); ++i) {
    // Valid cuts lie above D at the centre; rounding may leave a hair below.
    a[i] = std::max(0.0, cuts_[i].c + Dot(cuts_[i].g, centre_) - centre_value_);
  }
}

double ProximalBundle::Next(std::vector<double>& y) {
  std::vector<double> a;
  Errors(a);
  SolveSimplexQp(q_, a, u_, w_, options_.qp_tolerance);
  std::vector<double> gw(centre_.size(), 0.0);
  for (size_t i = 0; i < cuts_.size(); ++i) {
    cuts_[i].unused = w_[i] > 0 ? 0 : cuts_[i].unused + 1;
    if (w_[i] == 0) continue;
    for (size_t r = 0; r < gw.size(); ++r) gw[r] += w_[i] * cuts_[i].g[r];
  }
  aggregate_error_ = Dot(a, w_);
  delta_ = aggregate_error_ + Dot(gw, gw) / u_;
  y.resize(centre_.size());
  for (size_t r = 0; r < y.size(); ++r) y[r] = centre_[r] + gw[r] / u_;
  return delta_;
}

bool ProximalBundle::Report(const std::vector<double>& y, double value,
                            const std::vector<double>& g, std::vector<double> payload) {
  Cut cut{g, value - Dot(g, y), std::move(payload), 0};
  const double gain = value - centre_value_;
  // The model's quality at y: 1 if it predicted the gain exactly, <= 0 if D fell.
  const double ratio = delta_ > 0 ? gain / delta_ : 0.0;
  const bool serious = delta_ > 0 && gain >= options_.serious_fraction * delta_;
  if (serious) {
    centre_ = y;
    centre_value_ = value;
    // A good prediction: trust the model farther out (Kiwiel's interpolation 2 u (1 - r)).
    // Serious steps in a row say the same of the steps' length.
    if (ratio >= 0.5) {
      u_ *= std::clamp(2 * (1 - ratio), 0.2, 1.0);
    } else if (++serious_in_row_ >= kSeriousToShrink) {
      u_ *= 0.5;
      serious_in_row_ = 0;
    }
  } else {
    serious_in_row_ = 0;
    // The new cut's error at the centre: far above what the master used means the model
    // overshot, so shorten the steps.
    const double error = cut.c + Dot(g, centre_) - centre_value_;
    if (error > std::max(delta_, 10 * aggregate_error_)) {
      u_ *= std::clamp(2 * (1 - ratio), 1.0, 10.0);
    }
  }
  u_ = std::clamp(u_, options_.min_weight, options_.max_weight);
  AddCut(std::move(cut));
  return serious;
}

void ProximalBundle::AddCut(Cut cut) {
  if (static_cast<int>(cuts_.size()) >= options_.max_cuts) {
    // Cuts unused longest go first; if every cut is in use, the aggregate replaces them.
    for (int pass = 0; pass < 2 && static_cast<int>(cuts_.size()) >= options_.max_cuts; ++pass) {
      for (size_t i = cuts_.size(); i-- > 0;) {
        if (cuts_[i].unused > (pass == 0 ? 10 : 0)) RemoveCut(i);
      }
    }
    if (static_cast<int>(cuts_.size()) >= options_.max_cuts) Aggregate();
  }
  const size_t k = cuts_.size();
  std::vector<double> q((k + 1) * (k + 1));
  for (size_t r = 0; r < k; ++r) {
    std::copy(q_.begin() + r * k, q_.begin() + (r + 1) * k, q.begin() + r * (k + 1));
    q[r * (k + 1) + k] = q[k * (k + 1) + r] = Dot(cuts_[r].g, cut.g);
  }
  q[k * (k + 1) + k] = Dot(cut.g, cut.g);
  q_ = std::move(q);
  cuts_.push_back(std::move(cut));
  w_.push_back(0.0);
}

void ProximalBundle::RemoveCut(size_t i) {
  const size_t k = cuts_.size();
  std::vector<double> q;
  q.reserve((k - 1) * (k - 1));
  for (size_t r = 0; r < k; ++r) {
    if (r == i) continue;
    for (size_t s = 0; s < k; ++s) {
      if (s != i) q.push_back(q_[r * k + s]);
    }
  }
  q_ = std::move(q);
  cuts_.erase(cuts_.begin() + static_cast<std::ptrdiff_t>(i));
  w_.erase(w_.begin() + static_cast<std::ptrdiff_t>(i));
}

void ProximalBundle::Aggregate() {
  Cut agg{std::vector<double>(centre_.size(), 0.0), 0.0,
          std::vector<double>(cuts_.front().payload.size(), 0.0), 0};
  for (size_t i = 0; i < cuts_.size(); ++i) {
    agg.c += w_[i] * cuts_[i].c;
    for (size_t r = 0; r < agg.g.size(); ++r) agg.g[r] += w_[i] * cuts_[i].g[r];
    for (size_t r = 0; r < agg.payload.size(); ++r) agg.payload[r] += w_[i] * cuts_[i].payload[r];
  }
  cuts_.clear();
  q_.clear();
  w_.clear();
  AddCut(std::move(agg));
  w_[0] = 1.0;
}

std::vector<double> ProximalBundle::AggregatePayload() const {
  std::vector<double> p(cuts_.front().payload.size(), 0.0);
  double total = 0;
  for (size_t i = 0; i < cuts_.size() && i < w_.size(); ++i) total += w_[i];
  for (size_t i = 0; i < cuts_.size() && i < w_.size(); ++i) {
    if (w_[i] == 0) continue;
    for (size_t r = 0; r < p.size(); ++r) p[r] += w_[i] / total * cuts_[i].payload[r];
  }
  return p;
}

}  // namespace ckptdp::internal
