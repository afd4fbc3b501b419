// "did you mean" for unknown instance keys (instance/internal/json_fields.h): typos within a
// small edit distance, and keys with a word left out or added, which are far in edit
// distance ("deadline" is 5 edits from "deadline_slot").
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ckptdp/instance.h"
#include "instance/internal/json_fields.h"

namespace ckptdp {
namespace {

namespace ii = instance_internal;
const std::filesystem::path kInstances = std::filesystem::path(CKPTDP_SOURCE_DIR) / "instances";

TEST_CASE("ClosestKey suggests typos and keys with a word left out or added", "[instance]") {
  const std::vector<std::string_view> job_keys = {"release_slot",  "deadline_slot", "segments",
                                                  "min_run_slots", "max_pauses",    "layers"};
  CHECK(ii::ClosestKey("layer", job_keys) == "layers");
  CHECK(ii::ClosestKey("deadline", job_keys) == "deadline_slot");
  CHECK(ii::ClosestKey("release", job_keys) == "release_slot");
  CHECK(ii::ClosestKey("pauses", job_keys) == "max_pauses");
  CHECK(ii::ClosestKey("deadline_slot_index", job_keys) == "deadline_slot");
  // "slot" ends none of them as a whole word, "slots" only min_run_slots.
  CHECK(ii::ClosestKey("run_slots", job_keys) == "min_run_slots");
  // Not a whole word, and too far for a typo: no guess.
  CHECK(ii::ClosestKey("dead", job_keys).empty());
  CHECK(ii::ClosestKey("colour", job_keys).empty());
  // Two keys start with "max": ambiguous, so no single suggestion.
  CHECK(ii::ClosestKey("max", {"max_pauses", "max_segments_per_run"}).empty());
}

TEST_CASE("jobs[0].deadline gets a did-you-mean deadline_slot", "[instance]") {
  std::ifstream in(kInstances / "paper_2048gpu.json");
  REQUIRE(in.good());
  nlohmann::json paper = nlohmann::json::parse(in);
  paper["jobs"][0]["deadline"] = paper["jobs"][0]["deadline_slot"];
  paper["jobs"][0].erase("deadline_slot");
  const absl::StatusOr<Instance> instance = ParseInstance(paper.dump(), kInstances);
  REQUIRE_FALSE(instance.ok());
  CHECK(instance.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(instance.status().message()) ==
        "jobs[0].deadline: unknown key; did you mean \"deadline_slot\"?");
}

}  // namespace
}  // namespace ckptdp
