// End-to-end tests of the `ckptdp` executable: exit codes, error messages on stderr and the
// no-partial-output guarantee (docs/cli.md). Each test runs the real binary
// (CKPTDP_CLI_PATH) through the shell with stdout and stderr captured to files.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "support/paths.h"

namespace ckptdp {
namespace {

namespace fs = std::filesystem;

// Exit codes of docs/cli.md (mirrors src/cli/commands.h, which tests do not include).
constexpr int kSolved = 0;
constexpr int kInfeasible = 1;
constexpr int kBadInput = 2;
// A sanitizer report in the child must not pass for "infeasible" (1, their default).
constexpr int kSanitizerExit = 86;

const fs::path kSource = CKPTDP_SOURCE_DIR;
const fs::path kBadDir = kSource / "tests/data/bad";
const fs::path kBadModesDir = kSource / "tests/data/bad_modes";
const fs::path kPaper = kSource / "instances/paper_2048gpu.json";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            ("ckptdp_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

std::string Quote(const std::string& arg) {
  std::string quoted = "'";
  for (char c : arg) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

struct Outcome {
  int exit_code = -1;  // -1: killed by a signal
  std::string out;
  std::string err;
};

// Runs `ckptdp args...`; the captured streams live in their own directory, so tests can
// require an output directory to stay empty.
Outcome RunCli(const std::vector<std::string>& args) {
  TempDir capture;
  std::string command =
      "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=" + std::to_string(kSanitizerExit) +
      "\" UBSAN_OPTIONS=\"${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=" +
      std::to_string(kSanitizerExit) + "\" " + Quote(CKPTDP_CLI_PATH);
  for (const std::string& arg : args) command += " " + Quote(arg);
  command += " >" + Quote((capture / "stdout").string()) + " 2>" +
             Quote((capture / "stderr").string()) + " </dev/null";
  const int status = std::system(command.c_str());
  Outcome outcome;
  if (status != -1 && WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  outcome.out = ReadFile(capture / "stdout");
  outcome.err = ReadFile(capture / "stderr");
  return outcome;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Every entry of a directory, so that a leftover "out.json.tmp.<pid>" shows up too.
std::vector<std::string> Entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

nlohmann::json ReadManifest(const fs::path& dir) {
  std::ifstream in(dir / "expected.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

// The paper instance as a self-contained file in `dir` with a changed GPU capacity (and
// site power cap): the series CSV path is made absolute so that the copy loads from anywhere.
fs::path PaperCopy(const TempDir& dir, int gpu_capacity,
                   std::optional<double> site_power_cap_kw = std::nullopt) {
  nlohmann::json paper = nlohmann::json::parse(ReadFile(kPaper));
  paper["series"]["csv"] =
      (kSource / "instances" / paper["series"]["csv"].get<std::string>()).string();
  paper["site"]["gpu_capacity"] = gpu_capacity;
  if (site_power_cap_kw) paper["site"]["site_power_cap_kw"] = *site_power_cap_kw;
  const fs::path path = dir / "paper_copy.json";
  WriteFile(path, paper.dump(2));
  return path;
}

// `solve` on a file that must be rejected: exit 2, the expected message on stderr, nothing
// on stdout and no file (final or temporary) in the output directory.
void ExpectSolveRejects(const fs::path& file, const std::string& expected) {
  INFO("file: " << file.string());
  TempDir out;
  const Outcome r = RunCli({"solve", file.string(), "--out", (out / "OUT.json").string(), "--csv",
                            (out / "OUT.csv").string()});
  INFO("solve stderr: " << r.err);
  CHECK(r.exit_code == kBadInput);
  CHECK(Contains(r.err, expected));
  CHECK(r.out.empty());
  CHECK(Entries(out.path()).empty());
}

void ExpectModesRejects(const fs::path& file, const std::string& expected) {
  INFO("file: " << file.string());
  const Outcome r = RunCli({"modes", file.string()});
  INFO("modes stderr: " << r.err);
  CHECK(r.exit_code == kBadInput);
  CHECK(Contains(r.err, expected));
  CHECK(r.out.empty());
}

// Two test cases, not one, so that CTest runs them in parallel: each starts the binary
// about a hundred times, which takes a while under the sanitizers.
TEST_CASE("solve rejects every bad instance with exit 2 and no output", "[cli]") {
  const nlohmann::json manifest = ReadManifest(kBadDir);
  REQUIRE(manifest.size() >= 80);
  for (const auto& [file, expected] : manifest.items()) {
    ExpectSolveRejects(kBadDir / file, expected.get<std::string>());
  }
}

TEST_CASE("modes rejects every bad instance with exit 2", "[cli]") {
  const nlohmann::json manifest = ReadManifest(kBadDir);
  REQUIRE(manifest.size() >= 80);
  for (const auto& [file, expected] : manifest.items()) {
    ExpectModesRejects(kBadDir / file, expected.get<std::string>());
  }
}

// Baselines that load but cannot run (divisibility, memory, capacity, eta_0 > 1) are
// rejected by BuildAllModes, after LoadInstance: tests/data/bad_modes has its own manifest.
TEST_CASE("Baselines that break a mode rule load but fail to build modes", "[cli]") {
  const nlohmann::json manifest = ReadManifest(kBadModesDir);
  REQUIRE(manifest.size() >= 3);
  std::set<std::string> listed, on_disk;
  for (const auto& [file, expected] : manifest.items()) {
    INFO("file: " << file);
    listed.insert(file);
    const absl::StatusOr<Instance> instance = LoadInstance(kBadModesDir / file);
    REQUIRE(instance.ok());
    const absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(*instance);
    REQUIRE_FALSE(modes.ok());
    CHECK(modes.status().code() == absl::StatusCode::kInvalidArgument);
    INFO("message: " << modes.status().message());
    CHECK(Contains(std::string(modes.status().message()), expected.get<std::string>()));
    ExpectSolveRejects(kBadModesDir / file, expected.get<std::string>());
    ExpectModesRejects(kBadModesDir / file, expected.get<std::string>());
  }
  for (const auto& entry : fs::directory_iterator(kBadModesDir)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".json" && name != "expected.json") on_disk.insert(name);
  }
  CHECK(on_disk == listed);
}

TEST_CASE("A rejected input leaves an existing output file as it was", "[cli]") {
  TempDir dir;
  const fs::path out = dir / "result.json", csv = dir / "slots.csv";
  WriteFile(out, "previous result\n");
  WriteFile(csv, "previous slots\n");
  for (const char* bad : {"bad/malformed_syntax.json", "bad_modes/baseline_memory.json"}) {
    INFO("file: " << bad);
    const Outcome r = RunCli({"solve", (kSource / "tests/data" / bad).string(), "--out",
                              out.string(), "--csv", csv.string()});
    CHECK(r.exit_code == kBadInput);
    CHECK(ReadFile(out) == "previous result\n");
    CHECK(ReadFile(csv) == "previous slots\n");
    CHECK(Entries(dir.path()).size() == 2);
  }
}

TEST_CASE("Usage errors exit 2 with a message", "[cli]") {
  const std::string paper = kPaper.string();
  const std::vector<std::vector<std::string>> cases = {
      {},                                                     // no subcommand
      {"frobnicate"},                                         // unknown subcommand
      {"--version"},                                          // unknown option, no subcommand
      {"solve", paper, "--bogus"},                            // unknown flag
      {"solve"},                                              // missing instance
      {"solve", paper, "--out"},                              // flag without its argument
      {"solve", paper, "--scenario", "S7"},                   // no such scenario
      {"solve", paper, "--scenario", ""},                     // empty scenario
      {"solve", paper, "--gap", "-1"},                        // outside the option's range
      {"solve", paper, "--gap", "abc"},                       // not a number
      {"solve", paper, "--time-limit", "-5"},                 // negative time limit
      {"solve", paper, "--threads", "1e9"},                   // above the range
      {"scenarios", paper, "--max-iterations", "0"},          // below the range
      {"modes"},                                              // missing instance
      {"check", paper},                                       // missing result
      {"solve", (kSource / "does_not_exist.json").string()},  // no such file
  };
  for (const std::vector<std::string>& args : cases) {
    std::string joined;
    for (const std::string& a : args) joined += " " + a;
    INFO("ckptdp" << joined);
    const Outcome r = RunCli(args);
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == kBadInput);
    CHECK_FALSE(r.err.empty());
    // Usage errors read like every other error.
    CHECK(r.err.rfind("ckptdp: ", 0) == 0);
  }
}

TEST_CASE("Integer options refuse a fraction and name the option", "[cli]") {
  const std::string paper = kPaper.string();
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--threads", "2.5"}, {"--max-nodes", "1.5"}, {"--max-iterations", "10.25"}}) {
    const Outcome r = RunCli({"solve", paper, "--scenario", "S1", flag, value});
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == kBadInput);
    CHECK(Contains(r.err, "ckptdp: " + flag + ": " + value + " is not an integer"));
    CHECK(r.out.empty());
  }
  // A whole number written with a decimal point or an exponent is still a whole number.
  for (const char* value : {"2", "2.0", "1e0"}) {
    const Outcome r = RunCli({"solve", paper, "--scenario", "S1", "--quiet", "--threads", value});
    INFO("--threads " << value << ": " << r.err);
    CHECK(r.exit_code == kSolved);
  }
}

TEST_CASE("solve --dual-method takes one of its names and refuses others naming them", "[cli]") {
  const std::string paper = kPaper.string();
  for (const char* value : {"bundle", "2", "Bundle"}) {
    const Outcome r = RunCli({"solve", paper, "--scenario", "S4", "--dual-method", value});
    INFO("--dual-method '" << value << "': " << r.err);
    CHECK(r.exit_code == (std::string(value) == "bundle" ? kSolved : kBadInput));
    if (std::string(value) != "bundle") {
      CHECK(Contains(r.err, "ckptdp: --dual-method: \"" + std::string(value) +
                                "\" is not one of subgradient, volume, bundle"));
      CHECK(r.out.empty());
    }
  }
  // Help names the values and the default.
  const Outcome help = RunCli({"solve", "--help"});
  CHECK(Contains(help.out, "--dual-method subgradient|volume|bundle"));
  CHECK(Contains(help.out, "(default volume, one of subgradient, volume, bundle)"));
}

TEST_CASE("A gap of 1% is refused as not a number, with the gap as a fraction", "[cli]") {
  const Outcome r = RunCli({"solve", kPaper.string(), "--gap", "1%"});
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == kBadInput);
  CHECK(Contains(r.err, "ckptdp: --gap: \"1%\" is not a number"));
  CHECK(Contains(r.err, "a fraction, e.g. 0.01"));
  CHECK_FALSE(Contains(r.err, "not in range"));
}

TEST_CASE("An unknown subcommand is named and the subcommands are listed", "[cli]") {
  const Outcome r = RunCli({"bogus", kPaper.string()});
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == kBadInput);
  CHECK(Contains(r.err, "ckptdp: unknown subcommand \"bogus\""));
  for (const char* sub : {"modes", "solve", "scenarios", "check", "generate", "sweep", "export",
                          "milp-result", "rolling"}) {
    CHECK(Contains(r.err, sub));
  }
}

// CBC solves the model with the schedule of an S4 solve fixed (a few hundredths of a
// second), and milp-result reads the solution back.
TEST_CASE("milp-result without --scenario hints at the scenario the solution fits", "[cli]") {
  const fs::path small = kSource / "tests/data/instances/small.json";
  TempDir dir;
  const fs::path s4 = dir / "s4.json", model = dir / "s4.lp", solution = dir / "s4.sol";
  REQUIRE(RunCli({"solve", small.string(), "--scenario", "S4", "--quiet", "--out", s4.string()})
              .exit_code == kSolved);
  REQUIRE(RunCli({"export", small.string(), "--scenario", "S4", "--fix", s4.string(), "--quiet",
                  "-o", model.string()})
              .exit_code == kSolved);
  const std::string cbc = "cbc " + Quote(model.string()) + " -solve -solu " +
                          Quote(solution.string()) + " >/dev/null 2>&1";
  REQUIRE(std::system(cbc.c_str()) == 0);

  // Read as S6 (the default), the battery's state of charge breaks its limits.
  const Outcome wrong = RunCli({"milp-result", small.string(), "--solution", solution.string()});
  INFO("stdout: " << wrong.out << "\nstderr: " << wrong.err);
  CHECK(wrong.exit_code == kInfeasible);
  CHECK(Contains(wrong.out, "soc_kwh"));
  CHECK(Contains(wrong.out, "the solution may be from another scenario; pass --scenario S4"));

  const Outcome right =
      RunCli({"milp-result", small.string(), "--scenario", "S4", "--solution", solution.string()});
  INFO("stdout: " << right.out << "\nstderr: " << right.err);
  CHECK(right.exit_code == kSolved);
  CHECK_FALSE(Contains(right.out, "hint"));

  // Given explicitly, a wrong scenario is the user's choice: no hint.
  const Outcome explicit_wrong =
      RunCli({"milp-result", small.string(), "--scenario", "S6", "--solution", solution.string()});
  CHECK(explicit_wrong.exit_code == kInfeasible);
  CHECK_FALSE(Contains(explicit_wrong.out, "hint"));
}

TEST_CASE("solve with --scenario S7 names the value in its message", "[cli]") {
  const Outcome r = RunCli({"solve", kPaper.string(), "--scenario", "S7"});
  CHECK(r.exit_code == kBadInput);
  CHECK(Contains(r.err, "S7"));
}

TEST_CASE("help for all subcommands exits 0", "[cli]") {
  const Outcome r = RunCli({"--help-all"});
  CHECK(r.exit_code == kSolved);
  for (const char* sub : {"solve", "modes", "scenarios", "check", "generate"}) {
    CHECK(Contains(r.out, sub));
  }
}

TEST_CASE("solve writes a result JSON and a CSV that check accepts", "[cli]") {
  TempDir dir;
  const fs::path out = dir / "result.json", csv = dir / "slots.csv";
  const Outcome r = RunCli(
      {"solve", kPaper.string(), "--scenario", "S1", "--out", out.string(), "--csv", csv.string()});
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == kSolved);
  CHECK_FALSE(r.out.empty());  // the human summary
  REQUIRE(fs::exists(out));
  REQUIRE(fs::exists(csv));
  std::set<std::string> entries;
  for (const std::string& name : Entries(dir.path())) entries.insert(name);
  CHECK(entries == std::set<std::string>{"result.json", "slots.csv"});  // no temp files
  nlohmann::json result;
  REQUIRE_NOTHROW(result = nlohmann::json::parse(ReadFile(out)));
  CHECK(result["scenario"] == "S1");
  CHECK(result["status"] == "optimal");
  CHECK(result["objective_usd"].is_number());

