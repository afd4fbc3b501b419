#include "dispatch/internal/distributed_branch_and_bound.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "dispatch/internal/distributed.h"

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void PutDoubles(const std::vector<double>& v, BytesWriter& out) {
  out.Put<int>(static_cast<int>(v.size()));
  for (double x : v) out.Put<double>(x);
}

std::vector<double> GetDoubles(BytesReader& in) {
  std::vector<double> v(in.Get<int>());
  for (double& x : v) x = in.Get<double>();
  return v;
}

// What one rank reports after a round: its node's expansion (if it had a node), whether
// its clock has run out, and the cost of its incumbent (OfferedCost).
struct RoundReport {
  bool has_node = false;
  NodeExpansion expansion;
  bool deadline_passed = false;
  double offer = 0;
};

std::string PackReport(const RoundReport& report) {
  BytesWriter out;
  out.Put<double>(report.offer);
  out.Put<char>(report.deadline_passed ? 1 : 0);
  out.Put<char>(report.has_node ? 1 : 0);
  if (report.has_node) PackExpansion(report.expansion, out);
  return std::move(out.bytes());
}

RoundReport UnpackReport(const std::string& bytes) {
  BytesReader in(bytes);
  RoundReport report;
  report.offer = in.Get<double>();
  report.deadline_passed = in.Get<char>() != 0;
  report.has_node = in.Get<char>() != 0;
  if (report.has_node) report.expansion = UnpackExpansion(in);
  return report;
}

}  // namespace

namespace {

// A node as the round's Allgather carries it: everything but its id, which the receiving
// ranks give in the same order.
void PackNode(const BranchNode& node, BytesWriter& out) {
  out.Put<double>(node.bound);
  out.Put<int>(static_cast<int>(node.restrictions.size()));
  for (const SlotRestriction& r : node.restrictions) out.Put<SlotRestriction>(r);
  PutDoubles(node.multipliers.lambda, out);
  PutDoubles(node.multipliers.mu, out);
  out.Put<int>(static_cast<int>(node.prices.job.size()));
  for (const std::vector<double>& job : node.prices.job) PutDoubles(job, out);
  PutDoubles(node.prices.battery, out);
  PutDoubles(node.prices.contract, out);
  out.Put<int>(static_cast<int>(node.progress.size()));
  for (const ProgressRestriction& r : node.progress) out.Put<ProgressRestriction>(r);
  out.Put<int>(static_cast<int>(node.excluded.size()));
  for (const std::vector<char>& job : node.excluded) {
    out.Put<int>(static_cast<int>(job.size()));
    for (char x : job) out.Put<char>(x);
  }
}

BranchNode UnpackNode(BytesReader& in) {
  BranchNode node;
  node.bound = in.Get<double>();
  node.restrictions.resize(in.Get<int>());
  for (SlotRestriction& r : node.restrictions) r = in.Get<SlotRestriction>();
  node.multipliers.lambda = GetDoubles(in);
  node.multipliers.mu = GetDoubles(in);
  node.prices.job.resize(in.Get<int>());
  for (std::vector<double>& job : node.prices.job) job = GetDoubles(in);
  node.prices.battery = GetDoubles(in);
  node.prices.contract = GetDoubles(in);
  node.progress.resize(in.Get<int>());
  for (ProgressRestriction& r : node.progress) r = in.Get<ProgressRestriction>();
  node.excluded.resize(in.Get<int>());
  for (std::vector<char>& job : node.excluded) {
    job.resize(in.Get<int>());
    for (char& x : job) x = in.Get<char>();
  }
  return node;
}

}  // namespace

void PackExpansion(const NodeExpansion& e, BytesWriter& out) {
  out.Put<int>(static_cast<int>(e.kind));
  out.Put<double>(e.closed);
  if (e.kind != NodeExpansion::Kind::kBranched) return;
  out.Put<int>(static_cast<int>(e.children.size()));
  for (const BranchNode& child : e.children) PackNode(child, out);
}

NodeExpansion UnpackExpansion(BytesReader& in) {
  NodeExpansion e;
  e.kind = static_cast<NodeExpansion::Kind>(in.Get<int>());
  e.closed = in.Get<double>();
  if (e.kind != NodeExpansion::Kind::kBranched) return e;
  e.children.resize(in.Get<int>());
  for (BranchNode& child : e.children) child = UnpackNode(in);
  return e;
}

absl::Status AgreeOnRoot(const ScenarioContext& context, const Communicator& comm,
                         EngineOutcome& root) {
  BytesWriter out;
  if (comm.root()) {
    out.Put<double>(root.lower_bound);
    out.Put<char>(root.incumbent ? 1 : 0);
    if (root.incumbent) PackSchedule(root.incumbent->schedule, out);
  }
  comm.Broadcast(out.bytes(), 0);
  if (comm.root()) return absl::OkStatus();
  BytesReader in(out.bytes());
  root.lower_bound = in.Get<double>();
  root.incumbent.reset();
  if (in.Get<char>() == 0) return absl::OkStatus();
  CKPTDP_ASSIGN_OR_RETURN(Evaluated e, Evaluate(context, UnpackSchedule(in)));
  if (!e.feasible) {
    return absl::InternalError("rank 0's incumbent is infeasible on rank " +
                               std::to_string(comm.rank()) + ": " + e.violation);
  }
  root.incumbent = std::move(e);
  return absl::OkStatus();
}

