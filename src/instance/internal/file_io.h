// Whole-file reads for the instance and its series CSV, with the errors a user can act on.
#ifndef CKPTDP_INSTANCE_INTERNAL_FILE_IO_H_
#define CKPTDP_INSTANCE_INTERNAL_FILE_IO_H_

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "instance/internal/fields.h"

namespace ckptdp::instance_internal {

// NotFoundError when the file does not exist; InvalidArgumentError when it is not a
// regular file, is larger than kMaxFileBytes or cannot be read. `what` names the file's
// role in messages ("instance file", "series CSV").
inline absl::StatusOr<std::string> ReadFileToString(const std::filesystem::path& file,
                                                    std::string_view what) {
  const std::string shown = Cat(what, " \"", Printable(file.string(), 300), "\"");
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (status.type() == std::filesystem::file_type::not_found) {
    return absl::NotFoundError(Cat("cannot open ", shown, ": No such file"));
  }
  if (ec) return absl::InvalidArgumentError(Cat("cannot open ", shown, ": ", ec.message()));
  if (status.type() != std::filesystem::file_type::regular) {
    return absl::InvalidArgumentError(Cat("cannot open ", shown, ": not a regular file"));
  }
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  if (!ec && size > kMaxFileBytes) {
    return absl::InvalidArgumentError(
        Cat(shown, " is ", size, " bytes, more than the ", kMaxFileBytes, " allowed"));
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(file.c_str(), "rb"), &std::fclose);
  if (in == nullptr) {
    return absl::InvalidArgumentError(Cat("cannot open ", shown, ": ", std::strerror(errno)));
  }
  std::string text;
  char buffer[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof(buffer), in.get())) > 0) {
    text.append(buffer, n);
    // The size check above can race with a growing file; this one cannot.
    if (text.size() > kMaxFileBytes) {
      return absl::InvalidArgumentError(Cat(shown, " is more than ", kMaxFileBytes, " bytes"));
    }
  }
  if (std::ferror(in.get())) {
    return absl::InvalidArgumentError(Cat("cannot read ", shown, ": ", std::strerror(errno)));
  }
  return text;
}

}  // namespace ckptdp::instance_internal

#endif  // CKPTDP_INSTANCE_INTERNAL_FILE_IO_H_
