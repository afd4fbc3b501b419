// Instance: everything a dispatch problem is made of, as read from one JSON file.
//
// Units are part of every field name. The file format is documented field by field in
// docs/instance-format.md; this header is its in-memory form. Loading validates every
// field and reports the first problem with its JSON path ("jobs[1].layers: must be > 0").
#ifndef CKPTDP_INSTANCE_H_
#define CKPTDP_INSTANCE_H_

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckptdp/status.h"

namespace ckptdp {

// The AI data center: GPU pool and facility (Table II).
struct Site {
  double gpu_peak_tflops = 312.0;     // R_g, dense BF16 peak per GPU
  double gpu_memory_gb = 80.0;        // M_g^cap
  double gpu_train_power_kw = 0.4;    // P_g^train, IT power of one training GPU
  int gpus_per_node = 8;              // NVLink domain; bounds tensor parallelism
  int gpu_capacity = 2048;            // N_GPU^max, shared by all jobs in every slot
  double pue = 1.25;                  // multiplies training IT power only (see docs/model.md)
  double base_load_kw = 375.0;        // site-level base load, not multiplied by PUE
  double site_power_cap_kw = 1500.0;  // P^AIDC,max
};

struct TimeGrid {
  int step_minutes = 60;  // Delta t
  int slots = 24;         // T
  double StepHours() const { return step_minutes / 60.0; }
};

// Per-slot exogenous series, each of length TimeGrid::slots.
struct Series {
  std::vector<double> pv_kw;
  std::vector<double> wind_kw;
  std::vector<double> price_usd_per_mwh;
  // Optional columns of the grid contract (docs/instance-format.md): empty = absent.
  std::vector<double> import_cap_kw;              // time-varying import limit (a DR event)
  std::vector<double> export_price_usd_per_mwh;   // export allowed, at this price
  std::vector<double> carbon_g_per_kwh;           // grid intensity, average basis (priced)
  std::vector<double> carbon_marginal_g_per_kwh;  // grid intensity, marginal basis (reported)
  std::string csv_path;  // set when the series came from a CSV file (informational)
};

struct Costs {
  double curtailment_usd_per_mwh = 20.83;   // c^cur
  double battery_wear_usd_per_mwh = 20.83;  // c^bat, on charge + discharge energy
};

// The site's grid connection and tariff beyond the energy price (issue #19). Every field is
// optional in the file; the defaults are the paper's model: no charge, no cap, no export.
struct GridContract {
  double demand_charge_usd_per_kw = 0;  // on the horizon's peak grid import above peak_so_far
  double peak_so_far_kw = 0;            // the billing period's peak already reached
  double grid_import_cap_kw = 1e9;      // connection import limit (1e9 = none)
  double grid_export_cap_kw = 1e9;      // connection export limit (1e9 = none)
  double carbon_price_usd_per_t = 0;    // on carbon_g_per_kwh x grid import
  bool renewable_first = false;         // never import while curtailing in the same slot
  double min_green_share_pct = 0;       // floor on the horizon's green share (0 = none)
  friend bool operator==(const GridContract&, const GridContract&) = default;
};

struct Battery {
  double power_kw = 300.0;  // P^ch,max = P^dis,max
  double energy_kwh = 800.0;
  double charge_efficiency = 0.95;     // eta^ch
  double discharge_efficiency = 0.95;  // eta^dis
  double soc_min_kwh = 80.0;           // E^min
  double soc_max_kwh = 800.0;          // E^max
  double soc_initial_kwh = 400.0;      // E_0 = E_T
};

// How activations are held in memory while a pipeline runs (docs/model.md, eq. 11).
enum class ActivationSchedule {
  kOneFOneB,  // 1F1B: min(p, m) micro-batches in flight on the first stage
  kGPipe,     // all B/d samples of the replica in flight (eq. 11 read literally)
};

// Coefficients of the workload, memory, efficiency and power models. Every default
// is documented with its source in docs/model.md.
struct ModelCoefficients {
  bool activation_recomputation = true;  // chi_F = 96 if true, 72 if false (eq. 5)
  double state_bytes_per_param = 16.0;   // omega_s: fp16 weights+grads, fp32 Adam states
  bool optimizer_sharding = false;       // ZeRO-1: fp32 optimizer states split over d
  double act_bytes_hidden = 18.0;        // lambda_h (Korthikanti et al. 2023)
  double act_bytes_ffn = 4.0;            // lambda_f
  double act_bytes_attention = 5.0;      // lambda_a, per s^2 per head
  double act_bytes_output = 4.0;         // lambda_o, final layer norm and logits input
  double act_bytes_vocab = 4.0;          // lambda_v, fp32 logits
  double recompute_factor = 0.06;        // rho^rec: share of per-layer activations kept
  double memory_reserved_gb = 4.0;       // M_0: CUDA context, workspace
  double memory_other_fraction = 0.10;   // delta^other: fragmentation, buffers
  int micro_batch_size = 1;              // b, sequences per micro-batch
  ActivationSchedule activation_schedule = ActivationSchedule::kOneFOneB;
  double tp_bandwidth_gb_per_s = 150.0;  // intra-node all-reduce bus bandwidth (NVLink)
  double dp_bandwidth_gb_per_s = 12.5;   // inter-node bandwidth per GPU (InfiniBand)
  double pp_bandwidth_gb_per_s = 12.5;   // inter-stage point-to-point bandwidth per GPU
  double dp_overlap = 0.5;               // share of gradient all-reduce hidden by backward
  bool whole_nodes = true;               // a mode occupies whole nodes (n % gpus_per_node)
  double comm_power_kw_per_gpu = 0.0;    // P_comm = this * n * (communication share)
  // Kernel efficiency eta_0; when absent it is calibrated per job so that the baseline
  // mode completes the job's compute exactly in its window (docs/model.md).
  std::optional<double> kernel_efficiency;
};

// 3D-parallel layout a = (p, q, d): pipeline, tensor, data parallel degrees.
struct ParallelLayout {
  int p = 1;
  int q = 1;
  int d = 1;
  int Gpus() const { return p * q * d; }
  friend bool operator==(const ParallelLayout&, const ParallelLayout&) = default;
};

// A job already running when the horizon starts (docs/instance-format.md, `initial`): in
// layout `mode` since before slot 0, with the share `segment_fraction` (in [0, 1)) of its
// first segment done. Continuing in that layout from slot 0 costs no overhead.
struct InitialRun {
  ParallelLayout mode;
  double segment_fraction = 0;
  friend bool operator==(const InitialRun&, const InitialRun&) = default;
};

// One LLM pre-training job: the task descriptor of eq. (4) plus dispatch settings.
struct Job {
  std::string name;
  double params = 0;                   // N, parameters
  double tokens = 0;                   // D, training tokens of the whole run
  int batch = 0;                       // B, sequences per iteration
  int seq_len = 0;                     // s
  int layers = 0;                      // l
  int hidden = 0;                      // h
  int ffn_hidden = 0;                  // h_f
  int heads = 0;                       // n_h
  int vocab = 0;                       // V
  double daily_ratio = 0;              // r, share of all iterations due in this window
  int release_slot = 0;                // first slot the job may run
  int deadline_slot = 0;               // exclusive: all work done by the end of slot deadline-1
  int segments = 12;                   // K
  ParallelLayout baseline;             // the fixed mode of S1
  bool boundary_idle_allowed = false;  // false: the last segment ends exactly at deadline
  int min_run_slots = 1;               // shortest allowed run (operators' limit; 1 = off)
  int max_pauses = -1;                 // most waits between runs (-1 = unlimited)
  int max_segments_per_run = 0;        // longest train edge in segments (0 = K, all)
  // Restart overheads (docs/model.md): a run that starts after a pause or at the first start
  // holds its GPUs for resume_minutes without progress; reshard_minutes more when its layout
  // differs from the previous run's. Continuing in one layout across a checkpoint is free.
  double resume_minutes = 0;
  double reshard_minutes = 0;
  std::optional<InitialRun> initial;  // running at slot 0 (requires release_slot 0)
  bool HasRestartModel() const {
    return resume_minutes > 0 || reshard_minutes > 0 || initial.has_value();
  }
};

struct Instance {
  std::string name;
  Site site;
  TimeGrid time;
  Series series;
  Costs costs;
  Battery battery;
  ModelCoefficients model;
  std::vector<Job> jobs;
  GridContract grid;  // read from and written to the "site" object
  // In code only, not in the file format: the battery's SoC required at the end of the
  // horizon when it differs from E_0. A rolling re-solve (ckptdp/rolling.h) starts from the
  // SoC reached and must still end at the original E_T. Unset: E_T = soc_initial_kwh.
  std::optional<double> battery_soc_final_kwh;

