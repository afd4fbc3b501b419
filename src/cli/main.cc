// ckptdp: checkpoint-aware day-ahead dispatch of LLM pre-training loads.
#include <exception>
#include <iostream>
#include <vector>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace ckptdp::cli;
  CLI::App app{
      "ckptdp: execution-feasible day-ahead dispatch of LLM pre-training jobs in a "
      "renewable-powered AI data center (checkpoint-state graphs, 3D-parallel modes, "
      "Lagrangian relaxation with a certified bound)."};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for all subcommands");
  std::vector<Command> commands = {AddModesCommand(app),     AddSolveCommand(app),
                                   AddScenariosCommand(app), AddCheckCommand(app),
                                   AddGenerateCommand(app),  AddSweepCommand(app),
                                   AddExportCommand(app),    AddMilpResultCommand(app)};
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
    std::cerr << "ckptdp: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
  return kExitBadInput;
}
