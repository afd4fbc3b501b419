// Instance generator (include/generate/ckptdp/generate.h). The rules and their reasons are in
// docs/generator.md; this file follows its sections: options, random numbers, jobs,
// baselines and site, series.
//
// The generator needs the workload and modes models to pick runnable baselines, so this
// one file of the instance stage calls the later stages' public API (workload.h, modes.h);
// nothing in those stages depends on it.
#include "ckptdp/generate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ckptdp/modes.h"
#include "ckptdp/workload.h"
#include "generate/internal/model_zoo.h"

namespace ckptdp {
namespace {

using instance_internal::ModelZoo;
using instance_internal::ZooModel;

// ---------------------------------------------------------------------------------------
// The paper's day and site (Table II), copied from instances/paper_2048gpu_series.csv so
// that `generate` works from any directory. Slot 0 is 00:00-01:00 local time.
constexpr std::array<double, 24> kPaperPvKw = {
    0.075293,    0.075293,    0.075293,    0.075293,    0.000000,    4.969312,
    201.407709,  635.770728,  873.845934,  958.775989,  1001.768065, 1035.047394,
    1053.569374, 1046.491870, 1038.134391, 1007.640887, 949.665584,  824.378695,
    514.700225,  124.759841,  10.465672,   3.086997,    3.312874,    3.312874};
constexpr std::array<double, 24> kPaperWindKw = {
    300.350024, 306.831908, 291.275387, 285.066424, 275.309483, 249.586639, 236.418181, 196.844575,
    173.032181, 134.209109, 99.684549,  75.940385,  82.899882,  96.750644,  142.192060, 182.584431,
    216.426687, 233.961888, 254.430995, 272.989651, 274.490719, 270.738050, 268.145296, 260.435266};
constexpr std::array<double, 24> kPaperPriceUsdPerMwh = {
    37.176278, 39.424257, 36.450820, 36.607241, 35.927010, 41.132608, 37.525512, 23.585736,
    11.853067, 10.852388, 9.002646,  13.119426, 13.189317, 12.870942, 14.811948, 19.160110,
    27.178222, 40.184056, 57.510968, 76.764077, 89.306589, 77.110766, 56.918677, 43.940347};
constexpr int kPaperGpus = 2048;
constexpr double kPaperBaseLoadKw = 375.0;
constexpr double kPaperBatteryKw = 300.0;
constexpr double kPaperBatteryKwh = 800.0;

// Baselines use at most 1/1.6 of the site at the busiest slot (the paper: 1280 of 2048).
constexpr int kCapacityOverPeakNum = 8;  // 1.6 = 8 / 5, in integers so rounding is exact
constexpr int kCapacityOverPeakDen = 5;
constexpr double kPowerCapHeadroom = 1.05;  // site cap: every GPU training, plus 5 %
// Calibrated eta_0 of every job lies in kEtaBand; the draw aims inside kEtaTarget so that
// rounding iterations to integers cannot leave the band.
constexpr double kEtaBandLo = 0.35, kEtaBandHi = 0.55;
constexpr double kEtaTargetLo = 0.38, kEtaTargetHi = 0.52;
// At least this many iterations in a window: keeps the integer rounding of I^day below
// 2.5 % of eta_0.
constexpr double kMinWindowIterations = 20;
// A window's tranche is at most this share of the run (r <= 0.8); longer tranches get a
// larger token target instead.
constexpr double kMaxDailyRatio = 0.8;
constexpr int kMaxJobAttempts = 1000;
// A few jobs on a large --gpus site: baselines grow at most this much beyond their
// natural size (a 1B model on thousands of GPUs would be no one's baseline).
constexpr double kMaxScaleUp = 4.0;

// ---------------------------------------------------------------------------------------
// Random numbers: xoshiro256** (Blackman and Vigna 2018) seeded with splitmix64. Only
// integer draws and k * 2^-53 doubles, so every platform gives the same numbers
// (std::uniform_real_distribution differs between standard libraries).
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& s : state_) s = SplitMix64(seed);
  }
  uint64_t Next() {
    const uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }
  double Uniform(double lo, double hi) {
    return lo + (hi - lo) * (static_cast<double>(Next() >> 11) * 0x1.0p-53);
  }
  // Uniform in [lo, hi], unbiased (rejection of the incomplete last block).
  int UniformInt(int lo, int hi) {
    const uint64_t range = static_cast<uint64_t>(static_cast<int64_t>(hi) - lo) + 1;
    const uint64_t max = std::numeric_limits<uint64_t>::max();
    const uint64_t limit = max - max % range;
    uint64_t x = Next();
    while (x >= limit) x = Next();
    return static_cast<int>(lo + static_cast<int64_t>(x % range));
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t SplitMix64(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::array<uint64_t, 4> state_;
};

// Independent streams, so that e.g. the series of a seed do not change with --jobs.
constexpr uint64_t kJobStream = 0x6a6f6273'00000001ULL;
constexpr uint64_t kSeriesStream = 0x73657269'00000002ULL;

double Round3(double x) { return std::round(x * 1000.0) / 1000.0; }

// ---------------------------------------------------------------------------------------
// Jobs.

struct LayoutChoice {
  ParallelLayout layout;
  double efficiency = 0;  // structural (eta / eta_0)
};
// Runnable layouts of one GPU count, most efficient first.
struct GpuGroup {
  int gpus = 0;
  std::vector<LayoutChoice> layouts;
};

struct JobPlan {
  const ZooModel* zoo = nullptr;
  Job job;                       // descriptor and window; baseline, tokens, r filled later
  double tokens_drawn = 0;       // published tokens times a factor
  std::vector<GpuGroup> groups;  // by increasing GPU count
  double natural_gpus = 0;       // baseline GPU target before the site scaling
  double target_eta = 0;
  int layout_rank = 0;  // 0 = the most efficient layout of the chosen GPU count
};

// Every runnable layout that fits in memory (the modes stage's FeasibleLayouts), grouped by
// GPU count, on an unbounded site. Baselines keep to power-of-two tensor parallelism, as
// operators' recipes do (the modes stage may still use q = 7 for a 56-head model; a
// baseline at q = 7 looks odd).
std::vector<GpuGroup> RunnableLayouts(const Job& job, const Site& site,
                                      const ModelCoefficients& model) {
  std::vector<GpuGroup> groups;
  for (const ParallelLayout& a : FeasibleLayouts(job, site, model)) {
    if ((a.q & (a.q - 1)) != 0) continue;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const GpuGroup& g) { return g.gpus == a.Gpus(); });
    if (it == groups.end()) it = groups.insert(groups.end(), GpuGroup{a.Gpus(), {}});
    it->layouts.push_back({a, StructuralEfficiency(job, site, model, a)});
  }
  std::sort(groups.begin(), groups.end(),
            [](const GpuGroup& x, const GpuGroup& y) { return x.gpus < y.gpus; });
  for (GpuGroup& g : groups) {
    std::stable_sort(
        g.layouts.begin(), g.layouts.end(),
        [](const LayoutChoice& x, const LayoutChoice& y) { return x.efficiency > y.efficiency; });
  }
  return groups;
}

