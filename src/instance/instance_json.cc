// Instance files: JSON (and an optional series CSV) <-> Instance. The format is
// documented in docs/instance-format.md. Reading checks keys, types and integrality
// here; every range and cross-field rule lives in validate.cc, which is called section
// by section so that errors come in file order.
#include <filesystem>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ckptdp/instance.h"
#include "instance/internal/fields.h"
#include "instance/internal/file_io.h"
#include "instance/internal/grid_contract.h"
#include "instance/internal/json_dom.h"
#include "instance/internal/json_fields.h"
#include "instance/internal/messages.h"
#include "instance/internal/series_csv.h"
#include "instance/internal/validate.h"

namespace ckptdp {
namespace {

namespace ii = instance_internal;
using ii::Cat;
using ii::JoinPath;
using ii::Json;
using ii::PathError;

// Name of an instance read by ParseInstance without a "name" key (LoadInstance uses the
// file stem instead).
constexpr std::string_view kDefaultInstanceName = "instance";

constexpr std::string_view kSeriesColumns[] = {"pv_kw", "wind_kw", "price_usd_per_mwh"};

absl::StatusOr<const Json*> Require(const Json& object, std::string_view path,
                                    std::string_view key) {
  const Json* value = ii::FindKey(object, key);
  if (value == nullptr) return ii::MissingError(JoinPath(path, key));
  return value;
}

absl::StatusOr<std::string> ReadString(const Json& value, std::string_view path) {
  if (!value.is_string()) {
    return PathError(path, Cat("must be a string, got ", ii::Describe(value)));
  }
  return value.get<std::string>();
}

// An absent battery section: no storage at all. Unit efficiencies keep formulas that
// divide by them finite.
Battery NoBattery() {
  Battery b;
  b.power_kw = 0;
  b.energy_kwh = 0;
  b.charge_efficiency = 1;
  b.discharge_efficiency = 1;
  b.soc_min_kwh = 0;
  b.soc_max_kwh = 0;
  b.soc_initial_kwh = 0;
  return b;
}

absl::StatusOr<std::vector<double>> ReadSeriesArray(const Json& series, std::string_view column,
                                                    const ii::Bounds& bounds, int slots) {
  const std::string path = JoinPath("series", column);
  CKPTDP_ASSIGN_OR_RETURN(const Json* array, Require(series, "series", column));
  if (!array->is_array()) {
    return PathError(path,
                     Cat("must be an array of ", slots, " numbers, got ", ii::Describe(*array)));
  }
  std::vector<double> values;
  values.reserve(array->size());
  for (std::size_t t = 0; t < array->size(); ++t) {
    const Json& v = (*array)[t];
    if (!v.is_number()) {
      return PathError(ii::IndexPath(path, t), Cat("must be a number in ", ii::FormatBounds(bounds),
                                                   ", got ", ii::Describe(v)));
    }
    values.push_back(v.get<double>());
  }
  return values;
}

// Either {"csv": path} or the three inline arrays, never both.
absl::StatusOr<Series> ReadSeries(const Json& value, const std::filesystem::path& base_dir,
                                  int slots) {
  CKPTDP_RETURN_IF_ERROR(ii::ExpectObject(value, "series"));
  std::vector<std::string_view> known = {"csv", "pv_kw", "wind_kw", "price_usd_per_mwh"};
  for (std::string_view column : ii::OptionalSeriesColumnNames()) known.push_back(column);
  CKPTDP_RETURN_IF_ERROR(ii::CheckKnownKeys(value, "series", known));
  const Json* csv = ii::FindKey(value, "csv");
  bool any_inline = false;
  for (std::string_view column : kSeriesColumns) {
    any_inline |= ii::FindKey(value, column) != nullptr;
  }
  bool any_optional = false;
  for (std::string_view column : ii::OptionalSeriesColumnNames()) {
    any_optional |= ii::FindKey(value, column) != nullptr;
  }
  if (csv != nullptr && any_optional) {
    return PathError("series", "with \"csv\" the optional columns go in the CSV file, not inline");
  }
  if (csv != nullptr && any_inline) {
    return PathError("series",
                     "give either \"csv\" or the inline arrays pv_kw, wind_kw, "
                     "price_usd_per_mwh, not both");
  }
  if (csv == nullptr && !any_inline) {
    return PathError("series",
                     "must contain either \"csv\" (a file path) or the inline arrays "
                     "pv_kw, wind_kw, price_usd_per_mwh");
  }
  if (csv != nullptr) {
    if (!csv->is_string() || csv->get_ref<const std::string&>().empty() ||
        csv->get_ref<const std::string&>().find('\0') != std::string::npos) {
      constexpr std::string_view kExpected =
          "must be a non-empty file path (relative to the instance file), got ";
      return PathError("series.csv", Cat(kExpected, ii::Describe(*csv)));
    }
    const std::filesystem::path file =
        (base_dir / std::filesystem::path(csv->get<std::string>())).lexically_normal();
    absl::StatusOr<Series> series = ii::ReadSeriesCsv(file, slots);
    if (!series.ok()) return ii::PrefixStatus(series.status(), "series.csv: ");
    return series;
  }
  Series series;
  CKPTDP_ASSIGN_OR_RETURN(series.pv_kw,
                          ReadSeriesArray(value, "pv_kw", ii::kPowerSeriesBounds, slots));
  CKPTDP_ASSIGN_OR_RETURN(series.wind_kw,
                          ReadSeriesArray(value, "wind_kw", ii::kPowerSeriesBounds, slots));
  CKPTDP_ASSIGN_OR_RETURN(series.price_usd_per_mwh, ReadSeriesArray(value, "price_usd_per_mwh",
                                                                    ii::kPriceSeriesBounds, slots));
  for (const ii::OptionalColumn& column : ii::kOptionalSeriesColumns) {
    if (ii::FindKey(value, column.name) == nullptr) continue;
    CKPTDP_ASSIGN_OR_RETURN(series.*column.member,
                            ReadSeriesArray(value, column.name, column.bounds, slots));
  }
  return series;
}

absl::StatusOr<ModelCoefficients> ReadModel(const Json& value) {
  ModelCoefficients model;
  CKPTDP_RETURN_IF_ERROR(ii::ReadSection(value, "model", ii::kModelFields,
                                         {"activation_schedule", "kernel_efficiency"}, model));
  if (const Json* schedule = ii::FindKey(value, "activation_schedule")) {
    bool known = false;
    for (ActivationSchedule s : {ActivationSchedule::kOneFOneB, ActivationSchedule::kGPipe}) {
      if (schedule->is_string() && schedule->get<std::string>() == ii::ActivationScheduleName(s)) {
        model.activation_schedule = s;
        known = true;
      }
    }
    if (!known) {
      return PathError("model.activation_schedule",
                       Cat("must be \"1f1b\" or \"gpipe\", got ", ii::Describe(*schedule)));
    }
  }
  if (const Json* efficiency = ii::FindKey(value, "kernel_efficiency")) {
    if (efficiency->is_number()) {
      model.kernel_efficiency = efficiency->get<double>();
    } else if (!efficiency->is_null()) {  // null = calibrate, like an absent key
      return PathError("model.kernel_efficiency",
                       Cat("must be a number in ", ii::FormatBounds(ii::kKernelEfficiencyBounds),
                           " or null, got ", ii::Describe(*efficiency)));
    }
  }
  return model;
}

absl::StatusOr<Job> ReadJob(const Json& value, std::string_view path) {
  CKPTDP_RETURN_IF_ERROR(ii::ExpectObject(value, path));
  CKPTDP_RETURN_IF_ERROR(
      ii::CheckKnownKeys(value, path, ii::KeysOf(ii::kJobFields, {"name", "baseline", "initial"})));
  Job job;
  CKPTDP_ASSIGN_OR_RETURN(const Json* name, Require(value, path, "name"));
  CKPTDP_ASSIGN_OR_RETURN(job.name, ReadString(*name, JoinPath(path, "name")));
  CKPTDP_RETURN_IF_ERROR(ii::ReadFields(value, path, ii::kJobFields, job));
  CKPTDP_ASSIGN_OR_RETURN(const Json* baseline, Require(value, path, "baseline"));
  CKPTDP_RETURN_IF_ERROR(
      ii::ReadSection(*baseline, JoinPath(path, "baseline"), ii::kLayoutFields, {}, job.baseline));
  if (const Json* initial = ii::FindKey(value, "initial")) {
    const std::string initial_path = JoinPath(path, "initial");
    InitialRun run;
    CKPTDP_RETURN_IF_ERROR(
        ii::ReadSection(*initial, initial_path, ii::kInitialRunFields, {"mode"}, run));
    CKPTDP_ASSIGN_OR_RETURN(const Json* mode, Require(*initial, initial_path, "mode"));
    CKPTDP_RETURN_IF_ERROR(
        ii::ReadSection(*mode, JoinPath(initial_path, "mode"), ii::kLayoutFields, {}, run.mode));
    job.initial = run;
  }
  return job;
}

absl::StatusOr<Instance> ParseDocument(std::string_view text, const std::filesystem::path& base_dir,
                                       std::string_view default_name) {
  CKPTDP_ASSIGN_OR_RETURN(const Json root, ii::ParseJsonText(text));
  CKPTDP_RETURN_IF_ERROR(ii::ExpectObject(root, ""));
  CKPTDP_RETURN_IF_ERROR(ii::CheckKnownKeys(
      root, "", {"name", "site", "time", "series", "costs", "battery", "model", "jobs"}));
  Instance instance;

  instance.name = std::string(default_name);
  if (const Json* name = ii::FindKey(root, "name")) {
    CKPTDP_ASSIGN_OR_RETURN(instance.name, ReadString(*name, "name"));
  }
  CKPTDP_RETURN_IF_ERROR(ii::ValidateName("name", instance.name, /*allow_empty=*/true));

  CKPTDP_ASSIGN_OR_RETURN(const Json* site, Require(root, "", "site"));
  CKPTDP_RETURN_IF_ERROR(ii::ExpectObject(*site, "site"));
  CKPTDP_RETURN_IF_ERROR(ii::CheckKnownKeys(*site, "site", [] {
    std::vector<std::string_view> keys = ii::KeysOf(ii::kSiteFields);
    for (std::string_view key : ii::GridSiteKeys()) keys.push_back(key);
    return keys;
  }()));
  CKPTDP_RETURN_IF_ERROR(ii::ReadFields(*site, "site", ii::kSiteFields, instance.site));
  CKPTDP_RETURN_IF_ERROR(ii::ReadFields(*site, "site", ii::kGridFields, instance.grid));
  CKPTDP_RETURN_IF_ERROR(ii::ValidateSite(instance.site));

  CKPTDP_ASSIGN_OR_RETURN(const Json* time, Require(root, "", "time"));
  CKPTDP_RETURN_IF_ERROR(ii::ReadSection(*time, "time", ii::kTimeFields, {}, instance.time));
  CKPTDP_RETURN_IF_ERROR(ii::ValidateTime(instance.time));

  CKPTDP_ASSIGN_OR_RETURN(const Json* series, Require(root, "", "series"));
  CKPTDP_ASSIGN_OR_RETURN(instance.series, ReadSeries(*series, base_dir, instance.time.slots));
  CKPTDP_RETURN_IF_ERROR(ii::ValidateSeries(instance.series, instance.time.slots));
  CKPTDP_RETURN_IF_ERROR(
      ii::ValidateGridContract(instance.grid, instance.series, instance.time.slots));

  CKPTDP_ASSIGN_OR_RETURN(const Json* costs, Require(root, "", "costs"));
  CKPTDP_RETURN_IF_ERROR(ii::ReadSection(*costs, "costs", ii::kCostsFields, {}, instance.costs));
  CKPTDP_RETURN_IF_ERROR(ii::ValidateCosts(instance.costs));

  instance.battery = NoBattery();
  if (const Json* battery = ii::FindKey(root, "battery")) {
    CKPTDP_RETURN_IF_ERROR(
        ii::ReadSection(*battery, "battery", ii::kBatteryFields, {}, instance.battery));
  }
  CKPTDP_RETURN_IF_ERROR(ii::ValidateBattery(instance.battery));

  if (const Json* model = ii::FindKey(root, "model")) {
    CKPTDP_ASSIGN_OR_RETURN(instance.model, ReadModel(*model));
  }
  CKPTDP_RETURN_IF_ERROR(ii::ValidateModel(instance.model));

  CKPTDP_ASSIGN_OR_RETURN(const Json* jobs, Require(root, "", "jobs"));
  if (!jobs->is_array()) {
    return PathError("jobs", Cat("must be an array of jobs, got ", ii::Describe(*jobs)));
  }
  for (std::size_t i = 0; i < jobs->size(); ++i) {
    const std::string path = ii::IndexPath("jobs", i);
    CKPTDP_ASSIGN_OR_RETURN(Job job, ReadJob((*jobs)[i], path));
    CKPTDP_RETURN_IF_ERROR(ii::ValidateJob(job, path, instance.time));
    instance.jobs.push_back(std::move(job));
  }
  CKPTDP_RETURN_IF_ERROR(ii::ValidateJobList(instance.jobs));
  return instance;
}

// The API promises statuses, never exceptions. Nothing in `read` should throw except
// allocation; anything else is a bug worth reporting as such.
template <class Read>
absl::StatusOr<Instance> NoThrow(Read read) {
  try {
    return read();
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError("(root): out of memory while reading the instance");
  } catch (const std::exception& e) {
    return absl::InternalError(Cat("(root): unexpected error reading the instance: ", e.what()));
  }
}

// --- writing --------------------------------------------------------------------------

using OrderedJson = nlohmann::ordered_json;

template <class S, std::size_t N>
void WriteFields(const S& s, const ii::Field<S> (&table)[N], OrderedJson& out) {
  for (const ii::Field<S>& field : table) {
    std::visit([&](auto member) { out[std::string(field.key)] = s.*member; }, field.member);
  }
}

template <class S, std::size_t N>
OrderedJson FieldsObject(const S& s, const ii::Field<S> (&table)[N]) {
  OrderedJson out = OrderedJson::object();
  WriteFields(s, table, out);
  return out;
}

}  // namespace

absl::StatusOr<Instance> LoadInstance(const std::filesystem::path& path) {
  return NoThrow([&]() -> absl::StatusOr<Instance> {
    CKPTDP_ASSIGN_OR_RETURN(const std::string text, ii::ReadFileToString(path, "instance file"));
    return ParseDocument(text, path.parent_path(), path.stem().string());
  });
}

absl::StatusOr<Instance> ParseInstance(std::string_view json_text,
                                       const std::filesystem::path& base_dir) {
  return NoThrow([&] { return ParseDocument(json_text, base_dir, kDefaultInstanceName); });
}

std::string InstanceToJson(const Instance& instance) {
  OrderedJson root = OrderedJson::object();
  root["name"] = instance.name;
  root["site"] = FieldsObject(instance.site, ii::kSiteFields);
  // The contract's keys only when set, so that paper instances read back unchanged.
  if (!(instance.grid == GridContract{})) WriteFields(instance.grid, ii::kGridFields, root["site"]);
  root["time"] = FieldsObject(instance.time, ii::kTimeFields);
  // Inline so the file stands alone; csv_path is informational and not written.
  root["series"] = {{"pv_kw", instance.series.pv_kw},
                    {"wind_kw", instance.series.wind_kw},
                    {"price_usd_per_mwh", instance.series.price_usd_per_mwh}};
  for (const ii::OptionalColumn& column : ii::kOptionalSeriesColumns) {
    const std::vector<double>& values = instance.series.*column.member;
    if (!values.empty()) root["series"][std::string(column.name)] = values;
  }
  root["costs"] = FieldsObject(instance.costs, ii::kCostsFields);
  root["battery"] = FieldsObject(instance.battery, ii::kBatteryFields);
  OrderedJson model = FieldsObject(instance.model, ii::kModelFields);
  model["activation_schedule"] = ii::ActivationScheduleName(instance.model.activation_schedule);
  model["kernel_efficiency"] = instance.model.kernel_efficiency.has_value()
                                   ? OrderedJson(*instance.model.kernel_efficiency)
                                   : OrderedJson(nullptr);
  root["model"] = std::move(model);
  OrderedJson jobs = OrderedJson::array();
  for (const Job& job : instance.jobs) {
    OrderedJson j = OrderedJson::object();
    j["name"] = job.name;
    WriteFields(job, ii::kJobFields, j);
    j["baseline"] = FieldsObject(job.baseline, ii::kLayoutFields);
    // Restart overheads are written only when set, so files without them stay as they were.
    if (job.resume_minutes == 0) j.erase("resume_minutes");
    if (job.reshard_minutes == 0) j.erase("reshard_minutes");
    if (job.initial.has_value()) {
      OrderedJson initial = FieldsObject(*job.initial, ii::kInitialRunFields);
      initial["mode"] = FieldsObject(job.initial->mode, ii::kLayoutFields);
      j["initial"] = std::move(initial);
    }
    jobs.push_back(std::move(j));
  }
  root["jobs"] = std::move(jobs);
  // Doubles are written in the shortest form that reads back to the same value, so
  // ParseInstance(InstanceToJson(x)) reproduces x exactly. Invalid UTF-8 in a name built
  // in code is replaced rather than thrown.
  return root.dump(2, ' ', false, OrderedJson::error_handler_t::replace) + "\n";
}

}  // namespace ckptdp
