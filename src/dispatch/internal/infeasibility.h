// Proven infeasibility of the shared GPU capacity (issue 13): a phase-1 Lagrangian
// decomposition of the least GPU excess, with an exact integer certificate.
//
// Every job's GPU level in every slot (0 = not training, else one of its graph modes) is
// copied: x on the job side (one path per job through its checkpoint graph) and y on the
// slot side (one level per job in each slot, any sum of GPUs, charged the GPUs above
// capacity). For prices pi on the copies x = y,
//
//   D(pi) = sum_j min_path sum_t pi[j,t,x_jt]  +  sum_t min_y ( excess_t(y) - sum_j pi[j,t,y_jt] )
//
// is a lower bound on the least total excess (GPU-slots above capacity) of any schedule,
// so D(pi) > 0 proves that no schedule fits the capacity. Unlike the LP bound (the per-slot
// price mu_t of a GPU, i.e. pi[j,t,l] = mu_t gpus(l)), the slot side knows that a job runs one
// integral mode per slot: on the paper case at 1272 GPUs the LP bound is not positive but
// this one is. The prices are found by a subgradient method in doubles, then rounded to
// multiples of 1/kScale and D is re-evaluated in integer arithmetic (exact in doubles below
// 2^53): only that exact value is ever used as a proof.
#ifndef CKPTDP_DISPATCH_INTERNAL_INFEASIBILITY_H_
#define CKPTDP_DISPATCH_INTERNAL_INFEASIBILITY_H_

#include <chrono>
#include <string>
#include <vector>

#include "ckptdp/engine.h"
#include "dispatch/internal/evaluation.h"

namespace ckptdp::internal {

struct CapacityProof {
  bool proven = false;
  // A path combination that fits the GPU capacity in every slot was met: the capacity
  // alone cannot be proven infeasible (the site power cap may still be).
  bool capacity_fits = false;
  double excess_gpu_slots = 0;  // certified least GPU excess (0 when the rate bound proved it)
  std::vector<int> jobs;        // the jobs the proof needs (a subset of the instance's)
  int iterations = 0;
  std::string diagnosis;  // names the jobs, the slots and the capacity when proven
};

struct CapacityProofOptions {
  int max_iterations = 3000;
  std::chrono::steady_clock::time_point deadline;
  int threads = 0;  // for the job side (0 = all cores); the result does not depend on it
  // After a proof, try to drop each job in turn and keep the smaller proof (the diagnosis
  // then names only the jobs that conflict). Costs one proof attempt per job.
  bool minimise_jobs = true;
};

// The budget of the attempt the engine makes before its search: a tenth of the time
// limit, at most 2 s, and 3000 iterations. On feasible instances it usually ends after one
// iteration (the least-GPU paths already fit); on the paper case it proves 768-1272 GPUs
// infeasible in milliseconds (docs/engine.md).
CapacityProofOptions ProofOptions(const SolveOptions& options,
                                  std::chrono::steady_clock::time_point start);

// Tries to prove that the jobs of `context` cannot share the GPU capacity. Never claims a
// proof that the exact integer evaluation does not confirm.
CapacityProof ProveCapacityInfeasible(ScenarioContext& context,
                                      const CapacityProofOptions& options);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_INFEASIBILITY_H_
