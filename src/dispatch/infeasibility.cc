#include "dispatch/internal/infeasibility.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "dispatch/internal/rate_bound.h"
#include "tbb/enumerable_thread_specific.h"
#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace ckptdp::internal {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();
// Certificate prices are multiples of 1/kScale GPU: fine enough to keep what the
// subgradient found, coarse enough that every sum stays an exact integer in a double.
constexpr double kScale = 1024.0;

// The decomposition dual restricted to a subset of the jobs (the others are left out,
// which relaxes the problem: a proof on a subset is a proof for the instance).
class ExcessDual {
 public:
  ExcessDual(const ScenarioContext& c, std::vector<int> jobs, int threads,
             Clock::time_point stop_at)
      : c_(c),
        jobs_(std::move(jobs)),
        deadline_(stop_at),
        arena_(threads > 0 ? threads : tbb::task_arena::automatic) {
    const Instance& in = *c.instance;
    const int slots = c.slots();
    capacity_ = in.site.gpu_capacity;
    unit_ = capacity_;
    for (int j : jobs_) {
      for (int m = 0; m < c.jobs[j]->num_modes(); ++m) unit_ = std::gcd(unit_, c.jobs[j]->gpus(m));
    }
    cap_units_ = capacity_ / unit_;
    active_.assign(slots, {});
    for (int a = 0; a < num_jobs(); ++a) {
      for (int t = release(a); t < deadline(a); ++t) active_[t].push_back(a);
    }
    job_value_.resize(num_jobs());
    x_.assign(num_jobs(), std::vector<int>(slots, 0));
    y_.assign(num_jobs(), std::vector<int>(slots, 0));
  }

  int num_jobs() const { return static_cast<int>(jobs_.size()); }
  int job(int a) const { return jobs_[a]; }
  int levels(int a) const { return c_.jobs[jobs_[a]]->num_modes() + 1; }
  int release(int a) const { return c_.instance->jobs[jobs_[a]].release_slot; }
  int deadline(int a) const { return c_.instance->jobs[jobs_[a]].deadline_slot; }
  int gpus(int a, int level) const { return level == 0 ? 0 : c_.jobs[jobs_[a]]->gpus(level - 1); }

  // Where slot t's prices of job a start in pi[a]: prices are stored over the job's window
  // only (on the 4096-job week, over the whole horizon, they took 0.6 GB).
  size_t PriceAt(int a, int t) const { return static_cast<size_t>(t - release(a)) * levels(a); }
  size_t PriceCount(int a) const { return PriceAt(a, deadline(a)); }

  // Prices pi[a][PriceAt(a, t) + level] (in GPUs, times the scale of Evaluate); an empty
  // pi[a] stands for one per GPU (UniformPrices). The job side: sets value() to the paths'
  // part and x. False if some job has no path at all (not this proof's business: the
  // engine reports it by name).
  bool EvaluateJobs(const std::vector<std::vector<double>>& pi) {
    const int n = num_jobs();
    // One task per job, results in per-job slots: the outcome does not depend on threads.
    arena_.execute(
        [&] { tbb::parallel_for(0, n, [&](int a) { job_value_[a] = SolveJob(a, pi); }); });
    value_ = 0;
    for (int a = 0; a < n; ++a) {
      if (job_value_[a] == kInf) return false;
      value_ += job_value_[a];
    }
    return true;
  }

  // One price per GPU of each level over each job's window: the LP's uniform prices.
  std::vector<std::vector<double>> UniformPrices() const {
    std::vector<std::vector<double>> pi(num_jobs());
    for (int a = 0; a < num_jobs(); ++a) UniformPrices(a, pi[a]);
    return pi;
  }

  // Adds the slot side to value(), the excess charged `scale` per GPU (pi not empty): call
  // after EvaluateJobs with the same prices. Separate
  // because on fleets it costs more than the paths, and is not needed when they fit.
  // False (value() then meaningless) if the deadline passes first.
  bool EvaluateSlots(const std::vector<std::vector<double>>& pi, double scale) {
    for (int t = 0; t < c_.slots(); ++t) {
      if (Clock::now() >= deadline_) return false;
      value_ += SlotSide(t, pi, scale);
    }
    return true;
  }

