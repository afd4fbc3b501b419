// The processes of one run and the few collectives the engine needs (docs/distributed.md).
//
// One ckptdp binary runs alone or under mpirun / srun. Alone, or in a build without MPI,
// World() is a single process and every collective is a copy. Started by a launcher, the
// ranks of MPI_COMM_WORLD. Only src/comm/communicator.cc knows whether MPI is built in: the
// engine and the commands call these functions and never test for MPI themselves.
//
// Every collective must be called by every rank, in the same order (as in MPI).
#ifndef CKPTDP_COMMUNICATOR_H_
#define CKPTDP_COMMUNICATOR_H_

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ckptdp {

class Communicator {
 public:
  // The processes of this run: MPI_COMM_WORLD once a CommSession has started MPI, else one.
  static const Communicator& World();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }
  bool distributed() const { return size_ > 1; }

  // Every rank's `mine`, in rank order.
  std::vector<std::string> Allgather(const std::string& mine) const;
  // `bytes` of rank `from` on every rank.
  void Broadcast(std::string& bytes, int from) const;
  // Ends every rank of the run with `exit_code` after printing "ckptdp: <message>" (used
  // when one rank cannot go on: the others would otherwise wait in a collective forever).
  [[noreturn]] void Abort(int exit_code, std::string_view message) const;

  // Payload bytes this rank has received from collectives so far (docs/distributed.md
  // reports them per iteration).
  std::int64_t bytes_received() const { return bytes_received_; }
  std::int64_t collectives() const { return collectives_; }

  // The hidden test hook of tests/mpi: with CKPTDP_TEST_FAIL_RANK=r and
  // CKPTDP_TEST_FAIL_STEP=s in the environment, rank r of a distributed run dies at step s
  // of `where` (std::_Exit, no MPI_Finalize), as a crashed or killed process would. With
  // CKPTDP_TEST_FAIL_WHERE too, only at steps of that `where`.
  void MaybeInjectFailure(std::string_view where, int step) const;

  Communicator(int rank, int size) : rank_(rank), size_(size) {}

 private:
  int rank_ = 0;
  int size_ = 1;
  mutable std::int64_t bytes_received_ = 0;
  mutable std::int64_t collectives_ = 0;
};

// Starts MPI for the lifetime of main() when a launcher (mpirun, srun) started this
// process, as its environment says, and MPI is built in; finalises it at scope exit.
// Otherwise does nothing: a run without a launcher never touches MPI.
class CommSession {
 public:
  CommSession(int& argc, char**& argv);
  ~CommSession();
  CommSession(const CommSession&) = delete;
  CommSession& operator=(const CommSession&) = delete;

 private:
  bool started_ = false;
};

// Whether this build can run distributed (MPI found at configure time).
bool MpiBuiltIn();

// Plain values packed into bytes for the collectives. Both ends are the same binary on the
// same kind of machine, so the bytes are the values' own representation.
class BytesWriter {
 public:
  template <typename T>
  void Put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const char* p = reinterpret_cast<const char*>(&value);
    bytes_.append(p, sizeof(T));
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

class BytesReader {
 public:
  explicit BytesReader(std::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  T Get() {
    static_assert(std::is_trivially_copyable_v<T>);
    if (at_ + sizeof(T) > bytes_.size()) throw std::out_of_range("BytesReader: message too short");
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  bool done() const { return at_ >= bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t at_ = 0;
};

}  // namespace ckptdp

#endif  // CKPTDP_COMMUNICATOR_H_
