#include <iostream>

#include "cli/commands.h"

namespace ckptdp::cli {

int ReportError(const absl::Status& status) {
  std::cerr << "ckptdp: " << status.message() << "\n";
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kFailedPrecondition:
      return kExitBadInput;
    default:
      return kExitInternal;
  }
}

}  // namespace ckptdp::cli
