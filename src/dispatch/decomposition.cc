#include "dispatch/internal/decomposition.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>
#include <utility>

#include "absl/strings/str_format.h"
#include "dispatch/internal/battery_dp.h"

namespace ckptdp::internal {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();
// Branch and bound takes the decomposition as its node bound when the root gap is at most
// this: below it, a node's volume iterations close the gap in few nodes (paper S6, 1.29 %;
// small S4 instances, 1.1-1.8 %); above it (the small S6 instances with the battery's copy
// alone, 11-77 %) the cheaper Lagrangian nodes were faster, 1.3 s against 15 s on
// small_3job_12slot S6.
constexpr double kNodeBoundGap = 0.05;
// ... and when its slot oracle enumerates patterns or runs a unit DP of at most this many
// cells (the unit DP's own budget, DecompositionOptions::max_unit_dp_cells). At 2^22 the
// 16-job fleet (6.6 million cells) kept Lagrangian nodes below the root decomposition's
// bound: 19573 nodes in 60 s left that bound (640.66, gap 0.77 %) where it was, as their
// LP-strength bounds stay below it. Since the unit DP's pass covers only the jobs' reach
// (decomposition_slot_dp.cc), 434 decomposition nodes in the same 60 s ended at 644.29 /
// 641.05, 0.50 % (docs/benchmarks.md, "Generated fleets").
constexpr int64_t kNodeBoundCells = int64_t{1} << 23;

// Choices of a plan in each slot of the job's window (0 idle, m + 1 graph mode m).
void PlanChoices(const ScenarioContext& c, int j, const std::vector<Run>& runs,
                 std::vector<int>& choice) {
  const Job& job = c.instance->jobs[j];
  choice.assign(job.deadline_slot - job.release_slot, 0);
  for (const Run& r : runs) {
    const int m = c.graph_mode_of[j][r.mode];
    for (int t = r.start_slot; t < r.end_slot; ++t) choice[t - job.release_slot] = m + 1;
  }
}

}  // namespace

std::optional<DecompositionBound> DecompositionBound::Build(const ScenarioContext& c,
                                                            const DecompositionOptions& options) {
  const Instance& in = *c.instance;
  DecompositionBound d(c);
  d.slots_.resize(c.slots());
  d.costs_.resize(c.num_jobs());
  d.masks_current_.assign(c.num_jobs(), 0);
  const double power_kw = c.power.use_battery ? c.power.battery.power_kw : 0.0;
  // With the grid contract the slot cost has more kinks (export and import caps).
  d.candidates_ = power_kw > 0 ? (c.power.HasGridContract() ? 10 : 4) : 1;
  d.battery_copy_ = power_kw > 0;
  // The demand charge and the green floor are priced on the slot side by their
  // multipliers (a term linear in each candidate's import) when no candidate imports
  // more than it must: then a higher import price cannot change any split.
  bool price_contract = c.power.demand_charge_usd_per_kw > 0 || c.power.min_green_share > 0;
  d.level_of_mode_.resize(c.num_jobs());
  for (int j = 0; j < c.num_jobs(); ++j) d.level_of_mode_[j] = ModeLevels(*c.jobs[j]);
  d.restrictions_.resize(c.num_jobs());
  // Rule: the patterns when they fit the budget, else the unit DP where it applies and its
  // cells fit its budget (decomposition_slot_dp.h), else no decomposition.
  bool too_many = false;
  for (int t = 0; t < c.slots() && !too_many; ++t) {
    Slot& s = d.slots_[t];
    d.SetActiveJobs(t);
    const int n = static_cast<int>(s.jobs.size());
    // Depth-first over the active jobs; GPUs and load only grow, so a choice that breaks
    // a limit cuts its whole subtree.
    std::vector<int> choice(n, 0);
    std::vector<int> gpus(n + 1, 0);
    std::vector<double> kw(n + 1, in.site.base_load_kw);
    int k = 0;
    while (k >= 0) {
      if (k == n) {
        d.entries_ += std::max(n, 1);
        if (d.entries_ > options.max_pattern_entries) {
          too_many = true;
          break;
        }
        for (int i = 0; i < n; ++i) s.entry.push_back(s.price_offset[i] + choice[i]);
        d.AppendLoadCosts(t, kw[n], price_contract);
        --k;
        if (k >= 0) ++choice[k];
        continue;
      }
      const JobSubproblem& job = *c.jobs[s.jobs[k]];
      if (choice[k] > job.num_modes()) {
        choice[k] = 0;
        --k;
        if (k >= 0) ++choice[k];
        continue;
      }
      const int m = choice[k] - 1;
      gpus[k + 1] = gpus[k] + (m >= 0 ? job.gpus(m) : 0);
      kw[k + 1] = kw[k] + (m >= 0 ? in.site.pue * job.it_power_kw(m) : 0.0);
      if (gpus[k + 1] > in.site.gpu_capacity ||
          kw[k + 1] > in.site.site_power_cap_kw + kPowerSlackKw) {
        ++choice[k];
        continue;
      }
      ++k;
    }
    if (!too_many && s.cost.empty()) return std::nullopt;  // not even all idle fits
  }
  if (too_many) {
    price_contract = c.power.demand_charge_usd_per_kw > 0 || c.power.min_green_share > 0;
    if (!d.BuildUnitDp(options, price_contract)) return std::nullopt;
  }
  if (price_contract) {
    // Units: the site cap (kW) for nu, a tenth of its energy over the horizon (MWh) for mu.
    // Measured on paper S6: with a green floor, 1000 iterations reached 277.29 USD with
    // that tenth, 275.72 with the whole energy; with a demand charge a tenth of the cap
    // raised the bound by 0.2 % only, and the primal search it fed ended dearer.
    const double unit_kw = std::max(1.0, in.site.site_power_cap_kw);
    if (c.power.demand_charge_usd_per_kw > 0) {
      d.peak_coords_ = c.slots();
      d.contract_units_.assign(c.slots(), unit_kw);
    }
    if (c.power.min_green_share > 0) {
      d.green_coord_ = true;
      d.contract_units_.push_back(c.slots() * unit_kw * c.power.step_hours / 1000.0 / 10);
    }
  } else {
    for (Slot& s : d.slots_) {
      s.grid_kw.clear();
      s.load_kw.clear();
    }
    // The battery inside the slot side, where asked for and its table fits (the contract's
    // multipliers are not priced there: with them the battery stays copied).
    // Its stages read the enumerated patterns, so not beside the unit DP.
    if (power_kw > 0 && options.battery_cells > 0 && !too_many && d.BuildBatterySlot(options)) {
      d.battery_copy_ = options.battery_slot_copy;
      d.battery_slot_on_ = true;
    }
  }
  return d;
}

