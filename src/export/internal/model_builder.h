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

}  // namespace ckptdp::export_internal

#endif  // CKPTDP_EXPORT_INTERNAL_MODEL_BUILDER_H_
