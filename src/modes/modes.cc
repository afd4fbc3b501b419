// Enumeration of feasible 3D modes, calibration of eta_0, and Pareto pruning (III-C, III-D).
#include <algorithm>
#include <cmath>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ckptdp/modes.h"
#include "modes/internal/iteration_time.h"

namespace ckptdp {
namespace {

std::vector<int> Divisors(int x) {
  std::vector<int> out;
  for (int i = 1; i <= x; ++i) {
    if (x % i == 0) out.push_back(i);
  }
  return out;
}

// Fills gpus, memory, structural efficiency and power; throughput needs eta_0.
Mode DescribeMode(const Job& job, const Site& site, const ModelCoefficients& model,
                  const ParallelLayout& a) {
  Mode m;
  m.layout = a;
  m.gpus = a.Gpus();
  m.memory_gb = ModeMemoryGb(job, model, a);
  const internal::IterationTime t = internal::ModelIterationTime(job, site, model, a);
  m.efficiency = t.compute_s / t.Total();  // structural; scaled by eta_0 below
  // eq. (13): P_comm models NICs and switches working in proportion to the time spent
  // communicating; its coefficient defaults to 0 (docs/model.md explains why).
  m.it_power_kw = m.gpus * site.gpu_train_power_kw +
                  model.comm_power_kw_per_gpu * m.gpus * t.CommunicationShare();
  return m;
}

}  // namespace

std::string LayoutDefect(const Job& job, const Site& site, const ModelCoefficients& model,
                         const ParallelLayout& a) {
  if (a.p < 1 || a.q < 1 || a.d < 1) return "p, q and d must be >= 1";
  if (job.layers % a.p != 0) return absl::StrCat("p=", a.p, " does not divide layers=", job.layers);
  if (job.heads % a.q != 0) return absl::StrCat("q=", a.q, " does not divide heads=", job.heads);
  if (job.hidden % a.q != 0) return absl::StrCat("q=", a.q, " does not divide hidden=", job.hidden);
  if (job.ffn_hidden % a.q != 0) {
    return absl::StrCat("q=", a.q, " does not divide ffn_hidden=", job.ffn_hidden);
  }
  if (a.q > site.gpus_per_node) {
    return absl::StrCat("q=", a.q, " exceeds gpus_per_node=", site.gpus_per_node,
                        " (tensor parallelism stays inside a node)");
  }
  if (job.batch % a.d != 0) return absl::StrCat("d=", a.d, " does not divide batch=", job.batch);
  if ((job.batch / a.d) % model.micro_batch_size != 0) {
    return absl::StrCat("batch/d=", job.batch / a.d,
                        " is not a multiple of micro_batch_size=", model.micro_batch_size);
  }
  const long long gpus = static_cast<long long>(a.p) * a.q * a.d;
  if (gpus > site.gpu_capacity) {
    return absl::StrCat("p*q*d=", gpus, " exceeds gpu_capacity=", site.gpu_capacity);
  }
  if (model.whole_nodes && gpus % site.gpus_per_node != 0) {
    return absl::StrCat("p*q*d=", gpus, " is not a whole number of ", site.gpus_per_node,
                        "-GPU nodes (model.whole_nodes)");
  }
  return "";
}

std::vector<int> ParetoPrune(std::vector<Mode>& modes) {
  std::vector<int> effective;
  for (size_t i = 0; i < modes.size(); ++i) {
    const Mode& a = modes[i];
    bool dominated = false;
    for (size_t j = 0; j < modes.size() && !dominated; ++j) {
      const Mode& b = modes[j];
      const bool no_worse = b.gpus <= a.gpus && b.it_power_kw <= a.it_power_kw &&
                            b.throughput_flops >= a.throughput_flops;
      const bool strictly_better = b.gpus < a.gpus || b.it_power_kw < a.it_power_kw ||
                                   b.throughput_flops > a.throughput_flops;
      dominated = no_worse && strictly_better;
    }
    modes[i].effective = !dominated;
    if (!dominated) effective.push_back(static_cast<int>(i));
  }
  return effective;
}

std::vector<ParallelLayout> FeasibleLayouts(const Job& job, const Site& site,
                                            const ModelCoefficients& model) {
  std::vector<ParallelLayout> out;
  // Computed once, not in the loop headers: Divisors is linear in its argument (batch up
  // to 10^6) and the inner loop runs once per (p, q).
  const std::vector<int> layer_divisors = Divisors(job.layers);
  const std::vector<int> head_divisors = Divisors(job.heads);
  const std::vector<int> batch_divisors = Divisors(job.batch);
  for (int p : layer_divisors) {
    for (int q : head_divisors) {
      if (q > site.gpus_per_node) break;
      for (int d : batch_divisors) {
        const ParallelLayout a{p, q, d};
        if (static_cast<long long>(p) * q * d > site.gpu_capacity) break;
        if (!LayoutDefect(job, site, model, a).empty()) continue;
        if (ModeMemoryGb(job, model, a) > site.gpu_memory_gb) continue;
        out.push_back(a);
      }
    }
  }
  return out;
}

absl::StatusOr<JobModes> BuildJobModes(const Instance& instance, int job_index) {
  const Job& job = instance.jobs[job_index];
  const Site& site = instance.site;
  const ModelCoefficients& model = instance.model;
  const std::string where = absl::StrCat("jobs[", job_index, "]");

  const std::string baseline_defect = LayoutDefect(job, site, model, job.baseline);
  if (!baseline_defect.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ".baseline: ", baseline_defect));
  }
  const double baseline_memory = ModeMemoryGb(job, model, job.baseline);
  if (baseline_memory > site.gpu_memory_gb) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.baseline: (p,q,d)=(%d,%d,%d) needs %.1f GB per GPU, more than gpu_memory_gb=%g", where,
        job.baseline.p, job.baseline.q, job.baseline.d, baseline_memory, site.gpu_memory_gb));
  }

  if (job.initial.has_value()) {
    // A job cannot be running now in a layout it could not run in.
    const ParallelLayout& a = job.initial->mode;
    const std::string initial_defect = LayoutDefect(job, site, model, a);
    if (!initial_defect.empty()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s.initial.mode: (p,q,d)=(%d,%d,%d) is not a feasible mode of job %s: %s", where, a.p,
          a.q, a.d, job.name, initial_defect));
    }
    const double memory = ModeMemoryGb(job, model, a);
    if (memory > site.gpu_memory_gb) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s.initial.mode: (p,q,d)=(%d,%d,%d) is not a feasible mode of job %s: it needs %.1f "
          "GB per GPU, more than gpu_memory_gb=%g",
          where, a.p, a.q, a.d, job.name, memory, site.gpu_memory_gb));
    }
  }

  JobModes out;
  out.workload = ComputeWorkload(job, model);
  const std::vector<ParallelLayout> layouts = FeasibleLayouts(job, site, model);
  out.feasible.reserve(layouts.size());  // no doubling slack: fleets keep every job's modes
  for (const ParallelLayout& a : layouts) {
    Mode m = DescribeMode(job, site, model, a);
    m.baseline = (a == job.baseline);
    out.feasible.push_back(m);
  }

  // eta_0: given, or calibrated so that the baseline completes C_j exactly in the job's
  // window (the paper's fixed baseline trains for the whole day).
  const Mode base = DescribeMode(job, site, model, job.baseline);
  const double window_s =
      (job.deadline_slot - job.release_slot) * instance.time.StepHours() * 3600.0;
  const double baseline_peak = base.gpus * site.gpu_peak_tflops * 1e12 * base.efficiency;
  out.kernel_efficiency = model.kernel_efficiency.has_value()
                              ? *model.kernel_efficiency
                              : out.workload.compute_flops / (baseline_peak * window_s);
  if (out.kernel_efficiency > 1.0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s.baseline: (p,q,d)=(%d,%d,%d) cannot deliver %.4g FLOP in %g h even at 100%% kernel "
        "efficiency (needs eta_0=%.3f); use a larger baseline or a later deadline",
        where, job.baseline.p, job.baseline.q, job.baseline.d, out.workload.compute_flops,
        window_s / 3600.0, out.kernel_efficiency));
  }
  for (Mode& m : out.feasible) {
    m.efficiency *= out.kernel_efficiency;
    m.throughput_flops = m.gpus * site.gpu_peak_tflops * 1e12 * m.efficiency;
  }

  std::sort(out.feasible.begin(), out.feasible.end(), [](const Mode& x, const Mode& y) {
    return std::make_tuple(x.gpus, x.it_power_kw, -x.throughput_flops, x.layout.p, x.layout.q,
                           x.layout.d) < std::make_tuple(y.gpus, y.it_power_kw, -y.throughput_flops,
                                                         y.layout.p, y.layout.q, y.layout.d);
  });
  out.effective = ParetoPrune(out.feasible);
  for (size_t i = 0; i < out.feasible.size(); ++i) {
    if (out.feasible[i].baseline) out.baseline = static_cast<int>(i);
    if (job.initial.has_value() && out.feasible[i].layout == job.initial->mode) {
      out.initial = static_cast<int>(i);
    }
  }
  return out;
}

absl::StatusOr<std::vector<JobModes>> BuildAllModes(const Instance& instance) {
  std::vector<JobModes> all;
  all.reserve(instance.jobs.size());
  for (size_t j = 0; j < instance.jobs.size(); ++j) {
    CKPTDP_ASSIGN_OR_RETURN(JobModes m, BuildJobModes(instance, static_cast<int>(j)));
    all.push_back(std::move(m));
  }
  return all;
}

}  // namespace ckptdp
