// CPLEX LP format. Kept to the subset every reader we target accepts (CBC's CoinLpIO,
// HiGHS, GLPK --cpxlp, Gurobi): named rows, lines well under 255 characters, explicit
// bounds, "Binaries" for [0, 1] integers and "Generals" (with bounds) for fixed ones.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "ckptdp/export.h"
#include "export/internal/number_text.h"

namespace ckptdp {
namespace {

using export_internal::NumberText;

constexpr size_t kMaxLine = 200;

bool IsBinary(const MilpColumn& c) { return c.integer && c.lower == 0 && c.upper == 1; }

// Appends " + 2.5 name" terms, wrapping lines before they grow too long.
class TermWriter {
 public:
  explicit TermWriter(std::string& out) : out_(out), line_start_(out.size()) {}
  void Add(double coefficient, const std::string& name) {
    std::string term;
    if (coefficient == 1) {
      term = absl::StrCat(" + ", name);
    } else if (coefficient == -1) {
      term = absl::StrCat(" - ", name);
    } else if (coefficient < 0) {
      term = absl::StrCat(" - ", NumberText(-coefficient), " ", name);
    } else {
      term = absl::StrCat(" + ", NumberText(coefficient), " ", name);
    }
    Append(term);
  }
  void Append(const std::string& text) {
    if (out_.size() - line_start_ + text.size() > kMaxLine) {
      out_ += "\n";
      line_start_ = out_.size();
      out_ += "  ";
    }
    out_ += text;
  }

 private:
  std::string& out_;
  size_t line_start_;
};

std::string BoundText(double value) {
  if (value == kMilpInfinity) return "+inf";
  if (value == -kMilpInfinity) return "-inf";
  return NumberText(value);
}

}  // namespace

std::string ToLp(const MilpModel& model) {
  std::string out;
  absl::StrAppend(&out, "\\ ckptdp MILP ", model.name, " (section IV; names in ckptdp/export.h)\n",
                  "\\ ", model.columns.size(), " columns (", model.NumIntegers(), " integer), ",
                  model.rows.size(), " rows, ", model.NumNonzeros(), " nonzeros\n");
  out += "Minimize\n cost:";
  {
    TermWriter terms(out);
    bool any = false;
    for (const MilpColumn& c : model.columns) {
      if (c.objective == 0) continue;
      terms.Add(c.objective, c.name);
      any = true;
    }
    // An objective needs a term; a zero one keeps the file valid.
    if (!any && !model.columns.empty()) terms.Append(absl::StrCat(" 0 ", model.columns[0].name));
  }
  out += "\nSubject To\n";
  for (const MilpRow& row : model.rows) {
    absl::StrAppend(&out, " ", row.name, ":");
    TermWriter terms(out);
    for (size_t i = 0; i < row.columns.size(); ++i) {
      terms.Add(row.values[i], model.columns[row.columns[i]].name);
    }
    if (row.columns.empty()) terms.Append(absl::StrCat(" 0 ", model.columns[0].name));
    const char* sense = row.sense == RowSense::kLessEqual      ? " <= "
                        : row.sense == RowSense::kGreaterEqual ? " >= "
                                                               : " = ";
    terms.Append(absl::StrCat(sense, NumberText(row.rhs)));
    out += "\n";
  }
  out += "Bounds\n";
  for (const MilpColumn& c : model.columns) {
    if (IsBinary(c)) continue;
    if (c.lower == c.upper) {
      absl::StrAppend(&out, " ", c.name, " = ", NumberText(c.lower), "\n");
    } else if (c.lower == -kMilpInfinity && c.upper == kMilpInfinity) {
      absl::StrAppend(&out, " ", c.name, " free\n");
    } else if (c.upper == kMilpInfinity) {
      if (c.lower != 0) absl::StrAppend(&out, " ", c.name, " >= ", BoundText(c.lower), "\n");
    } else {
      absl::StrAppend(&out, " ", BoundText(c.lower), " <= ", c.name, " <= ", BoundText(c.upper),
                      "\n");
    }
  }
  std::string binaries, generals;
  for (const MilpColumn& c : model.columns) {
    if (!c.integer) continue;
    absl::StrAppend(IsBinary(c) ? &binaries : &generals, " ", c.name, "\n");
  }
  if (!binaries.empty()) absl::StrAppend(&out, "Binaries\n", binaries);
  if (!generals.empty()) absl::StrAppend(&out, "Generals\n", generals);
  out += "End\n";
  return out;
}

}  // namespace ckptdp
