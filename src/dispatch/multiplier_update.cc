#include "dispatch/internal/multiplier_update.h"

#include <algorithm>
#include <cmath>

namespace ckptdp::internal {

PolyakStepOptions RootStepOptions(double deflection, double restart_above_gap) {
  PolyakStepOptions o;
  o.deflection = deflection;
  o.restart_above_gap = restart_above_gap;
  return o;
}

PolyakStepOptions NodeStepOptions() {
  PolyakStepOptions o;
  o.initial_theta = 0.5;
  o.halve_after = 5;
  o.improvement_tolerance = 0.0;
  o.step_floor_scale = 0.0;
  return o;
}

bool DeflectedPolyakStep::Observe(double value) {
  const double kInf = std::numeric_limits<double>::infinity();
  fell_ = best_ != -kInf && value < last_value_;
  last_value_ = value;
  if (best_ == -kInf ||
      value > best_ + options_.improvement_tolerance * std::max(1.0, std::abs(best_))) {
    best_ = value;
    since_best_ = 0;
    since_halving_ = 0;
    return true;
  }
  ++since_best_;
  if (++since_halving_ >= options_.halve_after) {
    theta_ *= 0.5;
    since_halving_ = 0;
  }
  return false;
}

void DeflectedPolyakStep::Step(const DualEvaluator& dual, std::optional<double> incumbent_cost,
                               Multipliers& m) {
  const int slots = static_cast<int>(m.lambda.size());
  const std::vector<double>& g_lambda = dual.g_lambda();
  const std::vector<double>& g_mu = dual.g_mu();
  direction_.lambda.resize(slots, 0.0);
  direction_.mu.resize(slots, 0.0);
  if (fell_ && options_.restart_above_gap > 0 &&
      (!incumbent_cost ||
       *incumbent_cost - best_ > options_.restart_above_gap * std::abs(*incumbent_cost))) {
    std::fill(direction_.lambda.begin(), direction_.lambda.end(), 0.0);
    std::fill(direction_.mu.begin(), direction_.mu.end(), 0.0);
  }
  const double target =
      incumbent_cost ? *incumbent_cost : best_ + std::max(1.0, 0.05 * std::abs(best_));
  double direction_norm = 0;
  for (int t = 0; t < slots; ++t) {
    double& d_lambda = direction_.lambda[t];
    double& d_mu = direction_.mu[t];
    d_lambda = g_lambda[t] + options_.deflection * d_lambda;
    d_mu = g_mu[t] + options_.deflection * d_mu;
    if (m.mu[t] <= 0 && d_mu < 0) d_mu = 0;
    direction_norm += d_lambda * d_lambda + d_mu * d_mu;
  }
  if (direction_norm <= kZeroSubgradientNormSq) direction_norm = dual.norm_squared();
  const double value = last_value_;
  const double floor = 1e-9 * std::max(options_.step_floor_scale, std::abs(value));
  const double step = theta_ * std::max(target - value, floor) / direction_norm;
  // mu is in USD per GPU; scaled by the kW of one GPU it joins lambda in one step norm.
  const double gpu_kw = dual.gpu_kw();
  for (int t = 0; t < slots; ++t) {
    m.lambda[t] += step * direction_.lambda[t];
    m.mu[t] = std::max(0.0, m.mu[t] + step * direction_.mu[t] * gpu_kw);
  }
}

}  // namespace ckptdp::internal