  SECTION("check accepts the solve's own output") {
    const Outcome c = RunCli({"check", kPaper.string(), out.string()});
    INFO("stdout: " << c.out << "\nstderr: " << c.err);
    CHECK(c.exit_code == kSolved);
  }
  SECTION("check rejects a hand-corrupted copy with exit 1 and names the violation") {
    nlohmann::json corrupt = result;
    // Doubles the reported cost: the checker recomputes it from the slots.
    corrupt["metrics"]["cost_usd"] = 2.0 * corrupt["metrics"]["cost_usd"].get<double>();
    const fs::path bad = dir / "corrupt.json";
    WriteFile(bad, corrupt.dump(2));
    const Outcome c = RunCli({"check", kPaper.string(), bad.string()});
    INFO("stdout: " << c.out << "\nstderr: " << c.err);
    CHECK(c.exit_code == kInfeasible);
    CHECK(Contains(c.out, "metrics.cost_usd"));
  }
  SECTION("check rejects a schedule that uses more GPUs than the site has") {
    nlohmann::json corrupt = result;
    corrupt["site"]["gpu_capacity"] = 1024;
    const fs::path bad = dir / "corrupt.json";
    WriteFile(bad, corrupt.dump(2));
    const Outcome c = RunCli({"check", kPaper.string(), bad.string()});
    INFO("stdout: " << c.out << "\nstderr: " << c.err);
    CHECK(c.exit_code == kInfeasible);
  }
  SECTION("check on a result that is not JSON is bad input") {
    const fs::path bad = dir / "truncated.json";
    const std::string text = ReadFile(out);
    WriteFile(bad, text.substr(0, text.size() / 2));
    const Outcome c = RunCli({"check", kPaper.string(), bad.string()});
    INFO("stdout: " << c.out << "\nstderr: " << c.err);
    CHECK(c.exit_code == kBadInput);
  }
}

TEST_CASE("An infeasible instance exits 1 with a diagnosis on stdout", "[cli]") {
  TempDir dir;
  // 768 GPUs hold either baseline (512 and 768 GPUs) but not both at once (Fig. 12(b)).
  const fs::path instance = PaperCopy(dir, 768);
  // S1: the fixed baseline breaks the capacity; S6: the capacity proof (issue 13).
  for (const char* scenario : {"S1", "S6"}) {
    INFO("scenario " << scenario);
    const fs::path out = dir / (std::string(scenario) + ".json");
    const Outcome r = RunCli({"solve", instance.string(), "--scenario", scenario, "--time-limit",
                              "20", "--out", out.string()});
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code == kInfeasible);
    CHECK(Contains(r.out, "diagnosis"));
    // The capacity search is time-boxed (a quarter of the limit), so on a slow machine it
    // may stop above the exact 1280 GPUs; the line is there either way.
    CHECK(Contains(r.out, "GPU capacity: with "));
    CHECK(Contains(r.out, " GPUs a feasible schedule exists"));
    // The result file still records the outcome, and it passes the checker.
    REQUIRE(fs::exists(out));
    const nlohmann::json result = nlohmann::json::parse(ReadFile(out));
    CHECK(result["objective_usd"].is_null());
    CHECK(result["jobs"].size() == 2);
    CHECK(result["status"] == "infeasible");
    if (std::string(scenario) == "S6") {  // the capacity proof names the jobs (issue 13)
      CHECK(Contains(result["diagnosis"].get<std::string>(),
                     "LLM-B-33B cannot finish its 12 segments by slot 24 beside LLM-A-13B"));
    }
    const Outcome c = RunCli({"check", instance.string(), out.string()});
    INFO("check stdout: " << c.out << "\ncheck stderr: " << c.err);
    CHECK(c.exit_code == kSolved);
  }
}

