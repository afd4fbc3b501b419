// `ckptdp generate --jobs J --hours H [--step-minutes M] [--segments K] [--gpus N]
// [--seed S] -o FILE`: writes a generated instance (docs/generator.md).
#include <algorithm>
#include <iostream>
#include <memory>

#include "absl/strings/str_format.h"
#include "ckptdp/generate.h"
#include "ckptdp/instance.h"
#include "ckptdp/report.h"
#include "ckptdp/result.h"
#include "cli/commands.h"

namespace ckptdp::cli {
namespace {

struct GenerateArgs {
  GenerateOptions options;
  std::string output;
};

int RunGenerate(const GenerateArgs& args) {
  absl::StatusOr<Instance> instance = GenerateInstance(args.options);
  if (!instance.ok()) return ReportError(instance.status());
  if (absl::Status s = WriteFileAtomically(args.output, InstanceToJson(*instance)); !s.ok()) {
    return ReportError(s);
  }
  int first_release = instance->time.slots, last_deadline = 0;
  for (const Job& job : instance->jobs) {
    first_release = std::min(first_release, job.release_slot);
    last_deadline = std::max(last_deadline, job.deadline_slot);
  }
  std::cout << absl::StrFormat(
      "wrote %s: %d jobs, %d slots of %d min, %d GPUs, windows within slots [%d, %d)\n",
      args.output, static_cast<int>(instance->jobs.size()), instance->time.slots,
      instance->time.step_minutes, instance->site.gpu_capacity, first_release, last_deadline);
  return kExitSolved;
}

}  // namespace

Command AddGenerateCommand(CLI::App& parent) {
  auto args = std::make_shared<GenerateArgs>();
  GenerateOptions& o = args->options;
  CLI::App* app = parent.add_subcommand(
      "generate",
      "Write a generated instance: jobs from a zoo of published LLM architectures, a site "
      "scaled to them, the paper's day repeated with seeded variation (docs/generator.md)");
  app->add_option("--jobs", o.jobs, "Number of jobs, 1 to 100000")->required();
  app->add_option("--hours", o.hours, "Horizon in hours, 1 to 8784")->required();
  app->add_option("--step-minutes", o.step_minutes, "Slot length; must divide the horizon")
      ->capture_default_str();
  app->add_option("--segments", o.segments, "Checkpoint segments K of every job")
      ->capture_default_str();
  app->add_option("--gpus", o.gpus, "GPU capacity, a multiple of 8; 0 = scaled to the jobs")
      ->capture_default_str();
  app->add_option("--seed", o.seed, "Random seed: the same options give the same file")
      ->capture_default_str();
  app->add_option("-o,--output", args->output, "Instance JSON file to write (atomically)")
      ->required();
  return {app, [args]() { return RunGenerate(*args); }};
}

}  // namespace ckptdp::cli