void DecompositionBound::SetActiveJobs(int t) {
  const ScenarioContext& c = *c_;
  Slot& s = slots_[t];
  s = Slot{};
  int offset = 0;
  for (int j = 0; j < c.num_jobs(); ++j) {
    if (t < c.instance->jobs[j].release_slot || t >= c.instance->jobs[j].deadline_slot) continue;
    s.jobs.push_back(j);
    s.price_offset.push_back(offset);
    offset += c.jobs[j]->num_modes() + 1;
  }
  s.table.assign(offset, 0.0);
}

void DecompositionBound::AppendLoadCosts(int t, double load, bool& price_contract) {
  const ScenarioContext& c = *c_;
  Slot& s = slots_[t];
  const double power_kw = candidates_ > 1 ? c.power.battery.power_kw : 0.0;
  if (candidates_ == 1) {
    s.cost.push_back(SlotCostUsd(c.power, t, load));
    s.net_kw.push_back(0.0);
  } else if (candidates_ > 4) {
    // The ends, b = 0 and every kink of SlotCostUsd (SlotCostKinksKw) moved into
    // [b_lo, P]; a cap that no b meets leaves +infinity, never chosen.
    const double b_lo = std::max(-power_kw, -load);
    std::vector<double> bs = {b_lo, 0.0, power_kw};
    for (double k : SlotCostKinksKw(c.power, t)) bs.push_back(std::clamp(k - load, b_lo, power_kw));
    bs.resize(candidates_, b_lo);
    for (double b : bs) {
      s.cost.push_back(SlotCostUsd(c.power, t, load + b));
      s.net_kw.push_back(b);
    }
  } else {
    // The ends b_lo and P, b = 0 and the b at which the served load meets the
    // renewables (else b_lo): the kinks and ends of SlotCostUsd(L + b) on [b_lo, P].
    const double b_lo = std::max(-power_kw, -load);
    const double b_r = c.power.renewable_kw[t] - load;
    for (double b : {b_lo, 0.0, power_kw, b_r > b_lo && b_r < power_kw ? b_r : b_lo}) {
      s.cost.push_back(SlotCostUsd(c.power, t, load + b));
      s.net_kw.push_back(b);
    }
  }
  if (price_contract) {
    for (size_t q = s.cost.size() - candidates_; q < s.cost.size(); ++q) {
      if (!std::isfinite(s.cost[q])) {
        s.grid_kw.push_back(0.0);  // never chosen
        continue;
      }
      const double served = load + s.net_kw[q];
      const double grid = SlotGridKw(c.power, t, served);
      if (grid > MinSlotGridKw(c.power, t, served) + kPowerSlackKw) price_contract = false;
      s.grid_kw.push_back(grid);
    }
    s.load_kw.push_back(load);
  }
}

bool DecompositionBound::BuildUnitDp(const DecompositionOptions& options, bool& price_contract) {
  const ScenarioContext& c = *c_;
  const Site& site = c.instance->site;
  // IT power proportional to GPUs, one kW per GPU for every mode of every job: else a
  // pattern's load is not a function of its GPUs (comm_power_kw_per_gpu > 0).
  double kw_per_gpu = -1;
  for (const auto& job : c.jobs) {
    for (int m = 0; m < job->num_modes(); ++m) {
      if (job->gpus(m) <= 0) return false;
      const double r = job->it_power_kw(m) / job->gpus(m);
      if (kw_per_gpu < 0) kw_per_gpu = r;
      if (std::abs(r - kw_per_gpu) > 1e-12 * std::max(1.0, kw_per_gpu)) return false;
    }
  }
  entries_ = 0;
  unit_dp_cells_ = 0;
  for (int t = 0; t < c.slots(); ++t) {
    SetActiveJobs(t);
    Slot& s = slots_[t];
    s.unit_dp = true;
    // GPU units: the gcd of the active jobs' mode GPU counts (with no active job, one
    // level: all idle).
    int unit = 0;
    for (int j : s.jobs) {
      for (int m = 0; m < c.jobs[j]->num_modes(); ++m) unit = std::gcd(unit, c.jobs[j]->gpus(m));
    }
    const int top = unit > 0 ? site.gpu_capacity / unit : 0;
    unit = std::max(unit, 1);
    UnitDpShape& shape = s.shape;
    shape.offset = s.price_offset;
    shape.offset.push_back(static_cast<int>(s.table.size()));
    shape.units.assign(s.table.size(), 0);
    for (size_t k = 0; k < s.jobs.size(); ++k) {
      const JobSubproblem& job = *c.jobs[s.jobs[k]];
      for (int m = 0; m < job.num_modes(); ++m) {
        shape.units[s.price_offset[k] + m + 1] = job.gpus(m) / unit;
      }
    }
    // Levels within the capacity and, by their load, the site cap (both grow with g).
    const double kw_per_unit = site.pue * kw_per_gpu * unit;
    int levels = 0;
    while (levels <= top &&
           site.base_load_kw + kw_per_unit * levels <= site.site_power_cap_kw + kPowerSlackKw) {
      ++levels;
    }
    if (levels == 0) return false;  // not even all idle fits
    shape.levels = levels;
    unit_dp_cells_ += shape.Cells();
    if (unit_dp_cells_ > options.max_unit_dp_cells) return false;
    for (int g = 0; g < levels; ++g)
      AppendLoadCosts(t, site.base_load_kw + kw_per_unit * g, price_contract);
  }
  return true;
}

