// What the ranks of a distributed branch and bound and neighbourhood search exchange.
#include "dispatch/internal/distributed_branch_and_bound.h"

#include <catch2/catch.hpp>
#include <set>

#include "dispatch/internal/distributed_search.h"

namespace ckptdp::internal {
namespace {

TEST_CASE("A branched node's expansion carries its children whole") {
  NodeExpansion e;
  e.kind = NodeExpansion::Kind::kBranched;
  e.closed = 13.0;  // e.g. a third child pruned by strong branching
  BranchNode left;
  left.bound = 12.5;
  left.restrictions = {{0, 2, -1, 0}, {1, 4, -1, 2}};
  left.multipliers = {{0.1, 0.2, 0.3}, {0.0, 1.5, 0.0}};
  left.prices.job = {{1.0, 2.0}, {}, {3.0}};
  left.prices.battery = {4.0, 5.0};
  left.prices.contract = {0.5};
  left.progress = {{1, 6, 2, 4}};
  left.excluded = {{0, 1, 0}, {}, {1}};
  BranchNode right = left;
  right.bound = 12.75;
  right.restrictions = {{0, 2, -1, 0}, {1, 4, 2, 3}};
  right.progress.clear();
  e.children = {left, right};
  BytesWriter out;
  PackExpansion(e, out);
  BytesReader in(out.bytes());
  const NodeExpansion back = UnpackExpansion(in);
  CHECK(in.done());
  CHECK(back.kind == e.kind);
  CHECK(back.closed == e.closed);
  REQUIRE(back.children.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const BranchNode& sent = e.children[i];
    const BranchNode& got = back.children[i];
    CHECK(got.bound == sent.bound);
    CHECK(got.restrictions == sent.restrictions);
    CHECK(got.multipliers == sent.multipliers);
    CHECK(got.prices.job == sent.prices.job);
    CHECK(got.prices.battery == sent.prices.battery);
    CHECK(got.prices.contract == sent.prices.contract);
    CHECK(got.progress == sent.progress);
    CHECK(got.excluded == sent.excluded);
  }

  // Every rank numbers the children in the same order.
  long next_id = 20;
  const std::vector<BranchNode> children = ChildrenOf(back, next_id);
  REQUIRE(children.size() == 2);
  CHECK(next_id == 22);
  CHECK(children[0].id == 20);
  CHECK(children[1].id == 21);
  CHECK(children[1].bound == 12.75);
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
  CHECK(ChildrenOf(back, next_id).empty());
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
