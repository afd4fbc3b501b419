// Tests of the independent result checker (`ckptdp check`).
//
// A small two-job instance (10 hourly slots, 4 segments per job, a battery) and hand-made
// results: a valid plan for each scenario family must pass, and each single mutation of a
// valid result must be named at the right place. The result JSON is built from a plan of
// runs and battery flows with the draft's definitions written out here, not by the engine.
#include "ckptdp/check.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "ckptdp/modes.h"
#include "nlohmann/json.hpp"

namespace ckptdp {
namespace {

using nlohmann::json;

// Job A: 8 slots [0, 8), baseline (1,1,8) fills it exactly (2 slots per segment), the last
// segment must end at the deadline. Job B: [2, 10), baseline (1,2,8), may idle at the end.
Instance TinyInstance() {
  Instance in;
  in.name = "tiny";
  in.site.gpu_capacity = 32;
  in.site.base_load_kw = 50.0;
  in.site.site_power_cap_kw = 80.0;
  in.time.slots = 10;
  in.series.pv_kw = {0, 0, 5, 20, 40, 50, 40, 20, 5, 0};
  in.series.wind_kw = {10, 12, 8, 6, 5, 5, 6, 8, 10, 12};
  in.series.price_usd_per_mwh = {30, 25, 20, 15, 10, 10, 20, 60, 80, 70};
  in.battery = Battery{10.0, 40.0, 0.95, 0.95, 4.0, 40.0, 20.0};
  Job a;
  a.name = "A";
  a.params = 1.3e9;
  a.tokens = 2e9;
  a.batch = 32;
  a.seq_len = 1024;
  a.layers = 24;
  a.hidden = 2048;
  a.ffn_hidden = 8192;
  a.heads = 16;
  a.vocab = 32000;
  a.daily_ratio = 1.0;
  a.release_slot = 0;
  a.deadline_slot = 8;
  a.segments = 4;
  a.baseline = {1, 1, 8};
  a.boundary_idle_allowed = false;
  Job b = a;
  b.name = "B";
  b.tokens = 3e9;
  b.release_slot = 2;
  b.deadline_slot = 10;
  b.baseline = {1, 2, 8};
  b.boundary_idle_allowed = true;
  in.jobs = {a, b};
  return in;
}

// One run of a plan. from < 0 means an S3 run (no segment keys) delivering `work`.
struct PlannedRun {
  int job;
  int start;
  int end;
  int from;
  int to;
  ParallelLayout layout;
  double work = 0;
};

struct Plan {
  std::string scenario;
  std::vector<PlannedRun> runs;
  std::vector<double> charge;  // per slot, empty = none
  std::vector<double> discharge;
};

const Mode& ModeOf(const JobModes& modes, const ParallelLayout& layout) {
  for (const Mode& m : modes.feasible) {
    if (m.layout == layout) return m;
  }
  FAIL("layout is not a feasible mode");
  return modes.feasible.front();
}

// A result for `plan`, consistent with the result-format definitions. Renewables serve the
// load first, the grid the rest. `s1_cost` gives cost_reduction_pct (null without it).
json BuildResult(const Instance& in, const Plan& plan, std::optional<double> s1_cost) {
  const auto modes = BuildAllModes(in);
  REQUIRE(modes.ok());
  const int slots = in.time.slots;
  const double dt = in.time.StepHours();

  json jobs = json::array();
  std::vector<int> gpus(slots, 0);
  std::vector<double> it_kw(slots, 0.0);
  for (size_t j = 0; j < in.jobs.size(); ++j) {
    const Job& job = in.jobs[j];
    const double compute = (*modes)[j].workload.compute_flops;
    json runs = json::array();
    for (const PlannedRun& r : plan.runs) {
      if (r.job != static_cast<int>(j)) continue;
      const Mode& m = ModeOf((*modes)[j], r.layout);
      json run = {{"start_slot", r.start},
                  {"end_slot", r.end},
                  {"p", r.layout.p},
                  {"q", r.layout.q},
                  {"d", r.layout.d},
                  {"gpus", m.gpus},
                  {"it_power_kw", m.it_power_kw},
                  {"throughput_flops", m.throughput_flops},
                  {"work_flops", r.work}};
      if (r.from >= 0) {
        run["from_segment"] = r.from;
        run["to_segment"] = r.to;
        run["work_flops"] = static_cast<double>(r.to - r.from) / job.segments * compute;
      }
      runs.push_back(run);
      for (int t = r.start; t < r.end; ++t) {
        gpus[t] += m.gpus;
        it_kw[t] += m.it_power_kw;
      }
    }
    jobs.push_back({{"name", job.name},
                    {"segments", job.segments},
                    {"release_slot", job.release_slot},
                    {"deadline_slot", job.deadline_slot},
                    {"boundary_idle_allowed", job.boundary_idle_allowed},
                    {"daily_compute_flops", compute},
                    {"runs", runs}});
  }

  const Battery& b = in.battery;
  json slot_array = json::array();
  double soc = b.soc_initial_kwh, cost = 0, grid_mwh = 0, cur_mwh = 0, bess_mwh = 0;
  double ren_sum = 0, used_sum = 0, aidc_sum = 0, grid_sum = 0, peak_kw = 0;
  int peak_gpus = 0;
  for (int t = 0; t < slots; ++t) {
    const double ch = plan.charge.empty() ? 0.0 : plan.charge[t];
    const double dis = plan.discharge.empty() ? 0.0 : plan.discharge[t];
    const double aidc = in.site.base_load_kw + in.site.pue * it_kw[t];
    const double ren = in.series.pv_kw[t] + in.series.wind_kw[t];
    const double price = in.series.price_usd_per_mwh[t];
    const double net = aidc + ch - dis;
    REQUIRE(net >= 0);
    const double used = std::min(ren, net);
    const double grid = net - used;
    const double cur = ren - used;
    soc += b.charge_efficiency * ch * dt - dis * dt / b.discharge_efficiency;
    slot_array.push_back({{"slot", t},
                          {"renewable_kw", ren},
                          {"price_usd_per_mwh", price},
                          {"aidc_kw", aidc},
                          {"train_it_kw", it_kw[t]},
                          {"gpus", gpus[t]},
                          {"renewable_used_kw", used},
                          {"grid_kw", grid},
                          {"curtailment_kw", cur},
                          {"charge_kw", ch},
                          {"discharge_kw", dis},
                          {"soc_kwh", soc}});
    cost += dt / 1000 *
            (price * grid + in.costs.curtailment_usd_per_mwh * cur +
             in.costs.battery_wear_usd_per_mwh * (ch + dis));
    grid_mwh += grid * dt / 1000;
    cur_mwh += cur * dt / 1000;
    bess_mwh += (ch + dis) * dt / 1000;
    ren_sum += ren;
    used_sum += used;
    aidc_sum += aidc;
    grid_sum += grid;
    peak_kw = std::max(peak_kw, aidc);
    peak_gpus = std::max(peak_gpus, gpus[t]);
  }

  const bool battery = plan.scenario == "S5" || plan.scenario == "S6";
  const double bound = cost * (1 - 1e-5);
  json result = {{"format", "ckptdp-result-1"},
                 {"instance", in.name},
                 {"scenario", plan.scenario},
                 {"scenario_description", "test"},
                 {"status", "optimal"},
                 {"objective_usd", cost},
                 {"lower_bound_usd", bound},
                 {"gap", (cost - bound) / std::max(1.0, std::abs(cost))},
                 {"metrics",
                  {{"cost_usd", cost},
                   {"cost_reduction_pct", nullptr},
                   {"grid_mwh", grid_mwh},
                   {"curtailment_mwh", cur_mwh},
                   {"bess_throughput_mwh", bess_mwh},
                   {"re_utilization_pct", 100 * used_sum / ren_sum},
                   {"green_share_pct", 100 * (aidc_sum - grid_sum) / aidc_sum},
                   {"peak_power_kw", peak_kw},
                   {"peak_gpus", peak_gpus}}},
                 {"solver", {{"seconds", 0.1}, {"iterations", 3}, {"threads", 1}}},
                 {"site",
                  {{"step_minutes", in.time.step_minutes},
                   {"slots", slots},
                   {"gpu_capacity", in.site.gpu_capacity},
                   {"pue", in.site.pue},
                   {"base_load_kw", in.site.base_load_kw},
                   {"site_cap_kw", in.site.site_power_cap_kw},
                   {"curtailment_usd_per_mwh", in.costs.curtailment_usd_per_mwh},
                   {"battery_wear_usd_per_mwh", in.costs.battery_wear_usd_per_mwh},
                   {"battery_enabled", battery},
                   {"battery",
                    {{"power_kw", b.power_kw},
                     {"energy_kwh", b.energy_kwh},
                     {"charge_efficiency", b.charge_efficiency},
                     {"discharge_efficiency", b.discharge_efficiency},
                     {"soc_min_kwh", b.soc_min_kwh},
                     {"soc_max_kwh", b.soc_max_kwh},
                     {"soc_initial_kwh", b.soc_initial_kwh}}}}},
                 {"slots", slot_array},
                 {"jobs", jobs}};
  if (s1_cost.has_value()) {
    result["metrics"]["cost_reduction_pct"] = 100 * (*s1_cost - cost) / *s1_cost;
  }
  return result;
}

// S1 by hand: both baselines fill their windows exactly, one run 0 -> K each.
Plan S1Plan() { return {"S1", {{0, 0, 8, 0, 4, {1, 1, 8}}, {1, 2, 10, 0, 4, {1, 2, 8}}}, {}, {}}; }

double S1Cost(const Instance& in) {
  return BuildResult(in, S1Plan(), std::nullopt)["metrics"]["cost_usd"].get<double>();
}

// S6: A trains segments 0-2 and 2-4 in (8,2,1) (2 slots each) around a pause and ends at
// its deadline; B uses (12,2,1) (1 slot per segment, 2 for two) and idles at the end. The
// battery charges at midday and gives the same energy back in the evening peak.
constexpr ParallelLayout kA16{8, 2, 1};
constexpr ParallelLayout kB24{12, 2, 1};
Plan S6Plan() {
  Plan plan{"S6",
            {{0, 0, 2, 0, 2, kA16},
             {0, 6, 8, 2, 4, kA16},
             {1, 3, 5, 0, 2, kB24},
             {1, 5, 6, 2, 3, kB24},
             {1, 8, 9, 3, 4, kB24}},
            std::vector<double>(10, 0.0),
            std::vector<double>(10, 0.0)};
  plan.charge[4] = plan.charge[5] = 10.0;
  plan.discharge[7] = plan.discharge[8] = 0.95 * 0.95 * 10.0;  // returns 19 kWh of state
  return plan;
}

CheckReport Check(const Instance& in, const json& result) {
  const absl::StatusOr<CheckReport> report = CheckResult(in, result.dump());
  INFO(report.status().ToString());
  REQUIRE(report.ok());
  return *report;
}

// True if some violation is at `where` and its text contains `what`.
bool Names(const CheckReport& report, const std::string& where, const std::string& what) {
  for (const Violation& v : report.violations) {
    if (v.where == where && v.what.find(what) != std::string::npos) return true;
  }
  return false;
}

#define REQUIRE_NAMES(report, where, what)     \
  do {                                         \
    INFO((report).ToText());                   \
    REQUIRE(Names((report), (where), (what))); \
  } while (false)

json ValidS6(const Instance& in) { return BuildResult(in, S6Plan(), S1Cost(in)); }

TEST_CASE("valid results of every scenario family pass", "[check]") {
  const Instance in = TinyInstance();
  const double s1 = S1Cost(in);

  SECTION("S6 with waiting, variable modes and the battery") {
    const CheckReport report = Check(in, ValidS6(in));
    INFO(report.ToText());
    CHECK(report.ok());
    CHECK(report.ToText().rfind("ok:", 0) == 0);
  }
  SECTION("S1 records one baseline run 0 -> K per job; its cost reduction is 0") {
    const json result = BuildResult(in, S1Plan(), s1);
    CHECK(result["metrics"]["cost_reduction_pct"].get<double>() == Approx(0).margin(1e-12));
    const CheckReport report = Check(in, result);
    INFO(report.ToText());
    CHECK(report.ok());
  }
  SECTION("S2 records the S1 trajectory segment by segment") {
    Plan plan{"S2", {}, {}, {}};
    for (int k = 0; k < 4; ++k) {
      plan.runs.push_back({0, 2 * k, 2 * k + 2, k, k + 1, {1, 1, 8}});
      plan.runs.push_back({1, 2 + 2 * k, 4 + 2 * k, k, k + 1, {1, 2, 8}});
    }
    const CheckReport report = Check(in, BuildResult(in, plan, s1));
    INFO(report.ToText());
    CHECK(report.ok());
  }
  SECTION("S3 runs carry no segments and deliver at least the daily compute") {
    const auto modes = BuildAllModes(in);
    REQUIRE(modes.ok());
    Plan plan{"S3",
              {{0, 0, 3, -1, -1, kA16, (*modes)[0].workload.compute_flops},
               {1, 3, 7, -1, -1, kB24, (*modes)[1].workload.compute_flops}},
              {},
              {}};
    const CheckReport report = Check(in, BuildResult(in, plan, s1));
    INFO(report.ToText());
    CHECK(report.ok());
  }
}

TEST_CASE("an infeasible result is checked for structure only", "[check]") {
  const Instance in = TinyInstance();
  json result = {{"format", "ckptdp-result-1"},
                 {"instance", "tiny"},
                 {"scenario", "S4"},
                 {"status", "infeasible"},
                 {"objective_usd", nullptr},
                 {"lower_bound_usd", nullptr},
                 {"gap", nullptr},
                 {"diagnosis", "job A cannot finish"}};
  CHECK(Check(in, result).ok());
  CHECK(Check(in, result).ToText() ==
        "ok: status infeasible, no schedule to check; the structure and the diagnosis are "
        "valid\n");

  result["diagnosis"] = "";
  REQUIRE_NAMES(Check(in, result), "diagnosis", "which job");

  result.erase("diagnosis");
  const absl::StatusOr<CheckReport> missing = CheckResult(in, result.dump());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find("diagnosis") != std::string_view::npos);
}

TEST_CASE("structural problems are errors that name the key", "[check]") {
  const Instance in = TinyInstance();
  const json valid = ValidS6(in);
  const auto error_of = [&](const json& result) {
    const absl::StatusOr<CheckReport> report = CheckResult(in, result.dump());
    REQUIRE_FALSE(report.ok());
    return std::string(report.status().message());
  };

  CHECK_FALSE(CheckResult(in, "{\"format\": ").ok());
  json r = valid;
  r["jobs"][1]["runs"][0].erase("p");
  CHECK(error_of(r).find("jobs[1].runs[0].p") != std::string::npos);
  r = valid;
  r["jobs"][0]["runs"][1].erase("to_segment");
  CHECK(error_of(r).find("jobs[0].runs[1].to_segment") != std::string::npos);
  r = valid;
  r.erase("slots");
  CHECK(error_of(r).find("slots") != std::string::npos);
  r = valid;
  r["slots"][3]["grid_kw"] = "12";
  CHECK(error_of(r).find("slots[3].grid_kw") != std::string::npos);
  r = valid;
  r["site"]["battery"].erase("soc_min_kwh");
  CHECK(error_of(r).find("site.battery.soc_min_kwh") != std::string::npos);
  r = valid;
  r["scenario"] = "S7";
  CHECK(error_of(r).find("scenario") != std::string::npos);
}

TEST_CASE("schedule mutations are named at the run", "[check]") {
  const Instance in = TinyInstance();
  const double s1 = S1Cost(in);

  SECTION("overlapping runs") {
    Plan plan = S6Plan();
    plan.runs[3] = {1, 4, 5, 2, 3, kB24};  // starts while runs[0] of B still runs
    REQUIRE_NAMES(Check(in, BuildResult(in, plan, s1)), "jobs[1].runs[1]", "overlaps");
  }
  SECTION("segment gap") {
    Plan plan = S6Plan();
    plan.runs.erase(plan.runs.begin() + 3);  // B jumps from segment 2 to 3
    REQUIRE_NAMES(Check(in, BuildResult(in, plan, s1)), "jobs[1].runs[1]",
                  "segments must follow each other");
  }
  SECTION("first run does not start at segment 0") {
    Plan plan = S6Plan();
    plan.runs[0].from = 1;
    REQUIRE_NAMES(Check(in, BuildResult(in, plan, s1)), "jobs[0].runs[0]", "segment 0");
  }
  SECTION("wrong run length") {
    Plan plan = S6Plan();
    plan.runs[2].end = 6;  // two segments of B take 2 slots, not 3
    plan.runs[3] = {1, 6, 7, 2, 3, kB24};
    REQUIRE_NAMES(Check(in, BuildResult(in, plan, s1)), "jobs[1].runs[0]", "take 2 slots");
  }
  SECTION("deadline missed by a late run") {
    Plan plan = S6Plan();
    plan.runs[1] = {0, 7, 9, 2, 4, kA16};
    const CheckReport report = Check(in, BuildResult(in, plan, s1));
    REQUIRE_NAMES(report, "jobs[0].runs[1]", "deadline is missed");
  }
  SECTION("deadline missed by not reaching K") {
    Plan plan = S6Plan();
    plan.runs.pop_back();
    REQUIRE_NAMES(Check(in, BuildResult(in, plan, s1)), "jobs[1]", "does not complete");
  }
  SECTION("boundary idle not allowed") {
    Plan plan = S6Plan();
    plan.runs[1] = {0, 5, 7, 2, 4, kA16};
    REQUIRE_NAMES(Check(in, BuildResult(in, plan, s1)), "jobs[0].runs[1]",
                  "boundary_idle_allowed is false");
  }
  SECTION("run before release") {
    Plan plan = S6Plan();
    plan.runs[2] = {1, 1, 3, 0, 2, kB24};
    REQUIRE_NAMES(Check(in, BuildResult(in, plan, s1)), "jobs[1].runs[0]", "release slot");
  }
  SECTION("waiting in S2") {
    Plan plan{"S2", {}, {}, {}};
    for (int k = 0; k < 4; ++k) plan.runs.push_back({0, 2 * k, 2 * k + 2, k, k + 1, {1, 1, 8}});
    plan.runs.push_back({1, 2, 10, 0, 4, {1, 2, 8}});
    plan.runs[2] = {0, 5, 7, 2, 3, {1, 1, 8}};
    plan.runs[3] = {0, 7, 9, 3, 4, {1, 1, 8}};
    REQUIRE_NAMES(Check(in, BuildResult(in, plan, s1)), "jobs[0].runs[2]", "waiting");
  }
  SECTION("a variable mode in a fixed-mode scenario") {
    Plan plan = S1Plan();
    plan.scenario = "S5";
    plan.runs[1] = {1, 2, 6, 0, 4, kB24};
    REQUIRE_NAMES(Check(in, BuildResult(in, plan, s1)), "jobs[1].runs[0]", "baseline");
  }
  SECTION("operators' limits: pauses, shortest run, longest edge") {
    Instance limited = in;
    limited.jobs[0].max_pauses = 0;
    limited.jobs[0].max_segments_per_run = 1;
    limited.jobs[1].min_run_slots = 3;
    const CheckReport report = Check(limited, BuildResult(limited, S6Plan(), s1));
    REQUIRE_NAMES(report, "jobs[0]", "max_pauses=0");
    REQUIRE_NAMES(report, "jobs[0].runs[0]", "max_segments_per_run=1");
    REQUIRE_NAMES(report, "jobs[1].runs[2]", "min_run_slots=3");
  }
  SECTION("S3 work: too little in total, too much for a run, segments present") {
    const auto modes = BuildAllModes(in);
    REQUIRE(modes.ok());
    const double ca = (*modes)[0].workload.compute_flops;
    const double cb = (*modes)[1].workload.compute_flops;
    Plan plan{"S3", {{0, 0, 3, -1, -1, kA16, 0.9 * ca}, {1, 3, 5, -1, -1, kB24, cb}}, {}, {}};
    json result = BuildResult(in, plan, s1);
    result["jobs"][1]["runs"][0]["from_segment"] = 0;
    const CheckReport report = Check(in, result);
    REQUIRE_NAMES(report, "jobs[0]", "less than the daily compute");
    REQUIRE_NAMES(report, "jobs[1].runs[0]", "more than the run can deliver");
    REQUIRE_NAMES(report, "jobs[1].runs[0]", "S3 has no checkpoints");
  }
}

TEST_CASE("run field mutations are named at the run or job", "[check]") {
  const Instance in = TinyInstance();
  const json valid = ValidS6(in);

  json r = valid;
  r["jobs"][0]["runs"][0]["it_power_kw"] = r["jobs"][0]["runs"][0]["it_power_kw"].get<double>() + 1;
  REQUIRE_NAMES(Check(in, r), "jobs[0].runs[0]", "it_power_kw");

  r = valid;
  r["jobs"][1]["runs"][2]["gpus"] = 16;
  REQUIRE_NAMES(Check(in, r), "jobs[1].runs[2]", "gpus is 16");

  r = valid;
  r["jobs"][1]["runs"][1]["throughput_flops"] = 1e15;
  REQUIRE_NAMES(Check(in, r), "jobs[1].runs[1]", "throughput_flops");

  r = valid;
  r["jobs"][0]["runs"][1]["p"] = 5;  // 5 does not divide 24 layers
  REQUIRE_NAMES(Check(in, r), "jobs[0].runs[1]", "not a feasible mode");

  r = valid;
  r["jobs"][0]["runs"][0]["work_flops"] = 1.0;
  REQUIRE_NAMES(Check(in, r), "jobs[0].runs[0]", "work_flops");

  r = valid;
  r["jobs"][0]["release_slot"] = 1;
  REQUIRE_NAMES(Check(in, r), "jobs[0]", "release_slot is 1");

  r = valid;
  r["jobs"][1]["name"] = "C";
  REQUIRE_NAMES(Check(in, r), "jobs[1]", "name");

  r = valid;
  r["jobs"].erase(1);
  REQUIRE_NAMES(Check(in, r), "jobs", "has 1 jobs");
}

TEST_CASE("slot and battery mutations are named at the slot", "[check]") {
  const Instance in = TinyInstance();
  const double s1 = S1Cost(in);

  SECTION("GPU capacity exceeded") {
    Plan plan = S6Plan();
    plan.runs[3] = {1, 6, 7, 2, 3, kB24};  // 16 + 24 GPUs in slot 6
    const CheckReport report = Check(in, BuildResult(in, plan, s1));
    REQUIRE_NAMES(report, "slots[6]", "more than gpu_capacity 32");
    CHECK(report.violations.size() == 1);
  }
  SECTION("site power cap exceeded") {
    Instance capped = in;
    capped.site.site_power_cap_kw = 60.0;  // B's 24 GPUs draw 50 + 1.25 * 9.6 = 62 kW
    REQUIRE_NAMES(Check(capped, BuildResult(capped, S6Plan(), s1)), "slots[3]",
                  "exceeds site_power_cap_kw");
  }
  SECTION("SoC out of bounds") {
    Plan plan = S6Plan();
    plan.charge[3] = 10.0;  // 20 + 3 * 9.5 = 48.5 kWh > 40
    plan.discharge[9] = 0.95 * 0.95 * 10.0;
    const CheckReport report = Check(in, BuildResult(in, plan, s1));
    REQUIRE_NAMES(report, "slots[5]", "outside [soc_min_kwh");
    CHECK_FALSE(Names(report, "slots[9]", "final soc_kwh"));
  }
  SECTION("final SoC differs from the initial one") {
    Plan plan = S6Plan();
    plan.discharge[8] = 0.0;
    REQUIRE_NAMES(Check(in, BuildResult(in, plan, s1)), "slots[9]", "final soc_kwh");
  }
  SECTION("simultaneous charge and discharge") {
    Plan plan = S6Plan();
    plan.charge[2] = 1.0;
    plan.discharge[2] = 0.95 * 0.95;  // state unchanged, so only this rule breaks
    const CheckReport report = Check(in, BuildResult(in, plan, s1));
    REQUIRE_NAMES(report, "slots[2]", "in the same slot");
    CHECK(report.violations.size() == 1);
  }
  SECTION("charge above the power rating") {
    Plan plan = S6Plan();
    plan.charge[4] = 12.0;
    plan.charge[5] = 8.0;
    REQUIRE_NAMES(Check(in, BuildResult(in, plan, s1)), "slots[4]", "outside [0, power_kw");
  }
  SECTION("battery used in a scenario without one") {
    Plan plan = S6Plan();
    plan.scenario = "S4";
    REQUIRE_NAMES(Check(in, BuildResult(in, plan, s1)), "slots[4]", "does not use the battery");
  }
}

TEST_CASE("slot field mutations are named at the slot", "[check]") {
  const Instance in = TinyInstance();
  const json valid = ValidS6(in);
  const auto bump = [&](int t, const char* key, double by) {
    json r = valid;
    r["slots"][t][key] = r["slots"][t][key].get<double>() + by;
    return Check(in, r);
  };
  REQUIRE_NAMES(bump(3, "grid_kw", 5.0), "slots[3]", "power balance broken");
  REQUIRE_NAMES(bump(4, "soc_kwh", 1.0), "slots[4]", "soc_kwh");
  REQUIRE_NAMES(bump(1, "aidc_kw", 2.0), "slots[1]", "aidc_kw");
  REQUIRE_NAMES(bump(3, "train_it_kw", 1.0), "slots[3]", "train_it_kw");
  REQUIRE_NAMES(bump(0, "gpus", 8), "slots[0]", "gpus is 24");
  REQUIRE_NAMES(bump(2, "price_usd_per_mwh", 1.0), "slots[2]", "price_usd_per_mwh");
  REQUIRE_NAMES(bump(6, "renewable_kw", 1.0), "slots[6]", "renewable_kw");
  REQUIRE_NAMES(bump(6, "curtailment_kw", 1.0), "slots[6]", "renewable_used_kw + curtailment_kw");
  REQUIRE_NAMES(bump(0, "grid_kw", -100.0), "slots[0]", "grid_kw is negative");

  json r = valid;
  r["slots"].erase(9);
  REQUIRE_NAMES(Check(in, r), "slots", "has 9 entries");
}

TEST_CASE("metric, objective and site mutations are named", "[check]") {
  const Instance in = TinyInstance();
  const json valid = ValidS6(in);
  const auto set = [&](const char* a, const char* b, const json& value) {
    json r = valid;
    if (b == nullptr) {
      r[a] = value;
    } else {
      r[a][b] = value;
    }
    return Check(in, r);
  };
  const double cost = valid["metrics"]["cost_usd"].get<double>();
  REQUIRE_NAMES(set("metrics", "cost_usd", cost * 1.01), "metrics.cost_usd", "recomputed");
  REQUIRE_NAMES(set("metrics", "grid_mwh", 0.0), "metrics.grid_mwh", "recomputed");
  REQUIRE_NAMES(set("metrics", "curtailment_mwh", 1.0), "metrics.curtailment_mwh", "recomputed");
  REQUIRE_NAMES(set("metrics", "bess_throughput_mwh", 0.0), "metrics.bess_throughput_mwh",
                "recomputed");
  REQUIRE_NAMES(set("metrics", "re_utilization_pct", 50.0), "metrics.re_utilization_pct",
                "recomputed");
  REQUIRE_NAMES(set("metrics", "green_share_pct", 50.0), "metrics.green_share_pct", "recomputed");
  REQUIRE_NAMES(set("metrics", "peak_power_kw", 1.0), "metrics.peak_power_kw", "recomputed");
  REQUIRE_NAMES(set("metrics", "peak_gpus", 32), "metrics.peak_gpus", "recomputed");
  const double pct = valid["metrics"]["cost_reduction_pct"].get<double>();
  REQUIRE_NAMES(set("metrics", "cost_reduction_pct", pct + 1), "metrics.cost_reduction_pct",
                "cost(S1)");
  REQUIRE_NAMES(set("metrics", "cost_reduction_pct", nullptr), "metrics.cost_reduction_pct",
                "null");
  REQUIRE_NAMES(set("objective_usd", nullptr, cost + 1), "objective_usd", "recomputed");
  REQUIRE_NAMES(set("lower_bound_usd", nullptr, cost + 1), "lower_bound_usd", "above");
  REQUIRE_NAMES(set("gap", nullptr, 0.5), "gap", "expected");
  REQUIRE_NAMES(set("site", "pue", 1.3), "site.pue", "1.25");
  REQUIRE_NAMES(set("site", "battery_enabled", false), "site.battery_enabled", "S6");
  REQUIRE_NAMES(set("instance", nullptr, "other"), "instance", "tiny");
  REQUIRE_NAMES(set("format", nullptr, "v0"), "format", "ckptdp-result-1");

  json r = valid;
  r["site"]["battery"]["soc_max_kwh"] = 50.0;
  REQUIRE_NAMES(Check(in, r), "site.battery.soc_max_kwh", "40");
}

TEST_CASE("S1 cost is recomputed from the instance alone", "[check]") {
  const Instance in = TinyInstance();
  // An independent hand sum: constant loads A 8 GPUs on [0, 8), B 16 GPUs on [2, 10),
  // renewables first, grid the rest, no battery.
  double cost = 0;
  for (int t = 0; t < 10; ++t) {
    const int gpus = (t < 8 ? 8 : 0) + (t >= 2 ? 16 : 0);
    const double aidc = 50.0 + 1.25 * 0.4 * gpus;
    const double ren = in.series.pv_kw[t] + in.series.wind_kw[t];
    cost += (in.series.price_usd_per_mwh[t] * std::max(0.0, aidc - ren) +
             20.83 * std::max(0.0, ren - aidc)) /
            1000.0;
  }
  CHECK(S1Cost(in) == Approx(cost).epsilon(1e-12));
  // A result claiming a cost reduction computed from a different S1 cost is caught.
  const json result = BuildResult(in, S6Plan(), cost * 1.1);
  REQUIRE_NAMES(Check(in, result), "metrics.cost_reduction_pct", "cost(S1)");
}

TEST_CASE("CheckResultFile reads the file", "[check]") {
  const Instance in = TinyInstance();
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "ckptdp_check_test_result.json";
  {
    std::ofstream out(path);
    out << ValidS6(in).dump(2);
  }
  const absl::StatusOr<CheckReport> report = CheckResultFile(in, path);
  std::filesystem::remove(path);
  REQUIRE(report.ok());
  CHECK(report->ok());
  CHECK_FALSE(CheckResultFile(in, path).ok());
}

}  // namespace
}  // namespace ckptdp
