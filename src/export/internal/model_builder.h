// Helpers shared by the export's source files: adding columns and rows, the scenario's
// graph options, and a name -> column index.
#ifndef CKPTDP_EXPORT_INTERNAL_MODEL_BUILDER_H_
#define CKPTDP_EXPORT_INTERNAL_MODEL_BUILDER_H_

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ckptdp/export.h"
#include "ckptdp/graph.h"

namespace ckptdp::export_internal {

// The engine's graph options for a scenario (dispatch/evaluation.cc, MakeContext).
GraphOptions GraphOptionsOf(Scenario scenario);

// Whether the scenario's jobs are flows on the checkpoint-state graph: all but S3. S1 and S5
// have no checkpoints in Table III, but the engine runs their fixed trajectory on the graph
// (baseline mode, no waiting), exactly as S2: the export writes S1 as S2 and S5 as S2 plus
// the battery.
bool UsesGraph(Scenario scenario);

int AddColumn(MilpModel& model, std::string name, double lower, double upper, bool integer,
              double objective, const ColumnRole& role);

// Adds a row from (column, coefficient) terms; terms on the same column are summed and
// zero coefficients dropped.
int AddRow(MilpModel& model, std::string name, RowSense sense, double rhs,
           std::vector<std::pair<int, double>> terms);

// Name -> column index for a whole model.
std::unordered_map<std::string_view, int> ColumnIndex(const MilpModel& model);

// A model name that LP and MPS accept: other characters become '_'.
std::string SafeName(std::string_view text);

using Terms = std::vector<std::pair<int, double>>;

// Per-slot terms that the jobs contribute to the site rows (eq. 26 folded into 27-28).
struct SlotTerms {
  std::vector<Terms> gpus;      // n_a per column covering the slot
  std::vector<Terms> it_power;  // -PUE * P_a^IT per column covering the slot (load row)
};

// Adds `column` (a job decision in `mode`) to the rows of slots [from, to).
void AddCoverage(const Instance& instance, const Mode& mode, int column, int from, int to,
                 SlotTerms& slots);

// The power side of every slot on the jobs' `slots` terms: AIDC load (eq. 26, 28b as its
// bound), GPU limit (28a), bus (29), battery (30) and the cost (31) on the power columns.
void AddPowerSide(const Instance& instance, bool battery, SlotTerms& slots, MilpModel& model);

}  // namespace ckptdp::export_internal

#endif  // CKPTDP_EXPORT_INTERNAL_MODEL_BUILDER_H_