// Segments a train edge may cover, and the window granularity that keeps the baseline
// runnable as back-to-back edges (see ChooseSegmentCap).
struct SegmentCap {
  int max_segments_per_run = 0;  // 0 = K
  int unit_slots = 1;
};

// Large instances cap train edges at (at most) 4 segments: a job's train edges grow with
// K x max_dk, and a week of 128 jobs with K = 24 would otherwise have ~6x more. The cap
// is the largest divisor m of K not above 4, and windows are whole multiples of K/m
// slots: the baseline covers m segments in exactly m W/K slots, so it still fills the
// window with edges of whole slots (eq. 24 rounds each edge up).
SegmentCap ChooseSegmentCap(const GenerateOptions& o, int total_slots) {
  const bool large = o.hours > 48 || o.jobs > 32;
  if (!large || o.segments <= 4) return {};
  int m = 4;
  while (o.segments % m != 0) --m;
  const int unit = o.segments / m;
  if (unit > total_slots) return {};  // a horizon too short for the cap: leave it off
  return {m, unit};
}

struct Window {
  int release = 0;
  int slots = 0;
};

// Under two days: windows of 35-100 % of the horizon, a quarter the whole horizon (the
// paper's day), released uniformly over the slots that leave room for the window. From
// two days: a third single-day windows (8-24 h), the rest multi-day (1-5 days), placed
// uniformly so that up to half a window may fall outside the horizon and is clipped: jobs
// already running at slot 0 and jobs due after the horizon keep the part inside, so the
// load does not ramp up from zero at the start of a week. Windows are whole `unit`s.
Window DrawWindow(Rng& rng, const GenerateOptions& o, int total_slots, int unit) {
  const double horizon_min = o.hours * 60.0;
  const int horizon_units = total_slots / unit;
  auto to_units = [&](double minutes) {
    const long units = std::lround(minutes / o.step_minutes / unit);
    return static_cast<int>(std::clamp<long>(units, 1, horizon_units));
  };
  Window w;
  if (o.hours < 48) {
    const double length_min =
        rng.UniformInt(0, 3) == 0 ? horizon_min : rng.Uniform(0.35, 1.0) * horizon_min;
    const int units = to_units(length_min);
    w.slots = units * unit;
    w.release = rng.UniformInt(0, horizon_units - units) * unit;
    return w;
  }
  const double length_min = rng.UniformInt(0, 2) == 0
                                ? rng.Uniform(8 * 60.0, 24 * 60.0)
                                : rng.Uniform(24 * 60.0, std::min(horizon_min, 120 * 60.0));
  const int units = to_units(length_min);
  const int start = rng.UniformInt(-(units / 2), horizon_units - (units + 1) / 2);
  const int end = std::min(horizon_units, start + units);
  w.release = std::max(0, start) * unit;
  w.slots = end * unit - w.release;
  return w;
}

