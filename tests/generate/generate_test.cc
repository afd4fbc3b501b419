// The instance generator (include/generate/ckptdp/generate.h, docs/generator.md).
#include "ckptdp/generate.h"

#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ckptdp/graph.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"

namespace ckptdp {
namespace {

namespace fs = std::filesystem;

GenerateOptions Options(int jobs, int hours, int step_minutes = 60, int segments = 12, int gpus = 0,
                        uint64_t seed = 1) {
  GenerateOptions o;
  o.jobs = jobs;
  o.hours = hours;
  o.step_minutes = step_minutes;
  o.segments = segments;
  o.gpus = gpus;
  o.seed = seed;
  return o;
}

Instance GenerateOrDie(const GenerateOptions& o) {
  absl::StatusOr<Instance> instance = GenerateInstance(o);
  INFO(instance.status().ToString());
  REQUIRE(instance.ok());
  return *std::move(instance);
}

std::string GeneratedJson(const GenerateOptions& o) { return InstanceToJson(GenerateOrDie(o)); }

std::string ErrorOf(const GenerateOptions& o) {
  absl::StatusOr<Instance> instance = GenerateInstance(o);
  REQUIRE_FALSE(instance.ok());
  CHECK(instance.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(instance.status().message());
}

std::string ReadText(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Peak over slots of the baselines' GPUs summed over the jobs whose windows hold the slot.
int PeakBaselineGpus(const Instance& instance) {
  std::vector<int> used(instance.time.slots, 0);
  for (const Job& job : instance.jobs) {
    for (int t = job.release_slot; t < job.deadline_slot; ++t) used[t] += job.baseline.Gpus();
  }
  int peak = 0;
  for (int u : used) peak = std::max(peak, u);
  return peak;
}

// Everything a generated instance promises (docs/generator.md, "Guarantees").
void CheckRunnable(const Instance& instance) {
  REQUIRE(ValidateInstance(instance).ok());
  absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(instance);
  INFO(modes.status().ToString());
  REQUIRE(modes.ok());
  const Site& site = instance.site;
  const int peak = PeakBaselineGpus(instance);
  CHECK(peak <= site.gpu_capacity);
  // S1 (every job on its baseline for its whole window) fits under the power cap.
  CHECK(site.base_load_kw + site.pue * site.gpu_train_power_kw * peak <= site.site_power_cap_kw);
  CHECK(site.gpu_capacity % site.gpus_per_node == 0);
  for (size_t j = 0; j < instance.jobs.size(); ++j) {
    const Job& job = instance.jobs[j];
    const JobModes& jm = (*modes)[j];
    INFO(job.name);
    CHECK(jm.kernel_efficiency >= 0.35);
    CHECK(jm.kernel_efficiency <= 0.55);
    CHECK(job.daily_ratio <= 0.8);
    CHECK(jm.workload.iterations_window >= 20);
    const CheckpointGraph full(instance, static_cast<int>(j), jm, GraphOptions{});
    INFO(full.UnreachableReason());
    CHECK(full.Reachable());
    // S2: the baseline alone, without waiting, still fills the window exactly.
    const CheckpointGraph fixed(instance, static_cast<int>(j), jm,
                                GraphOptions{.allow_wait = false, .baseline_only = true});
    INFO(fixed.UnreachableReason());
    CHECK(fixed.Reachable());
    CHECK(fixed.MinimumSlotsToFinish() == job.deadline_slot - job.release_slot);
  }
}

TEST_CASE("generate: the same seed gives the same file", "[generate]") {
  const GenerateOptions o = Options(16, 48);
  const std::string first = GeneratedJson(o);
  CHECK(GeneratedJson(o) == first);
  // And the file reads back to the same instance.
  absl::StatusOr<Instance> parsed = ParseInstance(first, ".");
  REQUIRE(parsed.ok());
  CHECK(InstanceToJson(*parsed) == first);
}

TEST_CASE("generate: different seeds give different files", "[generate]") {
  const std::string a = GeneratedJson(Options(16, 48, 60, 12, 0, 1));
  const std::string b = GeneratedJson(Options(16, 48, 60, 12, 0, 2));
  CHECK(a != b);
}

TEST_CASE("generate: instances are valid and every job can run", "[generate]") {
  const std::vector<GenerateOptions> cases = {
      Options(1, 1),                     // one slot
      Options(2, 24),                    // the paper's grid
      Options(8, 48),                    // two days
      Options(40, 24, 15),               // many jobs: edges capped at 4 segments
      Options(6, 7, 7, 5),               // a step that does not divide an hour
      Options(10, 24, 120),              // slots longer than an hour
      Options(4, 72, 1440, 6),           // day-long slots
      Options(16, 168, 15),              // 672 slots: a week of 15 minutes
      Options(128, 168, 60, 24),         // a week, 128 jobs, K = 24
      Options(128, 168, 60, 24, 16384),  // the shipped instance's options
      Options(5, 24, 60, 1000),          // K far above the slots
  };
  for (const GenerateOptions& o : cases) {
    DYNAMIC_SECTION(absl::StrCat(o.jobs, " jobs, ", o.hours, " h, ", o.step_minutes,
                                 " min, K=", o.segments, ", gpus=", o.gpus)) {
      const Instance instance = GenerateOrDie(o);
      CHECK(static_cast<int>(instance.jobs.size()) == o.jobs);
      CHECK(instance.time.slots * instance.time.step_minutes == o.hours * 60);
      if (o.gpus > 0) CHECK(instance.site.gpu_capacity == o.gpus);
      CheckRunnable(instance);
    }
  }
}

TEST_CASE("generate: seeds agree on validity", "[generate]") {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    DYNAMIC_SECTION("seed " << seed) {
      CheckRunnable(GenerateOrDie(Options(24, 96, 30, 12, 0, seed)));
    }
  }
}

// Hidden (run with "[generate-stress]"): many seeds over the shapes of the cases above.
TEST_CASE("generate: many seeds stay valid", "[.][generate-stress]") {
  const std::vector<GenerateOptions> shapes = {Options(3, 1),
                                               Options(12, 24),
                                               Options(33, 24, 5),
                                               Options(20, 48, 60, 24),
                                               Options(64, 168, 30, 24),
                                               Options(8, 200, 60, 7),
                                               Options(2, 24, 60, 12, 16384),
                                               Options(50, 72, 60, 12, 4096)};
  for (const GenerateOptions& shape : shapes) {
    for (uint64_t seed = 1; seed <= 60; ++seed) {
      GenerateOptions o = shape;
      o.seed = seed;
      INFO(o.jobs << " jobs " << o.hours << " h " << o.step_minutes << " min K=" << o.segments
                  << " gpus=" << o.gpus << " seed " << seed);
      CheckRunnable(GenerateOrDie(o));
    }
  }
}

TEST_CASE("generate: the site follows the jobs and the paper's proportions", "[generate]") {
  const Instance instance = GenerateOrDie(Options(32, 48));
  const Site& site = instance.site;
  const double per_paper_site = site.gpu_capacity / 2048.0;
  CHECK(site.base_load_kw == Approx(375.0 * per_paper_site).epsilon(1e-6));
  CHECK(instance.battery.power_kw == Approx(300.0 * per_paper_site).epsilon(1e-6));
  CHECK(instance.battery.energy_kwh == Approx(800.0 * per_paper_site).epsilon(1e-6));
  CHECK(instance.battery.soc_initial_kwh == Approx(0.5 * instance.battery.energy_kwh));
  // Capacity is 1.6 x the busiest slot's baselines, rounded up to whole nodes.
  const int peak = PeakBaselineGpus(instance);
  CHECK(site.gpu_capacity >= 1.6 * peak);
  CHECK(site.gpu_capacity < 1.6 * peak + 8);
}

TEST_CASE("generate: multi-day horizons have multi-day windows", "[generate]") {
  const Instance instance = GenerateOrDie(Options(128, 168, 60, 24, 16384));
  int multi_day = 0, late_release = 0;
  for (const Job& job : instance.jobs) {
    if (job.deadline_slot - job.release_slot > 24) ++multi_day;
    if (job.release_slot >= 48) ++late_release;
    CHECK(job.max_segments_per_run == 4);
    CHECK((job.deadline_slot - job.release_slot) % 6 == 0);  // K / 4 slots
  }
  CHECK(multi_day > 32);
  CHECK(late_release > 16);
  // Baselines were scaled to use about 1/1.6 of the given capacity at the busiest slot.
  const int peak = PeakBaselineGpus(instance);
  CHECK(peak <= 16384 / 1.6);
  CHECK(peak >= 0.7 * 16384 / 1.6);
}

TEST_CASE("generate: series repeat the paper day with variation", "[generate]") {
  // Same capacity, so the 24-hour series is a prefix of the 48-hour one.
  const Instance day = GenerateOrDie(Options(4, 24, 60, 12, 4096, 7));
  const Instance two_days = GenerateOrDie(Options(4, 48, 60, 12, 4096, 7));
  for (int t = 0; t < 24; ++t) {
    CHECK(day.series.pv_kw[t] == two_days.series.pv_kw[t]);
    CHECK(day.series.wind_kw[t] == two_days.series.wind_kw[t]);
    CHECK(day.series.price_usd_per_mwh[t] == two_days.series.price_usd_per_mwh[t]);
  }
  const double scale = 4096 / 2048.0;
  for (int t = 0; t < 48; ++t) {
    const int h = t % 24;
    CHECK(two_days.series.pv_kw[t] <= 1053.57 * scale * 1.15 * 1.05 + 1e-3);
    CHECK(two_days.series.wind_kw[t] <= 306.84 * scale * 1.4 * 1.15 + 1e-3);
    CHECK(two_days.series.price_usd_per_mwh[t] > 0);
    if (h < 5 || h > 20) CHECK(two_days.series.pv_kw[t] < 0.1 * 1000 * scale);     // night
    if (h >= 10 && h <= 14) CHECK(two_days.series.pv_kw[t] > 0.6 * 1000 * scale);  // noon
  }
  CHECK(two_days.series.pv_kw[12] != two_days.series.pv_kw[36]);  // days differ
  // Sub-hourly slots hold the hour's value.
  const Instance quarter = GenerateOrDie(Options(4, 24, 15, 12, 4096, 7));
  for (int t = 0; t < 96; ++t) CHECK(quarter.series.pv_kw[t] == day.series.pv_kw[t / 4]);
}

TEST_CASE("generate: option errors name the flag", "[generate]") {
  CHECK_THAT(ErrorOf(Options(0, 24)), Catch::StartsWith("--jobs: must be in [1, 100000], got 0"));
  CHECK_THAT(ErrorOf(Options(100001, 24)), Catch::StartsWith("--jobs:"));
  CHECK_THAT(ErrorOf(Options(1, 0)), Catch::StartsWith("--hours: must be in [1, 8784], got 0"));
  CHECK_THAT(ErrorOf(Options(1, 8785)), Catch::StartsWith("--hours:"));
  CHECK_THAT(ErrorOf(Options(1, 24, 0)), Catch::StartsWith("--step-minutes: must be in [1, 1440]"));
  CHECK_THAT(ErrorOf(Options(1, 1, 7)),
             Catch::StartsWith("--step-minutes: must divide the horizon (--hours 1 = 60 minutes)"));
  CHECK_THAT(ErrorOf(Options(1, 8784, 1)), Catch::StartsWith("--step-minutes: the horizon"));
  CHECK_THAT(ErrorOf(Options(1, 24, 60, 0)), Catch::StartsWith("--segments: must be in [1, 1000]"));
  CHECK_THAT(ErrorOf(Options(1, 24, 60, 1001)), Catch::StartsWith("--segments:"));
  CHECK_THAT(ErrorOf(Options(1, 24, 60, 12, 100)), Catch::StartsWith("--gpus: must be 0"));
  CHECK_THAT(ErrorOf(Options(1, 24, 60, 12, -8)), Catch::StartsWith("--gpus:"));
  CHECK_THAT(ErrorOf(Options(128, 24, 60, 12, 64)),
             Catch::StartsWith("--gpus: 64 GPUs are too few for these 128 jobs"));
}

TEST_CASE("generate: the shipped instances are the documented commands' output", "[generate]") {
  const fs::path dir = fs::path(CKPTDP_SOURCE_DIR) / "instances";
  CHECK(ReadText(dir / "gen_8jobs_48h.json") == GeneratedJson(Options(8, 48)));
  CHECK(ReadText(dir / "gen_128jobs_168h.json") == GeneratedJson(Options(128, 168, 60, 24, 16384)));
}

TEST_CASE("generate: the command writes what the library generates", "[generate]") {
  const fs::path out = fs::temp_directory_path() / "ckptdp_generate_test.json";
  const std::string command =
      absl::StrCat("\"", CKPTDP_CLI_PATH, "\" generate --jobs 5 --hours 30 --step-minutes 30 ",
                   "--segments 6 --seed 9 -o \"", out.string(), "\" > /dev/null");
  REQUIRE(std::system(command.c_str()) == 0);
  CHECK(ReadText(out) == GeneratedJson(Options(5, 30, 30, 6, 0, 9)));
  fs::remove(out);
  const std::string bad =
      absl::StrCat("\"", CKPTDP_CLI_PATH, "\" generate --jobs 0 --hours 1 -o \"", out.string(),
                   "\" 2> /dev/null");
  const int status = std::system(bad.c_str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  CHECK_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace ckptdp
