// Registers the engine's options (SolveOptionSpecs) as flags on a subcommand, so help
// text, defaults, ranges and integrality come from the one table in engine.h.
#ifndef CKPTDP_CLI_SOLVE_OPTIONS_H_
#define CKPTDP_CLI_SOLVE_OPTIONS_H_

#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "ckptdp/engine.h"

namespace ckptdp::cli {

// "" if `text` is a valid value of the option `spec`, else why not, for a message that
// CLI11 prefixes with the flag ("--threads: ..."). Strict: "2.5" for an integer option,
// "1%" or "3x" are refused, never rounded or cut short.
std::string CheckSolveOptionValue(const SolveOptionSpec& spec, const std::string& text);

// One flag per SolveOptionSpec, checked by CheckSolveOptionValue and stored in `options`.
void AddSolveOptionFlags(CLI::App* app, std::shared_ptr<SolveOptions> options);

}  // namespace ckptdp::cli

#endif  // CKPTDP_CLI_SOLVE_OPTIONS_H_
