// Proven infeasibility of the shared GPU capacity (issue 13), tried before any search.
// Three steps, each ending the attempt when it concludes (docs/engine.md, "Infeasibility"):
//
// 1. Least GPU-slots: every job's cheapest path at one per GPU-slot. If these paths fit
//    the capacity together, nothing can be proven and the attempt ends (the usual case).
// 2. Rate bound (rate_bound.h): a job trains in one integral mode per slot and must deliver its
// compute;
//    for job weights w on the simplex, sum_j w_j - sum_t max_{modes fitting slot t}
//    sum_j w_j X_j dt / C_j > 0 proves infeasibility. Few weights, so it converges fast;
//    it proves the paper case at 1272 GPUs, where the LP bound cannot.
// 3. Phase-1 Lagrangian decomposition of the least GPU excess. Every job's level in every
//    slot (0 = not training, else one of its graph modes) is copied: x on the job side
//    (one path per job) and y on the slot side (one level per job and slot, the GPUs above
//    capacity charged). For prices pi on the copies x = y,
//
//      D(pi) = sum_j min_path sum_t pi[j,t,x_jt]  +  sum_t min_y ( excess_t(y) - sum_j pi[j,t,y_jt]
//      )
//
//    is a lower bound on the least total excess (GPU-slots above capacity) of any
//    schedule, so D(pi) > 0 proves infeasibility. It starts at the LP's prices
//    (pi[j,t,l] = gpus(l)) and takes subgradient steps. The prices are rounded to
//    multiples of 1/kScale and D is re-evaluated in integer arithmetic (exact in doubles
//    below 2^53): only that exact value is ever used as a proof. On the paper case at 1272
//    GPUs its subgradient did not reach a positive value (870 iterations), so step 2
//    carries that case.
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
  int threads = 0;         // for the job side (0 = all cores); the result does not depend on it
  bool rate_bound = true;  // false: the decomposition alone (tests of its certificate)
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
CapacityProof ProveCapacityInfeasible(const ScenarioContext& context,
                                      const CapacityProofOptions& options);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_INFEASIBILITY_H_
