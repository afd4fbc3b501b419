#include "cli/load.h"

#include <fstream>
#include <sstream>
#include <utility>

namespace ckptdp::cli {

LoadedInstance LoadInstanceOrReport(const std::string& path, BuildModes build_modes) {
  LoadedInstance loaded;
  absl::StatusOr<Instance> instance = LoadInstance(path);
  if (!instance.ok()) {
    loaded.exit_code = ReportError(instance.status());
    return loaded;
  }
  loaded.instance = *std::move(instance);
  if (build_modes == BuildModes::kYes) {
    absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(loaded.instance);
    if (!modes.ok()) {
      loaded.exit_code = ReportError(modes.status());
      return loaded;
    }
    loaded.modes = *std::move(modes);
  }
  return loaded;
}

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot open " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

LoadedMilp LoadMilpOrReport(const std::string& instance_path, const std::string& scenario_text) {
  LoadedMilp out;
  absl::StatusOr<Scenario> scenario = ParseScenario(scenario_text);
  if (!scenario.ok()) {
    out.exit_code = ReportError(scenario.status());
    return out;
  }
  out.scenario = *scenario;
  out.in = LoadInstanceOrReport(instance_path, BuildModes::kYes);
  if (!out.in.ok()) {
    out.exit_code = out.in.exit_code;
    return out;
  }
  absl::StatusOr<MilpModel> model = BuildMilp(out.in.instance, out.scenario, out.in.modes);
  if (!model.ok()) {
    out.exit_code = ReportError(model.status());
    return out;
  }
  out.model = *std::move(model);
  return out;
}

}  // namespace ckptdp::cli
