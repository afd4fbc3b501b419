// The grid contract's terms in the exported MILP (docs/model.md, "Grid contract").
#ifndef CKPTDP_EXPORT_INTERNAL_GRID_CONTRACT_MILP_H_
#define CKPTDP_EXPORT_INTERNAL_GRID_CONTRACT_MILP_H_

#include "ckptdp/export.h"
#include "ckptdp/instance.h"

namespace ckptdp::export_internal {

// Adds to a model built by AddPowerSide (columns grid_t, cur_t, row bal_t): the import
// caps as bounds of grid_t, the carbon price on grid_t, export columns exp_t with
// exp_t + cur_t <= R_t, a binary per slot for renewable_first, and the peak column with
// peak >= grid_t - peak_so_far priced at the demand charge.
void AddGridContract(const Instance& instance, bool battery, MilpModel& model);

}  // namespace ckptdp::export_internal

#endif  // CKPTDP_EXPORT_INTERNAL_GRID_CONTRACT_MILP_H_
