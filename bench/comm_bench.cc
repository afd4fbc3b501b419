// Latency of the collectives a distributed solve makes every iteration (docs/distributed.md):
// Allgather of the jobs' plans and Broadcast of rank 0's decision. Not a Google Benchmark:
// every rank must make the same calls in the same order, so the repetitions are fixed.
//
//   mpirun -n 2 build/comm_bench        (alone: one process, the collectives are copies)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "ckptdp/communicator.h"

int main(int argc, char** argv) {
  ckptdp::CommSession session(argc, argv);
  const ckptdp::Communicator& comm = ckptdp::Communicator::World();
  using Clock = std::chrono::steady_clock;
  constexpr int kRepetitions = 2000;
  if (comm.root()) {
    std::printf("%d ranks, %d repetitions, median of 5 blocks\n", comm.size(), kRepetitions);
  }
  // Bytes each rank sends: a decision, an iteration's plans of a few dozen jobs, of a few
  // hundred, and of thousands.
  for (const size_t bytes : {16, 1024, 16384, 262144}) {
    const std::string mine(bytes, static_cast<char>('a' + comm.rank()));
    std::vector<double> allgather_us, broadcast_us;
    for (int block = 0; block < 5; ++block) {
      Clock::time_point start = Clock::now();
      for (int i = 0; i < kRepetitions / 5; ++i) comm.Allgather(mine);
      allgather_us.push_back(
          std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
          (kRepetitions / 5));
      std::string message = mine;
      start = Clock::now();
      for (int i = 0; i < kRepetitions / 5; ++i) comm.Broadcast(message, 0);
      broadcast_us.push_back(
          std::chrono::duration<double, std::micro>(Clock::now() - start).count() /
          (kRepetitions / 5));
    }
    std::sort(allgather_us.begin(), allgather_us.end());
    std::sort(broadcast_us.begin(), broadcast_us.end());
    if (comm.root()) {
      std::printf("%8zu bytes per rank: Allgather %9.1f us, Broadcast %9.1f us\n", bytes,
                  allgather_us[2], broadcast_us[2]);
    }
  }
  return 0;
}
