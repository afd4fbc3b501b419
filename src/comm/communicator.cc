// The only file that knows whether MPI is built in (CKPTDP_HAVE_MPI): without it, or
// without a launcher, World() is one process and the collectives copy.
#include "ckptdp/communicator.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#ifdef CKPTDP_HAVE_MPI
// The C API only: Open MPI's and MPICH's deprecated C++ bindings would come with mpi.h.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace ckptdp {
namespace {

Communicator& MutableWorld() {
  static Communicator world(0, 1);
  return world;
}

// Whether a launcher started this process: Open MPI's mpirun, PMIx (srun --mpi=pmix,
// prterun) or PMI-1/2 (srun, MPICH's Hydra). A plain `ckptdp ...` has none of these, and then
// MPI is never initialised: no start-up cost, no change at all.
bool LaunchedByMpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

#ifdef CKPTDP_HAVE_MPI
// Waits for a non-blocking collective: polls for 20 us (a collective whose peers are
// ready completes within that), then with 50 us sleeps. A blocking MPI call spins at full
// speed: a rank that finished its share (of a sweep, or of an iteration's jobs) would burn
// a core that the ranks still working on the same machine need.
void WaitSleeping(MPI_Request& request) {
  int done = 0;
  const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(20);
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  while (done == 0 && std::chrono::steady_clock::now() < spin_until) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  }
  while (done == 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  }
}
#endif

}  // namespace

const Communicator& Communicator::World() { return MutableWorld(); }

bool MpiBuiltIn() {
#ifdef CKPTDP_HAVE_MPI
  return true;
#else
  return false;
#endif
}

CommSession::CommSession(int& argc, char**& argv) {
#ifdef CKPTDP_HAVE_MPI
  if (!LaunchedByMpi()) return;
  // FUNNELED: only the main thread calls MPI; the TBB workers solve jobs and never do.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  started_ = true;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MutableWorld() = Communicator(rank, size);
#else
  (void)argc;
  (void)argv;
  if (LaunchedByMpi()) {
    std::cerr << "ckptdp: started by an MPI launcher, but this build has no MPI support; "
                 "every rank runs the whole command alone\n";
  }
#endif
}

CommSession::~CommSession() {
#ifdef CKPTDP_HAVE_MPI
  if (started_) MPI_Finalize();
#endif
}

std::vector<std::string> Communicator::Allgather(const std::string& mine) const {
  ++collectives_;
  if (size_ == 1) {
    bytes_received_ += static_cast<std::int64_t>(mine.size());
    return {mine};
  }
#ifdef CKPTDP_HAVE_MPI
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(size_), offsets(size_);
  MPI_Request request;
  MPI_Iallgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD, &request);
  WaitSleeping(request);
  int total = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(total, '\0');
  MPI_Iallgatherv(mine.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(),
                  MPI_BYTE, MPI_COMM_WORLD, &request);
  WaitSleeping(request);
  bytes_received_ += total + static_cast<std::int64_t>(size_) * sizeof(int);
  std::vector<std::string> out(size_);
  for (int r = 0; r < size_; ++r) out[r] = all.substr(offsets[r], lengths[r]);
  return out;
#else
  return {mine};
#endif
}

void Communicator::Broadcast(std::string& bytes, int from) const {
  ++collectives_;
  if (size_ == 1) return;
#ifdef CKPTDP_HAVE_MPI
  int length = static_cast<int>(bytes.size());
  MPI_Request request;
  MPI_Ibcast(&length, 1, MPI_INT, from, MPI_COMM_WORLD, &request);
  WaitSleeping(request);
  bytes.resize(length);
  MPI_Ibcast(bytes.data(), length, MPI_BYTE, from, MPI_COMM_WORLD, &request);
  WaitSleeping(request);
  bytes_received_ += length + static_cast<std::int64_t>(sizeof(int));
#else
  (void)bytes;
  (void)from;
#endif
}

void Communicator::Abort(int exit_code, std::string_view message) const {
  std::cerr << "ckptdp: " << (size_ > 1 ? "rank " + std::to_string(rank_) + ": " : "") << message
            << "\n"
            << std::flush;
#ifdef CKPTDP_HAVE_MPI
  if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, exit_code);
#endif
  std::_Exit(exit_code);
}

void Communicator::MaybeInjectFailure(std::string_view where, int step) const {
  if (size_ == 1) return;
  const char* rank = std::getenv("CKPTDP_TEST_FAIL_RANK");
  const char* at = std::getenv("CKPTDP_TEST_FAIL_STEP");
  if (rank == nullptr || at == nullptr || std::atoi(rank) != rank_ || std::atoi(at) != step) return;
  // Optional: only at this kind of step (e.g. "branch-and-bound round").
  if (const char* only = std::getenv("CKPTDP_TEST_FAIL_WHERE"); only != nullptr && where != only) {
    return;
  }
  std::cerr << "ckptdp: rank " << rank_ << ": injected failure (CKPTDP_TEST_FAIL_RANK) at " << where
            << " " << step << "\n"
            << std::flush;
  std::_Exit(3);
}

}  // namespace ckptdp
