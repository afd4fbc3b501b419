// One declaration per numeric or boolean instance field: JSON key, struct member, valid
// range and whether the file must give it. The JSON reader (types, required keys), the
// validator (ranges) and the writer all walk these tables, so each rule is written once;
// docs/instance-format.md lists the same ranges and tests/instance/instance_test.cc checks
// that it does. Fields that are neither numbers nor booleans (names, series, the
// activation schedule, kernel_efficiency, the baseline layout object) are handled by name
// in instance_json.cc and validate.cc.
#ifndef CKPTDP_INSTANCE_INTERNAL_FIELDS_H_
#define CKPTDP_INSTANCE_INTERNAL_FIELDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "absl/status/status.h"
#include "ckptdp/instance.h"
#include "instance/internal/messages.h"

namespace ckptdp::instance_internal {

// Limits that stop absurd sizes before a later stage allocates for them. They are far
// above any real case (the paper: 24 slots, 12 segments, 2048 GPUs, 2 jobs).
inline constexpr int kMaxSlots = 100'000;
inline constexpr int kMaxStepMinutes = 1440;  // one day
inline constexpr int kMaxJobs = 100'000;
inline constexpr int kMaxSegments = 1000;
inline constexpr int kMaxGpus = 10'000'000;  // also bounds p*q*d of a baseline layout
inline constexpr int kMaxGpusPerNode = 1024;
inline constexpr double kMaxOverheadMinutes = 10080;  // one week of restart overhead
inline constexpr double kMaxKw = 1e9;                 // any power (kW) or energy (kWh): 1 TW
inline constexpr double kMaxUsdPerMwh = 1e6;
inline constexpr std::size_t kMaxNameBytes = 256;
inline constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{128} << 20;  // 128 MiB

// A closed or half-open interval. Contains() is false for NaN and, as every bound is
// finite, for +-inf: the range check is also the finiteness check.
struct Bounds {
  double lo = 0;
  double hi = 0;
  bool lo_open = false;
  bool hi_open = false;

