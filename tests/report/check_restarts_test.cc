// `ckptdp check` on restart overheads (docs/model.md, "Restarts"): a solved result with
// overheads and an initial run passes, and wrong overheads, a missing key or a run too short
// for its overhead are named.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "ckptdp/check.h"
#include "ckptdp/engine.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "ckptdp/report.h"
#include "support/paths.h"

namespace ckptdp {
namespace {

bool Names(const CheckReport& report, const std::string& where, const std::string& what) {
  for (const Violation& v : report.violations) {
    if (v.where == where && v.what.find(what) != std::string::npos) return true;
  }
  return false;
}

TEST_CASE("check verifies restart overheads and the initial run", "[check][restarts]") {
  const absl::StatusOr<Instance> in =
      LoadInstance(testing::SourcePath("instances/paper_2048gpu_restarts_initial.json"));
  REQUIRE(in.ok());
  const absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(*in);
  REQUIRE(modes.ok());
  SolveOptions options;
  options.threads = 1;
  options.max_nodes = 0;
  const absl::StatusOr<Result> result = SolveScenario(*in, Scenario::kS4, options);
  REQUIRE(result.ok());
  REQUIRE_FALSE(result->schedule.jobs.empty());
  const nlohmann::json valid = nlohmann::json::parse(ResultToJson(*in, *modes, *result));
  {
    const absl::StatusOr<CheckReport> report = CheckResult(*in, valid.dump());
    REQUIRE(report.ok());
    INFO(report->ToText());
    REQUIRE(report->violations.empty());
  }
  // The solver's choice on this instance: LLM-A goes on in (4,4,32) from slot 0, and every
  // run of LLM-B that starts a run pays at least the resume overhead.
  const nlohmann::json& a0 = valid["jobs"][0]["runs"][0];
  REQUIRE(a0["continues_initial"] == true);
  REQUIRE(a0["overhead_minutes"] == 0.0);
  REQUIRE(valid["jobs"][1]["runs"][0]["overhead_minutes"] == 15.0);

  SECTION("an overhead the rules do not give") {
    nlohmann::json bad = valid;
    bad["jobs"][1]["runs"][0]["overhead_minutes"] = 0.0;
    const absl::StatusOr<CheckReport> report = CheckResult(*in, bad.dump());
    REQUIRE(report.ok());
    INFO(report->ToText());
    CHECK(Names(*report, "jobs[1].runs[0]", "overhead_minutes"));
  }
  SECTION("a continuation claimed where there is none") {
    nlohmann::json bad = valid;
    bad["jobs"][1]["runs"][0]["continues_initial"] = true;
    const absl::StatusOr<CheckReport> report = CheckResult(*in, bad.dump());
    REQUIRE(report.ok());
    CHECK(Names(*report, "jobs[1].runs[0]", "continues_initial is true"));
  }
  SECTION("missing restart keys") {
    nlohmann::json bad = valid;
    bad["jobs"][0]["runs"][0].erase("overhead_minutes");
    const absl::StatusOr<CheckReport> report = CheckResult(*in, bad.dump());
    REQUIRE(report.ok());
    CHECK(Names(*report, "jobs[0].runs[0]", "lacks overhead_minutes"));
  }
  SECTION("the full first segment's work for a run that continues the initial one") {
    nlohmann::json bad = valid;
    const int dk = bad["jobs"][0]["runs"][0]["to_segment"].get<int>();
    bad["jobs"][0]["runs"][0]["work_flops"] =
        dk / 12.0 * bad["jobs"][0]["daily_compute_flops"].get<double>();
    const absl::StatusOr<CheckReport> report = CheckResult(*in, bad.dump());
    REQUIRE(report.ok());
    CHECK(Names(*report, "jobs[0].runs[0]", "segment_fraction"));
  }
}

}  // namespace
}  // namespace ckptdp