  double RenewableKw(int slot) const { return series.pv_kw[slot] + series.wind_kw[slot]; }
  // The import limit in force in `slot`: the connection's and the series' lower one.
  double ImportCapKw(int slot) const {
    return series.import_cap_kw.empty()
               ? grid.grid_import_cap_kw
               : std::min(grid.grid_import_cap_kw, series.import_cap_kw[slot]);
  }
  // Export is allowed in a slot with an export price, up to the connection's limit.
  double ExportCapKw() const {
    return series.export_price_usd_per_mwh.empty() ? 0.0 : grid.grid_export_cap_kw;
  }
};

// Reads and validates an instance file; CSV series paths resolve relative to it.
absl::StatusOr<Instance> LoadInstance(const std::filesystem::path& path);

// Parses and validates JSON text; `base_dir` resolves relative CSV paths.
absl::StatusOr<Instance> ParseInstance(std::string_view json_text,
                                       const std::filesystem::path& base_dir);

// Re-validates an instance built or modified in code (sweeps, generator).
absl::Status ValidateInstance(const Instance& instance);

// Reads and validates a series CSV (docs/instance-format.md, "Series CSV") of `slots` rows,
// e.g. the actual series a rolling run executes against (ckptdp/rolling.h). Errors start
// with `field` (e.g. "--actual").
absl::StatusOr<Series> LoadSeriesCsv(const std::filesystem::path& path, int slots,
                                     std::string_view field);

// Serialises with inline series (a self-contained file that ParseInstance accepts).
std::string InstanceToJson(const Instance& instance);

}  // namespace ckptdp

#endif  // CKPTDP_INSTANCE_H_
