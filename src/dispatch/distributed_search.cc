#include "dispatch/internal/distributed_search.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "dispatch/internal/distributed.h"

namespace ckptdp::internal {
namespace {

// SplitMix64's finaliser: consecutive inputs give unrelated outputs.
std::uint64_t Mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::uint64_t BatchSeed(std::uint64_t seed, int rank, int batch) {
  return Mix(Mix(Mix(seed) ^ static_cast<std::uint64_t>(rank)) ^ static_cast<std::uint64_t>(batch));
}

int BatchRounds(int stall_rounds) { return std::clamp(stall_rounds / 4, 25, 500); }

absl::StatusOr<NeighbourhoodStats> DistributedNeighbourhoodSearch(
    const ScenarioContext& context, Workspaces& work, const Communicator& comm,
    std::optional<Evaluated>& incumbent, const Multipliers& prices,
    const NeighbourhoodOptions& options, const Deadline& deadline,
    const std::function<bool(double)>& good_enough, SearchTraffic& traffic) {
  NeighbourhoodStats total;
  const std::int64_t bytes_at_start = comm.bytes_received();
  // The ranks start from the same schedule (the cheapest, should their roots differ).
  double shared = std::numeric_limits<double>::infinity();
  CKPTDP_RETURN_IF_ERROR(ShareCheapest(context, comm, incumbent, shared).status());
  if (!incumbent) return total;
  NeighbourhoodOptions batch = options;
  batch.max_rounds = BatchRounds(options.stall_rounds);
  batch.stall_rounds = batch.max_rounds;
  // Every rank gets the single process's stall budget: the same wall clock, R times the
  // rounds (a portfolio that shares its best schedule, rather than one search split up).
  const long stall = static_cast<long>(options.stall_rounds) * comm.size();
  long since_improvement = 0;
  for (int b = 0; since_improvement < stall && !good_enough(shared); ++b) {
    batch.seed = BatchSeed(options.seed, comm.rank(), b);
    CKPTDP_ASSIGN_OR_RETURN(const NeighbourhoodStats mine,
                            ImproveByNeighbourhoodSearch(context, work, *incumbent, prices, batch,
                                                         deadline, good_enough));
    BytesWriter out;
    out.Put<NeighbourhoodStats>(mine);
    out.Put<char>(deadline.Passed() ? 1 : 0);
    out.Put<double>(OfferedCost(incumbent));
    const std::vector<std::string> all = comm.Allgather(out.bytes());
    bool out_of_time = false;
    int rounds = 0;
    std::vector<double> offers;
    for (const std::string& bytes : all) {
      BytesReader in(bytes);
      const NeighbourhoodStats theirs = in.Get<NeighbourhoodStats>();
      total += theirs;
      rounds += theirs.rounds;
      out_of_time = out_of_time || in.Get<char>() != 0;
      offers.push_back(in.Get<double>());
    }
    CKPTDP_ASSIGN_OR_RETURN(const bool improved,
                            AdoptCheapest(context, comm, offers, incumbent, shared));
    since_improvement = improved ? 0 : since_improvement + rounds;
    ++traffic.batches;
    traffic.shared += improved ? 1 : 0;
    traffic.bytes = comm.bytes_received() - bytes_at_start;
    // No rank could run a round (their clocks, or good enough): nothing will change.
    if (out_of_time || rounds == 0) break;
  }
  return total;
}

}  // namespace ckptdp::internal
