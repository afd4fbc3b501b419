// Export: the exact MILP of section IV for one scenario, as an external reference.
//
// BuildMilp writes down the model the engine solves: per job a unit flow on the
// checkpoint-state graph (eq. 25) with the engine's edge rules, mode-use decoding (eq. 26)
// folded into the per-slot rows, the GPU and site-power limits (eqs. 27-28), the green-power
// bus and the battery with charge/discharge binaries (eqs. 29-30), and the cost (eq. 31).
// S3 has no graph: a binary per (job, effective mode, slot) and a work row. S1 is written as
// S2 and S5 as S2 plus the battery (the engine's fixed trajectory is a no-wait baseline path).
// The optimum of the model is therefore a true reference for the engine's bound and incumbent.
// Nodes that lie on no source-sink path are pruned; the model is otherwise complete.
//
// Names are decodable (ckptdp's own reader uses them to map a solver's solution back):
//   w_j0_t5_k2              wait at segment 2 from slot 5 to 6 (job 0)
//   x_j0_m7_t5_k2_n1        train in feasible mode 7 from slot 5, segment 2, covering 1 segment
//   ..._c1_p0               suffix of graph columns/rows when the job has operators' limits
//                           (min_run_slots > 1 or max_pauses >= 0): the DP's resource state
//                           (current block length capped at min_run_slots, pauses used)
//   ..._r7 / _s7 / _s       suffix of graph columns/rows when the job has restart overheads
//                           or an initial run: its run state at the tail (running in
//                           feasible mode 7 / paused after a run in mode 7 / no layout that
//                           matters); a train edge from a state pays the overhead the state
//                           and its mode imply, x_j0_m7_t0_k0_n1_s7 from the source in the
//                           initial mode 7 is the initial run continuing; _h is the
//                           layout-change hub of (slot, segment): h_j0_t5_k2_r7 leads into
//                           it from running mode 7, x_j0_m3_t5_k2_n1_h leaves it in mode 3
//                           paying resume + reshard (resume alone when reshard_minutes is 0)
//   y_j0_m7_t5              S3: job 0 runs feasible mode 7 in slot 5
//   aidc_t5 grid_t5 cur_t5 ch_t5 dis_t5 soc_t5 uch_t5 udis_t5   power side of slot 5
// Rows: flow_j0_t5_k2 (eq. 25), sink_j0 (all resource end states), chg_j0_t5_k2_m7 (the hub
// is not entered from mode 7 and left in mode 7: a change of layout), one_j0_t5 and work_j0
// (S3), gpu_t5 (eq. 28a), load_t5 (aidc_t5 = base + PUE * IT; its upper bound is eq. 28b),
// bal_t5 (eq. 29), socbal_t5, chon_t5, dison_t5, excl_t5 (eq. 30).
#ifndef CKPTDP_EXPORT_H_
#define CKPTDP_EXPORT_H_

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "ckptdp/result.h"
#include "ckptdp/schedule.h"
#include "ckptdp/status.h"

namespace ckptdp {

inline constexpr double kMilpInfinity = std::numeric_limits<double>::infinity();

// What a column stands for; SolutionToResult decodes a solution through it.
enum class ColumnKind {
  kWait,          // job, slot, segment (and resource state)
  kTrain,         // job, mode, slot, segment, segments_covered, end_slot
  kSlotMode,      // S3: job, mode, slot
  kLayoutChange,  // job, slot, segment, mode: leaves layout `mode` for the restart hub there
  kAidc,          // slot: AIDC load, kW
  kGrid,          // slot
  kCurtailment,   // slot
  kCharge,        // slot
  kDischarge,     // slot
  kSoc,           // slot: state of charge at the end of the slot, kWh
  kChargeOn,      // slot: u_ch
  kDischargeOn,   // slot: u_dis
  // Grid contract (docs/model.md, "Grid contract"):
  kExport,          // slot: renewable power sold, kW
  kRenewableFirst,  // slot: z = 1 allows importing, z = 0 curtailing (renewable_first)
  kPeak,            // the horizon's peak import above peak_so_far, kW (slot -1)
  // Restricted master (BuildRestrictedMaster): job `job` follows its plan `plan`.
  kPlan,
};

struct ColumnRole {
  ColumnKind kind = ColumnKind::kGrid;
  int job = -1;
  int mode = -1;  // index into JobModes::feasible
  int slot = -1;  // start slot of an edge
  int end_slot = -1;
  int segment = -1;  // from-segment of an edge
  int segments_covered = 0;
  int run_slots = 0;  // resource state of the edge's tail (only with operators' limits)
  int pauses = 0;
  // Train edges of jobs with restart overheads (docs/model.md, "Restarts").
  double overhead_minutes = 0;
  bool continues_initial = false;
  int plan = -1;  // kPlan: the index into the job's plans
};

struct MilpColumn {
  std::string name;
  double lower = 0;
  double upper = kMilpInfinity;
  bool integer = false;
  double objective = 0;  // USD per unit
  ColumnRole role;
};

enum class RowSense { kLessEqual, kGreaterEqual, kEqual };

struct MilpRow {
  std::string name;
  RowSense sense = RowSense::kEqual;
  double rhs = 0;
  std::vector<int> columns;  // sparse coefficients, no duplicates
  std::vector<double> values;
};

// min objective . x  s.t. rows, bounds, integrality.
struct MilpModel {
  std::string name;  // "<instance>_<scenario>"
  Scenario scenario = Scenario::kS4;
  std::vector<MilpColumn> columns;
  std::vector<MilpRow> rows;
  // A restricted master's plans (BuildRestrictedMaster): per job, the runs of each kPlan
  // column's plan, so that a solution decodes into a schedule. Empty for BuildMilp's model.
  std::vector<std::vector<std::vector<Run>>> plans;