DecompositionPrices DecompositionBound::FromLagrangian(const std::vector<double>& lambda,
                                                       const std::vector<double>& mu) const {
  const ScenarioContext& c = *c_;
  DecompositionPrices prices;
  std::vector<std::vector<double>>& pi = prices.job;
  pi.resize(c.num_jobs());
  // The battery's copy is priced like load: charging 1 kW draws 1 kW more from the slot.
  // (Beside the slot side's battery DP a start at 0 did no better: docs/benchmarks.md.)
  if (battery_copy_) prices.battery = lambda;
  prices.contract.assign(contract_units_.size(), 0.0);
  for (int j = 0; j < c.num_jobs(); ++j) {
    const Job& job = c.instance->jobs[j];
    const JobSubproblem& sub = *c.jobs[j];
    const int modes = sub.num_modes();
    pi[j].resize(static_cast<size_t>(job.deadline_slot - job.release_slot) * modes);
    for (int t = job.release_slot; t < job.deadline_slot; ++t) {
      for (int m = 0; m < modes; ++m) {
        pi[j][static_cast<size_t>(t - job.release_slot) * modes + m] =
            lambda[t] * c.instance->site.pue * sub.it_power_kw(m) + mu[t] * sub.gpus(m);
      }
    }
  }
  return prices;
}

bool DecompositionBound::StartContract(const PowerDispatch& incumbent, DecompositionPrices& pi) {
  pi.contract.assign(contract_units_.size(), 0.0);
  if (peak_coords_ == 0 || static_cast<int>(incumbent.slots.size()) != peak_coords_) return true;
  double peak = 0;
  for (const PowerSlot& s : incumbent.slots) peak = std::max(peak, s.grid_kw);
  if (peak <= c_->power.peak_so_far_kw) return true;
  // The charge shared by the slots at the incumbent's peak (within 0.1 %): with a
  // battery the best schedules import at one level in many slots.
  const double level = peak - 1e-3 * std::max(1.0, peak);
  int at_peak = 0;
  for (const PowerSlot& s : incumbent.slots) at_peak += s.grid_kw >= level ? 1 : 0;
  DecompositionPrices shared = pi;
  for (int t = 0; t < peak_coords_; ++t) {
    if (incumbent.slots[t].grid_kw >= level) {
      shared.contract[t] = c_->power.demand_charge_usd_per_kw / at_peak;
    }
  }
  DecompositionPoint at_zero, at_shared;
  if (!Evaluate(pi, at_zero) || !Evaluate(shared, at_shared)) return false;
  if (at_shared.value > at_zero.value) pi.contract = std::move(shared.contract);
  return true;
}

bool DecompositionBound::StartGreenPrice(DecompositionPrices& pi) {
  if (!green_coord_) return true;
  // D is concave in mu with the other prices fixed: double mu from 1 USD/MWh while D
  // rises, then narrow the bracket around the best by golden section.
  constexpr double kMaxGreenPrice = 1e6;  // USD/MWh
  constexpr int kGoldenSteps = 12;
  DecompositionPoint point;
  auto value_at = [&](double mu, double& value) {
    pi.contract[peak_coords_] = mu;
    if (!Evaluate(pi, point)) return false;
    value = point.value;
    return true;
  };
  double best_mu = 0, best = 0, lo = 0, hi = 0;
  if (!value_at(0.0, best)) return false;
  for (double mu = 1.0; mu <= kMaxGreenPrice; mu *= 2) {
    double v = 0;
    if (!value_at(mu, v)) return false;
    hi = mu;
    if (v <= best) break;
    lo = best_mu;
    best_mu = mu;
    best = v;
  }
  const double ratio = (std::sqrt(5.0) - 1) / 2;
  for (int step = 0; step < kGoldenSteps && hi > lo; ++step) {
    for (double mu : {hi - ratio * (hi - lo), lo + ratio * (hi - lo)}) {
      double v = 0;
      if (!value_at(mu, v)) return false;
      if (v > best) {
        best = v;
        best_mu = mu;
      }
    }
    // Keep the half around the best point found so far.
    if (best_mu < (lo + hi) / 2) {
      hi = lo + ratio * (hi - lo);
    } else {
      lo = hi - ratio * (hi - lo);
    }
  }
  pi.contract[peak_coords_] = best_mu;
  return true;
}

void DecompositionBound::ProjectContract(std::vector<double>& contract) const {
  if (peak_coords_ > 0) {
    ProjectPeakMultipliers(std::span<double>(contract.data(), peak_coords_),
                           c_->power.demand_charge_usd_per_kw);
  }
  if (green_coord_) contract[peak_coords_] = std::max(0.0, contract[peak_coords_]);
}

void DecompositionBound::Restrict(const std::vector<SlotRestriction>& restrictions) {
  Restrict(restrictions, {}, {});
}

void DecompositionBound::Restrict(const std::vector<SlotRestriction>& restrictions,
                                  const std::vector<ProgressRestriction>& progress,
                                  const std::vector<std::vector<char>>& excluded) {
  const ScenarioContext& c = *c_;
  for (auto& r : restrictions_) r.clear();
  for (Slot& s : slots_) s.excluded.clear();
  masks_current_.assign(c.num_jobs(), 0);
  progress_ = progress;
  excluded_ = excluded;
  battery_.live_stale = true;
  // The slot side drops the patterns with an excluded choice.
  for (int j = 0; j < static_cast<int>(excluded.size()); ++j) {
    const int release = c.instance->jobs[j].release_slot, stride = c.jobs[j]->num_modes() + 1;
    for (size_t i = 0; i < excluded[j].size(); ++i) {
      if (!excluded[j][i]) continue;
      Slot& s = slots_[release + static_cast<int>(i) / stride];
      if (s.excluded.empty()) s.excluded.assign(s.table.size(), 0);
      const int k = static_cast<int>(std::find(s.jobs.begin(), s.jobs.end(), j) - s.jobs.begin());
      s.excluded[s.price_offset[k] + static_cast<int>(i) % stride] = 1;
    }
  }
  for (const SlotRestriction& r : restrictions) {
    restrictions_[r.job].push_back(r);
    Slot& s = slots_[r.slot];
    if (s.excluded.empty()) s.excluded.assign(s.table.size(), 0);
    const int k = static_cast<int>(std::find(s.jobs.begin(), s.jobs.end(), r.job) - s.jobs.begin());
    for (int choice = 0; choice <= c.jobs[r.job]->num_modes(); ++choice) {
      const int level = choice == 0 ? 0 : level_of_mode_[r.job][choice - 1];
      if (level <= r.lo || level > r.hi) s.excluded[s.price_offset[k] + choice] = 1;
    }
  }
}

