// Free MPS. Integer columns are grouped between MARKER lines and always get explicit
// bounds: readers disagree on the default bounds of an integer column (some use [0, 1]).
#include "absl/strings/str_cat.h"
#include "ckptdp/export.h"
#include "export/internal/number_text.h"

namespace ckptdp {
namespace {

using export_internal::NumberText;

constexpr char kObjectiveRow[] = "COST";

void AppendBounds(const MilpColumn& c, std::string& out) {
  const std::string& n = c.name;
  if (c.integer && c.lower == 0 && c.upper == 1) {
    absl::StrAppend(&out, " BV BND ", n, "\n");
  } else if (c.lower == c.upper) {
    absl::StrAppend(&out, " FX BND ", n, " ", NumberText(c.lower), "\n");
  } else if (c.lower == -kMilpInfinity && c.upper == kMilpInfinity) {
    absl::StrAppend(&out, " FR BND ", n, "\n");
  } else {
    if (c.lower == -kMilpInfinity) {
      absl::StrAppend(&out, " MI BND ", n, "\n");
    } else if (c.lower != 0 || c.integer) {
      absl::StrAppend(&out, " LO BND ", n, " ", NumberText(c.lower), "\n");
    }
    if (c.upper != kMilpInfinity) {
      absl::StrAppend(&out, " UP BND ", n, " ", NumberText(c.upper), "\n");
    } else if (c.integer) {
      absl::StrAppend(&out, " PL BND ", n, "\n");
    }
  }
}

}  // namespace

std::string ToMps(const MilpModel& model) {
  // Column-wise coefficients: MPS lists each column's entries together.
  std::vector<std::vector<std::pair<int, double>>> by_column(model.columns.size());
  for (size_t r = 0; r < model.rows.size(); ++r) {
    const MilpRow& row = model.rows[r];
    for (size_t i = 0; i < row.columns.size(); ++i) {
      by_column[row.columns[i]].push_back({static_cast<int>(r), row.values[i]});
    }
  }
  std::string out;
  absl::StrAppend(&out, "* ckptdp MILP ", model.name, " (section IV; names in ckptdp/export.h)\n",
                  "* ", model.columns.size(), " columns (", model.NumIntegers(), " integer), ",
                  model.rows.size(), " rows, ", model.NumNonzeros(), " nonzeros; minimize\n",
                  "NAME ", model.name, "\nROWS\n N ", kObjectiveRow, "\n");
  for (const MilpRow& row : model.rows) {
    const char* type = row.sense == RowSense::kLessEqual      ? " L "
                       : row.sense == RowSense::kGreaterEqual ? " G "
                                                              : " E ";
    absl::StrAppend(&out, type, row.name, "\n");
  }
  out += "COLUMNS\n";
  bool in_integers = false;
  int marker = 0;
  for (size_t c = 0; c < model.columns.size(); ++c) {
    const MilpColumn& col = model.columns[c];
    if (col.integer != in_integers) {
      absl::StrAppend(&out, " MARKER", marker++, " 'MARKER' ",
                      col.integer ? "'INTORG'" : "'INTEND'", "\n");
      in_integers = col.integer;
    }
    bool written = false;
    if (col.objective != 0) {
      absl::StrAppend(&out, " ", col.name, " ", kObjectiveRow, " ", NumberText(col.objective),
                      "\n");
      written = true;
    }
    for (const auto& [row, value] : by_column[c]) {
      absl::StrAppend(&out, " ", col.name, " ", model.rows[row].name, " ", NumberText(value), "\n");
      written = true;
    }
    // A column in no row still has to be declared.
    if (!written) absl::StrAppend(&out, " ", col.name, " ", kObjectiveRow, " 0\n");
  }
  if (in_integers) absl::StrAppend(&out, " MARKER", marker, " 'MARKER' 'INTEND'\n");
  out += "RHS\n";
  for (const MilpRow& row : model.rows) {
    if (row.rhs != 0) absl::StrAppend(&out, " RHS ", row.name, " ", NumberText(row.rhs), "\n");
  }
  out += "BOUNDS\n";
  for (const MilpColumn& c : model.columns) {
    const bool default_bounds = !c.integer && c.lower == 0 && c.upper == kMilpInfinity;
    if (!default_bounds) AppendBounds(c, out);
  }
  out += "ENDATA\n";
  return out;
}

}  // namespace ckptdp