  bool Evaluate(const std::vector<std::vector<double>>& pi, double scale) {
    return EvaluateJobs(pi) && EvaluateSlots(pi, scale);
  }

  double value() const { return value_; }
  const std::vector<int>& x(int a) const { return x_[a]; }
  const std::vector<int>& y(int a) const { return y_[a]; }

  // GPU-slots above capacity of the job-side paths taken together (a schedule's excess).
  long long PathExcess() const {
    long long excess = 0;
    for (int t = 0; t < c_.slots(); ++t) {
      long long used = 0;
      for (int a : active_[t]) used += gpus(a, x_[a][t]);
      excess += std::max(0LL, used - capacity_);
    }
    return excess;
  }

 private:
  void UniformPrices(int a, std::vector<double>& out) const {
    out.resize(PriceCount(a));
    for (size_t i = 0; i < out.size(); ++i) out[i] = gpus(a, static_cast<int>(i % levels(a)));
  }

  // Job a's side at prices pi: its cheapest path's value (kInf if it has none or the
  // deadline has passed); sets x.
  double SolveJob(int a, const std::vector<std::vector<double>>& pi) {
    // S3's per-job DPs take seconds on large fleets: the attempt must not outlive its budget.
    if (Clock::now() >= deadline_) return kInf;
    const int slots = c_.slots();
    const int r = release(a), d = deadline(a);
    const JobSubproblem& sub = *c_.jobs[job(a)];
    EdgeCosts& costs = costs_.local();
    costs.Resize(sub.num_modes(), slots);
    costs.next_blocked.clear();
    costs.wait_forbidden.clear();
    const int levels_a = levels(a);
    const double* prices = pi[a].data();  // slot t's start at (t - r) * levels_a
    if (pi[a].empty()) {  // Prove's start, one per GPU: made here, not stored for every job
      std::vector<double>& uniform = uniform_prices_.local();
      UniformPrices(a, uniform);
      prices = uniform.data();
    }
    double idle = 0;  // every slot of the window at level 0; training replaces it
    for (int t = r; t < d; ++t) idle += prices[static_cast<size_t>(t - r) * levels_a];
    for (int m = 0; m < sub.num_modes(); ++m) {
      double* row = costs.PrefixRow(m);
      for (int t = 0; t < r; ++t) row[t + 1] = row[t];
      for (int t = r; t < d; ++t) {
        const double* at = prices + static_cast<size_t>(t - r) * levels_a;
        row[t + 1] = row[t] + (at[m + 1] - at[0]);
      }
      for (int t = d; t < slots; ++t) row[t + 1] = row[t];
    }
    JobWorkspace& work = work_.Local();
    const PathSolution plan = sub.Solve(costs, work);
    if (!plan.feasible) return kInf;
    std::fill(x_[a].begin(), x_[a].end(), 0);
    for (const Run& run : plan.runs) {
      const int level = c_.graph_mode_of[job(a)][run.mode] + 1;
      for (int t = run.start_slot; t < run.end_slot; ++t) x_[a][t] = level;
    }
    return sub.LowerBound(costs, plan, work) + idle;
  }