  bool Contains(double v) const {
    return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  }
};

constexpr Bounds Closed(double lo, double hi) { return {lo, hi, false, false}; }
constexpr Bounds OpenClosed(double lo, double hi) { return {lo, hi, true, false}; }  // (lo, hi]

template <class S>
struct Field {
  std::string_view key;
  std::variant<double S::*, int S::*, bool S::*> member;
  Bounds bounds = {};  // unused for booleans
  bool required = true;
};

inline std::string FormatBounds(const Bounds& b) {
  return Cat(b.lo_open ? "(" : "[", FormatNumber(b.lo), ", ", FormatNumber(b.hi),
             b.hi_open ? ")" : "]");
}

// What a value of the field must be, as it appears after "must be" in messages and in
// the "Range" column of docs/instance-format.md: "a number in (0, 1]", "an integer in
// [1, 1000]", "true or false".
template <class S>
std::string Expectation(const Field<S>& field) {
  if (std::holds_alternative<bool S::*>(field.member)) return "true or false";
  const char* kind = std::holds_alternative<int S::*>(field.member) ? "an integer" : "a number";
  return Cat(kind, " in ", FormatBounds(field.bounds));
}

template <class S>
absl::Status FieldError(std::string_view path, const Field<S>& field, std::string_view got) {
  return PathError(path, Cat("must be ", Expectation(field), ", got ", got));
}

// Range checks of every numeric field of `s`; `path` is the JSON path of `s`.
template <class S, std::size_t N>
absl::Status CheckFields(const S& s, std::string_view path, const Field<S> (&table)[N]) {
  for (const Field<S>& field : table) {
    double value = 0;
    if (auto* m = std::get_if<double S::*>(&field.member)) {
      value = s.**m;
    } else if (auto* m = std::get_if<int S::*>(&field.member)) {
      value = s.**m;
    } else {
      continue;  // a bool has no range
    }
    if (!field.bounds.Contains(value)) {
      return FieldError(JoinPath(path, field.key), field, FormatNumber(value));
    }
  }
  return absl::OkStatus();
}

// Per-slot series values. Prices may be negative (over-supplied markets pay consumers).
inline constexpr Bounds kPowerSeriesBounds = Closed(0, kMaxKw);  // pv_kw, wind_kw
inline constexpr Bounds kPriceSeriesBounds = Closed(-kMaxUsdPerMwh, kMaxUsdPerMwh);

// --- the tables, in the order of the struct members and of the file format ----------

inline constexpr Field<Site> kSiteFields[] = {
    {"gpu_peak_tflops", &Site::gpu_peak_tflops, OpenClosed(0, 1e6)},
    {"gpu_memory_gb", &Site::gpu_memory_gb, OpenClosed(0, 1e6)},
    {"gpu_train_power_kw", &Site::gpu_train_power_kw, OpenClosed(0, 1000)},
    {"gpus_per_node", &Site::gpus_per_node, Closed(1, kMaxGpusPerNode)},
    {"gpu_capacity", &Site::gpu_capacity, Closed(1, kMaxGpus)},
    {"pue", &Site::pue, Closed(1, 10)},
    {"base_load_kw", &Site::base_load_kw, Closed(0, kMaxKw)},
    // Must also exceed base_load_kw (validate.cc).
    {"site_power_cap_kw", &Site::site_power_cap_kw, OpenClosed(0, kMaxKw)},
};

inline constexpr Field<TimeGrid> kTimeFields[] = {
    {"step_minutes", &TimeGrid::step_minutes, Closed(1, kMaxStepMinutes)},
    {"slots", &TimeGrid::slots, Closed(1, kMaxSlots)},
};

inline constexpr Field<Costs> kCostsFields[] = {
    {"curtailment_usd_per_mwh", &Costs::curtailment_usd_per_mwh, Closed(0, kMaxUsdPerMwh)},
    {"battery_wear_usd_per_mwh", &Costs::battery_wear_usd_per_mwh, Closed(0, kMaxUsdPerMwh)},
};

// Every field is required when the section is present; the order of the state-of-charge
// bounds (soc_min <= soc_initial <= soc_max <= energy) is checked in validate.cc.
inline constexpr Field<Battery> kBatteryFields[] = {
    {"power_kw", &Battery::power_kw, Closed(0, kMaxKw)},
    {"energy_kwh", &Battery::energy_kwh, Closed(0, kMaxKw)},
    {"charge_efficiency", &Battery::charge_efficiency, OpenClosed(0, 1)},
    {"discharge_efficiency", &Battery::discharge_efficiency, OpenClosed(0, 1)},
    {"soc_min_kwh", &Battery::soc_min_kwh, Closed(0, kMaxKw)},
    {"soc_max_kwh", &Battery::soc_max_kwh, Closed(0, kMaxKw)},
    {"soc_initial_kwh", &Battery::soc_initial_kwh, Closed(0, kMaxKw)},
};

// All optional: an absent field keeps the ModelCoefficients default.
using MC = ModelCoefficients;
inline constexpr Field<MC> kModelFields[] = {
    {"activation_recomputation", &MC::activation_recomputation, {}, false},
    {"state_bytes_per_param", &MC::state_bytes_per_param, OpenClosed(0, 1000), false},
    {"optimizer_sharding", &MC::optimizer_sharding, {}, false},
    {"act_bytes_hidden", &MC::act_bytes_hidden, Closed(0, 1000), false},
    {"act_bytes_ffn", &MC::act_bytes_ffn, Closed(0, 1000), false},
    {"act_bytes_attention", &MC::act_bytes_attention, Closed(0, 1000), false},
    {"act_bytes_output", &MC::act_bytes_output, Closed(0, 1000), false},
    {"act_bytes_vocab", &MC::act_bytes_vocab, Closed(0, 1000), false},
    {"recompute_factor", &MC::recompute_factor, OpenClosed(0, 1), false},
    {"memory_reserved_gb", &MC::memory_reserved_gb, Closed(0, 1e6), false},
    {"memory_other_fraction", &MC::memory_other_fraction, Closed(0, 1), false},
    {"micro_batch_size", &MC::micro_batch_size, Closed(1, 1'000'000), false},
    {"tp_bandwidth_gb_per_s", &MC::tp_bandwidth_gb_per_s, OpenClosed(0, 1e6), false},
    {"dp_bandwidth_gb_per_s", &MC::dp_bandwidth_gb_per_s, OpenClosed(0, 1e6), false},
    {"pp_bandwidth_gb_per_s", &MC::pp_bandwidth_gb_per_s, OpenClosed(0, 1e6), false},
    {"dp_overlap", &MC::dp_overlap, Closed(0, 1), false},
    {"whole_nodes", &MC::whole_nodes, {}, false},
    {"comm_power_kw_per_gpu", &MC::comm_power_kw_per_gpu, Closed(0, 1000), false},
};
// kernel_efficiency is optional<double>: absent or null = calibrate per job.
inline constexpr Bounds kKernelEfficiencyBounds = OpenClosed(0, 1);

// Job fields other than name, baseline and initial. release_slot < deadline_slot <= time.slots
// and max_segments_per_run <= segments are checked in validate.cc.
inline constexpr Field<Job> kJobFields[] = {
    {"params", &Job::params, OpenClosed(0, 1e15)},
    {"tokens", &Job::tokens, OpenClosed(0, 1e17)},
    {"batch", &Job::batch, Closed(1, 1'000'000)},
    {"seq_len", &Job::seq_len, Closed(1, 10'000'000)},
    {"layers", &Job::layers, Closed(1, 100'000)},
    {"hidden", &Job::hidden, Closed(1, 1'000'000)},
    {"ffn_hidden", &Job::ffn_hidden, Closed(1, 10'000'000)},
    {"heads", &Job::heads, Closed(1, 100'000)},
    {"vocab", &Job::vocab, Closed(1, 100'000'000)},
    {"daily_ratio", &Job::daily_ratio, OpenClosed(0, 1)},
    {"release_slot", &Job::release_slot, Closed(0, kMaxSlots), false},
    {"deadline_slot", &Job::deadline_slot, Closed(1, kMaxSlots)},
    {"segments", &Job::segments, Closed(1, kMaxSegments)},
    {"boundary_idle_allowed", &Job::boundary_idle_allowed, {}, false},
    {"min_run_slots", &Job::min_run_slots, Closed(1, kMaxSlots), false},
    {"max_pauses", &Job::max_pauses, Closed(-1, kMaxSlots), false},
    {"max_segments_per_run", &Job::max_segments_per_run, Closed(0, kMaxSegments), false},
    {"resume_minutes", &Job::resume_minutes, Closed(0, kMaxOverheadMinutes), false},
    {"reshard_minutes", &Job::reshard_minutes, Closed(0, kMaxOverheadMinutes), false},
};

// The `initial` object of a job: "segment_fraction" here, "mode" read with kLayoutFields.
// Both are required when the object is present; release_slot must then be 0 (validate.cc).
inline constexpr Field<InitialRun> kInitialRunFields[] = {
    {"segment_fraction", &InitialRun::segment_fraction, {0, 1, false, true}},  // [0, 1)
};

inline constexpr Field<ParallelLayout> kLayoutFields[] = {
    {"p", &ParallelLayout::p, Closed(1, kMaxGpus)},
    {"q", &ParallelLayout::q, Closed(1, kMaxGpus)},
    {"d", &ParallelLayout::d, Closed(1, kMaxGpus)},
};

}  // namespace ckptdp::instance_internal

#endif  // CKPTDP_INSTANCE_INTERNAL_FIELDS_H_
