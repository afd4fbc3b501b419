// Result JSON, CSV, human summary and atomic writes.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ckptdp/report.h"
#include "ckptdp/result.h"

namespace ckptdp {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

Instance TwoSlotInstance() {
  Instance instance;
  instance.name = "tiny";
  instance.time.step_minutes = 60;
  instance.time.slots = 3;
  instance.site.gpu_capacity = 1024;
  instance.site.pue = 1.25;
  instance.site.base_load_kw = 100;
  instance.site.site_power_cap_kw = 900;
  instance.series.pv_kw = {100, 300, 0};
  instance.series.wind_kw = {50, 0, 20};
  instance.series.price_usd_per_mwh = {40, 100, 60};
  instance.costs.curtailment_usd_per_mwh = 20;
  instance.costs.battery_wear_usd_per_mwh = 10;
  Job job;
  job.name = "LLM-A";
  job.segments = 12;
  job.release_slot = 0;
  job.deadline_slot = 3;
  job.boundary_idle_allowed = true;
  instance.jobs.push_back(job);
  return instance;
}

std::vector<JobModes> TinyModes() {
  JobModes modes;
  modes.workload.compute_flops = 1.2e21;
  modes.workload.segments = 12;
  Mode a{.layout = {8, 2, 32}, .gpus = 512, .throughput_flops = 1e17, .it_power_kw = 204.8};
  Mode b{.layout = {4, 8, 32}, .gpus = 1024, .throughput_flops = 1.9e17, .it_power_kw = 409.6};
  modes.feasible = {a, b};
  modes.effective = {0, 1};
  modes.baseline = 0;
  return {modes};
}

// S4: job runs slots [0, 2) in mode 0 for segments 0->4, then slot 2 in mode 1 for 4->12.
Result FeasibleResult() {
  Result result;
  result.scenario = Scenario::kS4;
  result.status = SolveStatus::kOptimal;
  result.objective_usd = 50.5;
  result.lower_bound_usd = 50.25;
  result.gap = RelativeGap(50.5, 50.25);
  result.metrics = Metrics{.cost_usd = 50.5,
                           .cost_reduction_pct = 12.5,
                           .grid_mwh = 0.68,
                           .curtailment_mwh = 0.05,
                           .bess_throughput_mwh = 0,
                           .re_utilization_pct = 90,
                           .green_share_pct = 40,
                           .peak_power_kw = 612,
                           .peak_gpus = 1024};
  result.schedule.jobs = {
      {Run{.start_slot = 0, .end_slot = 2, .from_segment = 0, .to_segment = 4, .mode = 0},
       Run{.start_slot = 2, .end_slot = 3, .from_segment = 4, .to_segment = 12, .mode = 1}}};
  result.load = SlotLoad{
      .gpus = {512, 512, 1024}, .train_it_kw = {204.8, 204.8, 409.6}, .aidc_kw = {356, 356, 612}};
  result.power.slots = {
      {.aidc_kw = 356, .renewable_used_kw = 150, .grid_kw = 206},
      {.aidc_kw = 356, .renewable_used_kw = 300, .grid_kw = 56, .soc_kwh = 1.5},
      {.aidc_kw = 612, .renewable_used_kw = 20, .grid_kw = 592},
  };
  result.solver =
      SolverStats{.seconds = 1.25, .iterations = 17, .nodes = 6, .threads = 4, .gap_breakdown = {}};
  return result;
}

TEST_CASE("ResultToJson writes every documented key with its value", "[report]") {
  const Instance instance = TwoSlotInstance();
  const json j = json::parse(ResultToJson(instance, TinyModes(), FeasibleResult()));

  CHECK(j.at("format") == "ckptdp-result-1");
  CHECK(j.at("instance") == "tiny");
  CHECK(j.at("scenario") == "S4");
  CHECK(j.at("scenario_description") == "Checkpoint+3D");
  CHECK(j.at("status") == "optimal");
  CHECK(j.at("objective_usd").get<double>() == 50.5);
  CHECK(j.at("lower_bound_usd").get<double>() == 50.25);
  CHECK(j.at("gap").get<double>() == Approx(0.25 / 50.5));
  CHECK_FALSE(j.contains("diagnosis"));

  const json& m = j.at("metrics");
  CHECK(m.size() == 9);
  CHECK(m.at("cost_usd").get<double>() == 50.5);
  CHECK(m.at("cost_reduction_pct").get<double>() == 12.5);
  CHECK(m.at("grid_mwh").get<double>() == 0.68);
  CHECK(m.at("curtailment_mwh").get<double>() == 0.05);
  CHECK(m.at("bess_throughput_mwh").get<double>() == 0);
  CHECK(m.at("re_utilization_pct").get<double>() == 90);
  CHECK(m.at("green_share_pct").get<double>() == 40);
  CHECK(m.at("peak_power_kw").get<double>() == 612);
  CHECK(m.at("peak_gpus").get<int>() == 1024);

  CHECK(j.at("solver") ==
        json({{"seconds", 1.25}, {"iterations", 17}, {"nodes", 6}, {"threads", 4}}));

  const json& site = j.at("site");
  CHECK(site.at("step_minutes") == 60);
  CHECK(site.at("slots") == 3);
  CHECK(site.at("gpu_capacity") == 1024);
  CHECK(site.at("pue").get<double>() == 1.25);
  CHECK(site.at("base_load_kw").get<double>() == 100);
  CHECK(site.at("site_cap_kw").get<double>() == 900);
  CHECK(site.at("curtailment_usd_per_mwh").get<double>() == 20);
  CHECK(site.at("battery_wear_usd_per_mwh").get<double>() == 10);
  CHECK(site.at("battery_enabled") == false);  // S4 has no battery
  const Battery& b = instance.battery;
  CHECK(site.at("battery") == json({{"power_kw", b.power_kw},
                                    {"energy_kwh", b.energy_kwh},
                                    {"charge_efficiency", b.charge_efficiency},
                                    {"discharge_efficiency", b.discharge_efficiency},
                                    {"soc_min_kwh", b.soc_min_kwh},
                                    {"soc_max_kwh", b.soc_max_kwh},
                                    {"soc_initial_kwh", b.soc_initial_kwh}}));

  const json& slots = j.at("slots");
  REQUIRE(slots.size() == 3);
  CHECK(slots[1] == json({{"slot", 1},
                          {"renewable_kw", 300.0},
                          {"price_usd_per_mwh", 100.0},
                          {"aidc_kw", 356.0},
                          {"train_it_kw", 204.8},
                          {"gpus", 512},
                          {"renewable_used_kw", 300.0},
                          {"grid_kw", 56.0},
                          {"curtailment_kw", 0.0},
                          {"charge_kw", 0.0},
                          {"discharge_kw", 0.0},
                          {"soc_kwh", 1.5}}));
  CHECK(slots[2].at("renewable_kw").get<double>() == 20);
  CHECK(slots[2].at("gpus") == 1024);

  REQUIRE(j.at("jobs").size() == 1);
  const json& job = j.at("jobs")[0];
  CHECK(job.at("name") == "LLM-A");
  CHECK(job.at("segments") == 12);
  CHECK(job.at("release_slot") == 0);
  CHECK(job.at("deadline_slot") == 3);
  CHECK(job.at("boundary_idle_allowed") == true);
  CHECK(job.at("daily_compute_flops").get<double>() == 1.2e21);
  const json& runs = job.at("runs");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].size() == 11);
  CHECK(runs[0].at("start_slot") == 0);
  CHECK(runs[0].at("end_slot") == 2);
  CHECK(runs[0].at("from_segment") == 0);
  CHECK(runs[0].at("to_segment") == 4);
  CHECK(runs[0].at("p") == 8);
  CHECK(runs[0].at("q") == 2);
  CHECK(runs[0].at("d") == 32);
  CHECK(runs[0].at("gpus") == 512);
  CHECK(runs[0].at("it_power_kw").get<double>() == 204.8);
  CHECK(runs[0].at("throughput_flops").get<double>() == 1e17);
  CHECK(runs[0].at("work_flops").get<double>() == Approx(4e20));  // 4/12 of 1.2e21
  CHECK(runs[1].at("gpus") == 1024);
  CHECK(runs[1].at("work_flops").get<double>() == Approx(8e20));
}