void DecompositionBound::ApplyJobRestrictions(int j, const SlotRestriction* replace,
                                              EdgeCosts& costs) const {
  std::vector<const SlotRestriction*> rs;
  for (const SlotRestriction& r : restrictions_[j]) {
    if (replace == nullptr || r.slot != replace->slot) rs.push_back(&r);
  }
  if (replace != nullptr) rs.push_back(replace);
  costs.next_blocked.clear();
  costs.wait_forbidden.clear();
  ApplyRestrictions(*c_, j, rs, level_of_mode_[j], costs);
  if (!excluded_.empty()) ExcludeChoices(*c_, j, excluded_[j], costs);
  ApplyProgressRestrictions(j, c_->instance->jobs[j].segments, progress_, costs);
}

bool DecompositionBound::Evaluate(const DecompositionPrices& prices, DecompositionPoint& out) {
  if (!SolveJobSide(prices, out)) return false;
  if (!SolveSlotSide(prices, out)) return false;
  if (!SolveBatterySide(prices, out)) return false;
  out.value = out.job_side + out.slot_side + out.battery_side;
  return true;
}

bool DecompositionBound::SolveJobSide(const DecompositionPrices& prices, DecompositionPoint& out) {
  const std::vector<std::vector<double>>& pi = prices.job;
  const ScenarioContext& c = *c_;
  const Instance& in = *c.instance;
  out.job_side = 0;
  out.job_choice.resize(c.num_jobs());
  out.slot_choice.resize(c.num_jobs());
  out.plans.resize(c.num_jobs());
  out.job_progress.resize(c.num_jobs());
  // The path DP with the copy prices as per-(mode, slot) edge costs.
  for (int j = 0; j < c.num_jobs(); ++j) {
    const Job& job = in.jobs[j];
    const JobSubproblem& sub = *c.jobs[j];
    const int modes = sub.num_modes();
    EdgeCosts& costs = costs_[j];
    costs.Resize(modes, c.slots());
    // The restrictions' masks change only with Restrict (and ChoiceBounds' re-solves, which
    // mark them stale): built once, not per evaluation (a twentieth of a fleet node's time).
    if (!masks_current_[j]) {
      ApplyJobRestrictions(j, nullptr, costs);
      masks_current_[j] = 1;
    }
    for (int m = 0; m < modes; ++m) {
      double* row = costs.PrefixRow(m);
      for (int t = 0; t < c.slots(); ++t) {
        const bool active = t >= job.release_slot && t < job.deadline_slot;
        row[t + 1] =
            row[t] + (active ? pi[j][static_cast<size_t>(t - job.release_slot) * modes + m] : 0.0);
      }
    }
    PathSolution& plan = out.plans[j];
    plan = sub.Solve(costs, work_[j]);
    if (!plan.feasible) return false;
    out.job_side += sub.LowerBound(costs, plan, work_[j]);
    PlanChoices(c, j, plan.runs, out.job_choice[j]);
    PlanProgress(plan.runs, job.release_slot, job.deadline_slot, out.job_progress[j]);
    out.slot_choice[j].assign(job.deadline_slot - job.release_slot, 0);
  }
  return true;
}

void DecompositionBound::FillTable(const DecompositionPrices& prices, int t) {
  const ScenarioContext& c = *c_;
  const Instance& in = *c.instance;
  Slot& s = slots_[t];
  const int n = static_cast<int>(s.jobs.size());
  for (int k = 0; k < n; ++k) {
    const int j = s.jobs[k];
    const int modes = c.jobs[j]->num_modes();
    const double* p =
        prices.job[j].data() + static_cast<size_t>(t - in.jobs[j].release_slot) * modes;
    s.table[s.price_offset[k]] = 0.0;  // idle (an earlier restriction may have excluded it)
    std::copy(p, p + modes, s.table.begin() + s.price_offset[k] + 1);
  }
  // A choice the restrictions exclude makes its patterns infinitely expensive.
  if (!s.excluded.empty()) {
    for (size_t i = 0; i < s.table.size(); ++i) {
      if (s.excluded[i]) s.table[i] = -kInf;
    }
  }
}