absl::Status DistributedBestFirst(const ScenarioContext& context, const Communicator& comm,
                                  const SolveOptions& options, const Deadline& deadline,
                                  SolverLog& log, EngineOutcome& root, BranchNode first,
                                  double closed, const ExpandNode& expand) {
  const GapTarget gap{options.gap};
  const double root_bound = root.lower_bound;
  // The same list on every rank: open nodes by (bound, id), ties in creation order.
  std::map<std::pair<double, long>, BranchNode> open;
  open.emplace(std::make_pair(first.bound, first.id), std::move(first));
  long next_id = 1;
  double shared = root.incumbent->cost_usd;  // AgreeOnRoot made it the same everywhere
  const auto incumbent = [&] { return root.incumbent->cost_usd; };
  const auto global_bound = [&] {
    const double lowest_open = open.empty() ? kInf : open.begin()->first.first;
    return std::max(root_bound, std::min({lowest_open, closed, incumbent()}));
  };
  const auto log_row = [&](bool progress_point) {
    log.Offer({"b&b", root.iterations, root.nodes, static_cast<int>(open.size()), NAN,
               global_bound(), incumbent()},
              {}, progress_point);
  };
  // What the log's last note reports: this rank's node work against its waits and exchanges.
  using Clock = std::chrono::steady_clock;
  const Clock::time_point began = Clock::now();
  double node_seconds = 0;
  const std::int64_t bytes_at_start = comm.bytes_received();
  int rounds = 0;
  bool stopped_by_deadline = false;
  while (!open.empty() && !stopped_by_deadline) {
    if (gap.Closed(incumbent(), global_bound())) break;
    if (root.nodes >= options.max_nodes) break;
    comm.MaybeInjectFailure("branch-and-bound round", rounds + 1);
    // This round's nodes: the best bounds of the list, the i-th for rank i.
    const long take =
        std::min<long>({static_cast<long>(comm.size()), static_cast<long>(open.size()),
                        options.max_nodes - root.nodes});
    std::vector<BranchNode> nodes;
    for (long i = 0; i < take; ++i) nodes.push_back(std::move(open.extract(open.begin()).mapped()));
    RoundReport mine;
    if (comm.rank() < take) {
      const Clock::time_point node_began = Clock::now();
      mine.has_node = true;
      CKPTDP_ASSIGN_OR_RETURN(mine.expansion, expand(nodes[comm.rank()]));
      node_seconds += SecondsSince(node_began);
    }
    mine.deadline_passed = deadline.Passed();
    mine.offer = OfferedCost(root.incumbent);
    const std::vector<std::string> all = comm.Allgather(PackReport(mine));
    ++rounds;
    root.nodes += take;
    std::vector<double> offers;
    for (int r = 0; r < comm.size(); ++r) {
      const RoundReport report = UnpackReport(all[r]);
      offers.push_back(report.offer);
      stopped_by_deadline = stopped_by_deadline || report.deadline_passed;
      if (!report.has_node) continue;
      BranchNode& node = nodes[r];
      const NodeExpansion& e = report.expansion;
      if (e.kind == NodeExpansion::Kind::kOutOfTime) {
        stopped_by_deadline = true;
        open.emplace(std::make_pair(node.bound, node.id), std::move(node));
        continue;
      }
      if (e.kind == NodeExpansion::Kind::kInfeasible) continue;
      closed = std::min(closed, e.closed);  // pruned or fixed-out parts of the node
      for (BranchNode& child : ChildrenOf(e, next_id)) {
        open.emplace(std::make_pair(child.bound, child.id), std::move(child));
      }
    }
    CKPTDP_RETURN_IF_ERROR(AdoptCheapest(context, comm, offers, root.incumbent, shared).status());
    log_row(rounds % 100 == 0);
  }
  root.lower_bound = global_bound();
  log_row(true);
  const std::int64_t bytes = comm.bytes_received() - bytes_at_start;
  log.Note(absl::StrFormat(
      "distributed branch and bound: %d ranks, %d nodes in %d rounds; rank %d spent %.3f s "
      "of %.3f s on its nodes; %d bytes received (%d per round)",
      comm.size(), root.nodes, rounds, comm.rank(), node_seconds, SecondsSince(began), bytes,
      rounds > 0 ? bytes / rounds : 0));
  if (gap.Closed(incumbent(), root.lower_bound)) {
    root.status = SolveStatus::kOptimal;
  } else if (stopped_by_deadline) {
    root.status = deadline.Reason();
  } else if (root.nodes >= options.max_nodes) {
    root.status = SolveStatus::kNodeLimit;
  }
  return absl::OkStatus();
}

}  // namespace ckptdp::internal