  // min over one level per active job of scale * excess - sum pi: a multiple-choice
  // knapsack over GPU units up to the capacity, plus one state for "above capacity",
  // where the excess grows linearly with every further GPU (so that state is exact).
  double SlotSide(int t, const std::vector<std::vector<double>>& pi, double scale) {
    const std::vector<int>& items = active_[t];
    // States beyond the most GPUs these jobs can use are unreachable (the capacity search
    // probes capacities up to millions of GPUs).
    int reachable = 0;
    for (int a : items) {
      int most = 0;
      for (int l = 1; l < levels(a); ++l) most = std::max(most, gpus(a, l) / unit_);
      reachable += most;
    }
    const int limit = std::min(cap_units_, reachable);
    const int over = limit + 1, states = limit + 2;
    value_by_state_.assign(states, kInf);
    value_by_state_[0] = 0;
    choice_.assign(items.size() * states, -1);
    const double per_unit = scale * unit_;
    for (size_t i = 0; i < items.size(); ++i) {
      const int a = items[i], levels_a = levels(a);
      const double* price = &pi[a][PriceAt(a, t)];
      next_.assign(states, kInf);
      int* choice = &choice_[i * states];
      for (int s = 0; s < states; ++s) {
        const double v = value_by_state_[s];
        if (v == kInf) continue;
        for (int l = 0; l < levels_a; ++l) {
          const int w = gpus(a, l) / unit_;
          int to = over;
          double cost = v - price[l];
          if (s == over) {
            cost += per_unit * w;
          } else if (s + w <= limit) {  // limit < cap_units_ only if never exceeded
            to = s + w;
          } else {
            cost += per_unit * (s + w - cap_units_);
          }
          if (cost < next_[to]) {
            next_[to] = cost;
            choice[to] = s * levels_a + l;
          }
        }
      }
      value_by_state_.swap(next_);
    }
    int best = 0;
    for (int s = 1; s < states; ++s) {
      if (value_by_state_[s] < value_by_state_[best]) best = s;
    }
    const double result = value_by_state_[best];
    for (int i = static_cast<int>(items.size()) - 1; i >= 0; --i) {
      const int a = items[i], packed = choice_[i * states + best];
      y_[a][t] = packed % levels(a);
      best = packed / levels(a);
    }
    return result;
  }

  const ScenarioContext& c_;
  std::vector<int> jobs_;
  Clock::time_point deadline_;  // job solves not started by then count as failed
  int capacity_ = 0, unit_ = 1, cap_units_ = 0;
  std::vector<std::vector<int>> active_;  // per slot: the jobs whose window covers it
  tbb::task_arena arena_;
  // A job's edge costs and DP scratch, per thread: they live only while its task runs.
  tbb::enumerable_thread_specific<EdgeCosts> costs_;
  Workspaces work_;
  tbb::enumerable_thread_specific<std::vector<double>> uniform_prices_;  // see SolveJob
  std::vector<double> job_value_;
  std::vector<std::vector<int>> x_, y_;
  std::vector<double> value_by_state_, next_;
  std::vector<int> choice_;
  double value_ = 0;
};

struct Attempt {
  bool proven = false;
  bool capacity_fits = false;
  bool by_rates = false;  // proven by the rate bound (excess then unknown)
  double excess = 0;
  int iterations = 0;
};