void DecompositionBound::PatternValues(const DecompositionPrices& prices, int t,
                                       std::vector<double>& values, std::vector<size_t>& picks) {
  const ScenarioContext& c = *c_;
  Slot& s = slots_[t];
  const int n = static_cast<int>(s.jobs.size());
  FillTable(prices, t);
  // Per pattern, or per GPU level for the unit DP (no entries: its knapsack subtracts the
  // choices' prices).
  const size_t patterns = s.cost.size() / candidates_;
  const int width = s.unit_dp ? 0 : n;
  values.resize(patterns);
  picks.resize(patterns);
  const int32_t* e = s.entry.data();
  const double rho = battery_copy_ ? prices.battery[t] : 0.0;
  // The contract multipliers: nu_t + mu dt per kW imported, and the load's credit
  // mu (1 - floor) dt per kW of AIDC load (dt in hours / 1000: USD per MWh to per kW).
  const bool priced = !contract_units_.empty();
  double import_price = 0, load_credit = 0;
  if (priced) {
    const double mwh_per_kw = c.power.step_hours / 1000.0;
    const double mu = green_coord_ ? prices.contract[peak_coords_] * mwh_per_kw : 0.0;
    import_price = (peak_coords_ > 0 ? prices.contract[t] : 0.0) + mu;
    load_credit = mu * (1.0 - c.power.min_green_share);
  }
  auto candidate = [&](size_t q) {
    return s.cost[q] - rho * s.net_kw[q] + (priced ? import_price * s.grid_kw[q] : 0.0);
  };
  // Without a battery or contract prices a pattern's or level's value starts from its cost
  // (the candidate above is that cost, exactly): a copy. On the fleets' unit DP the loop
  // below was about a tenth of a decomposition node's time.
  if (candidates_ == 1 && !priced) {
    for (size_t p = 0; p < patterns; ++p, e += width) {
      double v = s.cost[p];
      for (int k = 0; k < width; ++k) v -= s.table[e[k]];
      values[p] = v;
      picks[p] = p;
    }
    return;
  }
  for (size_t p = 0; p < patterns; ++p, e += width) {
    // With a battery: the best of the pattern's candidates b at the copy's price rho.
    const size_t at = p * candidates_;
    size_t pick = at;
    double v = candidate(at);
    for (size_t q = at + 1; q < at + candidates_; ++q) {
      const double w = candidate(q);
      if (w < v) {
        v = w;
        pick = q;
      }
    }
    if (priced) v -= load_credit * s.load_kw[p];
    for (int k = 0; k < width; ++k) v -= s.table[e[k]];
    values[p] = v;
    picks[p] = pick;
  }
}

bool DecompositionBound::SolveSlotSide(const DecompositionPrices& prices, DecompositionPoint& out) {
  if (battery_slot_on_) return SolveBatterySlotSide(prices, out);
  const ScenarioContext& c = *c_;
  const Instance& in = *c.instance;
  out.slot_side = 0;
  // The cheapest pattern of each slot at the prices.
  out.slot_battery_kw.assign(battery_copy_ ? c.slots() : 0, 0.0);
  out.contract_slack.assign(contract_units_.size(), 0.0);
  const double floor = c.power.min_green_share, mwh_per_kw = c.power.step_hours / 1000.0;
  for (int t = 0; t < c.slots(); ++t) {
    PatternValues(prices, t, values_, picks_);
    const Slot& s = slots_[t];
    const int n = static_cast<int>(s.jobs.size());
    // The cheapest pattern, or the unit DP's (its GPU level indexes the costs).
    size_t best_p = 0;
    double best = kInf;
    if (s.unit_dp) {
      dp_choice_.resize(n);
      const UnitDpMinimum m = unit_dp_.Minimise(s.shape, s.table, values_, dp_choice_);
      best_p = m.level;
      best = m.value;
    } else {
      best_p = std::min_element(values_.begin(), values_.end()) - values_.begin();
      best = values_[best_p];
    }
    if (best == kInf) return false;  // the restrictions leave no pattern
    if (battery_copy_) out.slot_battery_kw[t] = s.net_kw[picks_[best_p]];
    out.slot_side += best;
    if (!contract_units_.empty()) {
      // The peak's own term: sum_t nu_t (grid_t - peak_so_far), and the subgradients.
      const double grid = s.grid_kw[picks_[best_p]];
      if (peak_coords_ > 0) {
        out.slot_side -= prices.contract[t] * c.power.peak_so_far_kw;
        out.contract_slack[t] = grid - c.power.peak_so_far_kw;
      }
      if (green_coord_) {
        out.contract_slack[peak_coords_] += (grid - (1.0 - floor) * s.load_kw[best_p]) * mwh_per_kw;
      }
    }
    for (int k = 0; k < n; ++k) {
      const int j = s.jobs[k];
      out.slot_choice[j][t - in.jobs[j].release_slot] =
          s.unit_dp ? dp_choice_[k] : s.entry[best_p * n + k] - s.price_offset[k];
    }
  }
  return true;
}

bool DecompositionBound::SolveBatterySide(const DecompositionPrices& prices,
                                          DecompositionPoint& out) const {
  const ScenarioContext& c = *c_;
  // Its own SoC dynamics, wear and the copy's prices (the exact DP).
  out.battery_side = 0;
  out.battery_kw.clear();
  if (battery_copy_) {
    std::vector<ConvexPwl> stage(c.slots());
    const double power_kw = c.power.battery.power_kw;
    for (int t = 0; t < c.slots(); ++t) {
      const double rho = prices.battery[t];
      stage[t] = ConvexPwl::LowerHull({{-power_kw, -rho * power_kw}, {power_kw, rho * power_kw}});
    }
    BatteryModel model = BatteryModel::FromInputs(c.power);
    // Beside the slot side's battery DP, which charges the wear, the copy's side does not.
    if (battery_slot_on_) model.wear_usd_per_kwh = 0;
    absl::StatusOr<BatteryDpResult> dp = SolveBatteryDp(model, stage);
    if (!dp.ok()) return false;
    out.battery_side = dp->value_usd;
    out.battery_kw = std::move(dp->net_kw);
  }
  return true;
}

