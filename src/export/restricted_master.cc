// BuildRestrictedMaster: one plan per job out of a given set, under BuildMilp's power side.
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ckptdp/export.h"
#include "export/internal/grid_contract_milp.h"
#include "export/internal/model_builder.h"
#include "export/internal/number_text.h"

namespace ckptdp {

absl::StatusOr<MilpModel> BuildRestrictedMaster(
    const Instance& instance, Scenario scenario, const std::vector<JobModes>& modes,
    const std::vector<std::vector<std::vector<Run>>>& plans) {
  using export_internal::AddColumn;
  using export_internal::AddCoverage;
  using export_internal::AddRow;
  using export_internal::SlotTerms;
  using export_internal::Terms;
  CKPTDP_RETURN_IF_ERROR(ValidateInstance(instance));
  const int jobs = static_cast<int>(instance.jobs.size());
  if (static_cast<int>(modes.size()) != jobs || static_cast<int>(plans.size()) != jobs) {
    return absl::InvalidArgumentError(absl::StrCat("restricted master: ", modes.size(),
                                                   " mode sets and plans for ", plans.size(),
                                                   " jobs, but the instance has ", jobs));
  }
  const int slots_n = instance.time.slots;
  MilpModel model;
  model.name = export_internal::SafeName(
      absl::StrCat(instance.name, "_", std::string(ScenarioName(scenario)), "_restricted"));
  model.scenario = scenario;
  SlotTerms slots{std::vector<Terms>(slots_n), std::vector<Terms>(slots_n)};
  for (int j = 0; j < jobs; ++j) {
    const Job& job = instance.jobs[j];
    if (plans[j].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("restricted master: job ", job.name, " has no plan to choose from"));
    }
    Terms pick;
    for (int p = 0; p < static_cast<int>(plans[j].size()); ++p) {
      ColumnRole role;
      role.kind = ColumnKind::kPlan;
      role.job = j;
      role.plan = p;
      const int column = AddColumn(model, absl::StrCat("z_j", j, "_p", p), 0, 1, true, 0, role);
      for (const Run& run : plans[j][p]) {
        if (run.mode < 0 || run.mode >= static_cast<int>(modes[j].feasible.size()) ||
            run.start_slot < 0 || run.end_slot > slots_n || run.start_slot >= run.end_slot) {
          return absl::InvalidArgumentError(absl::StrCat(
              "restricted master: plan ", p, " of job ", job.name, " has a run in mode ", run.mode,
              " over slots [", run.start_slot, ", ", run.end_slot, "), but the job has ",
              modes[j].feasible.size(), " feasible modes and the horizon ", slots_n, " slots"));
        }
        AddCoverage(instance, modes[j].feasible[run.mode], column, run.start_slot, run.end_slot,
                    slots);
      }
      pick.push_back({column, 1.0});
    }
    AddRow(model, absl::StrCat("pick_j", j), RowSense::kEqual, 1.0, std::move(pick));
  }
  model.plans = plans;
  export_internal::AddPowerSide(instance, TraitsOf(scenario).battery, slots, model);
  if (HasGridContract(instance)) {
    export_internal::AddGridContract(instance, TraitsOf(scenario).battery, model);
  }
  return model;
}

absl::StatusOr<std::string> RestrictedMasterStart(const Instance& instance, const MilpModel& model,
                                                  const Result& result) {
  const int jobs = static_cast<int>(model.plans.size());
  const int slots = instance.time.slots;
  if (static_cast<int>(result.schedule.jobs.size()) != jobs ||
      static_cast<int>(result.power.slots.size()) != slots) {
    return absl::InvalidArgumentError(absl::StrCat(
        "restricted master start: the result has ", result.schedule.jobs.size(), " jobs and ",
        result.power.slots.size(), " slots, the model ", jobs, " and ", slots));
  }
  std::vector<int> chosen(jobs, -1);
  for (int j = 0; j < jobs; ++j) {
    const auto& plans = model.plans[j];
    const auto it = std::find(plans.begin(), plans.end(), result.schedule.jobs[j]);
    if (it == plans.end()) {
      return absl::InvalidArgumentError(absl::StrCat("restricted master start: job ", j,
                                                     "'s plan in the result is not in the model"));
    }
    chosen[j] = static_cast<int>(it - plans.begin());
  }
  double peak_kw = 0;  // the horizon's import above the billing period's peak so far
  for (const PowerSlot& p : result.power.slots) {
    peak_kw = std::max(peak_kw, p.grid_kw - instance.grid.peak_so_far_kw);
  }
  // Every column, continuous ones too: CBC fixes a column the start leaves out at 0.
  std::string text = "Stopped on iterations - objective value 0\n";
  for (size_t c = 0; c < model.columns.size(); ++c) {
    const MilpColumn& column = model.columns[c];
    const ColumnRole& role = column.role;
    const PowerSlot p =
        role.slot >= 0 && role.slot < slots ? result.power.slots[role.slot] : PowerSlot{};
    double value = 0;
    switch (role.kind) {
      case ColumnKind::kPlan:
        value = chosen[role.job] == role.plan ? 1 : 0;
        break;
      case ColumnKind::kAidc:
        value = p.aidc_kw;
        break;
      case ColumnKind::kGrid:
        value = p.grid_kw;
        break;
      case ColumnKind::kCurtailment:
        value = p.curtailment_kw;
        break;
      case ColumnKind::kCharge:
        value = p.charge_kw;
        break;
      case ColumnKind::kDischarge:
        value = p.discharge_kw;
        break;
      case ColumnKind::kSoc:
        value = p.soc_kwh;
        break;
      case ColumnKind::kChargeOn:
        value = p.charge_kw > 0 ? 1 : 0;
        break;
      case ColumnKind::kDischargeOn:
        value = p.discharge_kw > 0 ? 1 : 0;
        break;
      case ColumnKind::kExport:
        value = p.export_kw;
        break;
      case ColumnKind::kRenewableFirst:
        // z = 1 allows importing, z = 0 curtailing (grid_contract_milp.cc).
        value = p.grid_kw > 0 ? 1 : 0;
        break;
      case ColumnKind::kPeak:
        value = peak_kw;
        break;
      default:
        return absl::InternalError(
            absl::StrCat("restricted master start: column ", column.name, " has no rule"));
    }
    absl::StrAppend(&text, c, " ", column.name, " ", export_internal::NumberText(value), "\n");
  }
  return text;
}

}  // namespace ckptdp
