// What the ranks of a distributed branch and bound and neighbourhood search exchange.
#include "dispatch/internal/distributed_branch_and_bound.h"

#include <catch2/catch.hpp>
#include <set>

#include "dispatch/internal/distributed_search.h"

namespace ckptdp::internal {
namespace {

TEST_CASE("A branched node's expansion travels whole and its children follow from it") {
  NodeExpansion e;
  e.kind = NodeExpansion::Kind::kBranched;
  e.bound = 12.5;
  e.branches = {{1, 4, -1, 2}, {1, 4, 2, 3}};
  e.multipliers = {{0.1, 0.2, 0.3}, {0.0, 1.5, 0.0}};
  e.prices.job = {{1.0, 2.0}, {}, {3.0}};
  e.prices.battery = {4.0, 5.0};
  BytesWriter out;
  PackExpansion(e, out);
  BytesReader in(out.bytes());
  const NodeExpansion back = UnpackExpansion(in);
  CHECK(in.done());
  CHECK(back.kind == e.kind);
  CHECK(back.bound == e.bound);
  CHECK(back.branches == e.branches);
  CHECK(back.multipliers == e.multipliers);
  CHECK(back.prices.job == e.prices.job);
  CHECK(back.prices.battery == e.prices.battery);

  BranchNode parent{7, 10.0, {{0, 2, -1, 0}, {1, 4, -1, 3}}, {}, {}};
  long next_id = 20;
  const std::vector<BranchNode> children = ChildrenOf(parent, back, next_id);
  REQUIRE(children.size() == 2);
  CHECK(next_id == 22);
  CHECK(children[0].id == 20);
  CHECK(children[1].bound == 12.5);
  // The branch replaces the parent's range of (job 1, slot 4) and keeps the rest.
  CHECK(children[0].restrictions == std::vector<SlotRestriction>{{0, 2, -1, 0}, {1, 4, -1, 2}});
  CHECK(children[1].restrictions == std::vector<SlotRestriction>{{0, 2, -1, 0}, {1, 4, 2, 3}});
  CHECK(children[1].multipliers == e.multipliers);
}

TEST_CASE("A closed node carries its least cost and has no children") {
  NodeExpansion e;
  e.kind = NodeExpansion::Kind::kClosed;
  e.closed = 3.25;
  BytesWriter out;
  PackExpansion(e, out);
  BytesReader in(out.bytes());
  const NodeExpansion back = UnpackExpansion(in);
  CHECK(in.done());
  CHECK(back.kind == NodeExpansion::Kind::kClosed);
  CHECK(back.closed == 3.25);
  long next_id = 5;
  CHECK(ChildrenOf(BranchNode{}, back, next_id).empty());
  CHECK(next_id == 5);
}

TEST_CASE("Every rank and batch of the distributed search draws its own seed") {
  std::set<std::uint64_t> seeds;
  for (int rank = 0; rank < 8; ++rank) {
    for (int batch = 0; batch < 50; ++batch) seeds.insert(BatchSeed(1, rank, batch));
  }
  CHECK(seeds.size() == 400);
  CHECK(BatchSeed(1, 2, 3) == BatchSeed(1, 2, 3));
  CHECK(BatchSeed(1, 2, 3) != BatchSeed(2, 2, 3));
  CHECK(BatchRounds(100) == 25);
  CHECK(BatchRounds(1000) == 250);
  CHECK(BatchRounds(100000) == 500);
}

}  // namespace
}  // namespace ckptdp::internal