namespace {

// The volume algorithm's averages (x-bar): per job the two sides' choice distributions u
// (job side) and y (slot side) over choices 0..M per slot of its window, and the battery
// copies' averages in units of the battery power P. It also forms the direction (the
// subgradient at x-bar) and blends in each new point.
class VolumeAverages {
 public:
  VolumeAverages(const DecompositionPrices& pi0, const DecompositionPoint& point, double power_kw,
                 const std::vector<double>& contract_units)
      : jobs_(static_cast<int>(pi0.job.size())),
        coords_(static_cast<int>(pi0.battery.size())),
        power_kw_(power_kw),
        contract_units_(contract_units),
        contract_bar_(contract_units.size()),
        window_(jobs_),
        modes_(jobs_),
        u_bar_(jobs_),
        y_bar_(jobs_),
        bb_bar_(coords_),
        bs_bar_(coords_) {
    // Modes per job and window length, from the price layout and the choices.
    for (int j = 0; j < jobs_; ++j) {
      window_[j] = static_cast<int>(point.job_choice[j].size());
      modes_[j] = window_[j] > 0 ? static_cast<int>(pi0.job[j].size()) / window_[j] : 0;
    }
    OneHot(point.job_choice, u_bar_);
    OneHot(point.slot_choice, y_bar_);
    progress_bar_.resize(jobs_);
    for (int j = 0; j < jobs_; ++j) {
      const std::vector<int>& p = point.job_progress[j];
      width_.push_back(p.empty() ? 1 : p.back() + 1);  // the last is the segments done
      progress_bar_[j].assign(p.size() * width_[j], 0.0);
      for (size_t i = 0; i < p.size(); ++i) progress_bar_[j][i * width_[j] + p[i]] = 1.0;
    }
    for (int i = 0; i < coords_; ++i) {
      bb_bar_[i] = Copy(point.battery_kw, i);
      bs_bar_[i] = Copy(point.slot_battery_kw, i);
    }
    for (size_t i = 0; i < contract_bar_.size(); ++i) contract_bar_[i] = Slack(point, i);
  }

  // Writes the subgradient at x-bar into `direction` (u_bar - y_bar over the priced
  // choices, battery minus slot side for the battery copies); returns its squared norm.
  double Direction(DecompositionPrices& direction) const {
    double norm = 0;
    for (int j = 0; j < jobs_; ++j) {
      const int stride = modes_[j] + 1;
      for (int i = 0; i < window_[j]; ++i) {
        for (int m = 0; m < modes_[j]; ++m) {
          const double v = u_bar_[j][i * stride + m + 1] - y_bar_[j][i * stride + m + 1];
          direction.job[j][static_cast<size_t>(i) * modes_[j] + m] = v;
          norm += v * v;
        }
      }
    }
    for (int i = 0; i < coords_; ++i) {
      direction.battery[i] = bb_bar_[i] - bs_bar_[i];
      norm += direction.battery[i] * direction.battery[i];
    }
    for (size_t i = 0; i < contract_bar_.size(); ++i) {
      direction.contract[i] = contract_bar_[i];
      norm += contract_bar_[i] * contract_bar_[i];
    }
    return norm;
  }

  // With g the subgradient at `point` and v the `direction`: g . v (whether they agree),
  // and the alpha in [alpha_max / 10, alpha_max] that minimises |alpha g + (1 - alpha) v|.
  struct Blend {
    double g_dot_v = 0;
    double alpha = 0;
  };
  Blend Weigh(const DecompositionPoint& point, const DecompositionPrices& direction,
              double alpha_max) const {
    double g_dot_v = 0, gv_gv = 0, v_gv = 0;
    auto accumulate = [&](double g, double v) {
      g_dot_v += g * v;
      gv_gv += (g - v) * (g - v);
      v_gv += v * (g - v);
    };
    for (int j = 0; j < jobs_; ++j) {
      for (int i = 0; i < window_[j]; ++i) {
        const int ju = point.job_choice[j][i], sy = point.slot_choice[j][i];
        for (int m = 0; m < modes_[j]; ++m) {
          accumulate((ju == m + 1 ? 1.0 : 0.0) - (sy == m + 1 ? 1.0 : 0.0),
                     direction.job[j][static_cast<size_t>(i) * modes_[j] + m]);
        }
      }
    }
    for (int i = 0; i < coords_; ++i) {
      accumulate(Copy(point.battery_kw, i) - Copy(point.slot_battery_kw, i), direction.battery[i]);
    }
    for (size_t i = 0; i < contract_bar_.size(); ++i) {
      accumulate(Slack(point, i), direction.contract[i]);
    }
    double alpha = gv_gv > 0 ? -v_gv / gv_gv : alpha_max;
    alpha = std::clamp(alpha, alpha_max / 10, alpha_max);
    return {g_dot_v, alpha};
  }

  // x-bar <- (1 - alpha) x-bar + alpha point.
  void Add(const DecompositionPoint& point, double alpha) {
    for (int j = 0; j < jobs_; ++j) {
      const int stride = modes_[j] + 1;
      for (double& x : u_bar_[j]) x *= 1 - alpha;
      for (double& x : y_bar_[j]) x *= 1 - alpha;
      for (int i = 0; i < window_[j]; ++i) {
        u_bar_[j][i * stride + point.job_choice[j][i]] += alpha;
        y_bar_[j][i * stride + point.slot_choice[j][i]] += alpha;
      }
      const std::vector<int>& p = point.job_progress[j];
      for (double& x : progress_bar_[j]) x *= 1 - alpha;
      for (size_t i = 0; i < p.size(); ++i) progress_bar_[j][i * width_[j] + p[i]] += alpha;
    }
    for (int i = 0; i < coords_; ++i) {
      bb_bar_[i] = (1 - alpha) * bb_bar_[i] + alpha * Copy(point.battery_kw, i);
      bs_bar_[i] = (1 - alpha) * bs_bar_[i] + alpha * Copy(point.slot_battery_kw, i);
    }
    for (size_t i = 0; i < contract_bar_.size(); ++i) {
      contract_bar_[i] = (1 - alpha) * contract_bar_[i] + alpha * Slack(point, i);
    }
  }

  // The fractional primal: the average of the two sides' distributions.
  std::vector<std::vector<double>> XBar() const {
    std::vector<std::vector<double>> x_bar(jobs_);
    for (int j = 0; j < jobs_; ++j) {
      x_bar[j].resize(u_bar_[j].size());
      for (size_t i = 0; i < u_bar_[j].size(); ++i) {
        x_bar[j][i] = 0.5 * (u_bar_[j][i] + y_bar_[j][i]);
      }
    }
    return x_bar;
  }
  // The job side's progress, averaged like u-bar (DecompositionOutcome::progress_bar).
  const std::vector<std::vector<double>>& ProgressBar() const { return progress_bar_; }

