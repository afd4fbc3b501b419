#include "cli/solve_options.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace ckptdp::cli {

std::string CheckSolveOptionValue(const SolveOptionSpec& spec, const std::string& text) {
  if (!spec.values.empty()) {
    if (std::find(spec.values.begin(), spec.values.end(), text) != spec.values.end()) return "";
    return absl::StrFormat("\"%s\" is not one of %s", text, absl::StrJoin(spec.values, ", "));
  }
  // A fraction's flag gets a hint: "1%" is the likeliest mistake for --gap.
  const bool fraction = spec.min_value >= 0 && spec.max_value <= 1;
  const std::string hint =
      fraction ? absl::StrFormat("; --%s is a fraction, e.g. 0.01 for 1 %%", spec.name) : "";
  char* end = nullptr;
  const double value = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() ||
      std::isspace(static_cast<unsigned char>(text.front())) != 0) {
    return absl::StrFormat("\"%s\" is not a number%s", text, hint);
  }
  if (!std::isfinite(value)) return absl::StrFormat("%s is not a finite number%s", text, hint);
  if (spec.integer && value != std::trunc(value)) {
    return absl::StrFormat("%s is not an integer; --%s takes a whole number", text, spec.name);
  }
  if (value < spec.min_value || value > spec.max_value) {
    return absl::StrFormat("%s is outside the range [%g, %g]%s", text, spec.min_value,
                           spec.max_value, hint);
  }
  return "";
}

void AddSolveOptionFlags(CLI::App* app, std::shared_ptr<SolveOptions> options) {
  for (const SolveOptionSpec& spec : SolveOptionSpecs()) {
    if (!spec.values.empty()) {
      // A named option: its value is the name's index in `values`.
      const std::string help = absl::StrFormat("%s (default %s, one of %s)", spec.doc,
                                               spec.values[static_cast<size_t>(spec.default_value)],
                                               absl::StrJoin(spec.values, ", "));
      app->add_option_function<std::string>(
             "--" + spec.name,
             [options, spec](const std::string& name) {
               const auto at = std::find(spec.values.begin(), spec.values.end(), name);
               spec.set(*options, static_cast<double>(at - spec.values.begin()));
             },
             help)
          ->type_name(absl::StrJoin(spec.values, "|"))
          ->check(CLI::Validator(
              [spec](std::string& text) { return CheckSolveOptionValue(spec, text); }, ""));
      continue;
    }
    // %.10g: a default such as 2^23 prints whole (8388608), not as 8.38861e+06.
    const std::string help = absl::StrFormat("%s (default %.10g, range [%g, %g])", spec.doc,
                                             spec.default_value, spec.min_value, spec.max_value);
    // The type column of --help shows the kind and the range: "INT in [0 - 1024]".
    const std::string type = absl::StrFormat("%s in [%g - %g]", spec.integer ? "INT" : "FLOAT",
                                             spec.min_value, spec.max_value);
    app->add_option_function<double>(
           "--" + spec.name, [options, set = spec.set](double v) { set(*options, v); }, help)
        ->type_name(type)
        ->check(CLI::Validator(
            [spec](std::string& text) { return CheckSolveOptionValue(spec, text); }, ""));
  }
}

}  // namespace ckptdp::cli
