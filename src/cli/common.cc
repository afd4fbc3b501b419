#include <iostream>
#include <string>

#include "ckptdp/communicator.h"
#include "cli/commands.h"

namespace ckptdp::cli {
namespace {

int ExitCodeOf(const absl::Status& status) {
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

}  // namespace

int ReportError(const absl::Status& status) {
  const Communicator& comm = Communicator::World();
  // The other ranks may be waiting in a collective: the whole run ends here.
  if (comm.distributed()) comm.Abort(ExitCodeOf(status), std::string(status.message()));
  std::cerr << "ckptdp: " << status.message() << "\n";
  return ExitCodeOf(status);
}

}  // namespace ckptdp::cli
