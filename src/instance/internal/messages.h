// Error-message helpers shared by the instance reader and validator.
//
// Every message starts with the JSON path of the offending value ("jobs[1].layers: ..."),
// "(root)" for the document itself, so a user can find the value without a debugger.
#ifndef CKPTDP_INSTANCE_INTERNAL_MESSAGES_H_
#define CKPTDP_INSTANCE_INTERNAL_MESSAGES_H_

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace ckptdp::instance_internal {

// absl::StrCat for std::string_view: Debian's Abseil has its own absl::string_view, which
// std::string_view does not convert to, so absl::StrCat rejects it.
inline void AppendPiece(std::string& out, std::string_view piece) { out.append(piece); }
inline void AppendPiece(std::string& out, const char* piece) { out.append(piece); }
inline void AppendPiece(std::string& out, const std::string& piece) { out.append(piece); }
inline void AppendPiece(std::string& out, absl::string_view piece) {
  out.append(piece.data(), piece.size());
}
template <class T, class = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                            !std::is_same_v<T, char>>>
void AppendPiece(std::string& out, T value) {
  out.append(std::to_string(value));
}

template <class... Pieces>
std::string Cat(const Pieces&... pieces) {
  std::string out;
  (AppendPiece(out, pieces), ...);
  return out;
}

// "site" + "pue" -> "site.pue"; the root path is empty.
inline std::string JoinPath(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : Cat(path, ".", key);
}

inline std::string IndexPath(std::string_view path, std::size_t index) {
  return Cat(path, "[", index, "]");
}

inline std::string ShownPath(std::string_view path) {
  return path.empty() ? std::string("(root)") : std::string(path);
}

inline absl::Status PathError(std::string_view path, std::string_view message) {
  return absl::InvalidArgumentError(Cat(ShownPath(path), ": ", message));
}

// Adds context in front of a status message and keeps its code (NotFound stays NotFound).
inline absl::Status PrefixStatus(const absl::Status& status, std::string_view prefix) {
  if (status.ok()) return status;
  return absl::Status(status.code(), Cat(prefix, status.message()));
}

// Numbers as a user would write them: integral values without exponent or ".0"
// (1e9 -> "1000000000", 13e9 -> "13000000000"), others in the shortest form that reads
// back to the same double (0.049, 1e+308), and "inf"/"nan" spelled out.
inline std::string FormatNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (value == std::trunc(value) && std::fabs(value) < 1e16) {
    return absl::StrFormat("%.0f", value);
  }
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

// User text quoted in a message, made safe to print: one line (control bytes become
// \xNN), valid UTF-8 (bytes that are not become \xNN) and at most `max_chars` characters,
// never cut inside a UTF-8 sequence.
inline std::string Printable(std::string_view text, std::size_t max_chars = 60) {
  std::string out;
  std::size_t chars = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    if (chars == max_chars) return out + "...";
    const auto byte = static_cast<unsigned char>(text[i]);
    std::size_t length = 1;
    if (byte >= 0xC2 && byte <= 0xF4) length = byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4;
    bool valid = byte >= 0x20 && byte < 0x7f;
    if (length > 1 && i + length <= text.size()) {
      // The second byte's range excludes overlong forms, surrogates and code points
      // above U+10FFFF (RFC 3629, section 4).
      const auto second = static_cast<unsigned char>(text[i + 1]);
      const unsigned char lo = byte == 0xE0 ? 0xA0 : byte == 0xF0 ? 0x90 : 0x80;
      const unsigned char hi = byte == 0xED ? 0x9F : byte == 0xF4 ? 0x8F : 0xBF;
      valid = second >= lo && second <= hi;
      for (std::size_t k = 2; k < length; ++k) {
        valid &= (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
      }
    }
    if (valid) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out.append(absl::StrFormat("\\x%02x", byte));
      i += 1;
    }
    ++chars;
  }
  return out;
}
}  // namespace ckptdp::instance_internal

#endif  // CKPTDP_INSTANCE_INTERNAL_MESSAGES_H_
