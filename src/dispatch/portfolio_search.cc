#include "dispatch/internal/portfolio_search.h"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <optional>
#include <utility>
#include <vector>

#include "dispatch/internal/distributed_search.h"

namespace ckptdp::internal {
int ResolveSearchStreams(int requested, int jobs) {
  if (requested > 0) return requested;
  return jobs >= kFleetSearchMinJobs ? 2 : 1;
}

absl::StatusOr<NeighbourhoodStats> PortfolioNeighbourhoodSearch(
    const ScenarioContext& c, Workspaces& work, Evaluated& incumbent, const Multipliers& prices,
    const NeighbourhoodOptions& options, int streams, int threads, const Deadline& deadline,
    const std::function<bool(double)>& good_enough) {
  if (streams <= 1) {
    return ImproveByNeighbourhoodSearch(c, work, incumbent, prices, options, deadline, good_enough);
  }
  NeighbourhoodStats total;
  if (c.num_jobs() == 0 || !incumbent.feasible) return total;
  NeighbourhoodOptions batch = options;
  batch.max_rounds = BatchRounds(options.stall_rounds);
  batch.stall_rounds = batch.max_rounds;
  batch.on_improvement = nullptr;  // the log is not thread-safe: reported per batch below
  const long stall = static_cast<long>(options.stall_rounds) * streams;
  long since_improvement = 0;
  tbb::task_arena arena(ResolveThreads(threads));
  std::vector<Evaluated> trial(streams);
  std::vector<std::optional<absl::StatusOr<NeighbourhoodStats>>> got(streams);
  for (int b = 0;
       since_improvement < stall && !deadline.Passed() && !good_enough(incumbent.cost_usd); ++b) {
    for (int s = 0; s < streams; ++s) {
      trial[s] = incumbent;
      got[s].reset();
    }
    arena.execute([&] {
      tbb::parallel_for(0, streams, [&](int s) {
        NeighbourhoodOptions mine = batch;
        mine.seed = BatchSeed(options.seed, s, b);
        got[s] =
            ImproveByNeighbourhoodSearch(c, work, trial[s], prices, mine, deadline, good_enough);
      });
    });
    int rounds = 0;
    int best = -1;
    for (int s = 0; s < streams; ++s) {
      if (!got[s]->ok()) return got[s]->status();
      total += **got[s];
      rounds += (*got[s])->rounds;
      const double against = best < 0 ? incumbent.cost_usd : trial[best].cost_usd;
      if (trial[s].feasible && Improves(trial[s].cost_usd, against)) best = s;
    }
    if (best >= 0) {
      incumbent = std::move(trial[best]);
      since_improvement = 0;
      if (options.on_improvement) options.on_improvement(incumbent.cost_usd, total.rounds);
    } else {
      since_improvement += rounds;
    }
    if (rounds == 0) break;  // no stream could run a round (deadline or good enough)
  }
  return total;
}

}  // namespace ckptdp::internal
