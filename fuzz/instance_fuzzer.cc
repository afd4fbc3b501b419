// libFuzzer target for the instance loader (tools/fuzz.sh runs it).
//
// Input: the instance JSON text, optionally followed by a NUL byte and the contents of a
// series CSV. The CSV part is written to "fuzz.csv" in a private temporary directory that
// serves as the base directory, so a JSON with "series": {"csv": "fuzz.csv"} exercises the
// CSV reader on fuzzed text too. An instance that loads goes on to BuildAllModes, the first
// stage that does arithmetic on the loaded values (divisors, memory, calibration).
//
// Properties: no crash, hang, leak or undefined behaviour; every input ends in a clean
// error status or a valid result; a loaded instance re-validates and survives a round trip
// through InstanceToJson.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/modes.h"

namespace {

std::filesystem::path& BaseDir() {
  static std::filesystem::path dir;
  return dir;
}

void RemoveBaseDir() {
  std::error_code ignored;
  if (!BaseDir().empty()) std::filesystem::remove_all(BaseDir(), ignored);
}

// Writes the CSV part, or removes a previous input's file so that inputs stay independent.
void PlaceCsv(std::string_view csv, bool present) {
  const std::filesystem::path file = BaseDir() / "fuzz.csv";
  if (!present) {
    std::remove(file.c_str());
    return;
  }
  std::FILE* out = std::fopen(file.c_str(), "wb");
  if (out == nullptr) std::abort();  // the fuzzer's own setup failed: stop loudly
  if (!csv.empty() && std::fwrite(csv.data(), 1, csv.size(), out) != csv.size()) std::abort();
  std::fclose(out);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  std::string pattern = (std::filesystem::temp_directory_path() / "ckptdp_fuzz_XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) std::abort();
  BaseDir() = pattern;
  std::atexit(RemoveBaseDir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view json = input.substr(0, nul);
  PlaceCsv(nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1),
           nul != std::string_view::npos);
  absl::StatusOr<ckptdp::Instance> instance = ckptdp::ParseInstance(json, BaseDir());
  if (!instance.ok()) return 0;
  // A loaded instance is valid by contract: re-validation must agree.
  if (!ckptdp::ValidateInstance(*instance).ok()) std::abort();
  // InstanceToJson promises a self-contained file that ParseInstance accepts.
  if (!ckptdp::ParseInstance(ckptdp::InstanceToJson(*instance), BaseDir()).ok()) std::abort();
  absl::StatusOr<std::vector<ckptdp::JobModes>> modes = ckptdp::BuildAllModes(*instance);
  if (modes.ok() && modes->size() != instance->jobs.size()) std::abort();
  return 0;
}