// The diagnosis of a solve that found no schedule, from its result JSON.
std::string Diagnosis(const fs::path& instance, const char* scenario, const TempDir& dir) {
  const fs::path out = dir / "diagnosed.json";
  const Outcome r = RunCli({"solve", instance.string(), "--scenario", scenario, "--time-limit",
                            "60", "--quiet", "--out", out.string()});
  INFO("stderr: " << r.err);
  REQUIRE(r.exit_code == kInfeasible);
  return nlohmann::json::parse(ReadFile(out))["diagnosis"].get<std::string>();
}

TEST_CASE("A site power cap below the baseline load is named as the binding limit", "[cli]") {
  TempDir dir;
  // The two baseline modes draw 1015 kW with the base load; a 900 kW cap cannot hold them.
  const fs::path instance = PaperCopy(dir, 2048, 900.0);
  for (const char* scenario : {"S1", "S6"}) {
    const std::string diagnosis = Diagnosis(instance, scenario, dir);
    INFO(scenario << " diagnosis: " << diagnosis);
    CHECK(Contains(diagnosis, "site power cap: with "));
    CHECK(Contains(diagnosis, " kW a feasible schedule exists"));
    CHECK_FALSE(Contains(diagnosis, "GPU capacity:"));
  }
}

// At 1152 GPUs a bisection over heuristic probes once reported 1456 GPUs as the least,
// while a schedule exists at 1280: the search now scans up from the bottom, and what it
// prints agrees with itself.
TEST_CASE("The capacity diagnosis names the least capacity found and agrees with itself", "[cli]") {
  TempDir dir;
  const std::string diagnosis = Diagnosis(PaperCopy(dir, 1152), "S6", dir);
  INFO("diagnosis: " << diagnosis);
  // No std::regex: GCC 12 under AddressSanitizer warns inside it (GCC bug 105616).
  const std::size_t at = diagnosis.find("GPU capacity: with ");
  REQUIRE(at != std::string::npos);
  int found = 0, none_up_to = 0, proven = 0;
  // Everything below the least capacity found is proven infeasible (the capacity proof
  // covers 1152-1272 GPUs): nothing is left in between.
  if (std::sscanf(diagnosis.c_str() + at,
                  "GPU capacity: with %d GPUs a feasible schedule exists; with %d GPUs or fewer "
                  "infeasibility is proven",
                  &found, &proven) == 2) {
    CHECK(found == 1280);
    CHECK(proven == found - 8);
    return;
  }
  const int fields = std::sscanf(diagnosis.c_str() + at,
                                 "GPU capacity: with %d GPUs a feasible schedule exists; from "
                                 "1152 to %d GPUs none was found; with %d GPUs or fewer",
                                 &found, &none_up_to, &proven);
  if (fields >= 2) {
    CHECK(found == 1280);
    CHECK(none_up_to == found - 8);
    if (fields == 3) CHECK(proven < found);
  } else {
    // A machine too slow to try every capacity within the budget says so.
    CHECK(Contains(diagnosis, "the others were not tried"));
  }
}

