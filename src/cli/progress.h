// Progress lines on stderr for the commands that run many solves (`scenarios`, `sweep`),
// throttled like the solver log: at most once a second, and once the run has gone on a
// while at most once per half of the time elapsed. Silent at --log-level 0.
#ifndef CKPTDP_CLI_PROGRESS_H_
#define CKPTDP_CLI_PROGRESS_H_

#include <algorithm>
#include <chrono>
#include <iostream>
#include <limits>
#include <string>

namespace ckptdp::cli {

class ProgressLines {
 public:
  explicit ProgressLines(int log_level) : on_(log_level > 0) {}

  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  // Prints `text` as a line unless the throttle holds it back; `last` lines always print.
  void Print(const std::string& text, bool last = false) {
    if (!on_) return;
    const double now_s = Seconds();
    if (!last && now_s - shown_s_ < std::max(1.0, 0.5 * now_s)) return;
    shown_s_ = now_s;
    std::cerr << text << "\n" << std::flush;
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double shown_s_ = -std::numeric_limits<double>::infinity();
};

}  // namespace ckptdp::cli

#endif  // CKPTDP_CLI_PROGRESS_H_