Job Descriptor(const ZooModel& zoo, int batch) {
  Job job;
  job.params = zoo.params;
  job.batch = batch;
  job.seq_len = zoo.seq_len;
  job.layers = zoo.layers;
  job.hidden = zoo.hidden;
  job.ffn_hidden = zoo.ffn_hidden;
  job.heads = zoo.heads;
  job.vocab = zoo.vocab;
  return job;
}

// Draws one job: model, batch, tokens, window, GPU target, eta_0 target. A draw whose
// window holds fewer than kMinWindowIterations iterations on the model's smallest runnable
// baseline (a 70B model in a 20-minute window) is redrawn: scaling may shrink a baseline
// that far.
absl::StatusOr<JobPlan> DrawJob(Rng& rng, const GenerateOptions& o, int total_slots,
                                const SegmentCap& cap, const Site& site,
                                const ModelCoefficients& model) {
  const std::span<const ZooModel> zoo = ModelZoo();
  for (int attempt = 0; attempt < kMaxJobAttempts; ++attempt) {
    JobPlan plan;
    plan.zoo = &zoo[rng.UniformInt(0, static_cast<int>(zoo.size()) - 1)];
    // Batch: half, published (twice as likely) or double.
    constexpr int kBatchNum[] = {1, 2, 2, 4};
    int batch = plan.zoo->batch * kBatchNum[rng.UniformInt(0, 3)] / 2;
    // Token target: 0.5x to 2x the published run.
    constexpr double kTokenFactor[] = {0.5, 1.0, 1.0, 1.5, 2.0};
    plan.tokens_drawn = plan.zoo->tokens * kTokenFactor[rng.UniformInt(0, 4)];
    const Window window = DrawWindow(rng, o, total_slots, cap.unit_slots);
    int doublings = 0;
    while ((plan.zoo->min_gpus << (doublings + 1)) <= plan.zoo->max_gpus) ++doublings;
    // Jitter, so that jobs cross layout sizes at different scales (a smooth peak).
    plan.natural_gpus =
        (plan.zoo->min_gpus << rng.UniformInt(0, doublings)) * rng.Uniform(0.8, 1.25);
    plan.target_eta = rng.Uniform(kEtaTargetLo, kEtaTargetHi);
    plan.layout_rank = rng.UniformInt(0, 2);

    plan.job = Descriptor(*plan.zoo, batch);
    plan.job.release_slot = window.release;
    plan.job.deadline_slot = window.release + window.slots;
    plan.job.segments = o.segments;
    plan.job.max_segments_per_run = cap.max_segments_per_run;
    plan.job.boundary_idle_allowed = true;
    plan.groups = RunnableLayouts(plan.job, site, model);
    if (plan.groups.empty()) continue;

    const GpuGroup& smallest = plan.groups.front();
    double worst = 1.0;
    for (const LayoutChoice& c : smallest.layouts) worst = std::min(worst, c.efficiency);
    const double window_s = window.slots * o.step_minutes * 60.0;
    const double iterations = kEtaTargetLo * smallest.gpus * site.gpu_peak_tflops * 1e12 * worst *
                              window_s / FlopsPerIteration(plan.job, model);
    if (iterations >= kMinWindowIterations) return plan;
  }
  return absl::InvalidArgumentError(absl::StrFormat(
      "--hours/--step-minutes: no zoo model fits %d iterations in a window of this horizon",
      static_cast<int>(kMinWindowIterations)));
}

