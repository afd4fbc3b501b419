// The bad-input corpus: tests/data/bad/expected.json maps each file to a substring its
// error message must contain. The CLI tests reuse the same manifest (exit code 2).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "ckptdp/instance.h"

namespace ckptdp {
namespace {

const std::filesystem::path kBadDir = std::filesystem::path(CKPTDP_SOURCE_DIR) / "tests/data/bad";

nlohmann::json ReadManifest() {
  std::ifstream in(kBadDir / "expected.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

TEST_CASE("Every bad instance fails to load with the expected message", "[instance]") {
  const nlohmann::json manifest = ReadManifest();
  REQUIRE(manifest.size() >= 80);
  for (const auto& [file, expected] : manifest.items()) {
    INFO("file: " << file);
    const absl::StatusOr<Instance> result = LoadInstance(kBadDir / file);
    REQUIRE_FALSE(result.ok());
    const absl::Status& status = result.status();
    CHECK((status.code() == absl::StatusCode::kInvalidArgument ||
           status.code() == absl::StatusCode::kNotFound));
    const std::string message(status.message());
    INFO("message: " << message);
    CHECK(message.find(expected.get<std::string>()) != std::string::npos);
    // Printable ASCII (hence one line) even for the invalid-UTF-8 and control-character
    // files, so that the CLI's "error: ..." is safe to print and stays one line in logs.
    CHECK(
        std::all_of(message.begin(), message.end(), [](char c) { return c >= 0x20 && c < 0x7f; }));
  }
}

TEST_CASE("Only a missing file is NotFound", "[instance]") {
  for (const char* file : {"series_csv_missing_file.json"}) {
    CHECK(LoadInstance(kBadDir / file).status().code() == absl::StatusCode::kNotFound);
  }
  CHECK(LoadInstance(kBadDir / "csv_bad_number.json").status().code() ==
        absl::StatusCode::kInvalidArgument);
}

TEST_CASE("The bad-instance manifest lists every JSON file of tests/data/bad", "[instance]") {
  const nlohmann::json manifest = ReadManifest();
  std::set<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(kBadDir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".json" && name != "expected.json") on_disk.insert(name);
  }
  std::set<std::string> listed;
  for (const auto& [file, expected] : manifest.items()) listed.insert(file);
  CHECK(on_disk == listed);
}

}  // namespace
}  // namespace ckptdp
