// Paths of shipped files for tests (CKPTDP_SOURCE_DIR is set by CMake to the repo root).
#ifndef CKPTDP_TESTS_SUPPORT_PATHS_H_
#define CKPTDP_TESTS_SUPPORT_PATHS_H_

#include <string>

namespace ckptdp::testing {

inline std::string SourcePath(const std::string& relative) {
  return std::string(CKPTDP_SOURCE_DIR) + "/" + relative;
}

}  // namespace ckptdp::testing

#endif  // CKPTDP_TESTS_SUPPORT_PATHS_H_
