#include "cli/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include "ckptdp/communicator.h"

namespace ckptdp::cli {
namespace {

// A signal handler may only touch lock-free atomics (and call async-signal-safe functions).
static_assert(std::atomic<bool>::is_always_lock_free);
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<bool> stop_requested{false};
std::atomic<int> first_signal{0};

extern "C" void OnStopSignal(int signal_number) {
  if (stop_requested.load()) {
    // The second signal: give up at once, the way the signal would have without a handler.
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(signal_number, &dfl, nullptr);
    raise(signal_number);
    return;
  }
  first_signal.store(signal_number);
  stop_requested.store(true);
  // write() is async-signal-safe; iostreams are not.
  static const char kMessage[] =
      "\nckptdp: interrupted; stopping at the next safe point (interrupt again to abort)\n";
  const ssize_t written = write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  (void)written;
}

}  // namespace

const std::atomic<bool>* InstallInterruptHandler() {
  // Under mpirun a signal means the run is being torn down (Ctrl-C, or a rank that failed):
  // the default action ends this rank at once, before it can write anything. A graceful
  // stop would let rank 0 write a result that the failed run never finished.
  if (Communicator::World().distributed()) return &stop_requested;
  static const bool installed = [] {
    struct sigaction action = {};
    action.sa_handler = OnStopSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;  // writes in progress (the log, a result file) go on
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    return true;
  }();
  (void)installed;
  return &stop_requested;
}

bool Interrupted() { return stop_requested.load(); }

int InterruptedExitCode() { return 128 + first_signal.load(); }

}  // namespace ckptdp::cli
