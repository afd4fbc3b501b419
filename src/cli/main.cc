// ckptdp: checkpoint-aware day-ahead dispatch of LLM pre-training loads.
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ckptdp/communicator.h"
#include "cli/commands.h"

namespace {

// "modes, solve, ..." in the order of --help.
std::string SubcommandList(const std::vector<ckptdp::cli::Command>& commands) {
  std::string list;
  for (const ckptdp::cli::Command& c : commands) {
    list += (list.empty() ? "" : ", ") + c.app->get_name();
  }
  return list;
}

// CLI11 takes a first word that is no subcommand for a stray argument and says only that
// "A subcommand is required": this names the word and lists the subcommands. Empty if
// the first argument is a subcommand or a help flag, which CLI11 handles.
std::string SubcommandError(int argc, char** argv,
                            const std::vector<ckptdp::cli::Command>& commands) {
  if (argc < 2) return "a subcommand is required, one of: " + SubcommandList(commands);
  const std::string first = argv[1];
  if (first == "-h" || first == "--help" || first == "--help-all") return "";
  for (const ckptdp::cli::Command& c : commands) {
    if (c.app->check_name(first)) return "";
  }
  const bool flag = !first.empty() && first[0] == '-';
  return absl::StrCat(flag ? "unknown option \"" : "unknown subcommand \"", first,
                      flag ? "\"; expected a subcommand first, one of: " : "\"; expected one of: ",
                      SubcommandList(commands));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ckptdp::cli;
  // Under mpirun or srun, MPI for the whole run; alone, nothing (docs/distributed.md).
  ckptdp::CommSession comm_session(argc, argv);
  CLI::App app{
      "ckptdp: execution-feasible day-ahead dispatch of LLM pre-training jobs in a "
      "renewable-powered AI data center (checkpoint-state graphs, 3D-parallel modes, "
      "Lagrangian relaxation with a certified bound)."};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for all subcommands");
  // Usage errors read like every other error: "ckptdp: <message>" on stderr.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    return "ckptdp: " + CLI::FailureMessage::simple(a, e);
  });
  std::vector<Command> commands = {
      AddModesCommand(app),  AddSolveCommand(app),      AddScenariosCommand(app),
      AddCheckCommand(app),  AddGenerateCommand(app),   AddSweepCommand(app),
      AddExportCommand(app), AddMilpResultCommand(app), AddRollingCommand(app)};
  if (const std::string error = SubcommandError(argc, argv, commands); !error.empty()) {
    std::cerr << "ckptdp: " << error << "\nRun with --help or --help-all for more information.\n";
    return kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitSolved : kExitBadInput;
  }
  try {
    for (const Command& c : commands) {
      if (c.app->parsed()) return c.run();
    }
  } catch (const std::exception& e) {
    return ReportError(absl::InternalError(absl::StrCat("internal error: ", e.what())));
  }
  return kExitBadInput;
}