// The group whose GPU count is nearest `target` by ratio (ties: the smaller).
const GpuGroup& NearestGroup(const JobPlan& plan, double target) {
  const auto above =
      std::lower_bound(plan.groups.begin(), plan.groups.end(), target,
                       [](const GpuGroup& g, double value) { return g.gpus < value; });
  if (above == plan.groups.begin()) return *above;
  const auto below = std::prev(above);
  if (above == plan.groups.end()) return *below;
  return above->gpus / target < target / below->gpus ? *above : *below;
}

// Assigns each job the layout nearest scale x its natural GPU count; returns the peak of
// the baselines' GPUs summed over the jobs whose windows overlap.
int AssignBaselines(std::vector<JobPlan>& plans, double scale, int total_slots) {
  std::vector<int64_t> delta(total_slots + 1, 0);
  for (JobPlan& plan : plans) {
    const GpuGroup& g = NearestGroup(plan, plan.natural_gpus * scale);
    const int rank = std::min<int>(plan.layout_rank, static_cast<int>(g.layouts.size()) - 1);
    plan.job.baseline = g.layouts[rank].layout;
    delta[plan.job.release_slot] += g.gpus;
    delta[plan.job.deadline_slot] -= g.gpus;
  }
  int64_t running = 0, peak = 0;
  for (int t = 0; t < total_slots; ++t) {
    running += delta[t];
    peak = std::max(peak, running);
  }
  return static_cast<int>(peak);
}

// With --gpus, the baselines' GPU targets are scaled by the largest factor (at most
// kMaxScaleUp) that keeps their peak within capacity / 1.6; layouts come in discrete
// sizes, so the factor is found by bisection (the peak is non-decreasing in it). Without,
// the capacity follows from the natural baselines. Returns the capacity.
absl::StatusOr<int> ScaleBaselines(std::vector<JobPlan>& plans, const GenerateOptions& o,
                                   int total_slots) {
  if (o.gpus == 0) {
    const int64_t peak = AssignBaselines(plans, 1.0, total_slots);
    const int64_t wanted =
        (peak * kCapacityOverPeakNum + kCapacityOverPeakDen - 1) / kCapacityOverPeakDen;
    return static_cast<int>((wanted + 7) / 8 * 8);
  }
  const double budget = static_cast<double>(o.gpus) * kCapacityOverPeakDen / kCapacityOverPeakNum;
  double lo = 0, hi = kMaxScaleUp;
  if (AssignBaselines(plans, hi, total_slots) <= budget) {
    lo = hi;  // a roomy site: baselines grow at most kMaxScaleUp-fold
  } else {
    for (int i = 0; i < 50; ++i) {
      const double mid = 0.5 * (lo + hi);
      (AssignBaselines(plans, mid, total_slots) <= budget ? lo : hi) = mid;
    }
  }
  // At lo = 0 every job takes its smallest layout: the least the jobs can do with.
  const int peak = AssignBaselines(plans, lo, total_slots);
  if (peak > o.gpus) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--gpus: %d GPUs are too few for these %d jobs: their smallest runnable baselines "
        "need %d GPUs at the busiest slot (leave --gpus out to scale the site to the jobs)",
        o.gpus, o.jobs, peak));
  }
  return o.gpus;
}

