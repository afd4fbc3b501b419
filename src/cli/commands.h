// Subcommands of the `ckptdp` tool. Each Add*Command registers its flags on `parent` and
// returns the action to run if that subcommand was chosen. Nothing below cli/ parses
// flags or prints.
#ifndef CKPTDP_CLI_COMMANDS_H_
#define CKPTDP_CLI_COMMANDS_H_

#include <functional>

#include "CLI/CLI.hpp"
#include "ckptdp/status.h"

namespace ckptdp::cli {

// Exit codes (docs/cli.md): distinct so that scripts can tell the cases apart.
enum ExitCode : int {
  kExitSolved = 0,
  kExitInfeasible = 1,
  kExitBadInput = 2,  // bad input file, bad flag values, usage errors
  kExitInternal = 3,  // a bug: the solver's own output failed its check, or an I/O error
};

struct Command {
  CLI::App* app;
  std::function<int()> run;
};

Command AddModesCommand(CLI::App& parent);
Command AddSolveCommand(CLI::App& parent);
Command AddScenariosCommand(CLI::App& parent);
Command AddCheckCommand(CLI::App& parent);
Command AddGenerateCommand(CLI::App& parent);
Command AddSweepCommand(CLI::App& parent);
Command AddExportCommand(CLI::App& parent);
Command AddMilpResultCommand(CLI::App& parent);
Command AddRollingCommand(CLI::App& parent);

// Prints "ckptdp: <message>" to stderr and maps the status to an exit code:
// InvalidArgument / NotFound / OutOfRange / FailedPrecondition -> 2, anything else -> 3.
// In a distributed run (mpirun) it ends every rank with that code (Communicator::Abort):
// the others may be waiting for this one.
int ReportError(const absl::Status& status);

}  // namespace ckptdp::cli

#endif  // CKPTDP_CLI_COMMANDS_H_
