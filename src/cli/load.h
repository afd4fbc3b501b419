// Reading a subcommand's input files. Every subcommand that takes an instance used to open
// with the same lines (load the instance, maybe build every job's modes, report a failure);
// they share this helper so that a bad instance gets the same message and exit code
// (docs/cli.md) whichever subcommand read it, and so that a fix lands in one place.
#ifndef CKPTDP_CLI_LOAD_H_
#define CKPTDP_CLI_LOAD_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ckptdp/export.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "cli/commands.h"

namespace ckptdp::cli {

enum class BuildModes { kNo, kYes };

// A loaded instance, or the exit code of a failure whose message is already printed.
struct LoadedInstance {
  int exit_code = kExitSolved;  // anything else: the load failed, return this code
  Instance instance;
  std::vector<JobModes> modes;  // every job's modes with BuildModes::kYes, else empty

  bool ok() const { return exit_code == kExitSolved; }
};

// Loads the instance at `path` and, with BuildModes::kYes, every job's modes. A failure is
// printed by ReportError ("ckptdp: <message>") and its exit code returned in `exit_code`.
LoadedInstance LoadInstanceOrReport(const std::string& path, BuildModes build_modes);

// `export` and `milp-result`: the instance, every job's modes, the scenario and that
// scenario's exact MILP (rebuilt from the instance, so that a solution's names can be matched
// against it), or the exit code of a failure whose message is already printed.
struct LoadedMilp {
  int exit_code = kExitSolved;  // anything else: the load failed, return this code
  LoadedInstance in;
  Scenario scenario = Scenario::kS1;
  MilpModel model;

  bool ok() const { return exit_code == kExitSolved; }
};
LoadedMilp LoadMilpOrReport(const std::string& instance_path, const std::string& scenario_text);

// The whole of a text file (a result JSON, a solver's solution); NotFound if it cannot be
// opened.
absl::StatusOr<std::string> ReadTextFile(const std::string& path);

}  // namespace ckptdp::cli

#endif  // CKPTDP_CLI_LOAD_H_