TEST_CASE("Writing into a missing directory fails and leaves nothing behind", "[cli]") {
  TempDir dir;
  const fs::path missing = dir / "no_such_dir";
  SECTION("--out") {
    const Outcome r = RunCli({"solve", kPaper.string(), "--scenario", "S1", "--quiet", "--out",
                              (missing / "result.json").string()});
    INFO("stderr: " << r.err);
    CHECK(r.exit_code != kSolved);
    CHECK(r.exit_code != -1);
    CHECK(Contains(r.err, "result.json"));
  }
  SECTION("--csv") {
    const Outcome r = RunCli({"solve", kPaper.string(), "--scenario", "S1", "--quiet", "--csv",
                              (missing / "slots.csv").string()});
    INFO("stderr: " << r.err);
    CHECK(r.exit_code != kSolved);
    CHECK(r.exit_code != -1);
    CHECK(Contains(r.err, "slots.csv"));
  }
  CHECK_FALSE(fs::exists(missing));
  CHECK(Entries(dir.path()).empty());
}

namespace ckptdp {
namespace {

// `rolling` on bad input: exit 2 with the flag or field named, and no file written.
TEST_CASE("rolling refuses bad input with exit 2 and writes nothing", "[cli]") {
  const fs::path week = kSource / "instances/paper_week.json";
  const fs::path actual = kSource / "instances/paper_week_actual.csv";
  TempDir out;
  const std::string file = (out / "r.json").string();
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"rolling", week.string(), "--actual",
        (kSource / "instances/paper_2048gpu_series.csv").string(), "--out", file},
       "--actual: "},
      {{"rolling", week.string(), "--actual", (out / "missing.csv").string(), "--out", file},
       "--actual: "},
      {{"rolling", week.string(), "--actual", actual.string(), "--every", "0", "--out", file},
       "--every: must be at least 1"},
      {{"rolling", week.string(), "--actual", actual.string(), "--scenario", "S1", "--out", file},
       "--scenario: rolling re-plans"},
      {{"rolling", kPaper.string(), "--actual",
        (kSource / "instances/paper_2048gpu_series.csv").string(), "--out", file},
       "model.kernel_efficiency"},
  };
  for (const Case& c : cases) {
    const Outcome r = RunCli(c.args);
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == kBadInput);
    CHECK(Contains(r.err, c.message));
    CHECK(Entries(out.path()).empty());
  }
  // No day-ahead plan within the limit: exit 1, said so, and still no file.
  const Outcome r = RunCli(
      {"rolling", week.string(), "--actual", actual.string(), "--time-limit", "0", "--out", file});
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 1);
  CHECK(Contains(r.err, "ckptdp: rolling: the day-ahead plan has no schedule"));
  CHECK(Entries(out.path()).empty());
}

}  // namespace
}  // namespace ckptdp

TEST_CASE("The resume-minutes sweep table shows resumes and layout changes", "[cli]") {
  const fs::path restarts = kSource / "instances/paper_2048gpu_restarts.json";
  // S1 keeps the baseline trajectory, so the two points are quick; each starts once.
  const Outcome r = RunCli({"sweep", restarts.string(), "--scenario", "S1", "--param",
                            "resume-minutes", "--values", "0,30", "--log-level", "0"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == kSolved);
  CHECK(Contains(r.out, "resumes "));
  CHECK(Contains(r.out, "layout changes "));
  // Other sweeps keep their columns: the counts are in their JSON only.
  const Outcome g = RunCli({"sweep", kPaper.string(), "--scenario", "S1", "--param", "gpu-capacity",
                            "--values", "2048", "--log-level", "0"});
  REQUIRE(g.exit_code == kSolved);
  CHECK_FALSE(Contains(g.out, "resumes "));
}

}  // namespace
}  // namespace ckptdp
