#include "export/internal/number_text.h"

#include <charconv>

namespace ckptdp::export_internal {

std::string NumberText(double value) {
  if (value == 0) value = 0.0;  // "-0" reads fine but looks like a sign error
  char buffer[64];
  // Without a precision, to_chars writes the shortest text that parses back exactly.
  const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, r.ptr);
}

}  // namespace ckptdp::export_internal
