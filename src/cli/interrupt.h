// A clean interrupt (docs/cli.md, "Interrupting a solve"): the first SIGINT or SIGTERM sets
// the engine's stop token, so the search stops at its next safe point and the best schedule
// found so far is checked, written and summarised with status `interrupted`. A second
// signal ends the process at once, with the signal's default action. In a distributed run
// (mpirun) no handler is installed: a signal ends the rank at once (docs/distributed.md).
#ifndef CKPTDP_CLI_INTERRUPT_H_
#define CKPTDP_CLI_INTERRUPT_H_

#include <atomic>

namespace ckptdp::cli {

// Installs the handler for SIGINT and SIGTERM (once per process) and returns the stop token
// to put in SolveOptions::stop.
const std::atomic<bool>* InstallInterruptHandler();

// True once a first signal has arrived.
bool Interrupted();

// The exit code after an interrupt: 128 + the signal number (130 for SIGINT, 143 for
// SIGTERM), as a shell reports a process that a signal ended.
int InterruptedExitCode();

}  // namespace ckptdp::cli

#endif  // CKPTDP_CLI_INTERRUPT_H_
