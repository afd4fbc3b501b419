// The tests that end a search, written once for every phase of the engine: when to stop
// (a deadline or a stop request), when the gap is closed, and how many threads to use.
#ifndef CKPTDP_DISPATCH_INTERNAL_STOP_RULES_H_
#define CKPTDP_DISPATCH_INTERNAL_STOP_RULES_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>

#include "ckptdp/engine.h"
#include "ckptdp/result.h"
#include "ckptdp/status.h"

namespace ckptdp::internal {

// A point in time after which a search stops, together with the caller's stop token
// (SolveOptions::stop): every place that checks the clock also sees an interrupt.
class Deadline {
 public:
  using Clock = std::chrono::steady_clock;
  Deadline(Clock::time_point at, const std::atomic<bool>* stop = nullptr)  // NOLINT: implicit
      : at_(at), stop_(stop) {}
  // The time limit `limit_s` seconds after `start`, with the options' stop token.
  static Deadline After(Clock::time_point start, double limit_s, const SolveOptions& options) {
    return Deadline(
        start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s)),
        options.stop);
  }

  bool StopRequested() const { return stop_ != nullptr && stop_->load(std::memory_order_relaxed); }
  bool Passed() const { return StopRequested() || Clock::now() >= at_; }
  // Why a search that found Passed() stopped.
  SolveStatus Reason() const {
    return StopRequested() ? SolveStatus::kInterrupted : SolveStatus::kTimeLimit;
  }
  Clock::time_point at() const { return at_; }
  // The same stop token with another time.
  Deadline At(Clock::time_point at) const { return Deadline(at, stop_); }
  Deadline Plus(Clock::duration extra) const { return Deadline(at_ + extra, stop_); }

 private:
  Clock::time_point at_;
  const std::atomic<bool>* stop_;
};

// The gap target (SolveOptions::gap) and the two forms of one test: whether a bound closes
// the gap to an incumbent (RelativeGap of ckptdp/result.h), and the cutoff, the bound at
// which it does, which prunes a branch-and-bound node (equal up to round-off).
struct GapTarget {
  double gap = 0;
  double Cutoff(double incumbent) const {
    return incumbent - gap * std::max(1.0, std::abs(incumbent));
  }
  bool Closed(double incumbent, double bound) const { return RelativeGap(incumbent, bound) <= gap; }
};

// Worker threads for `requested` (0 = all cores of the machine's TBB arena).
int ResolveThreads(int requested);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_STOP_RULES_H_
