// cost(S1) from the instance alone, so cost_reduction_pct can be checked on any scenario.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "report/internal/check_rules.h"
#include "report/internal/check_util.h"

namespace ckptdp::check_internal {

std::optional<double> BaselineCostUsd(const Instance& instance, const std::vector<JobModes>& modes,
                                      std::string* why_not) {
  const int slots = instance.time.slots;
  const double dt = instance.time.StepHours();
  std::vector<int> gpus(slots, 0);
  std::vector<double> it_kw(slots, 0.0);
  for (size_t j = 0; j < instance.jobs.size(); ++j) {
    const Job& job = instance.jobs[j];
    const auto mode = std::find_if(modes[j].feasible.begin(), modes[j].feasible.end(),
                                   [&](const Mode& m) { return m.layout == job.baseline; });
    if (mode == modes[j].feasible.end()) {
      *why_not = absl::StrCat("job ", job.name, " has no feasible baseline mode");
      return std::nullopt;
    }
    // S1 trains continuously from the release; eq. (24) with all K segments in one edge.
    const double needed = modes[j].workload.compute_flops / (mode->throughput_flops * dt * 3600.0);
    const int64_t end = job.release_slot + ForgivingCeil(needed);
    if (end > job.deadline_slot) {
      *why_not = absl::StrCat("job ", job.name, "'s baseline ends at slot ", end,
                              ", after its deadline slot ", job.deadline_slot);
      return std::nullopt;
    }
    for (int t = std::max(job.release_slot, 0); t < std::min<int64_t>(end, slots); ++t) {
      gpus[t] += mode->gpus;
      it_kw[t] += mode->it_power_kw;
    }
  }

  const double c_cur = instance.costs.curtailment_usd_per_mwh;
  double cost = 0;
  for (int t = 0; t < slots; ++t) {
    const double aidc = instance.site.base_load_kw + instance.site.pue * it_kw[t];
    if (gpus[t] > instance.site.gpu_capacity || !AtMost(aidc, instance.site.site_power_cap_kw)) {
      *why_not =
          absl::StrCat("the baseline breaks the GPU capacity or the site power cap in slot ", t);
      return std::nullopt;
    }
    // Without a battery, one more kW from the grid displaces one kW of renewable into
    // curtailment, which changes the cost by price + c_cur: use renewables first unless
    // that sum is negative (deeply negative prices).
    const double renewable = instance.RenewableKw(t);
    const double price = instance.series.price_usd_per_mwh[t];
    const double used = price + c_cur >= 0 ? std::min(renewable, aidc) : 0.0;
    const double grid = aidc - used;
    const double curtailment = renewable - used;
    cost += dt / 1000.0 * (price * grid + c_cur * curtailment);
  }
  return cost;
}

}  // namespace ckptdp::check_internal
