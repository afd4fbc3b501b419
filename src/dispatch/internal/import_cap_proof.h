// Proven infeasibility of the grid contract's import caps (issue #19), tried before any
// search: if no AIDC load between the base load and the site cap can be served in every
// slot within the import caps (renewables + cap, with the battery's help where the
// scenario has one), no schedule can be, since every schedule's load lies in that band.
// The same band proves a green floor (min_green_share_pct) out of reach: if no load of
// the band reaches the floor, with all renewables and the battery used at best, no
// schedule does.
#ifndef CKPTDP_DISPATCH_INTERNAL_IMPORT_CAP_PROOF_H_
#define CKPTDP_DISPATCH_INTERNAL_IMPORT_CAP_PROOF_H_

#include <string>

#include "dispatch/internal/evaluation.h"

namespace ckptdp::internal {

struct ImportCapProof {
  bool proven = false;
  std::string diagnosis;  // names the slots where the cap binds
};

// Costs one power subproblem (the battery DP at most).
absl::StatusOr<ImportCapProof> ProveImportCapInfeasible(const ScenarioContext& context);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_IMPORT_CAP_PROOF_H_
