#include "dispatch/internal/distributed.h"

#include <limits>
#include <string>
#include <vector>

namespace ckptdp::internal {

const Communicator* DistributedComm(const SolveOptions& options) {
  return options.comm != nullptr && options.comm->distributed() ? options.comm : nullptr;
}

void PackSchedule(const Schedule& schedule, BytesWriter& out) {
  out.Put<int>(static_cast<int>(schedule.jobs.size()));
  for (const std::vector<Run>& runs : schedule.jobs) {
    out.Put<int>(static_cast<int>(runs.size()));
    for (const Run& run : runs) out.Put<Run>(run);
  }
}

Schedule UnpackSchedule(BytesReader& in) {
  Schedule schedule;
  schedule.jobs.resize(in.Get<int>());
  for (std::vector<Run>& runs : schedule.jobs) {
    runs.resize(in.Get<int>());
    for (Run& run : runs) run = in.Get<Run>();
  }
  return schedule;
}

namespace {

// Adopts `schedule` as the incumbent after evaluating it here; an error if it is not
// feasible, which would mean that the ranks disagree about the instance.
absl::Status Adopt(const ScenarioContext& c, Schedule schedule,
                   std::optional<Evaluated>& incumbent) {
  CKPTDP_ASSIGN_OR_RETURN(Evaluated e, Evaluate(c, std::move(schedule)));
  if (!e.feasible) {
    return absl::InternalError("a schedule received from another rank is infeasible here: " +
                               e.violation);
  }
  incumbent = std::move(e);
  return absl::OkStatus();
}

}  // namespace

double OfferedCost(const std::optional<Evaluated>& incumbent) {
  return incumbent ? incumbent->cost_usd : std::numeric_limits<double>::infinity();
}

absl::StatusOr<bool> AdoptCheapest(const ScenarioContext& c, const Communicator& comm,
                                   const std::vector<double>& offers,
                                   std::optional<Evaluated>& incumbent, double& shared) {
  int best = -1;
  double best_cost = shared;
  for (int r = 0; r < comm.size(); ++r) {
    // Strictly below: ranks only ever replace an incumbent by a cheaper one, so a rank that
    // differs from the shared incumbent is below it; the first such minimum wins ties.
    if (offers[r] < best_cost) {
      best = r;
      best_cost = offers[r];
    }
  }
  if (best < 0) return false;
  BytesWriter schedule;
  if (comm.rank() == best) PackSchedule(incumbent->schedule, schedule);
  comm.Broadcast(schedule.bytes(), best);
  if (comm.rank() != best) {
    BytesReader in(schedule.bytes());
    CKPTDP_RETURN_IF_ERROR(Adopt(c, UnpackSchedule(in), incumbent));
  }
  shared = best_cost;
  return true;
}

absl::StatusOr<bool> ShareCheapest(const ScenarioContext& c, const Communicator& comm,
                                   std::optional<Evaluated>& incumbent, double& shared) {
  BytesWriter out;
  out.Put<double>(OfferedCost(incumbent));
  std::vector<double> offers;
  for (const std::string& bytes : comm.Allgather(out.bytes())) {
    offers.push_back(BytesReader(bytes).Get<double>());
  }
  return AdoptCheapest(c, comm, offers, incumbent, shared);
}

bool AgreeWithLeader(const Communicator& comm, bool value) {
  std::string bytes(1, value ? '1' : '0');
  comm.Broadcast(bytes, 0);
  return bytes == "1";
}

absl::StatusOr<int> FollowLeader(const ScenarioContext& c, const Communicator& comm, int code,
                                 bool send, std::optional<Evaluated>& incumbent) {
  BytesWriter out;
  if (comm.root()) {
    out.Put<int>(code);
    out.Put<char>(send && incumbent ? 1 : 0);
    if (send && incumbent) PackSchedule(incumbent->schedule, out);
  }
  comm.Broadcast(out.bytes(), 0);
  if (comm.root()) return code;
  BytesReader in(out.bytes());
  const int leader_code = in.Get<int>();
  if (in.Get<char>() != 0) CKPTDP_RETURN_IF_ERROR(Adopt(c, UnpackSchedule(in), incumbent));
  return leader_code;
}

}  // namespace ckptdp::internal
