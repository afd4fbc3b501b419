// The proximal bundle method on the decomposition dual (decomposition.h,
// proximal_bundle.h): the prices flattened into one vector, the oracle D(pi) with its
// supergradient, and the choices of each evaluation as the cut's payload, so that the
// master's weights give x-bar.
#include <algorithm>
#include <cmath>
#include <utility>

#include "dispatch/internal/decomposition.h"
#include "dispatch/internal/proximal_bundle.h"

namespace ckptdp::internal {
namespace {

// The flat layout: every job's prices in order, then the battery's, in USD per unit of the
// battery power P (the copies in units of P, as the volume algorithm measures them, so
// that one proximal weight suits both kinds of coordinate). The payload: per job the job
// side's and the slot side's one-hot choices, (M + 1) per slot of its window each.
class FlatPrices {
 public:
  // `window`: slots per job's window (the length of its choices in a DecompositionPoint).
  FlatPrices(const DecompositionPrices& shape, double power_kw, std::vector<size_t> window)
      : shape_(shape), power_kw_(power_kw), window_(std::move(window)) {
    for (const auto& p : shape.job) size_ += p.size();
    size_ += shape.battery.size();
    for (size_t j = 0; j < shape.job.size(); ++j) {
      payload_offset_.push_back(payload_size_);
      payload_size_ += 2 * Choices(j);
    }
  }

  std::vector<double> Flatten(const DecompositionPrices& pi) const {
    std::vector<double> x;
    x.reserve(size_);
    for (const auto& p : pi.job) x.insert(x.end(), p.begin(), p.end());
    for (double rho : pi.battery) x.push_back(rho * power_kw_);
    return x;
  }

  void Unflatten(const std::vector<double>& x, DecompositionPrices& pi) const {
    pi = shape_;
    size_t i = 0;
    for (auto& p : pi.job) {
      for (double& v : p) v = x[i++];
    }
    for (double& rho : pi.battery) rho = x[i++] / power_kw_;
  }

  // The supergradient of D at the point: job side's minus slot side's choices (their
  // one-hot vectors over the priced modes; idle is not priced), battery side's net power
  // minus the slot side's, in units of P.
  std::vector<double> Gradient(const DecompositionPoint& point) const {
    std::vector<double> g(size_, 0.0);
    size_t at = 0;
    for (size_t j = 0; j < shape_.job.size(); ++j) {
      const size_t window = point.job_choice[j].size();
      const size_t modes = window > 0 ? shape_.job[j].size() / window : 0;
      for (size_t i = 0; i < window; ++i) {
        if (const int u = point.job_choice[j][i]; u > 0) g[at + i * modes + u - 1] += 1;
        if (const int y = point.slot_choice[j][i]; y > 0) g[at + i * modes + y - 1] -= 1;
      }
      at += shape_.job[j].size();
    }
    for (size_t t = 0; t < shape_.battery.size(); ++t) {
      g[at + t] = (point.battery_kw[t] - point.slot_battery_kw[t]) / power_kw_;
    }
    return g;
  }

  std::vector<double> Payload(const DecompositionPoint& point) const {
    std::vector<double> p(payload_size_, 0.0);
    for (size_t j = 0; j < shape_.job.size(); ++j) {
      const size_t stride = Stride(j), half = Choices(j);
      for (size_t i = 0; i < point.job_choice[j].size(); ++i) {
        p[payload_offset_[j] + i * stride + point.job_choice[j][i]] = 1;
        p[payload_offset_[j] + half + i * stride + point.slot_choice[j][i]] = 1;
      }
    }
    return p;
  }

  // x-bar from an aggregate payload: the average of the two sides' distributions.
  std::vector<std::vector<double>> XBar(const std::vector<double>& payload) const {
    std::vector<std::vector<double>> x_bar(shape_.job.size());
    for (size_t j = 0; j < shape_.job.size(); ++j) {
      const size_t half = Choices(j);
      x_bar[j].resize(half);
      for (size_t i = 0; i < half; ++i) {
        x_bar[j][i] =
            0.5 * (payload[payload_offset_[j] + i] + payload[payload_offset_[j] + half + i]);
      }
    }
    return x_bar;
  }

 private:
  // Choices per (job, slot), idle included, and their count over the job's window.
  size_t Stride(size_t j) const {
    return window_[j] > 0 ? shape_.job[j].size() / window_[j] + 1 : 1;
  }
  size_t Choices(size_t j) const { return window_[j] * Stride(j); }

  DecompositionPrices shape_;
  double power_kw_;
  std::vector<size_t> window_;
  size_t size_ = 0, payload_size_ = 0;
  std::vector<size_t> payload_offset_;
};

double SquaredNorm(const std::vector<double>& g) {
  double s = 0;
  for (double v : g) s += v * v;
  return s;
}

}  // namespace

absl::StatusOr<std::optional<DecompositionOutcome>> RunBundleMethod(
    DecompositionBound& bound, DecompositionPrices pi0, double target,
    const DecompositionOptions& options, const Deadline& deadline, const OfferPlans& offer) {
  DecompositionPoint point;
  if (!bound.Evaluate(pi0, point)) return std::nullopt;
  const double power_kw = pi0.battery.empty() ? 1.0 : bound.battery_power_kw();
  std::vector<size_t> window;
  for (const auto& choices : point.job_choice) window.push_back(choices.size());
  const FlatPrices flat(pi0, power_kw, std::move(window));
  DecompositionOutcome out;
  out.bound = point.value;
  out.iterations = 1;
  out.prices = pi0;
  out.plans = point.plans;
  std::vector<double> g = flat.Gradient(point);
  const double norm = SquaredNorm(g);
  if (norm <= 1e-18 || RelativeGap(target, out.bound) <= options.gap) {
    out.x_bar = flat.XBar(flat.Payload(point));
    return out;
  }
  // The first proximal weight makes the first step the volume algorithm's Polyak step
  // towards the target: |g|^2 / (target - D).
  const double first_gap = std::max(target - out.bound, 1e-9 * std::max(1.0, std::abs(target)));
  ProximalBundle bundle(flat.Flatten(pi0), point.value, g, flat.Payload(point), norm / first_gap);
  std::vector<double> y;
  DecompositionPrices pi;
  for (int it = 2; it <= options.max_iterations; ++it) {
    if (RelativeGap(target, out.bound) <= options.gap || deadline.Passed()) break;
    const double delta = bundle.Next(y);
    // The model sees no gain left worth a step: the centre is optimal to its precision.
    if (delta <= 1e-9 * std::max(1.0, std::abs(out.bound))) break;
    flat.Unflatten(y, pi);
    if (!bound.Evaluate(pi, point)) return std::nullopt;
    out.iterations = it;
    if (offer && it % kOfferEvery == 0) {
      CKPTDP_ASSIGN_OR_RETURN(const double incumbent, offer(point.plans));
      target = std::min(target, incumbent);
    }
    if (bundle.Report(y, point.value, flat.Gradient(point), flat.Payload(point))) {
      out.bound = point.value;
      out.prices = pi;
      out.plans = point.plans;
    }
  }
  out.x_bar = flat.XBar(bundle.AggregatePayload());
  return out;
}

}  // namespace ckptdp::internal
