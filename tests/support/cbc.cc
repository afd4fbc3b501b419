#include "support/cbc.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ckptdp/check.h"
#include "ckptdp/report.h"

namespace ckptdp::testing {

namespace fs = std::filesystem;

std::string CbcPath() {
  FILE* pipe = popen("command -v cbc 2>/dev/null", "r");
  if (pipe == nullptr) return "";
  char buffer[4096];
  std::string out;
  while (fgets(buffer, sizeof(buffer), pipe) != nullptr) out += buffer;
  pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

MilpSolution SolveWithCbc(const std::string& cbc, const MilpModel& model, const fs::path& dir,
                          const std::string& tag, bool mps) {
  const fs::path file = dir / (tag + (mps ? ".mps" : ".lp"));
  const fs::path solu = dir / (tag + ".sol");
  REQUIRE(WriteFileAtomically(file, mps ? ToMps(model) : ToLp(model)).ok());
  const std::string command = "'" + cbc + "' '" + file.string() +
                              "' -timeMode cpu -threads 1 -sec 120 -ratioGap 0 -solve -solu '" +
                              solu.string() + "' > '" + (dir / (tag + ".log")).string() + "' 2>&1";
  INFO(command);
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream stream(solu, std::ios::binary);
  std::ostringstream text;
  text << stream.rdbuf();
  absl::StatusOr<MilpSolution> solution = ReadCbcSolution(text.str(), model);
  INFO((solution.ok() ? "" : std::string(solution.status().message())));
  REQUIRE(solution.ok());
  return *solution;
}

void CheckDecodedSolution(const Instance& instance, Scenario scenario,
                          const std::vector<JobModes>& modes, const MilpModel& model,
                          const MilpSolution& solution) {
  absl::StatusOr<Result> theirs = SolutionToResult(instance, scenario, modes, model, solution);
  INFO((theirs.ok() ? "" : std::string(theirs.status().message())));
  REQUIRE(theirs.ok());
  CHECK(std::abs(theirs->objective_usd - solution.objective) <=
        1e-6 * std::max(1.0, std::abs(solution.objective)));
  absl::StatusOr<CheckReport> report =
      CheckResult(instance, ResultToJson(instance, modes, *theirs));
  REQUIRE(report.ok());
  INFO(report->ToText());
  CHECK(report->ok());
}

}  // namespace ckptdp::testing
