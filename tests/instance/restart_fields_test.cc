// Restart fields of a job (docs/instance-format.md): resume_minutes, reshard_minutes and
// initial are read, written back, and rejected with the field's path when bad; the modes
// stage keeps a pruned initial layout available and rejects an infeasible one.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "support/paths.h"

namespace ckptdp {
namespace {

nlohmann::json PaperWithRestarts() {
  std::ifstream in(testing::SourcePath("instances/paper_2048gpu_restarts_initial.json"));
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

absl::StatusOr<Instance> Parse(const nlohmann::json& json) {
  return ParseInstance(json.dump(), testing::SourcePath("instances"));
}

std::string ErrorOf(const nlohmann::json& json) {
  const absl::StatusOr<Instance> parsed = Parse(json);
  REQUIRE_FALSE(parsed.ok());
  return std::string(parsed.status().message());
}

TEST_CASE("Restart fields are read and written back", "[instance][restarts]") {
  const absl::StatusOr<Instance> parsed = Parse(PaperWithRestarts());
  REQUIRE(parsed.ok());
  const Job& a = parsed->jobs[0];
  CHECK(a.resume_minutes == 15);
  CHECK(a.reshard_minutes == 10);
  REQUIRE(a.initial.has_value());
  CHECK(a.initial->mode == ParallelLayout{4, 4, 32});
  CHECK(a.initial->segment_fraction == 0.5);
  CHECK_FALSE(parsed->jobs[1].initial.has_value());
  CHECK(parsed->jobs[1].HasRestartModel());

  const absl::StatusOr<Instance> back = ParseInstance(InstanceToJson(*parsed), "/nonexistent");
  REQUIRE(back.ok());
  CHECK(back->jobs[0].initial == a.initial);
  CHECK(back->jobs[0].resume_minutes == 15);
  CHECK(back->jobs[1].reshard_minutes == 10);
}

TEST_CASE("Bad restart fields are errors naming the field", "[instance][restarts]") {
  nlohmann::json json = PaperWithRestarts();
  SECTION("negative resume minutes") {
    json["jobs"][0]["resume_minutes"] = -5;
    CHECK(ErrorOf(json) == "jobs[0].resume_minutes: must be a number in [0, 10080], got -5");
  }
  SECTION("negative reshard minutes") {
    json["jobs"][1]["reshard_minutes"] = -0.5;
    CHECK(ErrorOf(json) == "jobs[1].reshard_minutes: must be a number in [0, 10080], got -0.5");
  }
  SECTION("fraction 1 and above") {
    json["jobs"][0]["initial"]["segment_fraction"] = 1;
    CHECK(ErrorOf(json) == "jobs[0].initial.segment_fraction: must be a number in [0, 1), got 1");
    json["jobs"][0]["initial"]["segment_fraction"] = -0.1;
    CHECK(ErrorOf(json) ==
          "jobs[0].initial.segment_fraction: must be a number in [0, 1), got -0.1");
  }
  SECTION("missing mode") {
    json["jobs"][0]["initial"].erase("mode");
    CHECK(ErrorOf(json) == "jobs[0].initial.mode: required field is missing");
  }
  SECTION("a running job must be released at slot 0") {
    json["jobs"][0]["release_slot"] = 2;
    CHECK(ErrorOf(json) ==
          "jobs[0].initial: a job running at slot 0 must have release_slot 0, got 2");
  }
  SECTION("not with the operators' limits") {
    json["jobs"][1]["max_pauses"] = 2;
    CHECK(ErrorOf(json).find("jobs[1]: resume_minutes, reshard_minutes and initial cannot be "
                             "combined") == 0);
  }
}

TEST_CASE("The initial layout must be a feasible mode of its job", "[modes][restarts]") {
  nlohmann::json json = PaperWithRestarts();
  json["jobs"][0]["initial"]["mode"] = {{"p", 3}, {"q", 4}, {"d", 32}};
  const absl::StatusOr<Instance> parsed = Parse(json);
  REQUIRE(parsed.ok());  // layouts are the modes stage's question
  const absl::StatusOr<JobModes> modes = BuildJobModes(*parsed, 0);
  REQUIRE_FALSE(modes.ok());
  CHECK(modes.status().message() ==
        "jobs[0].initial.mode: (p,q,d)=(3,4,32) is not a feasible mode of job LLM-A-13B: p=3 "
        "does not divide layers=40");
}

TEST_CASE("A pruned initial layout is kept for the job's first run", "[modes][restarts]") {
  const absl::StatusOr<Instance> parsed = Parse(PaperWithRestarts());
  REQUIRE(parsed.ok());
  const absl::StatusOr<JobModes> modes = BuildJobModes(*parsed, 0);
  REQUIRE(modes.ok());
  REQUIRE(modes->initial >= 0);
  CHECK(modes->feasible[modes->initial].layout == ParallelLayout{4, 4, 32});
  // The baseline (4,4,32) is dominated in our efficiency model (docs/model.md).
  CHECK_FALSE(modes->feasible[modes->initial].effective);
}

}  // namespace
}  // namespace ckptdp
