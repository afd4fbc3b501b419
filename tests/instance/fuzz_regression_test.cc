// Inputs found by the instance-loader fuzzer (tools/fuzz.sh, fuzz/instance_fuzzer.cc), kept
// in tests/data/fuzz/ once the crash, hang or sanitizer report they caused was fixed. Each
// is fed through the same steps as the fuzzer and must end in a clean error or a valid
// instance; the sanitizer build (tools/sanitize.sh) turns a relapse into a failure.
//
// File format, as the fuzzer reads it: the instance JSON, optionally followed by a NUL byte
// and the contents of a series CSV that the JSON can reference as "fuzz.csv".
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/modes.h"

namespace ckptdp {
namespace {

namespace fs = std::filesystem;

const fs::path kFuzzDir = fs::path(CKPTDP_SOURCE_DIR) / "tests/data/fuzz";

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::vector<fs::path> RegressionFiles() {
  std::vector<fs::path> files;
  if (!fs::is_directory(kFuzzDir)) return files;
  for (const auto& entry : fs::directory_iterator(kFuzzDir)) {
    if (entry.is_regular_file() && entry.path().filename() != "README.md") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool Printable(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

TEST_CASE("Fuzzer findings load cleanly", "[instance]") {
  const fs::path base =
      fs::temp_directory_path() / ("ckptdp_fuzz_regression_" + std::to_string(::getpid()));
  fs::create_directories(base);
  for (const fs::path& file : RegressionFiles()) {
    INFO("file: " << file.filename().string());
    const std::string input = ReadBytes(file);
    const std::size_t nul = input.find('\0');
    fs::remove(base / "fuzz.csv");
    if (nul != std::string::npos) {
      std::ofstream csv(base / "fuzz.csv", std::ios::binary);
      csv << input.substr(nul + 1);
    }
    const auto start = std::chrono::steady_clock::now();
    const absl::StatusOr<Instance> instance = ParseInstance(input.substr(0, nul), base);
    if (!instance.ok()) {
      const std::string message(instance.status().message());
      INFO("message: " << message);
      CHECK((instance.status().code() == absl::StatusCode::kInvalidArgument ||
             instance.status().code() == absl::StatusCode::kNotFound));
      CHECK(Printable(message));
    } else {
      CHECK(ValidateInstance(*instance).ok());
      CHECK(ParseInstance(InstanceToJson(*instance), base).ok());
      const absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(*instance);
      if (!modes.ok()) {
        INFO("message: " << modes.status().message());
        CHECK(modes.status().code() == absl::StatusCode::kInvalidArgument);
        CHECK(Printable(std::string(modes.status().message())));
      }
    }
    // The fuzzer's timeout is 10 s; a regression of a hang should fail here, not time out.
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(seconds < 5.0);
  }
  fs::remove_all(base);
}

}  // namespace
}  // namespace ckptdp