// Subgradient ascent on D (the prices are free in sign, so nothing to project), Polyak steps
// towards a target a little above the best value, with the certificate checked whenever
// the value is positive.
Attempt Prove(const ScenarioContext& c, const std::vector<int>& jobs,
              const CapacityProofOptions& options, std::vector<long long>* footprints) {
  Attempt out;
  ExcessDual dual(c, jobs, options.threads, options.deadline);

  const int slots = c.slots(), n = dual.num_jobs();
  // Start at the LP's uniform price of one per GPU: D is then the least GPU-slots the jobs
  // need minus what the capacity offers, and the job side's values are their footprints.
  // Empty prices stand for these until the paths collide: where they fit, as on most
  // fleets, the prices of every job (0.17 GB on the 4096-job week) are never stored.
  std::vector<std::vector<double>> pi(n), best_pi, rounded(n);
  auto certify = [&](const std::vector<std::vector<double>>& prices) {
    for (int a = 0; a < n; ++a) {
      rounded[a].resize(prices[a].size());
      for (size_t i = 0; i < prices[a].size(); ++i) {
        rounded[a][i] = std::round(prices[a][i] * kScale);
      }
    }
    if (!dual.Evaluate(rounded, kScale)) return false;
    // Every term is an integer below 2^53, so the sum is exact: >= 1 is a proof.
    if (dual.value() >= 1.0) {
      out.proven = true;
      out.excess = dual.value() / kScale;
    }
    return out.proven;
  };

  double best = -kInf, theta = 1.0;
  int since_best = 0;
  for (int it = 1; it <= options.max_iterations; ++it) {
    ++out.iterations;
    if (Clock::now() >= options.deadline) break;
    if (!dual.EvaluateJobs(pi)) break;
    if (it == 1 && footprints != nullptr) {
      // At unit prices the job side's path costs are the least GPU-slots of each job.
      footprints->assign(n, 0);
      for (int a = 0; a < n; ++a) {
        for (int t = 0; t < slots; ++t) (*footprints)[a] += dual.gpus(a, dual.x(a)[t]);
      }
    }
    const long long path_excess = dual.PathExcess();
    if (path_excess == 0) {
      out.capacity_fits = true;
      break;
    }
    // The least-GPU paths collide: before the decomposition's many prices, try the rate
    // bound's few weights (cheap, and enough on the paper case).
    if (it == 1 && options.rate_bound &&
        ProveByRates(c, jobs, options.deadline, options.max_iterations, out.iterations)) {
      out.proven = true;
      out.by_rates = true;
      break;
    }
    if (it == 1) pi = dual.UniformPrices();
    if (!dual.EvaluateSlots(pi, 1.0)) break;
    const double value = dual.value();
    if (best == -kInf || value > best + 1e-9 * std::max(1.0, std::abs(best))) {
      best = value;
      best_pi = pi;
      since_best = 0;
      if (best > 0.5 / kScale && certify(best_pi)) break;
    } else if (++since_best >= 20) {
      theta *= 0.5;
      since_best = 0;
      if (theta < 1e-5) break;
    }
    int mismatches = 0;
    for (int a = 0; a < n; ++a) {
      for (int t = dual.release(a); t < dual.deadline(a); ++t) {
        mismatches += dual.x(a)[t] != dual.y(a)[t];
      }
    }
    if (mismatches == 0) {
      // x = y: the paths are their own slot patterns and D is their excess, positive here.
      certify(pi);
      break;
    }
    const double target =
        std::min(static_cast<double>(path_excess), best + std::max(1.0, 0.1 * std::abs(best)));
    const double step = theta * std::max(target - value, 1e-3) / (2.0 * mismatches);
    for (int a = 0; a < n; ++a) {
      for (int t = dual.release(a); t < dual.deadline(a); ++t) {
        const int xl = dual.x(a)[t], yl = dual.y(a)[t];
        if (xl == yl) continue;
        pi[a][dual.PriceAt(a, t) + xl] += step;
        pi[a][dual.PriceAt(a, t) + yl] -= step;
      }
    }
  }
  return out;
}

std::string JobList(const Instance& in, const std::vector<int>& jobs) {
  std::vector<std::string> names;
  for (int j : jobs) names.push_back(in.jobs[j].name);
  if (names.size() <= 2) return absl::StrJoin(names, " and ");
  const std::string last = names.back();
  names.pop_back();
  return absl::StrJoin(names, ", ") + " and " + last;
}