TEST_CASE("ResultToJson: battery_enabled follows the scenario", "[report]") {
  Result result = FeasibleResult();
  result.scenario = Scenario::kS6;
  const json j = json::parse(ResultToJson(TwoSlotInstance(), TinyModes(), result));
  CHECK(j.at("site").at("battery_enabled") == true);
  CHECK(j.at("scenario_description") == "Checkpoint+3D+BESS");
}

TEST_CASE("ResultToJson: S3 runs have no segment keys and keep their own work", "[report]") {
  Result result = FeasibleResult();
  result.scenario = Scenario::kS3;
  result.schedule.jobs = {{Run{.start_slot = 0, .end_slot = 2, .mode = 0, .work_flops = 3e20},
                           Run{.start_slot = 2, .end_slot = 3, .mode = 1, .work_flops = 9e20}}};
  const json j = json::parse(ResultToJson(TwoSlotInstance(), TinyModes(), result));
  const json& runs = j.at("jobs")[0].at("runs");
  REQUIRE(runs.size() == 2);
  for (const json& run : runs) {
    CHECK_FALSE(run.contains("from_segment"));
    CHECK_FALSE(run.contains("to_segment"));
    CHECK(run.size() == 9);
  }
  CHECK(runs[0].at("work_flops").get<double>() == 3e20);
  CHECK(runs[1].at("work_flops").get<double>() == 9e20);
}

