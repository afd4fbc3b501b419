// Instance loading, validation and serialisation (docs/instance-format.md).
#include "ckptdp/instance.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "instance/internal/fields.h"
#include "instance/internal/series_csv.h"

namespace ckptdp {
namespace {

namespace fs = std::filesystem;
namespace ii = instance_internal;

const fs::path kSourceDir(CKPTDP_SOURCE_DIR);
const fs::path kDataDir = kSourceDir / "tests/data/instances";

std::string ReadText(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string MessageOf(const absl::Status& status) { return std::string(status.message()); }

template <class T>
std::string MessageOf(const absl::StatusOr<T>& result) {
  REQUIRE_FALSE(result.ok());
  return MessageOf(result.status());
}

Instance LoadOrDie(const fs::path& file) {
  absl::StatusOr<Instance> instance = LoadInstance(file);
  INFO(instance.status().ToString());
  REQUIRE(instance.ok());
  return *std::move(instance);
}

// Field-by-field equality; each CHECK names the field that differs.
void CheckSameInstance(const Instance& a, const Instance& b) {
#define SAME(field) CHECK(a.field == b.field)
  SAME(name);
  SAME(site.gpu_peak_tflops);
  SAME(site.gpu_memory_gb);
  SAME(site.gpu_train_power_kw);
  SAME(site.gpus_per_node);
  SAME(site.gpu_capacity);
  SAME(site.pue);
  SAME(site.base_load_kw);
  SAME(site.site_power_cap_kw);
  SAME(time.step_minutes);
  SAME(time.slots);
  SAME(series.pv_kw);
  SAME(series.wind_kw);
  SAME(series.price_usd_per_mwh);
  SAME(series.csv_path);
  SAME(costs.curtailment_usd_per_mwh);
  SAME(costs.battery_wear_usd_per_mwh);
  SAME(battery.power_kw);
  SAME(battery.energy_kwh);
  SAME(battery.charge_efficiency);
  SAME(battery.discharge_efficiency);
  SAME(battery.soc_min_kwh);
  SAME(battery.soc_max_kwh);
  SAME(battery.soc_initial_kwh);
  SAME(model.activation_recomputation);
  SAME(model.state_bytes_per_param);
  SAME(model.optimizer_sharding);
  SAME(model.act_bytes_hidden);
  SAME(model.act_bytes_ffn);
  SAME(model.act_bytes_attention);
  SAME(model.act_bytes_output);
  SAME(model.act_bytes_vocab);
  SAME(model.recompute_factor);
  SAME(model.memory_reserved_gb);
  SAME(model.memory_other_fraction);
  SAME(model.micro_batch_size);
  SAME(model.activation_schedule);
  SAME(model.tp_bandwidth_gb_per_s);
  SAME(model.dp_bandwidth_gb_per_s);
  SAME(model.pp_bandwidth_gb_per_s);
  SAME(model.dp_overlap);
  SAME(model.whole_nodes);
  SAME(model.comm_power_kw_per_gpu);
  SAME(model.kernel_efficiency);
  REQUIRE(a.jobs.size() == b.jobs.size());
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    INFO("job " << i);
    SAME(jobs[i].name);
    SAME(jobs[i].params);
    SAME(jobs[i].tokens);
    SAME(jobs[i].batch);
    SAME(jobs[i].seq_len);
    SAME(jobs[i].layers);
    SAME(jobs[i].hidden);
    SAME(jobs[i].ffn_hidden);
    SAME(jobs[i].heads);
    SAME(jobs[i].vocab);
    SAME(jobs[i].daily_ratio);
    SAME(jobs[i].release_slot);
    SAME(jobs[i].deadline_slot);
    SAME(jobs[i].segments);
    SAME(jobs[i].baseline);
    SAME(jobs[i].boundary_idle_allowed);
    SAME(jobs[i].min_run_slots);
    SAME(jobs[i].max_pauses);
    SAME(jobs[i].max_segments_per_run);
  }
#undef SAME
}

// A valid instance in which no field has its default and doubles are awkward to print.
Instance AllFieldsSet() {
  Instance x;
  x.name = "round \"trip\" \xc3\xa9";  // quotes and UTF-8 survive
  x.site = {101.5, 40.25, 0.35, 4, 96, 1.1 + 1e-12, 12.0 / 7.0, 80.3};
  x.time = {15, 5};
  x.series.pv_kw = {0, 0.1 + 0.2, 1.0 / 3.0, 5e-300, 1e9};
  x.series.wind_kw = {7, 6.02214076e3, 0, 2.5, 1e-7};
  x.series.price_usd_per_mwh = {-12.345678901234567, 0, 1e6, -1e6, 33.3};
  x.costs = {1.0 / 7.0, 0};
  x.battery = {12.5, 30, 0.9, 0.875, 3, 29.5, 3};
  ModelCoefficients& m = x.model;
  m.activation_recomputation = false;
  m.state_bytes_per_param = 18;
  m.optimizer_sharding = true;
  m.act_bytes_hidden = 34;
  m.act_bytes_ffn = 0;
  m.act_bytes_attention = 0.5;
  m.act_bytes_output = 2;
  m.act_bytes_vocab = 2.5;
  m.recompute_factor = 1;
  m.memory_reserved_gb = 0;
  m.memory_other_fraction = 0.05;
  m.micro_batch_size = 4;
  m.activation_schedule = ActivationSchedule::kGPipe;
  m.tp_bandwidth_gb_per_s = 300;
  m.dp_bandwidth_gb_per_s = 25;
  m.pp_bandwidth_gb_per_s = 50;
  m.dp_overlap = 0;
  m.whole_nodes = false;
  m.comm_power_kw_per_gpu = 0.05;
  m.kernel_efficiency = 0.4321;
  Job job;
  job.name = "J1";
  job.params = 7.123456789e9;
  job.tokens = 2.5e12;
  job.batch = 96;
  job.seq_len = 4096;
  job.layers = 30;
  job.hidden = 3072;
  job.ffn_hidden = 8192;
  job.heads = 24;
  job.vocab = 50257;
  job.daily_ratio = 1.0 / 3.0;
  job.release_slot = 1;
  job.deadline_slot = 4;
  job.segments = 7;
  job.baseline = {2, 3, 4};
  job.boundary_idle_allowed = true;
  job.min_run_slots = 2;
  job.max_pauses = 3;
  job.max_segments_per_run = 5;
  x.jobs.push_back(job);
  job.name = "J2";
  job.release_slot = 0;
  job.deadline_slot = 5;
  job.max_pauses = 0;
  x.jobs.push_back(job);
  return x;
}

TEST_CASE("LoadInstance reads the small instance with a CSV series", "[instance]") {
  const Instance x = LoadOrDie(kDataDir / "small.json");
  CHECK(x.name == "small_two_jobs");
  CHECK(x.site.gpu_peak_tflops == 312);
  CHECK(x.site.gpu_train_power_kw == 0.4);
  CHECK(x.site.gpus_per_node == 8);
  CHECK(x.site.gpu_capacity == 256);
  CHECK(x.site.pue == 1.25);
  CHECK(x.site.site_power_cap_kw == 200);
  CHECK(x.time.step_minutes == 180);
  CHECK(x.time.slots == 8);
  CHECK(x.time.StepHours() == 3.0);
  REQUIRE(x.series.pv_kw.size() == 8);
  REQUIRE(x.series.wind_kw.size() == 8);
  REQUIRE(x.series.price_usd_per_mwh.size() == 8);
  CHECK(x.series.pv_kw[4] == 149.19);
  CHECK(x.series.wind_kw[0] == 45.39);
  CHECK(x.series.price_usd_per_mwh[7] == 39.02);
  CHECK(x.RenewableKw(4) == 149.19 + 39.27);
  CHECK(fs::path(x.series.csv_path) == (kDataDir / "small_series.csv").lexically_normal());
  CHECK(x.costs.curtailment_usd_per_mwh == 20.83);
  CHECK(x.battery.power_kw == 40);
  CHECK(x.battery.soc_initial_kwh == 50);
  CHECK(x.model.micro_batch_size == 2);
  CHECK(x.model.activation_schedule == ActivationSchedule::kGPipe);
  CHECK(x.model.dp_overlap == 0.25);
  CHECK(x.model.state_bytes_per_param == ModelCoefficients{}.state_bytes_per_param);
  CHECK_FALSE(x.model.kernel_efficiency.has_value());

  REQUIRE(x.jobs.size() == 2);
  const Job& a = x.jobs[0];
  CHECK(a.name == "LLM-7B");
  CHECK(a.params == 6.7e9);
  CHECK(a.tokens == 1.0e12);
  CHECK(a.layers == 32);
  CHECK(a.ffn_hidden == 11008);
  CHECK(a.baseline == ParallelLayout{2, 2, 16});
  CHECK(a.baseline.Gpus() == 64);
  // Optional job fields take their documented defaults.
  CHECK(a.release_slot == 0);
  CHECK_FALSE(a.boundary_idle_allowed);
  CHECK(a.min_run_slots == 1);
  CHECK(a.max_pauses == -1);
  CHECK(a.max_segments_per_run == 0);
  const Job& b = x.jobs[1];
  CHECK(b.release_slot == 2);
  CHECK(b.boundary_idle_allowed);
  CHECK(b.min_run_slots == 2);
  CHECK(b.max_pauses == 1);
  CHECK(b.max_segments_per_run == 3);
  CHECK(ValidateInstance(x).ok());
}

TEST_CASE("Inline series equal the CSV; absent battery and model sections", "[instance]") {
  const Instance csv = LoadOrDie(kDataDir / "small.json");
  const Instance x = LoadOrDie(kDataDir / "small_inline.json");
  CHECK(x.series.pv_kw == csv.series.pv_kw);
  CHECK(x.series.wind_kw == csv.series.wind_kw);
  CHECK(x.series.price_usd_per_mwh == csv.series.price_usd_per_mwh);
  CHECK(x.series.csv_path.empty());
  // No battery section: no storage, unit efficiencies.
  CHECK(x.battery.power_kw == 0);
  CHECK(x.battery.energy_kwh == 0);
  CHECK(x.battery.charge_efficiency == 1);
  CHECK(x.battery.discharge_efficiency == 1);
  CHECK(x.battery.soc_min_kwh == 0);
  CHECK(x.battery.soc_max_kwh == 0);
  CHECK(x.battery.soc_initial_kwh == 0);
  // No model section: the struct defaults.
  Instance expected = x;
  expected.model = ModelCoefficients{};
  CheckSameInstance(x, expected);
  CHECK(ValidateInstance(x).ok());
}

TEST_CASE("The instance name defaults to the file stem, or \"instance\"", "[instance]") {
  std::string text = ReadText(kDataDir / "small_inline.json");
  const std::string named = "\"name\": \"small_two_jobs_inline\",";
  REQUIRE(text.find(named) != std::string::npos);
  text.erase(text.find(named), named.size());

  absl::StatusOr<Instance> parsed = ParseInstance(text, kDataDir);
  REQUIRE(parsed.ok());
  CHECK(parsed->name == "instance");

  const fs::path dir = fs::temp_directory_path() / "ckptdp_instance_test_name";
  fs::create_directories(dir);
  const fs::path file = dir / "my_case.v2.json";
  std::ofstream(file) << text;
  absl::StatusOr<Instance> loaded = LoadInstance(file);
  fs::remove_all(dir);
  REQUIRE(loaded.ok());
  CHECK(loaded->name == "my_case.v2");
}

TEST_CASE("ParseInstance(InstanceToJson(x)) reproduces x field by field", "[instance]") {
  SECTION("the small CSV instance") {
    Instance x = LoadOrDie(kDataDir / "small.json");
    const std::string json = InstanceToJson(x);
    absl::StatusOr<Instance> back = ParseInstance(json, "/nonexistent");  // self-contained
    INFO(back.status().ToString());
    REQUIRE(back.ok());
    x.series.csv_path.clear();  // informational, not written: the series are inline
    CheckSameInstance(x, *back);
  }
  SECTION("an instance with every field away from its default") {
    const Instance x = AllFieldsSet();
    REQUIRE(ValidateInstance(x).ok());
    const std::string json = InstanceToJson(x);
    absl::StatusOr<Instance> back = ParseInstance(json, "");
    INFO(back.status().ToString() << "\n" << json);
    REQUIRE(back.ok());
    CheckSameInstance(x, *back);
    CHECK(InstanceToJson(*back) == json);
  }
  SECTION("kernel_efficiency unset is written as null and read back unset") {
    Instance x = AllFieldsSet();
    x.model.kernel_efficiency.reset();
    const std::string json = InstanceToJson(x);
    CHECK(json.find("\"kernel_efficiency\": null") != std::string::npos);
    absl::StatusOr<Instance> back = ParseInstance(json, "");
    REQUIRE(back.ok());
    CHECK_FALSE(back->model.kernel_efficiency.has_value());
  }
}

TEST_CASE("Integer fields take integral JSON numbers in any spelling", "[instance]") {
  const std::string text = ReadText(kDataDir / "small_inline.json");
  const auto with_layers = [&](const std::string& value) {
    std::string t = text;
    const std::string key = "\"layers\": 32,";
    t.replace(t.find(key), key.size(), "\"layers\": " + value + ",");
    return ParseInstance(t, kDataDir);
  };
  for (const char* spelling : {"32", "32.0", "3.2e1", "320e-1"}) {
    INFO(spelling);
    absl::StatusOr<Instance> x = with_layers(spelling);
    REQUIRE(x.ok());
    CHECK(x->jobs[0].layers == 32);
  }
  CHECK(MessageOf(with_layers("32.5")) ==
        "jobs[0].layers: must be an integer in [1, 100000], got 32.5");
  CHECK(MessageOf(with_layers("true")) ==
        "jobs[0].layers: must be an integer in [1, 100000], got true");
  CHECK(MessageOf(with_layers("[32]")) ==
        "jobs[0].layers: must be an integer in [1, 100000], got [32]");
  CHECK(MessageOf(with_layers("-2147483649")) ==
        "jobs[0].layers: must be an integer in [1, 100000], got -2147483649");
  CHECK(MessageOf(with_layers("18446744073709551615")) ==
        "jobs[0].layers: must be an integer in [1, 100000], got 18446744073709551615");
  // Out of range but a valid int: the validator's message is the parser's message.
  CHECK(MessageOf(with_layers("0")) == "jobs[0].layers: must be an integer in [1, 100000], got 0");
}

TEST_CASE("Negative prices and zero renewables are valid", "[instance]") {
  Instance x = LoadOrDie(kDataDir / "small_inline.json");
  x.series.price_usd_per_mwh[3] = -25.5;
  x.series.pv_kw.assign(x.time.slots, 0.0);
  x.series.wind_kw.assign(x.time.slots, 0.0);
  CHECK(ValidateInstance(x).ok());
  absl::StatusOr<Instance> back = ParseInstance(InstanceToJson(x), "");
  REQUIRE(back.ok());
  CHECK(back->series.price_usd_per_mwh[3] == -25.5);
}

TEST_CASE("ValidateInstance checks instances built in code", "[instance]") {
  const Instance valid = LoadOrDie(kDataDir / "small.json");
  REQUIRE(ValidateInstance(valid).ok());
  const double kNan = std::numeric_limits<double>::quiet_NaN();
  const double kInf = std::numeric_limits<double>::infinity();
  struct Case {
    std::function<void(Instance&)> mutate;
    std::string message;  // the whole message
  };
  const std::vector<Case> cases = {
      {[](Instance& x) { x.name = "tab\there"; },
       "name: must not contain control characters, got 0x09"},
      {[](Instance& x) { x.site.pue = 0.9; }, "site.pue: must be a number in [1, 10], got 0.9"},
      {[&](Instance& x) { x.site.gpu_peak_tflops = kNan; },
       "site.gpu_peak_tflops: must be a number in (0, 1000000], got nan"},
      {[&](Instance& x) { x.site.base_load_kw = kInf; },
       "site.base_load_kw: must be a number in [0, 1000000000], got inf"},
      {[](Instance& x) { x.site.site_power_cap_kw = 50; },
       "site.site_power_cap_kw: must be > site.base_load_kw (50), got 50"},
      {[](Instance& x) { x.time.slots = 0; },
       "time.slots: must be an integer in [1, 100000], got 0"},
      {[](Instance& x) { x.time.slots = 9; },
       "series.pv_kw: must have 9 values (time.slots), got 8"},
      {[&](Instance& x) { x.series.wind_kw[1] = -kInf; },
       "series.csv: " + valid.series.csv_path +
           " slot 1: wind_kw: must be a number in [0, 1000000000], got -inf"},
      {[&](Instance& x) {
         x.series.csv_path.clear();
         x.series.price_usd_per_mwh[6] = kNan;
       },
       "series.price_usd_per_mwh[6]: must be a number in [-1000000, 1000000], got nan"},
      {[](Instance& x) { x.costs.battery_wear_usd_per_mwh = -1; },
       "costs.battery_wear_usd_per_mwh: must be a number in [0, 1000000], got -1"},
      {[](Instance& x) { x.battery.charge_efficiency = 1.5; },
       "battery.charge_efficiency: must be a number in (0, 1], got 1.5"},
      {[](Instance& x) { x.battery.soc_initial_kwh = 5; },
       "battery.soc_initial_kwh: must be in [soc_min_kwh, soc_max_kwh] = [10, 100], got 5"},
      {[](Instance& x) { x.model.kernel_efficiency = 1.5; },
       "model.kernel_efficiency: must be a number in (0, 1] or null, got 1.5"},
      {[](Instance& x) { x.model.activation_schedule = static_cast<ActivationSchedule>(7); },
       "model.activation_schedule: must be \"1f1b\" or \"gpipe\", got enum value 7"},
      {[](Instance& x) { x.model.micro_batch_size = 0; },
       "model.micro_batch_size: must be an integer in [1, 1000000], got 0"},
      {[](Instance& x) { x.jobs.clear(); }, "jobs: must contain 1 to 100000 jobs, got 0"},
      {[](Instance& x) { x.jobs[1].name = ""; }, "jobs[1].name: must not be empty"},
      {[](Instance& x) { x.jobs[1].name = x.jobs[0].name; },
       "jobs[1].name: duplicate job name \"LLM-7B\" (also jobs[0])"},
      {[](Instance& x) { x.jobs[0].tokens = 0; },
       "jobs[0].tokens: must be a number in (0, 1e+17], got 0"},
      {[](Instance& x) { x.jobs[0].deadline_slot = 9; },
       "jobs[0].deadline_slot: must be <= time.slots (8), got 9"},
      {[](Instance& x) { x.jobs[1].release_slot = 8; },
       "jobs[1].release_slot: must be < deadline_slot (8), got 8"},
      {[](Instance& x) { x.jobs[1].max_segments_per_run = 7; },
       "jobs[1].max_segments_per_run: must be <= segments (6), got 7"},
      {[](Instance& x) {
         x.jobs[0].baseline = {100000, 100000, 100000};
       },
       "jobs[0].baseline: p*q*d must be at most 10000000, got 1000000000000000"},
      {[](Instance& x) { x.jobs[0].baseline.q = -4; },
       "jobs[0].baseline.q: must be an integer in [1, 10000000], got -4"},
  };
  for (const Case& c : cases) {
    Instance x = valid;
    c.mutate(x);
    const absl::Status status = ValidateInstance(x);
    CHECK(status.code() == absl::StatusCode::kInvalidArgument);
    CHECK(MessageOf(status) == c.message);
  }
}

TEST_CASE("JSON syntax errors, numbers beyond double range and duplicate keys", "[instance]") {
  CHECK(MessageOf(ParseInstance("{\n  \"site\": {\n    \"pue\": 1.25,,\n", "")) ==
        "(root): malformed JSON at line 3, column 17: syntax error while parsing object key - "
        "unexpected ','; expected string literal");
  CHECK(MessageOf(ParseInstance("{\"jobs\": [{}, {\"segments\": 12, \"segments\": 13}]}", "")) ==
        "jobs[1].segments: duplicate key (each key may appear once per object)");
  CHECK(MessageOf(ParseInstance("{\"series\": {\"pv_kw\": [1, 2,\n 1e999]}}", "")) ==
        "series.pv_kw[2]: number 1e999 is out of range at line 2, column 2 (must be a finite "
        "double)");
  CHECK(
      MessageOf(ParseInstance("[[], [0, [-1e400]]]", "")).starts_with("[1][1][0]: number -1e400"));
  CHECK(MessageOf(ParseInstance("1e999", "")).starts_with("(root): number 1e999 is out of range"));
  // Integers too large for 64 bits become doubles, which is fine until they overflow those.
  CHECK(MessageOf(ParseInstance("{\"site\": 123456789012345678901234567890}", "")) ==
        "site: must be an object, got 1.2345678901234568e+29");
}

TEST_CASE("Messages quote user text on one line and as valid UTF-8", "[instance]") {
  CHECK(MessageOf(ParseInstance("{\"a\\nb\": 1}", "")).starts_with("a\\x0ab: unknown key;"));
  CHECK(MessageOf(ParseInstance("{\"x\": {\"k\\t\": 1, \"k\\t\": 2}}", "")) ==
        "x.k\\x09: duplicate key (each key may appear once per object)");
  CHECK(MessageOf(ii::ParseSeriesCsv("slot,pv_kw,wind_kw,price_usd_per_mwh\n0,\xff\xc3\xa9,0,0",
                                     "x.csv", 1)) ==
        "x.csv line 2: pv_kw: not a number: \"\\xff\xc3\xa9\"");
  const std::string long_key(100, 'k');
  CHECK(MessageOf(ParseInstance("{\"" + long_key + "\": 1}", "")) ==
        std::string(60, 'k') +
            "...: unknown key; expected one of: name, site, time, series, "
            "costs, battery, model, jobs");
}

TEST_CASE("Deeply nested and long values are reported, not recursed into", "[instance]") {
  const int depth = 1'000'000;  // nlohmann parses and destroys without recursion
  const std::string nested = std::string(depth, '[') + std::string(depth, ']');
  CHECK(MessageOf(ParseInstance(nested, "")) == "(root): must be an object, got [[[[...]]]]");
  std::string wide = "{\"site\": [";
  for (int i = 0; i < 1000; ++i) wide += (i ? ",\"" : "\"") + std::to_string(i) + "\"";
  CHECK(MessageOf(ParseInstance(wide + "]}", "")) ==
        "site: must be an object, got "
        "[\"0\",\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\",\"10\",\"11\","
        "\"12\",\"13\"...");
}

TEST_CASE("LoadInstance reports unreadable files", "[instance]") {
  const absl::StatusOr<Instance> missing = LoadInstance(kDataDir / "no_such_file.json");
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK(MessageOf(missing).find("no_such_file.json") != std::string::npos);
  const absl::StatusOr<Instance> directory = LoadInstance(kDataDir);
  CHECK(directory.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(MessageOf(directory).find("not a regular file") != std::string::npos);
}

TEST_CASE("Series CSV: accepted variations", "[instance]") {
  const std::string text =
      "\xEF\xBB\xBF# exported by a spreadsheet\r\n"
      "#\r\n"
      "\r\n"
      "  slot , pv_kw,wind_kw ,price_usd_per_mwh  \r\n"
      "0,0,1.5e2,-12.5\r\n"
      " 1 , 3.25 ,0, 1E3\r\n"
      "\r\n"
      "\n";
  absl::StatusOr<Series> series = ii::ParseSeriesCsv(text, "x.csv", 2);
  INFO(series.status().ToString());
  REQUIRE(series.ok());
  CHECK(series->pv_kw == std::vector<double>{0, 3.25});
  CHECK(series->wind_kw == std::vector<double>{150, 0});
  CHECK(series->price_usd_per_mwh == std::vector<double>{-12.5, 1000});
  CHECK(series->csv_path.empty());
  // No trailing newline at all.
  CHECK(ii::ParseSeriesCsv("slot,pv_kw,wind_kw,price_usd_per_mwh\n0,1,2,3", "x.csv", 1).ok());
}

TEST_CASE("Series CSV: rejected input", "[instance]") {
  const std::string header = "slot,pv_kw,wind_kw,price_usd_per_mwh\n";
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", "x.csv: no header line; expected \"slot,pv_kw,wind_kw,price_usd_per_mwh\""},
      {"slot,pv_kw,wind_kw\n",
       "x.csv line 1: expected header \"slot,pv_kw,wind_kw,price_usd_per_mwh\", got "
       "\"slot,pv_kw,wind_kw\""},
      {"0,1,2,3\n",
       "x.csv line 1: expected header \"slot,pv_kw,wind_kw,price_usd_per_mwh\", "
       "got \"0,1,2,3\""},
      {header + "0,1,2,3\n", "x.csv: has 1 data rows, time.slots is 2"},
      {header + "0,1,2,3\n1,1,2,3\n2,1,2,3\n", "x.csv line 4: more data rows than time.slots (2)"},
      {header + "1,1,2,3\n0,1,2,3\n",
       "x.csv line 2: slot: expected 0, got 1 (slots count 0, 1, 2, ... in order)"},
      {header + "0,1,2,3\n0,1,2,3\n",
       "x.csv line 3: slot: expected 1, got 0 (slots count 0, 1, 2, ... in order)"},
      {header + "0,1,2\n1,1,2,3\n",
       "x.csv line 2: expected 4 comma-separated fields "
       "(slot,pv_kw,wind_kw,price_usd_per_mwh), got 3"},
      {header + "0,1,2,3,4\n1,1,2,3\n",
       "x.csv line 2: expected 4 comma-separated fields "
       "(slot,pv_kw,wind_kw,price_usd_per_mwh), got 5"},
      {header + "0,1,,3\n1,1,2,3\n", "x.csv line 2: wind_kw: not a number: \"\""},
      {header + "0,+1,2,3\n1,1,2,3\n", "x.csv line 2: pv_kw: not a number: \"+1\""},
      {header + "0,1,2,3$\n1,1,2,3\n", "x.csv line 2: price_usd_per_mwh: not a number: \"3$\""},
      {header + "0,1,2,\"3\"\n1,1,2,3\n",
       "x.csv line 2: price_usd_per_mwh: not a number: \"\"3\"\""},
      {header + "0,1,2,3\n1,1,2,inf\n",
       "x.csv line 3: price_usd_per_mwh: not a finite number: "
       "\"inf\""},
      {header + "0,1,2,3\n1,1,2,1e400\n",
       "x.csv line 3: price_usd_per_mwh: out of range: "
       "\"1e400\""},
      {header + "0x0,1,2,3\n1,1,2,3\n", "x.csv line 2: slot: not an integer: \"0x0\""},
      {header + "0,1,2,3\n# late comment\n1,1,2,3\n",
       "x.csv line 3: expected 4 comma-separated fields "
       "(slot,pv_kw,wind_kw,price_usd_per_mwh), got 1"},
      {header + "0,1,2,3\n\n1,1,2,3\n",
       "x.csv line 4: data after the blank line 3; blank lines are allowed only at the end"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(MessageOf(ii::ParseSeriesCsv(c.text, "x.csv", 2)) == c.message);
  }
}

// docs/instance-format.md must give every field with the range the code enforces: each
// field has a table row "| `key` | ..." containing the range as the messages print it.
template <class S, std::size_t N>
void CheckDocumented(const std::string& doc, const ii::Field<S> (&table)[N]) {
  for (const ii::Field<S>& field : table) {
    const std::string row_start = "| `" + std::string(field.key) + "` |";
    INFO(row_start);
    const std::size_t row = doc.find(row_start);
    REQUIRE(row != std::string::npos);
    const std::string line = doc.substr(row, doc.find('\n', row) - row);
    INFO(line);
    if (std::holds_alternative<bool S::*>(field.member)) {
      CHECK(line.find("true/false") != std::string::npos);
    } else {
      CHECK(line.find(ii::FormatBounds(field.bounds)) != std::string::npos);
      const bool is_int = std::holds_alternative<int S::*>(field.member);
      CHECK(line.find(is_int ? "| integer |" : "| number |") != std::string::npos);
    }
    CHECK(line.find(field.required ? "required" : "default") != std::string::npos);
  }
}

TEST_CASE("docs/instance-format.md documents every field and its example parses", "[instance]") {
  const std::string doc = ReadText(kSourceDir / "docs/instance-format.md");
  CheckDocumented(doc, ii::kSiteFields);
  CheckDocumented(doc, ii::kTimeFields);
  CheckDocumented(doc, ii::kCostsFields);
  CheckDocumented(doc, ii::kBatteryFields);
  CheckDocumented(doc, ii::kModelFields);
  CheckDocumented(doc, ii::kJobFields);
  CheckDocumented(doc, ii::kLayoutFields);

  const std::string open = "```json\n";
  const std::size_t begin = doc.find(open);
  REQUIRE(begin != std::string::npos);
  const std::size_t end = doc.find("```", begin + open.size());
  const std::string example = doc.substr(begin + open.size(), end - begin - open.size());
  absl::StatusOr<Instance> x = ParseInstance(example, "");
  INFO(x.status().ToString());
  REQUIRE(x.ok());
  CHECK(x->name == "doc_example");
}

}  // namespace
}  // namespace ckptdp
