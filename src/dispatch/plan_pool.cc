// PlanPool: distinct plans per job, in the order they were first met.
#include "ckptdp/plan_pool.h"

#include <algorithm>
#include <tuple>

namespace ckptdp {
namespace {

auto Key(const Run& r) {
  return std::tie(r.start_slot, r.end_slot, r.from_segment, r.to_segment, r.mode, r.work_flops,
                  r.overhead_minutes, r.continues_initial);
}

}  // namespace

bool PlanPool::RunsLess::operator()(const std::vector<Run>& a, const std::vector<Run>& b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [](const Run& x, const Run& y) { return Key(x) < Key(y); });
}

bool PlanPool::Add(int job, const std::vector<Run>& runs) {
  if (job >= num_jobs()) {
    plans_.resize(job + 1);
    seen_.resize(job + 1);
  }
  if (!seen_[job].insert(runs).second) return false;
  plans_[job].push_back(runs);
  ++size_;
  return true;
}

void PlanPool::AddSchedule(const Schedule& schedule) {
  for (int j = 0; j < static_cast<int>(schedule.jobs.size()); ++j) Add(j, schedule.jobs[j]);
}

}  // namespace ckptdp
