// Reading CBC's solution file back (`cbc model.lp -solve -solu FILE`).
//
// The file is one status line, "<status> - objective value <v>", then one line per column
// "index name value reduced_cost", where CBC prefixes "**" to a value outside its bounds
// and leaves out columns at 0 (unless printingOptions all). Columns are matched by name,
// so a file written for a model in another column order still reads correctly.
// (Debian's Abseil has its own string_view, so the text is handled with std:: only.)
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ckptdp/export.h"
#include "export/internal/model_builder.h"

namespace ckptdp {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view Strip(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !IsSpace(line[j])) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool ParseNumber(std::string_view text, double& value) {
  const std::string s(text);
  char* end = nullptr;
  value = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size();
}

bool Contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

}  // namespace

absl::StatusOr<MilpSolution> ReadCbcSolution(std::string_view text, const MilpModel& model) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  while (!lines.empty() && Strip(lines.back()).empty()) lines.pop_back();
  if (lines.empty()) return absl::InvalidArgumentError("CBC solution: the file is empty");

  MilpSolution solution;
  const std::string_view status = Strip(lines[0]);
  solution.status_line = std::string(status);
  const size_t at = status.find("objective value");
  if (at == std::string_view::npos ||
      !ParseNumber(Strip(status.substr(at + 15)), solution.objective)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CBC solution: the first line should end in \"objective value <number>\", it is \"",
        solution.status_line, "\""));
  }
  // Status words as CbcSolver writes them; anything else is not trusted as a solution.
  solution.optimal = status.substr(0, 7) == "Optimal";
  solution.time_limit = status.substr(0, 10) == "Stopped on";
  const bool no_solution = Contains(status, "no integer solution") ||
                           Contains(status, "infeasible") || Contains(status, "Infeasible");
  solution.feasible = (solution.optimal || solution.time_limit) && !no_solution;

  const auto index = export_internal::ColumnIndex(model);
  solution.values.assign(model.columns.size(), 0.0);
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string_view> fields = Fields(lines[i]);
    if (fields.empty()) continue;
    if (fields[0] == "**") fields.erase(fields.begin());
    const std::string line_no = absl::StrCat("CBC solution line ", i + 1);
    if (fields.size() < 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          line_no, ": expected \"index name value ...\", got \"", std::string(lines[i]), "\""));
    }
    const auto it = index.find(fields[1]);
    if (it == index.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          line_no, ": column \"", std::string(fields[1]),
          "\" is not in the model (was the file written for another instance or scenario?)"));
    }
    double value = 0;
    if (!ParseNumber(fields[2], value)) {
      return absl::InvalidArgumentError(
          absl::StrCat(line_no, ": value \"", std::string(fields[2]), "\" is not a number"));
    }
    solution.values[it->second] = value;
  }
  return solution;
}

}  // namespace ckptdp