std::string Diagnose(const Instance& in, const std::vector<int>& jobs,
                     const std::vector<long long>& footprint, const Attempt& proof) {
  const int capacity = in.site.gpu_capacity;
  int first = in.time.slots, last = 0;
  for (int j : jobs) {
    first = std::min(first, in.jobs[j].release_slot);
    last = std::max(last, in.jobs[j].deadline_slot);
  }
  // The job that "cannot finish" is the one needing the most GPU-slots; the others are
  // what it cannot finish beside.
  const int worst = *std::max_element(jobs.begin(), jobs.end(),
                                      [&](int a, int b) { return footprint[a] < footprint[b]; });
  std::vector<int> others;
  for (int j : jobs) {
    if (j != worst) others.push_back(j);
  }
  const Job& w = in.jobs[worst];
  std::string text = absl::StrFormat("%s cannot finish its %d segments by slot %d", w.name,
                                     w.segments, w.deadline_slot);
  if (!others.empty()) absl::StrAppend(&text, " beside ", JobList(in, others));
  absl::StrAppendFormat(&text, " with %d GPUs (proven).", capacity);
  long long need = 0;
  std::vector<std::string> parts;
  for (int j : jobs) {
    need += footprint[j];
    parts.push_back(absl::StrFormat("%s %d", in.jobs[j].name, footprint[j]));
  }
  const long long offered = static_cast<long long>(capacity) * (last - first);
  const std::string needs = jobs.size() == 1
                                ? absl::StrFormat("It needs at least %d GPU-slots", need)
                                : absl::StrFormat("They need at least %d GPU-slots (%s)", need,
                                                  absl::StrJoin(parts, ", "));
  if (need > offered) {
    absl::StrAppendFormat(&text, " %s in slots %d-%d, more than the %d that %d GPUs offer there.",
                          needs, first, last - 1, offered, capacity);
  } else if (proof.by_rates) {
    absl::StrAppendFormat(&text,
                          " %s in slots %d-%d, within the %d that %d GPUs offer there, but a job "
                          "runs one mode per slot and no choice of modes that fits %d GPUs in "
                          "every slot delivers %s in time (rate bound).",
                          needs, first, last - 1, offered, capacity, capacity,
                          jobs.size() == 1 ? "its compute" : "their compute");
  } else {
    absl::StrAppendFormat(&text,
                          " %s in slots %d-%d, within the %d that %d GPUs offer there, but a job "
                          "runs one mode per slot and no combination of modes fits: every "
                          "schedule exceeds the capacity by at least %.4g GPU-slots in total "
                          "(Lagrangian decomposition certificate).",
                          needs, first, last - 1, offered, capacity, proof.excess);
  }
  return text;
}

}  // namespace

CapacityProofOptions ProofOptions(const SolveOptions& options, Clock::time_point start) {
  CapacityProofOptions proof;
  proof.threads = options.threads;
  const double budget_s = std::min(2.0, 0.1 * options.time_limit_s);
  proof.deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(budget_s));
  return proof;
}

CapacityProof ProveCapacityInfeasible(const ScenarioContext& context,
                                      const CapacityProofOptions& options) {
  CapacityProof proof;
  std::vector<int> jobs(context.num_jobs());
  std::iota(jobs.begin(), jobs.end(), 0);
  if (jobs.empty()) return proof;
  std::vector<long long> footprint_of_subset;
  const Attempt full = Prove(context, jobs, options, &footprint_of_subset);
  proof.iterations = full.iterations;
  proof.capacity_fits = full.capacity_fits;
  if (!full.proven) return proof;
  proof.proven = true;
  proof.excess_gpu_slots = full.excess;
  Attempt kept = full;
  std::vector<long long> footprint(context.num_jobs());
  for (int j : jobs) footprint[j] = footprint_of_subset[j];
  if (options.minimise_jobs && jobs.size() > 1) {
    // Deletion filter, smallest footprint first: a job whose removal keeps the proof is
    // not needed to explain it.
    std::vector<int> order = jobs;
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return footprint[a] < footprint[b]; });
    for (int drop : order) {
      if (jobs.size() == 1 || Clock::now() >= options.deadline) break;
      std::vector<int> rest;
      for (int j : jobs) {
        if (j != drop) rest.push_back(j);
      }
      const Attempt smaller = Prove(context, rest, options, nullptr);
      proof.iterations += smaller.iterations;
      if (smaller.proven) {
        jobs = std::move(rest);
        proof.excess_gpu_slots = smaller.excess;
        kept = smaller;
      }
    }
  }
  proof.jobs = jobs;
  proof.diagnosis = Diagnose(*context.instance, jobs, footprint, kept);
  return proof;
}

}  // namespace ckptdp::internal
