// How the multipliers move between two evaluations of the Lagrangian dual. One component
// serves the root (lagrangian.cc) and every branch-and-bound node (branch_and_bound.cc);
// the interface leaves room for other methods (volume, bundle) beside the subgradient.
#ifndef CKPTDP_DISPATCH_INTERNAL_MULTIPLIER_UPDATE_H_
#define CKPTDP_DISPATCH_INTERNAL_MULTIPLIER_UPDATE_H_

#include <limits>
#include <optional>

#include "dispatch/internal/dual.h"
#include "dispatch/internal/multipliers.h"

namespace ckptdp::internal {

// A squared subgradient norm at or below this means the relaxed plans meet the coupling
// rows exactly: the multipliers are optimal and no step can be taken.
inline constexpr double kZeroSubgradientNormSq = 1e-18;

class MultiplierUpdate {
 public:
  virtual ~MultiplierUpdate() = default;
  // Records the dual value just evaluated; true if it is the best so far (the caller then
  // keeps these multipliers).
  virtual bool Observe(double value) = 0;
  // Moves `m` from the point `dual` was evaluated at, towards `incumbent_cost` when there
  // is an incumbent.
  virtual void Step(const DualEvaluator& dual, std::optional<double> incumbent_cost,
                    Multipliers& m) = 0;
  virtual double best() const = 0;
  // Evaluations since the best value last improved.
  virtual int since_best() const = 0;
};

// The constants of the deflected Polyak step, named: the root and the nodes use different
// ones (RootStepOptions, NodeStepOptions).
struct PolyakStepOptions {
  // The step's share of the estimated distance to the target; halved after
  // `halve_after` evaluations in a row without a better value.
  double initial_theta = 1.0;
  int halve_after = 10;
  // In [0, 1): the direction is the subgradient plus this share of the previous direction
  // (Camerini, Fratta and Maffioli 1975); 0 is the plain subgradient.
  double deflection = 0.0;
  // With a deflection: when the dual value falls from one evaluation to the next while the
  // incumbent is more than this share of |incumbent| above the best value (or there is no
  // incumbent), the next direction is the plain subgradient (the previous direction is
  // dropped: a function-value restart, O'Donoghue and Candes 2015). 0: never.
  double restart_above_gap = 0.0;
  // A value must beat the best by this share of max(1, |best|) to count as better.
  double improvement_tolerance = 1e-9;
  // The step never aims less than 1e-9 * max(step_floor_scale, |value|) above the value,
  // so that a target at or below it still moves the multipliers.
  double step_floor_scale = 1.0;
};

// The root: a fresh start with full steps; `deflection` and `restart_above_gap` as the
// caller chooses.
PolyakStepOptions RootStepOptions(double deflection, double restart_above_gap);
// A node: warm-started from its parent, so it begins with half steps and halves them
// twice as often; any improvement counts.
PolyakStepOptions NodeStepOptions();

// Polyak's step towards the incumbent cost (or, before one exists, an optimistic target
// above the best value), along the deflected subgradient projected so that mu stays >= 0.
class DeflectedPolyakStep final : public MultiplierUpdate {
 public:
  explicit DeflectedPolyakStep(const PolyakStepOptions& options) : options_(options) {}
  bool Observe(double value) override;
  void Step(const DualEvaluator& dual, std::optional<double> incumbent_cost,
            Multipliers& m) override;
  double best() const override { return best_; }
  int since_best() const override { return since_best_; }

 private:
  PolyakStepOptions options_;
  double theta_ = options_.initial_theta;
  double best_ = -std::numeric_limits<double>::infinity();
  double last_value_ = 0;
  bool fell_ = false;  // the last value is below the one before it
  int since_best_ = 0, since_halving_ = 0;
  Multipliers direction_;
};

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_MULTIPLIER_UPDATE_H_
