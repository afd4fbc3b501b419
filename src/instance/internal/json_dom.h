// JSON text -> nlohmann::json, with the errors a user can act on.
//
// nlohmann's own parse() accepts duplicate keys (the last one silently wins) and reports
// a number too large for a double (1e999) without position. This SAX builder rejects
// duplicates and names the JSON path, line and column of both; syntax errors keep
// nlohmann's "line L, column C" text. It never throws.
#ifndef CKPTDP_INSTANCE_INTERNAL_JSON_DOM_H_
#define CKPTDP_INSTANCE_INTERNAL_JSON_DOM_H_

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "instance/internal/messages.h"

namespace ckptdp::instance_internal {

using Json = nlohmann::json;

class JsonDomBuilder final : public nlohmann::json_sax<Json> {
 public:
  explicit JsonDomBuilder(std::string_view text) : text_(text) {}

  bool null() override { return Add(nullptr); }
  bool boolean(bool value) override { return Add(value); }
  bool number_integer(number_integer_t value) override { return Add(value); }
  bool number_unsigned(number_unsigned_t value) override { return Add(value); }
  bool number_float(number_float_t value, const string_t& /*text*/) override { return Add(value); }
  bool string(string_t& value) override { return Add(std::move(value)); }
  bool binary(binary_t& value) override { return Add(Json::binary(std::move(value))); }

  bool start_object(std::size_t /*elements*/) override {
    stack_.push_back({Insert(Json::object()), {}});
    return true;
  }
  bool key(string_t& key) override {
    Frame& top = stack_.back();
    if (top.value->contains(key)) {
      // The SAX interface gives keys no position; the path is precise enough.
      error_ = PathError(JoinPath(PathOf(stack_.size() - 1), Printable(key)),
                         "duplicate key (each key may appear once per object)");
      return false;
    }
    top.key = std::move(key);
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*elements*/) override {
    stack_.push_back({Insert(Json::array()), {}});
    return true;
  }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }

  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& ex) override {
    if (ex.id == 406) {  // out_of_range: a number beyond double range, e.g. 1e999
      // `position` is just past the number; point at its first character instead.
      const std::size_t start = position >= token.size() ? position - token.size() + 1 : 1;
      error_ = PathError(PathOf(stack_.size()),
                         Cat("number ", Printable(token, 40), " is out of range at ",
                             Position(start), " (must be a finite double)"));
      return false;
    }
    // "[json.exception.parse_error.101] parse error at line 3, column 7: syntax error ..."
    std::string_view what = ex.what();
    const std::size_t at = what.find("at line ");
    // Printable: "last read: '...'" may quote invalid UTF-8, the very error it reports.
    std::string detail = at == std::string_view::npos
                             ? Cat("at ", Position(position), ": ", Printable(what, 300))
                             : Printable(what.substr(at), 300);
    error_ = PathError("", Cat("malformed JSON ", detail));
    return false;
  }

  // Call after sax_parse returned true.
  Json TakeRoot() { return std::move(root_); }
  const absl::Status& error() const { return error_; }

 private:
  struct Frame {
    Json* value;      // an object or array under construction
    std::string key;  // objects: the key whose value is being read
  };

  bool Add(Json value) {
    Insert(std::move(value));
    return true;
  }

  // Places a value where the parser is; the returned pointer stays valid while the value
  // is open, because its parent grows only after it is closed (objects are std::maps).
  Json* Insert(Json value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Frame& top = stack_.back();
    if (top.value->is_array()) {
      top.value->push_back(std::move(value));
      return &top.value->back();
    }
    Json& slot = (*top.value)[top.key];
    slot = std::move(value);
    return &slot;
  }

  // JSON path of the value at depth `depth`: frames [0, depth) lead to it. A frame below
  // the top already holds its child as its last element; the top frame's next array
  // element is not inserted yet.
  std::string PathOf(std::size_t depth) const {
    std::string path;
    for (std::size_t i = 0; i < depth; ++i) {
      const Frame& frame = stack_[i];
      if (frame.value->is_object()) {
        path = JoinPath(path, Printable(frame.key));
      } else {
        const bool child_inserted = i + 1 < stack_.size();
        path = IndexPath(path, frame.value->size() - (child_inserted ? 1 : 0));
      }
    }
    return path;
  }

  // nlohmann gives the number of bytes consumed; line and column are counted here so
  // that every message uses the same convention (1-based).
  std::string Position(std::size_t consumed) const {
    consumed = std::min(consumed, text_.size());
    const std::string_view before = text_.substr(0, consumed);
    const std::size_t line = 1 + std::count(before.begin(), before.end(), '\n');
    const std::size_t last_newline = before.rfind('\n');
    const std::size_t column =
        last_newline == std::string_view::npos ? consumed : consumed - last_newline - 1;
    return Cat("line ", line, ", column ", column);
  }

  std::string_view text_;
  Json root_;
  std::vector<Frame> stack_;
  absl::Status error_;
};

inline absl::StatusOr<Json> ParseJsonText(std::string_view text) {
  JsonDomBuilder builder(text);
  bool ok = false;
  try {
    ok = Json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const std::exception& e) {  // bad_alloc; nlohmann reports the rest via SAX
    return absl::ResourceExhaustedError(Cat("(root): cannot parse JSON: ", e.what()));
  }
  if (!ok) {
    if (!builder.error().ok()) return builder.error();
    return absl::InvalidArgumentError("(root): malformed JSON");
  }
  return builder.TakeRoot();
}

}  // namespace ckptdp::instance_internal

#endif  // CKPTDP_INSTANCE_INTERNAL_JSON_DOM_H_
