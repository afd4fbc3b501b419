// Strict reader for the series CSV (format in internal/series_csv.h and
// docs/instance-format.md). Strict because a silently misread price or a shifted slot
// changes every result downstream without any visible failure.
#include "instance/internal/series_csv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "instance/internal/file_io.h"
#include "instance/internal/grid_contract.h"
#include "instance/internal/messages.h"
#include "instance/internal/validate.h"

namespace ckptdp::instance_internal {
namespace {

constexpr std::string_view kColumns[] = {"slot", "pv_kw", "wind_kw", "price_usd_per_mwh"};
constexpr std::size_t kColumnCount = std::size(kColumns);

std::string_view TrimBlanks(std::string_view s) {
  const auto is_blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// Like absl::StrSplit, which Debian's Abseil does not offer for std::string_view.
std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  while (true) {
    const std::size_t end = text.find(separator);
    pieces.push_back(text.substr(0, end));
    if (end == std::string_view::npos) return pieces;
    text.remove_prefix(end + 1);
  }
}

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields = Split(line, ',');
  for (std::string_view& field : fields) field = TrimBlanks(field);
  return fields;
}

std::string Quoted(std::string_view field) { return Cat("\"", Printable(field, 40), "\""); }

absl::StatusOr<double> ParseNumber(std::string_view field) {
  double value = 0;
  const char* end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (ec == std::errc::result_out_of_range) {
    return absl::InvalidArgumentError(Cat("out of range: ", Quoted(field)));
  }
  if (ec != std::errc() || ptr != end) {
    return absl::InvalidArgumentError(Cat("not a number: ", Quoted(field)));
  }
  // from_chars accepts "inf" and "nan"; a series value must be a real measurement.
  if (!std::isfinite(value)) {
    return absl::InvalidArgumentError(Cat("not a finite number: ", Quoted(field)));
  }
  return value;
}

absl::StatusOr<long long> ParseSlot(std::string_view field) {
  long long value = 0;
  const char* end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    return absl::InvalidArgumentError(Cat("not an integer: ", Quoted(field)));
  }
  return value;
}

}  // namespace

absl::StatusOr<Series> ParseSeriesCsv(std::string_view text, std::string_view display_name,
                                      int expected_rows) {
  // Spreadsheet programs like to prepend a UTF-8 byte-order mark.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);

  Series series;
  // Columns after the four fixed ones: optional grid-contract columns, each at most once.
  std::vector<std::vector<double>*> extra_columns;
  std::vector<std::string_view> extra_names;
  std::string header_text(kSeriesCsvHeader);
  bool header_seen = false;
  int blank_line = 0;  // first blank line after the header, 0 if none yet
  int rows = 0;
  int line_number = 0;
  for (std::string_view raw_line : Split(text, '\n')) {
    ++line_number;
    const std::string_view line = TrimBlanks(raw_line);
    const auto error = [&](std::string_view message) {
      return absl::InvalidArgumentError(Cat(display_name, " line ", line_number, ": ", message));
    };
    if (!header_seen) {
      if (line.empty() || line.front() == '#') continue;
      const std::vector<std::string_view> names = SplitFields(line);
      if (names.size() < kColumnCount ||
          !std::equal(std::begin(kColumns), std::end(kColumns), names.begin())) {
        return error(Cat("expected header \"", kSeriesCsvHeader, "\", got ", Quoted(line)));
      }
      for (std::size_t c = kColumnCount; c < names.size(); ++c) {
        const OptionalColumn* found = nullptr;
        for (const OptionalColumn& column : kOptionalSeriesColumns) {
          if (column.name == names[c]) found = &column;
        }
        if (found == nullptr) {
          return error(Cat("unknown column ", Quoted(names[c]),
                           "; optional columns are import_cap_kw, export_price_usd_per_mwh, "
                           "carbon_g_per_kwh, carbon_marginal_g_per_kwh"));
        }
        if (std::find(extra_names.begin(), extra_names.end(), names[c]) != extra_names.end()) {
          return error(Cat("duplicate column ", Quoted(names[c])));
        }
        extra_names.push_back(found->name);
        header_text += Cat(",", found->name);
        extra_columns.push_back(&(series.*found->member));
      }
      header_seen = true;
      continue;
    }
    if (line.empty()) {
      if (blank_line == 0) blank_line = line_number;
      continue;
    }
    if (blank_line != 0) {
      return error(Cat("data after the blank line ", blank_line,
                       "; blank lines are allowed only at the end"));
    }
    const std::vector<std::string_view> fields = SplitFields(line);
    if (fields.size() != kColumnCount + extra_columns.size()) {
      return error(Cat("expected ", kColumnCount + extra_columns.size(),
                       " comma-separated fields (", header_text, "), got ", fields.size()));
    }
    if (rows == expected_rows) {
      return error(Cat("more data rows than time.slots (", expected_rows, ")"));
    }
    absl::StatusOr<long long> slot = ParseSlot(fields[0]);
    if (!slot.ok()) return error(Cat("slot: ", slot.status().message()));
    if (*slot != rows) {
      return error(
          Cat("slot: expected ", rows, ", got ", *slot, " (slots count 0, 1, 2, ... in order)"));
    }
    std::vector<double>* columns[] = {&series.pv_kw, &series.wind_kw, &series.price_usd_per_mwh};
    for (std::size_t c = 1; c < kColumnCount; ++c) {
      absl::StatusOr<double> value = ParseNumber(fields[c]);
      if (!value.ok()) return error(Cat(kColumns[c], ": ", value.status().message()));
      columns[c - 1]->push_back(*value);
    }
    for (std::size_t c = 0; c < extra_columns.size(); ++c) {
      absl::StatusOr<double> value = ParseNumber(fields[kColumnCount + c]);
      if (!value.ok()) return error(Cat(extra_names[c], ": ", value.status().message()));
      extra_columns[c]->push_back(*value);
    }
    ++rows;
  }
  if (!header_seen) {
    return absl::InvalidArgumentError(
        Cat(display_name, ": no header line; expected \"", kSeriesCsvHeader, "\""));
  }
  if (rows != expected_rows) {
    return absl::InvalidArgumentError(
        Cat(display_name, ": has ", rows, " data rows, time.slots is ", expected_rows));
  }
  return series;
}

absl::StatusOr<Series> ReadSeriesCsv(const std::filesystem::path& file, int expected_rows) {
  CKPTDP_ASSIGN_OR_RETURN(std::string text, ReadFileToString(file, "series CSV"));
  CKPTDP_ASSIGN_OR_RETURN(Series series,
                          ParseSeriesCsv(text, Printable(file.string(), 300), expected_rows));
  series.csv_path = file.string();
  return series;
}

}  // namespace ckptdp::instance_internal

namespace ckptdp {

absl::StatusOr<Series> LoadSeriesCsv(const std::filesystem::path& path, int slots,
                                     std::string_view field) {
  absl::StatusOr<Series> series = instance_internal::ReadSeriesCsv(path, slots);
  absl::Status status = series.status();
  if (series.ok()) status = instance_internal::ValidateSeries(*series, slots);
  if (status.ok()) return series;
  return absl::Status(status.code(), absl::StrCat(std::string(field), ": ", status.message()));
}

}  // namespace ckptdp
