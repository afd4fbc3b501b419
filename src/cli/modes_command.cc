// `ckptdp modes INSTANCE [--json]`: each job's workload and its feasible / effective modes.
#include <iostream>
#include <memory>

#include "absl/strings/str_format.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "nlohmann/json.hpp"

namespace ckptdp::cli {
namespace {

struct ModesArgs {
  std::string instance;
  bool json = false;
};

void PrintTable(const Instance& instance, const std::vector<JobModes>& all) {
  const double step_h = instance.time.StepHours();
  for (size_t j = 0; j < all.size(); ++j) {
    const JobModes& jm = all[j];
    std::cout << absl::StrFormat(
        "%s: daily compute %.4g FLOP (%d iterations of %.4g FLOP), %d segments of %.4g FLOP\n"
        "  feasible modes %d, effective %d, eta_0 %.4f\n",
        instance.jobs[j].name, jm.workload.compute_flops, jm.workload.iterations_window,
        jm.workload.flops_per_iteration, jm.workload.segments, jm.workload.segment_flops,
        static_cast<int>(jm.feasible.size()), static_cast<int>(jm.effective.size()),
        jm.kernel_efficiency);
    std::cout << absl::StrFormat("  %4s %3s %5s %6s %10s %8s %8s %9s %s\n", "p", "q", "d", "GPUs",
                                 "TFLOP/s", "GB/GPU", "IT kW", "h/segment", "");
    auto row = [&](const Mode& m) {
      const double hours = jm.workload.segment_flops / m.throughput_flops / 3600.0;
      std::cout << absl::StrFormat(
          "  %4d %3d %5d %6d %10.1f %8.1f %8.1f %9.3f %s\n", m.layout.p, m.layout.q, m.layout.d,
          m.gpus, m.throughput_flops / 1e12, m.memory_gb, m.it_power_kw, hours,
          m.baseline ? (m.effective ? "baseline" : "baseline (dominated)") : "");
    };
    for (int i : jm.effective) row(jm.feasible[i]);
    if (!jm.feasible[jm.baseline].effective) row(jm.feasible[jm.baseline]);
    (void)step_h;
  }
}

nlohmann::json ToJson(const Instance& instance, const std::vector<JobModes>& all) {
  nlohmann::json jobs = nlohmann::json::array();
  for (size_t j = 0; j < all.size(); ++j) {
    const JobModes& jm = all[j];
    nlohmann::json modes = nlohmann::json::array();
    for (const Mode& m : jm.feasible) {
      modes.push_back({{"p", m.layout.p},
                       {"q", m.layout.q},
                       {"d", m.layout.d},
                       {"gpus", m.gpus},
                       {"throughput_flops", m.throughput_flops},
                       {"memory_gb", m.memory_gb},
                       {"it_power_kw", m.it_power_kw},
                       {"effective", m.effective},
                       {"baseline", m.baseline}});
    }
    jobs.push_back({{"name", instance.jobs[j].name},
                    {"flops_per_iteration", jm.workload.flops_per_iteration},
                    {"iterations_total", jm.workload.iterations_total},
                    {"iterations_per_day", jm.workload.iterations_window},
                    {"daily_compute_flops", jm.workload.compute_flops},
                    {"segments", jm.workload.segments},
                    {"kernel_efficiency", jm.kernel_efficiency},
                    {"feasible_count", jm.feasible.size()},
                    {"effective_count", jm.effective.size()},
                    {"modes", std::move(modes)}});
  }
  return {{"jobs", std::move(jobs)}};
}

}  // namespace

Command AddModesCommand(CLI::App& parent) {
  auto args = std::make_shared<ModesArgs>();
  CLI::App* app = parent.add_subcommand(
      "modes", "Show each job's workload and its feasible and effective 3D-parallel modes");
  app->add_option("instance", args->instance, "Instance JSON file")->required();
  app->add_flag("--json", args->json, "Print one JSON object (every feasible mode) instead");
  return {app, [args]() -> int {
            LoadedInstance in = LoadInstanceOrReport(args->instance, BuildModes::kYes);
            if (!in.ok()) return in.exit_code;
            if (args->json) {
              std::cout << ToJson(in.instance, in.modes).dump(2) << "\n";
            } else {
              PrintTable(in.instance, in.modes);
            }
            return kExitSolved;
          }};
}

}  // namespace ckptdp::cli