TEST_CASE("ResultToJson: an infeasible result has nulls and empty arrays", "[report]") {
  Result result;
  result.scenario = Scenario::kS4;
  result.status = SolveStatus::kInfeasible;
  result.lower_bound_usd = std::numeric_limits<double>::infinity();
  result.diagnosis = "LLM-A: fastest mode needs 5 slots, window has 3";
  const json j = json::parse(ResultToJson(TwoSlotInstance(), TinyModes(), result));
  CHECK(j.at("status") == "infeasible");
  CHECK(j.at("objective_usd").is_null());
  CHECK(j.at("lower_bound_usd").is_null());
  CHECK(j.at("gap").is_null());
  CHECK(j.at("diagnosis") == result.diagnosis);
  CHECK(j.at("slots") == json::array());
  REQUIRE(j.at("jobs").size() == 1);
  CHECK(j.at("jobs")[0].at("runs") == json::array());
  CHECK(j.at("jobs")[0].at("daily_compute_flops").get<double>() == 1.2e21);
  for (const auto& [key, value] : j.at("metrics").items()) {
    INFO(key);
    CHECK(value.is_null());
  }
  CHECK(j.at("site").at("slots") == 3);
}

TEST_CASE("ResultToJson: a time limit without incumbent keeps its bound", "[report]") {
  Result result;
  result.status = SolveStatus::kTimeLimit;
  result.lower_bound_usd = 42.0;
  const json j = json::parse(ResultToJson(TwoSlotInstance(), TinyModes(), result));
  CHECK(j.at("status") == "time_limit");
  CHECK(j.at("objective_usd").is_null());
  CHECK(j.at("lower_bound_usd").get<double>() == 42.0);
  CHECK(j.at("gap").is_null());
  CHECK(j.contains("diagnosis"));  // why there is no schedule
  CHECK(j.at("slots").empty());
}

TEST_CASE("SlotsCsv has a header and one row per slot", "[report]") {
  Result result = FeasibleResult();
  result.power.slots[1].discharge_kw = -1e-13;  // round-off prints as 0, not -0
  result.power.slots[1].charge_kw = -0.0;
  const std::string csv = SlotsCsv(TwoSlotInstance(), result);
  std::istringstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] ==
        "slot,renewable_kw,price_usd_per_mwh,aidc_kw,train_it_kw,gpus,renewable_used_kw,"
        "grid_kw,curtailment_kw,charge_kw,discharge_kw,soc_kwh");
  CHECK(lines[2] ==
        "1,300.000000,100.000000,356.000000,204.800000,512,300.000000,56.000000,0.000000,"
        "0.000000,0.000000,1.500000");

  Result infeasible;
  infeasible.status = SolveStatus::kInfeasible;
  CHECK(SlotsCsv(TwoSlotInstance(), infeasible) == lines[0] + "\n");
}

