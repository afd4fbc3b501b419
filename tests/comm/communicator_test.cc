// The single-process communicator (what every run without mpirun uses) and the byte
// packing of the collectives. The distributed runs themselves: tests/mpi/mpi_test.py.
#include "ckptdp/communicator.h"

#include <catch2/catch.hpp>
#include <string>

namespace ckptdp {
namespace {

TEST_CASE("Without a launcher the world is one process whose collectives copy") {
  const Communicator& world = Communicator::World();
  CHECK(world.size() == 1);
  CHECK(world.rank() == 0);
  CHECK(world.root());
  CHECK_FALSE(world.distributed());
  const std::vector<std::string> all = world.Allgather("plans");
  REQUIRE(all.size() == 1);
  CHECK(all[0] == "plans");
  std::string message = "decision";
  world.Broadcast(message, 0);
  CHECK(message == "decision");
}

TEST_CASE("Bytes read back as they were written, and a short message is an error") {
  BytesWriter out;
  out.Put<int>(-7);
  out.Put<double>(0.1);
  out.Put<char>(1);
  BytesReader in(out.bytes());
  CHECK(in.Get<int>() == -7);
  CHECK(in.Get<double>() == 0.1);
  CHECK(in.Get<char>() == 1);
  CHECK(in.done());
  CHECK_THROWS_AS(in.Get<int>(), std::out_of_range);
}

}  // namespace
}  // namespace ckptdp
