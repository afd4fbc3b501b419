// Type-checked reads of JSON values into instance structs, driven by the tables of
// fields.h. Only types, integrality and presence are checked here; ranges belong to the
// validator, which prints the same "must be <expectation>, got <value>" message.
#ifndef CKPTDP_INSTANCE_INTERNAL_JSON_FIELDS_H_
#define CKPTDP_INSTANCE_INTERNAL_JSON_FIELDS_H_

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "instance/internal/fields.h"
#include "instance/internal/json_dom.h"
#include "instance/internal/messages.h"

namespace ckptdp::instance_internal {

// Appends a short rendering of `value`: at most three levels deep and about 80 bytes,
// so that quoting a pathologically deep or long value is neither recursive without bound
// nor long.
inline void RenderJson(const Json& value, int depth, std::string& out) {
  constexpr std::size_t kMaxBytes = 80;
  if (value.is_number_float()) {
    out += FormatNumber(value.get<double>());
  } else if (!value.is_structured()) {
    // ensure_ascii: \u escapes keep the text one line.
    out += value.dump(-1, ' ', true, Json::error_handler_t::replace);
  } else if (value.empty()) {
    out += value.is_array() ? "[]" : "{}";
  } else if (depth >= 3) {
    out += value.is_array() ? "[...]" : "{...}";
  } else {
    out += value.is_array() ? "[" : "{";
    bool first = true;
    for (auto it = value.begin(); it != value.end() && out.size() <= kMaxBytes; ++it) {
      if (!first) out += ",";
      first = false;
      if (value.is_object()) out += Json(it.key()).dump(-1, ' ', true) + ":";
      RenderJson(*it, depth + 1, out);
    }
    out += value.is_array() ? "]" : "}";
  }
}

// A JSON value as quoted in a message ("got ..."): numbers as FormatNumber writes them,
// the rest as JSON text, cut short.
inline std::string Describe(const Json& value) {
  std::string out;
  RenderJson(value, 0, out);
  return Printable(out);
}

// Levenshtein distance, for "did you mean" suggestions.
inline std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// True if `part` is a whole underscore-separated run of words at either end of `key`:
// "deadline" in "deadline_slot", "pauses" in "max_pauses", but not "dead" in "deadline".
inline bool IsWordAffix(std::string_view part, std::string_view key) {
  if (part.empty() || part.size() >= key.size()) return false;
  const bool prefix = key.substr(0, part.size()) == part && key[part.size()] == '_';
  const bool suffix =
      key.substr(key.size() - part.size()) == part && key[key.size() - part.size() - 1] == '_';
  return prefix || suffix;
}

// The known key that `key` was probably meant to be, or "" if none stands out. A typo is
// within a third of the key's length in edit distance ("layer" -> "layers"); a key with a
// word left out or added ("deadline" -> "deadline_slot", "release_slot_index" ->
// "release_slot") is too far in edit distance, so a unique key that has `key` as its
// leading or trailing words (or the other way round) is suggested as well.
inline std::string_view ClosestKey(std::string_view key,
                                   const std::vector<std::string_view>& known) {
  if (key.size() > 100) return {};  // not a typo, and keeps the O(n m) distance cheap
  std::string_view best;
  std::size_t best_distance = SIZE_MAX;
  for (std::string_view candidate : known) {
    const std::size_t d = EditDistance(key, candidate);
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  const std::size_t allowed = std::max<std::size_t>(1, std::min(key.size(), best.size()) / 3);
  if (best_distance <= allowed) return best;
  std::string_view affix_match;
  for (std::string_view candidate : known) {
    if (!IsWordAffix(key, candidate) && !IsWordAffix(candidate, key)) continue;
    if (!affix_match.empty()) return {};  // ambiguous: the caller lists every key
    affix_match = candidate;
  }
  return affix_match;
}

inline absl::Status ExpectObject(const Json& value, std::string_view path) {
  if (value.is_object()) return absl::OkStatus();
  return PathError(path, Cat("must be an object, got ", Describe(value)));
}

// Unknown keys are errors: a misspelt optional key would otherwise be silently ignored.
inline absl::Status CheckKnownKeys(const Json& object, std::string_view path,
                                   const std::vector<std::string_view>& known) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string shown_key = JoinPath(path, Printable(key));
    const std::string_view suggestion = ClosestKey(key, known);
    if (!suggestion.empty()) {
      return PathError(shown_key, Cat("unknown key; did you mean \"", suggestion, "\"?"));
    }
    std::string list;
    for (std::string_view k : known) list += Cat(list.empty() ? "" : ", ", k);
    return PathError(shown_key, Cat("unknown key; expected one of: ", list));
  }
  return absl::OkStatus();
}