TEST_CASE("HumanSummary lists status, metrics and runs", "[report]") {
  const std::string text = HumanSummary(TwoSlotInstance(), TinyModes(), FeasibleResult());
  CHECK_THAT(text, Catch::Contains("tiny"));
  CHECK_THAT(text, Catch::Contains("S4 (Checkpoint+3D)"));
  CHECK_THAT(text, Catch::Contains("optimal"));
  CHECK_THAT(text, Catch::Contains("50.50 USD"));
  CHECK_THAT(text, Catch::Contains("green share 40.00 %"));
  CHECK_THAT(text, Catch::Contains("slots 0-1 seg 0->4 (8,2,32) 512 GPUs"));
  CHECK_THAT(text, Catch::Contains("slot 2 seg 4->12 (4,8,32) 1024 GPUs"));

  Result infeasible;
  infeasible.status = SolveStatus::kInfeasible;
  infeasible.diagnosis = "LLM-A cannot finish";
  const std::string why = HumanSummary(TwoSlotInstance(), TinyModes(), infeasible);
  CHECK_THAT(why, Catch::Contains("infeasible"));
  CHECK_THAT(why, Catch::Contains("diagnosis  LLM-A cannot finish"));
  CHECK_THAT(why, Catch::Contains("objective  none (no schedule found)\n"));

  Result stopped;
  stopped.status = SolveStatus::kTimeLimit;
  stopped.lower_bound_usd = 42;
  const std::string partial = HumanSummary(TwoSlotInstance(), TinyModes(), stopped);
  CHECK_THAT(partial, Catch::Contains("none (no schedule found)  bound 42.00 USD"));
  CHECK_THAT(partial, Catch::Contains("diagnosis"));  // why there is no schedule
}

// A fresh, empty directory under the system temp dir, removed at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("ckptdp_report_test_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(reinterpret_cast<uintptr_t>(this)));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::vector<std::string> Entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(path)) {
      names.push_back(entry.path().filename().string());
    }
    return names;
  }
};

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST_CASE("WriteFileAtomically writes and replaces, leaving no temp file", "[report]") {
  TempDir dir;
  const fs::path target = dir.path / "result.json";
  REQUIRE(WriteFileAtomically(target, "first").ok());
  CHECK(ReadAll(target) == "first");
  REQUIRE(WriteFileAtomically(target, "second, longer contents\n").ok());
  CHECK(ReadAll(target) == "second, longer contents\n");
  CHECK(dir.Entries() == std::vector<std::string>{"result.json"});
}

TEST_CASE("WriteFileAtomically fails cleanly when the directory is missing", "[report]") {
  TempDir dir;
  const fs::path target = dir.path / "missing" / "result.json";
  const absl::Status status = WriteFileAtomically(target, "x");
  REQUIRE_FALSE(status.ok());
  CHECK_THAT(std::string(status.message()), Catch::Contains(target.string()));
  CHECK_THAT(std::string(status.message()), Catch::Contains("No such file or directory"));
  CHECK_FALSE(fs::exists(target));
  CHECK(dir.Entries().empty());
}

TEST_CASE("WriteFileAtomically removes its temp file when the rename fails", "[report]") {
  TempDir dir;
  const fs::path target = dir.path / "taken";
  fs::create_directories(target / "child");  // a non-empty directory: rename must fail
  const absl::Status status = WriteFileAtomically(target, "x");
  REQUIRE_FALSE(status.ok());
  CHECK_THAT(std::string(status.message()), Catch::Contains(target.string()));
  CHECK(dir.Entries() == std::vector<std::string>{"taken"});
  CHECK(fs::is_directory(target / "child"));
}

}  // namespace
}  // namespace ckptdp