// r and D: the window's iterations are those that make the calibrated eta_0 the target;
// a tranche above kMaxDailyRatio of the run raises the token target (whole billions).
void SetDailyRatio(JobPlan& plan, const Site& site, const ModelCoefficients& model,
                   const TimeGrid& time) {
  Job& job = plan.job;
  const double window_s = (job.deadline_slot - job.release_slot) * time.StepHours() * 3600.0;
  const double baseline_flops_per_s = job.baseline.Gpus() * site.gpu_peak_tflops * 1e12 *
                                      StructuralEfficiency(job, site, model, job.baseline);
  const double f_iter = FlopsPerIteration(job, model);
  const int64_t window_iterations = std::max<int64_t>(
      1, std::llround(plan.target_eta * baseline_flops_per_s * window_s / f_iter));
  const double tokens_per_iteration = static_cast<double>(job.batch) * job.seq_len;
  double tokens = plan.tokens_drawn;
  if (window_iterations > kMaxDailyRatio * RobustCeil(tokens / tokens_per_iteration)) {
    tokens = std::ceil(window_iterations / kMaxDailyRatio * tokens_per_iteration / 1e9) * 1e9;
  }
  job.tokens = tokens;
  const int64_t total_iterations = RobustCeil(tokens / tokens_per_iteration);
  job.daily_ratio = static_cast<double>(window_iterations) / static_cast<double>(total_iterations);
}

// ---------------------------------------------------------------------------------------
// Site and series.

Site ScaledSite(int capacity) {
  Site site;  // the paper's GPU (A100 80 GB), node size and PUE
  site.gpu_capacity = capacity;
  site.base_load_kw = Round3(kPaperBaseLoadKw * capacity / kPaperGpus);
  site.site_power_cap_kw =
      Round3(site.base_load_kw + site.pue * site.gpu_train_power_kw * capacity * kPowerCapHeadroom);
  return site;
}

Battery ScaledBattery(int capacity) {
  Battery b;
  b.power_kw = Round3(kPaperBatteryKw * capacity / kPaperGpus);
  b.energy_kwh = Round3(kPaperBatteryKwh * capacity / kPaperGpus);
  b.soc_max_kwh = b.energy_kwh;
  b.soc_min_kwh = Round3(0.1 * b.energy_kwh);
  b.soc_initial_kwh = Round3(0.5 * b.energy_kwh);
  return b;
}

// The paper day repeated, scaled to the site, each day with its own PV, wind and price
// level and hourly noise; each day draws the same count of numbers, so a shorter horizon
// is a prefix of a longer one. A slot is the time-weighted mean of the hours it overlaps
// (a 15-minute slot holds its hour's value).
Series MakeSeries(const GenerateOptions& o, int capacity, int total_slots) {
  Rng rng(o.seed ^ kSeriesStream);
  const double scale = static_cast<double>(capacity) / kPaperGpus;
  const int days = (o.hours + 23) / 24;
  std::vector<double> pv, wind, price;
  for (int day = 0; day < days; ++day) {
    const double pv_level = rng.Uniform(0.70, 1.15);    // clear to overcast days
    const double wind_level = rng.Uniform(0.60, 1.40);  // wind varies most day to day
    const double price_level = rng.Uniform(0.85, 1.20);
    for (int h = 0; h < 24; ++h) {
      pv.push_back(kPaperPvKw[h] * scale * pv_level * rng.Uniform(0.95, 1.05));
      wind.push_back(kPaperWindKw[h] * scale * wind_level * rng.Uniform(0.85, 1.15));
      price.push_back(kPaperPriceUsdPerMwh[h] * price_level * rng.Uniform(0.95, 1.05));
    }
  }
  auto per_slot = [&](const std::vector<double>& hourly) {
    std::vector<double> out(total_slots);
    for (int t = 0; t < total_slots; ++t) {
      const int begin = t * o.step_minutes, end = begin + o.step_minutes;
      double sum = 0;
      for (int h = begin / 60; h * 60 < end; ++h) {
        sum += hourly[h] * (std::min(end, (h + 1) * 60) - std::max(begin, h * 60));
      }
      out[t] = Round3(sum / o.step_minutes);
    }
    return out;
  };
  Series series;
  series.pv_kw = per_slot(pv);
  series.wind_kw = per_slot(wind);
  series.price_usd_per_mwh = per_slot(price);
  return series;
}

std::string JobName(int index, int jobs, const ZooModel& zoo) {
  const int width = static_cast<int>(absl::StrCat(jobs - 1).size());
  return absl::StrFormat("J%0*d-%s", width, index, zoo.name);
}

}  // namespace

