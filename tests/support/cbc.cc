#include "support/cbc.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

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

}  // namespace ckptdp::testing
