// PlanPool: the distinct job plans a solve has met, for a restricted master MILP.
//
// A plan is one job's runs (ckptdp/schedule.h). The engine adds, when SolveOptions::plan_pool
// is set, every plan its Lagrangian subproblems return at the root, and every job's plan in
// each feasible schedule it recovers or keeps (docs/engine.md, "The plan pool"). Choosing one
// plan per job under the shared limits is then a restricted master problem: export writes it
// as a MILP (BuildRestrictedMaster in ckptdp/export.h) so that an external solver can say
// how good a schedule these plans make, and how far the LP over them is from our bound.
#ifndef CKPTDP_PLAN_POOL_H_
#define CKPTDP_PLAN_POOL_H_

#include <cstdint>
#include <set>
#include <vector>

#include "ckptdp/schedule.h"

namespace ckptdp {

class PlanPool {
 public:
  // Per job, its plans in the order they were first met.
  using Plans = std::vector<std::vector<std::vector<Run>>>;

  // Adds `runs` as a plan of `job` unless the pool holds it already; true if it was new.
  // Not thread-safe: the engine adds from its serial steps only, so the pool's order is
  // the same for every thread count.
  bool Add(int job, const std::vector<Run>& runs);
  // Adds every job's plan of `schedule` (job j's runs as a plan of job j).
  void AddSchedule(const Schedule& schedule);

  const Plans& plans() const { return plans_; }
  int num_jobs() const { return static_cast<int>(plans_.size()); }
  int64_t size() const { return size_; }

 private:
  struct RunsLess {
    bool operator()(const std::vector<Run>& a, const std::vector<Run>& b) const;
  };
  Plans plans_;
  std::vector<std::set<std::vector<Run>, RunsLess>> seen_;
  int64_t size_ = 0;
};

}  // namespace ckptdp

#endif  // CKPTDP_PLAN_POOL_H_