absl::Status ValidateGenerateOptions(const GenerateOptions& o) {
  if (o.jobs < 1 || o.jobs > 100000) {
    return absl::InvalidArgumentError(absl::StrCat("--jobs: must be in [1, 100000], got ", o.jobs));
  }
  if (o.hours < 1 || o.hours > 24 * 366) {
    return absl::InvalidArgumentError(absl::StrCat("--hours: must be in [1, 8784], got ", o.hours));
  }
  if (o.step_minutes < 1 || o.step_minutes > 1440) {
    return absl::InvalidArgumentError(
        absl::StrCat("--step-minutes: must be in [1, 1440], got ", o.step_minutes));
  }
  if ((o.hours * 60) % o.step_minutes != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--step-minutes: must divide the horizon (--hours ", o.hours, " = ",
                     o.hours * 60, " minutes), got ", o.step_minutes));
  }
  if (o.hours * 60 / o.step_minutes > 100000) {
    return absl::InvalidArgumentError(absl::StrCat("--step-minutes: the horizon would have ",
                                                   o.hours * 60 / o.step_minutes,
                                                   " slots, more than an instance's 100000"));
  }
  if (o.segments < 1 || o.segments > 1000) {
    return absl::InvalidArgumentError(
        absl::StrCat("--segments: must be in [1, 1000], got ", o.segments));
  }
  if (o.gpus < 0 || o.gpus > 10000000 || o.gpus % 8 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--gpus: must be 0 (scaled to the jobs) or a multiple of 8 (whole 8-GPU nodes) in "
        "[8, 10000000], got ",
        o.gpus));
  }
  return absl::OkStatus();
}

absl::StatusOr<Instance> GenerateInstance(const GenerateOptions& o) {
  CKPTDP_RETURN_IF_ERROR(ValidateGenerateOptions(o));
  Instance instance;
  instance.name = absl::StrFormat("gen-j%d-h%d-m%d-k%d-g%d-s%d", o.jobs, o.hours, o.step_minutes,
                                  o.segments, o.gpus, o.seed);
  instance.time.step_minutes = o.step_minutes;
  instance.time.slots = o.hours * 60 / o.step_minutes;
  const int total_slots = instance.time.slots;

  // Layouts are enumerated on an unbounded site; the capacity comes from them.
  Site unbounded = ScaledSite(8);
  unbounded.gpu_capacity = 10000000;
  const SegmentCap cap = ChooseSegmentCap(o, total_slots);
  Rng rng(o.seed ^ kJobStream);
  std::vector<JobPlan> plans;
  plans.reserve(o.jobs);
  for (int j = 0; j < o.jobs; ++j) {
    CKPTDP_ASSIGN_OR_RETURN(JobPlan plan,
                            DrawJob(rng, o, total_slots, cap, unbounded, instance.model));
    plan.job.name = JobName(j, o.jobs, *plan.zoo);
    plans.push_back(std::move(plan));
  }
  CKPTDP_ASSIGN_OR_RETURN(const int capacity, ScaleBaselines(plans, o, total_slots));

  instance.site = ScaledSite(capacity);
  instance.battery = ScaledBattery(capacity);
  instance.series = MakeSeries(o, capacity, total_slots);
  for (JobPlan& plan : plans) {
    SetDailyRatio(plan, instance.site, instance.model, instance.time);
    instance.jobs.push_back(std::move(plan.job));
  }

  // Self-check: a generated instance that a later stage rejects is a generator bug.
  if (absl::Status s = ValidateInstance(instance); !s.ok()) {
    return absl::InternalError(absl::StrCat("generated instance is invalid: ", s.message()));
  }
  absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(instance);
  if (!modes.ok()) {
    return absl::InternalError(absl::StrCat("generated instance: ", modes.status().message()));
  }
  for (size_t j = 0; j < modes->size(); ++j) {
    const double eta = (*modes)[j].kernel_efficiency;
    if (eta < kEtaBandLo || eta > kEtaBandHi) {
      return absl::InternalError(
          absl::StrFormat("generated job %s has eta_0 %.4f outside [%.2f, %.2f]",
                          instance.jobs[j].name, eta, kEtaBandLo, kEtaBandHi));
    }
  }
  return instance;
}

}  // namespace ckptdp
