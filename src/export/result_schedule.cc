// ScheduleFromResultJson: the runs of a result file (docs/result-format.md) as a Schedule,
// so that `ckptdp export --fix` can pin a model to a result computed earlier.
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "ckptdp/export.h"

namespace ckptdp {
namespace {

using Json = nlohmann::json;

absl::StatusOr<int> IntAt(const Json& object, const char* key, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ".", key, ": missing or not an integer"));
  }
  return it->get<int>();
}

}  // namespace

absl::StatusOr<Schedule> ScheduleFromResultJson(std::string_view result_json,
                                                const Instance& instance,
                                                const std::vector<JobModes>& modes) {
  const Json json = Json::parse(result_json, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError("result: not a JSON object");
  }
  const auto jobs = json.find("jobs");
  if (jobs == json.end() || !jobs->is_array()) {
    return absl::InvalidArgumentError("result: \"jobs\" is missing or not an array");
  }
  if (jobs->size() != instance.jobs.size() || modes.size() != instance.jobs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("result: ", jobs->size(), " jobs, the instance has ", instance.jobs.size()));
  }
  Schedule schedule;
  for (size_t j = 0; j < jobs->size(); ++j) {
    const Json& job = (*jobs)[j];
    const std::string where = absl::StrCat("jobs[", j, "]");
    const auto runs = job.find("runs");
    if (!job.is_object() || runs == job.end() || !runs->is_array()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".runs: missing or not an array"));
    }
    std::vector<Run> out;
    for (size_t r = 0; r < runs->size(); ++r) {
      const Json& run = (*runs)[r];
      const std::string at = absl::StrCat(where, ".runs[", r, "]");
      if (!run.is_object()) return absl::InvalidArgumentError(at + ": not an object");
      Run x;
      CKPTDP_ASSIGN_OR_RETURN(x.start_slot, IntAt(run, "start_slot", at));
      CKPTDP_ASSIGN_OR_RETURN(x.end_slot, IntAt(run, "end_slot", at));
      if (run.contains("from_segment")) {
        CKPTDP_ASSIGN_OR_RETURN(x.from_segment, IntAt(run, "from_segment", at));
        CKPTDP_ASSIGN_OR_RETURN(x.to_segment, IntAt(run, "to_segment", at));
      }
      ParallelLayout layout;
      CKPTDP_ASSIGN_OR_RETURN(layout.p, IntAt(run, "p", at));
      CKPTDP_ASSIGN_OR_RETURN(layout.q, IntAt(run, "q", at));
      CKPTDP_ASSIGN_OR_RETURN(layout.d, IntAt(run, "d", at));
      const std::vector<Mode>& feasible = modes[j].feasible;
      for (size_t m = 0; m < feasible.size(); ++m) {
        if (feasible[m].layout == layout) x.mode = static_cast<int>(m);
      }
      if (x.mode < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(at, ": (p,q,d)=(", layout.p, ",", layout.q, ",", layout.d,
                         ") is not a feasible mode of job ", instance.jobs[j].name));
      }
      const auto work = run.find("work_flops");
      if (work != run.end() && work->is_number()) x.work_flops = work->get<double>();
      out.push_back(x);
    }
    schedule.jobs.push_back(std::move(out));
  }
  return schedule;
}

}  // namespace ckptdp
