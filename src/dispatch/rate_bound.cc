#include "dispatch/internal/rate_bound.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

namespace ckptdp::internal {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

// F(w) of the header, evaluated by one multiple-choice knapsack per slot.
class RateBound {
 public:
  RateBound(const ScenarioContext& c, std::vector<int> jobs) : c_(c), jobs_(std::move(jobs)) {
    const Instance& in = *c.instance;
    const int n = static_cast<int>(jobs_.size());
    capacity_ = in.site.gpu_capacity;
    int unit = capacity_;
    share_.resize(n);
    weight_.resize(n);
    for (int a = 0; a < n; ++a) {
      const int j = jobs_[a];
      const JobSubproblem& sub = *c.jobs[j];
      const JobModes& modes = (*c.modes)[j];
      const double slot_s = in.time.StepHours() * 3600.0;
      share_[a].push_back(0.0);
      weight_[a].push_back(0);
      // A job running at slot 0 has part of its first segment done (docs/model.md,
      // "Restarts"): the relaxation asks only for the rest, so it stays a relaxation.
      const Job& job = in.jobs[j];
      const double done =
          job.initial.has_value() ? job.initial->segment_fraction / job.segments : 0.0;
      const double needed = modes.workload.compute_flops * (1.0 - done);
      for (int m = 0; m < sub.num_modes(); ++m) {
        const Mode& mode = modes.feasible[sub.feasible_index(m)];
        share_[a].push_back(mode.throughput_flops * slot_s / needed);
        weight_[a].push_back(sub.gpus(m));
        unit = std::gcd(unit, sub.gpus(m));
      }
    }
    for (auto& w : weight_) {
      for (int& g : w) g /= unit;
    }
    cap_units_ = capacity_ / unit;
    active_.assign(c.slots(), {});
    for (int a = 0; a < n; ++a) {
      for (int t = in.jobs[jobs_[a]].release_slot; t < in.jobs[jobs_[a]].deadline_slot; ++t) {
        active_[t].push_back(a);
      }
    }
  }

  // F(w) and its supergradient 1 - share_j(argmax patterns). `magnitude` receives the
  // sum of the absolute values that make F up, to size the round-off margin. -inf when
  // the deadline passes first.
  double Evaluate(const std::vector<double>& w, Clock::time_point deadline,
                  std::vector<double>& gradient, double& magnitude) {
    const int n = static_cast<int>(jobs_.size());
    gradient.assign(n, 1.0);
    double f = 0;
    magnitude = 0;
    for (int a = 0; a < n; ++a) f += w[a];
    magnitude = f;
    double slot_value = 0;
    std::vector<int> levels;
    for (int t = 0; t < c_.slots(); ++t) {
      if (Clock::now() >= deadline) return -kInf;  // no proof from a partial sum
      // Consecutive slots with the same jobs have the same best pattern.
      if (t == 0 || active_[t] != active_[t - 1]) slot_value = BestPattern(active_[t], w, levels);
      f -= slot_value;
      magnitude += slot_value;
      for (size_t i = 0; i < active_[t].size(); ++i) {
        gradient[active_[t][i]] -= share_[active_[t][i]][levels[i]];
      }
    }
    return f;
  }

 private:
  // max sum_a w_a share_a(l_a) over one level per job with the GPUs within capacity: a
  // multiple-choice knapsack over GPU units.
  double BestPattern(const std::vector<int>& items, const std::vector<double>& w,
                     std::vector<int>& levels) {
    int reachable = 0;  // states beyond the most GPUs these jobs can use are unreachable
    for (int a : items) reachable += *std::max_element(weight_[a].begin(), weight_[a].end());
    const int states = std::min(cap_units_, reachable) + 1;
    value_.assign(states, -kInf);
    value_[0] = 0;
    choice_.assign(items.size() * states, -1);
    for (size_t i = 0; i < items.size(); ++i) {
      const int a = items[i], levels_a = static_cast<int>(share_[a].size());
      next_.assign(states, -kInf);
      int* choice = &choice_[i * states];
      for (int s = 0; s < states; ++s) {
        if (value_[s] == -kInf) continue;
        for (int l = 0; l < levels_a; ++l) {
          const int to = s + weight_[a][l];
          if (to >= states) continue;
          const double v = value_[s] + w[a] * share_[a][l];
          if (v > next_[to]) {
            next_[to] = v;
            choice[to] = s * levels_a + l;
          }
        }
      }
      value_.swap(next_);
    }
    int best = 0;
    for (int s = 1; s < states; ++s) {
      if (value_[s] > value_[best]) best = s;
    }
    const double result = value_[best];
    levels.assign(items.size(), 0);
    for (int i = static_cast<int>(items.size()) - 1; i >= 0; --i) {
      const int levels_a = static_cast<int>(share_[items[i]].size());
      const int packed = choice_[i * states + best];
      levels[i] = packed % levels_a;
      best = packed / levels_a;
    }
    return result;
  }

  const ScenarioContext& c_;
  std::vector<int> jobs_;
  int capacity_ = 0, cap_units_ = 0;
  std::vector<std::vector<double>> share_;  // per job and level: share of C_j per slot
  std::vector<std::vector<int>> weight_;    // per job and level: GPU units
  std::vector<std::vector<int>> active_;
  std::vector<double> value_, next_;
  std::vector<int> choice_;
};

// Euclidean projection onto the simplex {w >= 0, sum w = 1}.
void ProjectOnSimplex(std::vector<double>& w) {
  std::vector<double> sorted = w;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  double sum = 0, tau = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    sum += sorted[i];
    const double candidate = (sum - 1.0) / static_cast<double>(i + 1);
    if (sorted[i] - candidate > 0) tau = candidate;
  }
  for (double& x : w) x = std::max(0.0, x - tau);
}

}  // namespace

bool ProveByRates(const ScenarioContext& c, const std::vector<int>& jobs,
                  Clock::time_point deadline, int max_iterations, int& iterations) {
  RateBound bound(c, jobs);
  const int n = static_cast<int>(jobs.size());
  std::vector<double> w(n, 1.0 / n), gradient;
  double best = -kInf, theta = 0.5;
  int since_best = 0;
  for (int it = 1; it <= max_iterations; ++it) {
    ++iterations;
    if (Clock::now() >= deadline) return false;
    double magnitude = 0;
    const double f = bound.Evaluate(w, deadline, gradient, magnitude);
    if (f == -kInf) return false;
    if (f > 1e-9 * magnitude) return true;
    // Every job's compute delivered by the best patterns: the relaxation is feasible.
    if (std::all_of(gradient.begin(), gradient.end(), [](double g) { return g <= 0; })) {
      return false;
    }
    if (f > best) {
      best = f;
      since_best = 0;
    } else if (++since_best >= 10) {
      theta *= 0.5;
      since_best = 0;
      if (theta < 1e-6) return false;
    }
    double norm = 0;
    for (double g : gradient) norm += g * g;
    if (norm <= 0) return false;
    for (int a = 0; a < n; ++a) w[a] += theta * gradient[a] / std::sqrt(norm);
    ProjectOnSimplex(w);
  }
  return false;
}

}  // namespace ckptdp::internal
