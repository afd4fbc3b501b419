#include "dispatch/internal/job_partition.h"

#include <algorithm>
#include <numeric>

namespace ckptdp::internal {

double EstimatedDpWork(const ScenarioContext& c, int job) {
  const Job& j = c.instance->jobs[job];
  const double layers = c.traits.checkpoints ? j.segments + 1.0 : 1.0;
  return static_cast<double>(j.deadline_slot - j.release_slot) * c.jobs[job]->num_modes() * layers;
}

std::vector<int> JobsOfRank(const ScenarioContext& c, int rank, int ranks) {
  const int jobs = c.num_jobs();
  std::vector<double> work(jobs);
  for (int j = 0; j < jobs; ++j) work[j] = EstimatedDpWork(c, j);
  std::vector<int> order(jobs);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return work[a] > work[b]; });
  std::vector<double> load(ranks, 0.0);
  std::vector<int> mine;
  for (int j : order) {
    const int r = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    load[r] += work[j];
    if (r == rank) mine.push_back(j);
  }
  std::sort(mine.begin(), mine.end());
  return mine;
}

}  // namespace ckptdp::internal
