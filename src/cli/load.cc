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

}  // namespace ckptdp::cli
