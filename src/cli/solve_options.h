// Registers the engine's options (SolveOptionSpecs) as flags on a subcommand, so help
// text, defaults and ranges come from the one table in engine.h.
#ifndef CKPTDP_CLI_SOLVE_OPTIONS_H_
#define CKPTDP_CLI_SOLVE_OPTIONS_H_

#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "ckptdp/engine.h"

namespace ckptdp::cli {

inline void AddSolveOptionFlags(CLI::App* app, std::shared_ptr<SolveOptions> options) {
  for (const SolveOptionSpec& spec : SolveOptionSpecs()) {
    const std::string help = absl::StrFormat("%s (default %g, range [%g, %g])", spec.doc,
                                             spec.default_value, spec.min_value, spec.max_value);
    app->add_option_function<double>(
           "--" + spec.name, [options, set = spec.set](double v) { set(*options, v); }, help)
        ->check(CLI::Range(spec.min_value, spec.max_value));
  }
}

}  // namespace ckptdp::cli

#endif  // CKPTDP_CLI_SOLVE_OPTIONS_H_