 private:
  // Coordinate t of a net battery power, in units of P.
  double Copy(const std::vector<double>& net_kw, int t) const { return net_kw[t] / power_kw_; }
  // Contract coordinate i of a point's subgradient, in its unit.
  double Slack(const DecompositionPoint& point, size_t i) const {
    return point.contract_slack[i] / contract_units_[i];
  }
  void OneHot(const std::vector<std::vector<int>>& choice,
              std::vector<std::vector<double>>& x) const {
    for (int j = 0; j < jobs_; ++j) {
      x[j].assign(static_cast<size_t>(window_[j]) * (modes_[j] + 1), 0.0);
      for (int i = 0; i < window_[j]; ++i) x[j][i * (modes_[j] + 1) + choice[j][i]] = 1.0;
    }
  }

  int jobs_, coords_;
  double power_kw_;
  std::vector<double> contract_units_, contract_bar_;
  std::vector<int> window_, modes_;
  std::vector<std::vector<double>> u_bar_, y_bar_;
  std::vector<int> width_;  // per job: segments + 1
  std::vector<std::vector<double>> progress_bar_;
  std::vector<double> bb_bar_, bs_bar_;
};

}  // namespace

absl::StatusOr<std::optional<DecompositionOutcome>> RunVolumeAlgorithm(
    DecompositionBound& bound, DecompositionPrices pi0, double target,
    const DecompositionOptions& options, const Deadline& deadline, const OfferPlans& offer) {
  const int jobs = static_cast<int>(pi0.job.size());
  // Battery coordinates: the net power per slot (none without a battery).
  const int coords = static_cast<int>(pi0.battery.size());
  DecompositionPoint point;
  if (!bound.Evaluate(pi0, point)) return std::nullopt;
  DecompositionOutcome out;
  out.bound = point.value;
  out.iterations = 1;
  out.prices = pi0;
  out.plans = point.plans;
  // The battery copies are in kW and their prices in USD per kW, against 0/1 choices priced
  // in USD: measured in units of the battery power P, both share one step (unscaled, the
  // battery's coordinates dominate the norm and the job prices stall).
  const double power_kw = coords > 0 ? bound.battery_power_kw() : 1.0;
  VolumeAverages averages(pi0, point, power_kw, bound.contract_units());

  // The volume algorithm's step controls (Barahona and Anbil 2000, section 3): f scales
  // the Polyak step, up on "green" iterations (better value, new subgradient agreeing with
  // the direction), down after 20 "red" ones (no better value); alpha_max, the weight of
  // the newest point in x-bar, halves when the bound stops rising.
  double f = 0.1, alpha_max = 0.1;
  int reds = 0, last_check = 0;
  double bound_at_check = out.bound;
  double bound_at_window = out.bound;
  DecompositionPrices pi = pi0, direction = pi0;
  for (int it = 2; it <= options.max_iterations; ++it) {
    if (RelativeGap(target, out.bound) <= options.gap || deadline.Passed()) break;
    const double norm = averages.Direction(direction);
    if (norm <= 1e-18) break;  // x-bar satisfies the copies: nothing left to price
    const double step = f * std::max(target - out.bound, 1e-9 * std::max(1.0, target)) / norm;
    for (int j = 0; j < jobs; ++j) {
      for (size_t i = 0; i < pi.job[j].size(); ++i) {
        pi.job[j][i] = out.prices.job[j][i] + step * direction.job[j][i];
      }
    }
    for (int i = 0; i < coords; ++i) {
      pi.battery[i] = out.prices.battery[i] + step * direction.battery[i] / power_kw;
    }
    for (size_t i = 0; i < pi.contract.size(); ++i) {
      pi.contract[i] =
          out.prices.contract[i] + step * direction.contract[i] / bound.contract_units()[i];
    }
    bound.ProjectContract(pi.contract);
    if (!bound.Evaluate(pi, point)) return std::nullopt;
    out.iterations = it;
    if (offer && it % kOfferEvery == 0) {
      CKPTDP_ASSIGN_OR_RETURN(const double incumbent, offer(point.plans));
      target = std::min(target, incumbent);
    }
    const VolumeAverages::Blend blend = averages.Weigh(point, direction, alpha_max);
    // The plain subgradient method steps along the newest subgradient alone.
    averages.Add(point, options.method == DualMethod::kSubgradient ? 1.0 : blend.alpha);
    if (point.value > out.bound) {
      out.bound = point.value;
      out.prices = pi;
      out.plans = point.plans;
      reds = 0;
      if (blend.g_dot_v >= 0) f = std::min(2.0, 1.1 * f);  // green: a longer step would pay
    } else if (++reds >= 20) {
      f *= 0.66;
      reds = 0;
    }
    if (options.early_branching_window > 0 && it % options.early_branching_window == 0) {
      const double rise = out.bound - bound_at_window;
      const double remaining = options.max_iterations - it;
      if (out.bound + rise * remaining / options.early_branching_window < options.cutoff) break;
      bound_at_window = out.bound;
    }
    if (it - last_check >= 100) {
      // Less than 1 % of the remaining gap gained in 100 iterations: trust x-bar's history
      // more (a smaller weight for the newest point).
      if (out.bound - bound_at_check < 0.01 * std::max(target - bound_at_check, 1e-9)) {
        alpha_max = std::max(1e-5, alpha_max / 2);
      }
      bound_at_check = out.bound;
      last_check = it;
    }
  }
  out.x_bar = averages.XBar();
  out.progress_bar = averages.ProgressBar();
  return out;
}

absl::StatusOr<std::optional<DecompositionOutcome>> MaximiseDecompositionDual(
    DecompositionBound& bound, DecompositionPrices pi0, double target,
    const DecompositionOptions& options, const Deadline& deadline, const OfferPlans& offer) {
  if (options.method == DualMethod::kBundle) {
    return RunBundleMethod(bound, std::move(pi0), target, options, deadline, offer);
  }
  return RunVolumeAlgorithm(bound, std::move(pi0), target, options, deadline, offer);
}

