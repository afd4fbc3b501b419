// CBC as the reference in the cross-tests: find it, and solve an exported model with it.
#ifndef CKPTDP_TESTS_SUPPORT_CBC_H_
#define CKPTDP_TESTS_SUPPORT_CBC_H_

#include <filesystem>
#include <string>
#include <vector>

#include "ckptdp/export.h"

namespace ckptdp::testing {

// The path of the `cbc` executable, or "" if it is not on PATH.
std::string CbcPath();

// Writes `model` as LP (or MPS) under `dir`, runs CBC on it (1 thread, a CPU-time limit so
// that a loaded machine cannot stop it early, no gap tolerance) and reads its solution back.
// Fails the current test if CBC or the read-back fails.
MilpSolution SolveWithCbc(const std::string& cbc, const MilpModel& model,
                          const std::filesystem::path& dir, const std::string& tag,
                          bool mps = false);

// Decodes a solver's `solution` of `model` into a Result (SolutionToResult) and checks that
// it costs the solver's objective and passes the independent checker.
void CheckDecodedSolution(const Instance& instance, Scenario scenario,
                          const std::vector<JobModes>& modes, const MilpModel& model,
                          const MilpSolution& solution);

}  // namespace ckptdp::testing

#endif  // CKPTDP_TESTS_SUPPORT_CBC_H_