  int NumIntegers() const;
  long long NumNonzeros() const;
  // Index of the column with this name, or -1 (linear scan; use ColumnIndex for many).
  int FindColumn(std::string_view name) const;
};

// Builds the MILP of `scenario` (S1 is exported as S2: the same trajectory). Fails with
// InvalidArgument if a job cannot reach its last segment by its deadline in the scenario's
// graph (the model would be trivially infeasible; the message says which job and why).
absl::StatusOr<MilpModel> BuildMilp(const Instance& instance, Scenario scenario,
                                    const std::vector<JobModes>& modes);

// Fixes the job decisions of `model` to `schedule` (bounds of w/x/y columns: 1 on the
// schedule's path, 0 elsewhere), leaving the power side free: the fixed model's optimum is
// then the exact cost of the schedule. Fails if the schedule is not a path of the model
// (wrong mode, an edge the scenario does not allow, missing job).
absl::Status FixSchedule(MilpModel& model, const Instance& instance,
                         const std::vector<JobModes>& modes, const Schedule& schedule);

// The restricted master problem over given job plans (e.g. a PlanPool's, ckptdp/plan_pool.h):
// a binary z_j<j>_p<p> per plan p of job j, exactly one per job (rows pick_j<j>), whose runs
// load the same per-slot GPU and AIDC rows, under the same power side and grid contract, as
// BuildMilp's model. Its feasible points are schedules of `scenario` made of these plans
// only, so its optimum is the best schedule they make (an upper bound on BuildMilp's), and
// its LP relaxation is the path formulation's LP over these columns. Fails with
// InvalidArgument if a job has no plan, or a plan's run lies outside the horizon or names
// no feasible mode. Plans are not checked against the job's graph: they are expected to be
// the engine's own.
absl::StatusOr<MilpModel> BuildRestrictedMaster(
    const Instance& instance, Scenario scenario, const std::vector<JobModes>& modes,
    const std::vector<std::vector<std::vector<Run>>>& plans);

// A MIP start for a restricted master (CBC's `-mipstart FILE`, in its solution format: one
// "index name value" line per column): `result`'s plan of each job at 1, the other plans at
// 0, and every power-side column (battery and grid contract binaries included) as `result`
// dispatches power. Fails if a job's plan in `result` is not among the model's plans.
absl::StatusOr<std::string> RestrictedMasterStart(const Instance& instance, const MilpModel& model,
                                                  const Result& result);

// CPLEX LP format (read by CBC, HiGHS, GLPK --cpxlp, Gurobi, CPLEX). Coefficients are
// written as shortest round-trip decimals, so the file is the model bit for bit.
std::string ToLp(const MilpModel& model);
// Free MPS (CBC, HiGHS, GLPK --freemps, Gurobi). Integer columns sit between MARKER lines
// and always carry explicit bounds.
std::string ToMps(const MilpModel& model);

// A solution read back from a solver's file.
struct MilpSolution {
  std::string status_line;     // as the solver wrote it ("Optimal - objective value 12.3")
  bool optimal = false;        // proven optimal
  bool feasible = false;       // the values are a (possibly non-optimal) feasible solution
  bool time_limit = false;     // stopped on a time or node limit
  double objective = 0;        // as the solver reported it
  std::vector<double> values;  // one per model column; 0 for columns not listed
};

// Reads a CBC solution file (`cbc ... -solve -solu FILE`): a status line ending in
// "objective value V", then lines "index name value reduced_cost" (an optional "**" marks
// an infeasibility; columns at 0 may be omitted). Columns are matched by name.
absl::StatusOr<MilpSolution> ReadCbcSolution(std::string_view text, const MilpModel& model);

// Decodes a solution into a Result: runs from the chosen train edges (S3: consecutive slots
// in the same mode merged into one run of work slots * X * step), the load recomputed from
// the runs, and the power side exactly as the solver set it, so that CheckResult validates
// the solver's own dispatch. objective_usd is the cost recomputed from those values. Status
// is optimal (bound = objective) when the solver proved optimality, else feasible (or
// time_limit) with no bound. cost_reduction_pct is taken against the S1 cost the engine
// computes for the instance (the fixed baseline; 0 if S1 is infeasible).
absl::StatusOr<Result> SolutionToResult(const Instance& instance, Scenario scenario,
                                        const std::vector<JobModes>& modes, const MilpModel& model,
                                        const MilpSolution& solution);

// Parses the schedule of a result JSON (docs/result-format.md) back: runs are matched to
// feasible modes by (p, q, d). The result must have the same number of jobs as `instance`.
absl::StatusOr<Schedule> ScheduleFromResultJson(std::string_view result_json,
                                                const Instance& instance,
                                                const std::vector<JobModes>& modes);

}  // namespace ckptdp

#endif  // CKPTDP_EXPORT_H_