absl::StatusOr<double> TightenByDecomposition(const ScenarioContext& c, Workspaces& work,
                                              const SolveOptions& options, const Deadline& deadline,
                                              SolverLog& log, EngineOutcome& root,
                                              DecompositionRoot* keep) {
  if (options.decomposition_iterations <= 0 || !root.incumbent || root.multipliers.empty()) {
    return -kInf;
  }
  if (root.status == SolveStatus::kInfeasible || root.status == SolveStatus::kTimeLimit ||
      root.status == SolveStatus::kInterrupted) {
    return -kInf;
  }
  if (RelativeGap(root.incumbent->cost_usd, root.lower_bound) <= options.gap) return -kInf;
  DecompositionOptions d;
  d.method = options.dual_method;
  d.max_iterations = options.decomposition_iterations;
  d.gap = options.gap;
  d.battery_cells = options.battery_slot_cells;
  d.battery_slot_copy = options.battery_slot_copy != 0;
  d.max_unit_dp_cells = options.decomposition_cells;
  std::optional<DecompositionBound> bound = DecompositionBound::Build(c, d);
  if (!bound) return -kInf;  // not affordable here: the Lagrangian bound stands
  EdgeCosts scratch;
  JobWorkspace repair_work;  // the repair's one workspace (repair.h)
  // The job side's paths, repaired against the shared limits under the root multipliers,
  // are schedules; a cheaper one (after local search) becomes the incumbent.
  const OfferPlans offer = [&](const std::vector<PathSolution>& plans) -> absl::StatusOr<double> {
    Schedule repaired;
    if (RepairPlans(c, repair_work, plans, root.multipliers, deadline, scratch, repaired)) {
      CKPTDP_ASSIGN_OR_RETURN(Evaluated e, Evaluate(c, std::move(repaired)));
      if (e.feasible && Improves(e.cost_usd, root.incumbent->cost_usd)) {
        CKPTDP_RETURN_IF_ERROR(
            ImproveByLocalSearch(c, work, e, deadline, ResolveThreads(options.threads)));
        if (Improves(e.cost_usd, root.incumbent->cost_usd)) root.incumbent = std::move(e);
      }
    }
    return root.incumbent->cost_usd;
  };
  DecompositionPrices pi0 = bound->FromLagrangian(root.multipliers.lambda, root.multipliers.mu);
  if (!bound->StartContract(root.incumbent->power, pi0) || !bound->StartGreenPrice(pi0)) {
    return -kInf;
  }
  // With the battery DP beside the net power's copy, the copy's decomposition runs first:
  // it costs a fifth per iteration and closes some S6 roots alone (caiso_2024-04-09). Only
  // if the gap stays open does the DP continue from its best prices (docs/engine.md).
  const bool two_phase = bound->battery_slot_on() && bound->battery_power_kw() > 0;
  if (two_phase) bound->UseBatterySlot(false);
  CKPTDP_ASSIGN_OR_RETURN(std::optional<DecompositionOutcome> out,
                          MaximiseDecompositionDual(*bound, std::move(pi0),
                                                    root.incumbent->cost_usd, d, deadline, offer));
  if (!out) return -kInf;
  int iterations = out->iterations;
  if (two_phase && RelativeGap(root.incumbent->cost_usd, out->bound) > options.gap &&
      !deadline.Passed()) {
    bound->UseBatterySlot(true);
    CKPTDP_ASSIGN_OR_RETURN(std::optional<DecompositionOutcome> dp,
                            MaximiseDecompositionDual(*bound, out->prices, root.incumbent->cost_usd,
                                                      d, deadline, offer));
    if (dp) iterations += dp->iterations;
    if (dp && dp->bound > out->bound) {
      out = std::move(dp);
    } else {
      bound->UseBatterySlot(false);  // the copy's prices and bound stand
    }
  }
  const double incumbent = root.incumbent->cost_usd;
  LogRow row;
  row.phase = "decomp";
  row.iterations = iterations;
  row.bound = std::max(root.lower_bound, out->bound);
  row.incumbent = incumbent;
  std::string note =
      bound->unit_dp_cells() > 0
          ? absl::StrFormat("decomposition: %d iterations, unit DP of %lld cells", iterations,
                            static_cast<long long>(bound->unit_dp_cells()))
          : absl::StrFormat("decomposition: %d iterations, %lld pattern entries", iterations,
                            static_cast<long long>(bound->pattern_entries()));
  if (bound->battery_slot_on()) {
    absl::StrAppendFormat(&note, ", the battery in the slot side over %d SoC cells",
                          bound->battery_cells());
  }
  log.Offer(row, note);
  // Closed: the root is proven and branch and bound has nothing to do.
  if (RelativeGap(incumbent, out->bound) <= options.gap) {
    KeepDecompositionBound(options, out->bound, root);
  } else if (keep != nullptr && !deadline.Passed()) {
    if (std::optional<RootFixings> fixed =
            bound->Fix(out->prices, GapTarget{options.gap}.Cutoff(incumbent))) {
      log.Note(absl::StrFormat("reduced-cost fixing: %d of %d (job, slot, choice) removed",
                               fixed->removed_choices, fixed->choices));
      keep->fixings = std::move(*fixed);
      // S3's Lagrangian nodes are the knapsacks' LP, far below the decomposition: its
      // tree takes decomposition nodes at any gap (small_3job_12slot, 7.1 % at the root).
      const double node_gap = c.traits.checkpoints ? kNodeBoundGap : kInf;
      if (RelativeGap(incumbent, out->bound) <= node_gap &&
          bound->unit_dp_cells() <= kNodeBoundCells) {
        keep->prices = out->prices;
        keep->bound = std::move(bound);
      }
    }
  }
  return out->bound;
}

void KeepDecompositionBound(const SolveOptions& options, double bound, EngineOutcome& outcome) {
  if (!outcome.incumbent || outcome.status == SolveStatus::kInfeasible) return;
  outcome.lower_bound = std::max(outcome.lower_bound, bound);
  if (RelativeGap(outcome.incumbent->cost_usd, outcome.lower_bound) <= options.gap) {
    outcome.status = SolveStatus::kOptimal;
  }
}

}  // namespace ckptdp::internal