inline absl::Status MissingError(std::string_view path) {
  return PathError(path, "required field is missing");
}

// nullptr if `object` has no `key`.
inline const Json* FindKey(const Json& object, std::string_view key) {
  auto it = object.find(std::string(key));
  return it == object.end() ? nullptr : &*it;
}

// JSON has one number type: 40, 40.0 and 4e1 are all the integer 40; 12.5, 1e308 and
// 3000000000 are not ints.
inline std::optional<int> AsInt(const Json& value) {
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    if (v <= static_cast<std::uint64_t>(INT_MAX)) return static_cast<int>(v);
  } else if (value.is_number_integer()) {
    const auto v = value.get<std::int64_t>();
    if (v >= INT_MIN && v <= INT_MAX) return static_cast<int>(v);
  } else if (value.is_number_float()) {
    const double v = value.get<double>();
    if (v == std::trunc(v) && v >= INT_MIN && v <= INT_MAX) return static_cast<int>(v);
  }
  return std::nullopt;
}

template <class S, std::size_t N>
std::vector<std::string_view> KeysOf(const Field<S> (&table)[N],
                                     std::initializer_list<std::string_view> extra = {}) {
  std::vector<std::string_view> keys(extra);
  for (const Field<S>& field : table) keys.push_back(field.key);
  return keys;
}

template <class S>
absl::Status ReadField(const Json& value, std::string_view path, const Field<S>& field, S& out) {
  if (auto* m = std::get_if<double S::*>(&field.member)) {
    if (!value.is_number()) return FieldError(path, field, Describe(value));
    out.*(*m) = value.get<double>();
  } else if (auto* m = std::get_if<int S::*>(&field.member)) {
    const std::optional<int> v = AsInt(value);
    if (!v.has_value()) return FieldError(path, field, Describe(value));
    out.*(*m) = *v;
  } else {
    // JSON's true/false only: 0 and 1 are more likely a field mix-up than a boolean.
    if (!value.is_boolean()) return FieldError(path, field, Describe(value));
    out.*std::get<bool S::*>(field.member) = value.get<bool>();
  }
  return absl::OkStatus();
}

// Reads the table's fields from `object` (already checked to be an object); absent
// optional fields keep the value `out` has.
template <class S, std::size_t N>
absl::Status ReadFields(const Json& object, std::string_view path, const Field<S> (&table)[N],
                        S& out) {
  for (const Field<S>& field : table) {
    const std::string field_path = JoinPath(path, field.key);
    const Json* value = FindKey(object, field.key);
    if (value == nullptr) {
      if (field.required) return MissingError(field_path);
      continue;
    }
    CKPTDP_RETURN_IF_ERROR(ReadField(*value, field_path, field, out));
  }
  return absl::OkStatus();
}

// A whole section whose keys are exactly the table's plus `extra_keys` (read by the caller).
template <class S, std::size_t N>
absl::Status ReadSection(const Json& object, std::string_view path, const Field<S> (&table)[N],
                         std::initializer_list<std::string_view> extra_keys, S& out) {
  CKPTDP_RETURN_IF_ERROR(ExpectObject(object, path));
  CKPTDP_RETURN_IF_ERROR(CheckKnownKeys(object, path, KeysOf(table, extra_keys)));
  return ReadFields(object, path, table, out);
}

}  // namespace ckptdp::instance_internal

#endif  // CKPTDP_INSTANCE_INTERNAL_JSON_FIELDS_H_
