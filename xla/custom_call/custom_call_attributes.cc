#include "xla/custom_call/custom_call_attributes.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "xla/status_macros.h"

namespace xla {
namespace {

// A cursor over the dictionary text; errors quote the offset.
class DictionaryParser {
 public:
  explicit DictionaryParser(absl::string_view text) : text_(text) {}

  absl::StatusOr<absl::flat_hash_map<std::string, CustomCallAttributes::Value>> Parse() {
    absl::flat_hash_map<std::string, CustomCallAttributes::Value> out;
    RETURN_IF_ERROR(Expect('{'));
    if (Consume('}')) return Finish(std::move(out));
    while (true) {
      ASSIGN_OR_RETURN(std::string key, Key());
      CustomCallAttributes::Value value = true;  // a bare name is a unit attribute
      if (Consume('=')) {
        ASSIGN_OR_RETURN(value, ParseValue(key));
      }
      if (!out.emplace(key, std::move(value)).second) return Error(absl::StrCat("attribute '", key, "' appears twice"));
      if (Consume(',')) continue;
      RETURN_IF_ERROR(Expect('}'));
      return Finish(std::move(out));
    }
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return InvalidArgument("custom-call attributes: %s at offset %d of backend_config %s", what, pos_,
                           std::string(text_));
  }
  void Skip() {
    while (pos_ < text_.size() && absl::ascii_isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Consume(char c) {
    Skip();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  absl::Status Expect(char c) {
    if (Consume(c)) return absl::OkStatus();
    return Error(absl::StrCat("expected '", std::string(1, c), "'"));
  }
  absl::StatusOr<absl::flat_hash_map<std::string, CustomCallAttributes::Value>> Finish(
      absl::flat_hash_map<std::string, CustomCallAttributes::Value> out) {
    Skip();
    if (pos_ != text_.size()) return Error("unexpected text after the dictionary");
    return out;
  }
  static bool IsWordChar(char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' || c == '-' ||
           c == '+';
  }
  std::string Word() {
    Skip();
    size_t start = pos_;
    while (pos_ < text_.size() && IsWordChar(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  absl::StatusOr<std::string> Key() {
    Skip();
    if (pos_ < text_.size() && text_[pos_] == '"') return QuotedString();
    std::string key = Word();
    if (key.empty()) return Error("expected an attribute name");
    return key;
  }
  // "..." with MLIR's escapes: \" \\ \n \t and \XX (two hex digits).
  absl::StatusOr<std::string> QuotedString() {
    RETURN_IF_ERROR(Expect('"'));
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) break;
      char e = text_[pos_++];
      if (e == 'n') {
        out.push_back('\n');
      } else if (e == 't') {
        out.push_back('\t');
      } else if (e == '"' || e == '\\') {
        out.push_back(e);
      } else if (pos_ < text_.size() && absl::ascii_isxdigit(static_cast<unsigned char>(e)) &&
                 absl::ascii_isxdigit(static_cast<unsigned char>(text_[pos_]))) {
        out.push_back(static_cast<char>(std::stoi(std::string{e, text_[pos_++]}, nullptr, 16)));
      } else {
        return Error(absl::StrCat("unknown escape '\\", std::string(1, e), "'"));
      }
    }
    if (pos_ >= text_.size()) return Error("unterminated string");
    ++pos_;
    return out;
  }
  absl::StatusOr<CustomCallAttributes::Value> ParseValue(const std::string& key) {
    Skip();
    if (pos_ < text_.size() && text_[pos_] == '"') return QuotedString();
    if (pos_ < text_.size() && (text_[pos_] == '[' || text_[pos_] == '{' || text_[pos_] == '#')) {
      return Error(absl::StrCat("attribute '", key,
                                "': only integers, floats, booleans and strings are supported (no arrays, "
                                "dictionaries or dialect attributes)"));
    }
    const std::string word = Word();
    if (word == "true" || word == "false") return CustomCallAttributes::Value(word == "true");
    if (word.empty()) return Error(absl::StrCat("attribute '", key, "' has no value"));
    std::string type;
    if (Consume(':')) {
      type = Word();
      if (type.empty()) return Error(absl::StrCat("attribute '", key, "': expected a type after ':'"));
    }
    const bool float_type = absl::StartsWith(type, "f") || absl::StartsWith(type, "bf");
    const bool int_type = absl::StartsWith(type, "i") || absl::StartsWith(type, "si") ||
                          absl::StartsWith(type, "ui") || type == "index";
    if (!type.empty() && !float_type && !int_type) {
      return Error(absl::StrCat("attribute '", key, "': unsupported type '", type, "'"));
    }
    int64_t i = 0;
    if (!float_type && absl::SimpleAtoi(word, &i)) return CustomCallAttributes::Value(i);
    uint64_t u = 0;
    if (!float_type && absl::StartsWith(type, "ui") && absl::SimpleAtoi(word, &u)) {
      return Error(absl::StrCat("attribute '", key, "': ", word, " does not fit int64"));
    }
    double d = 0;
    if (!int_type && absl::SimpleAtod(word, &d)) return CustomCallAttributes::Value(d);
    return Error(absl::StrCat("attribute '", key, "': '", word, "' is not ", int_type ? "an integer" : "a number"));
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

const char* KindName(const CustomCallAttributes::Value& v) {
  switch (v.index()) {
    case 0: return "an integer";
    case 1: return "a float";
    case 2: return "a boolean";
    default: return "a string";
  }
}

}  // namespace

absl::StatusOr<CustomCallAttributes> CustomCallAttributes::Parse(absl::string_view backend_config,
                                                                 CustomCallApiVersion api_version) {
  CustomCallAttributes attrs;
  attrs.opaque_ = std::string(backend_config);
  if (api_version != API_VERSION_TYPED_FFI) return attrs;
  // An empty config is an empty dictionary, as XLA reads it.
  if (absl::StripAsciiWhitespace(backend_config).empty()) return attrs;
  ASSIGN_OR_RETURN(attrs.values_, DictionaryParser(backend_config).Parse());
  return attrs;
}

absl::StatusOr<const CustomCallAttributes::Value*> CustomCallAttributes::Find(absl::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    return InvalidArgument("custom-call attribute '%s' is missing (backend_config: %s)", std::string(name),
                           opaque_.empty() ? "empty" : opaque_);
  }
  return &it->second;
}

absl::StatusOr<int64_t> CustomCallAttributes::GetInt(absl::string_view name) const {
  ASSIGN_OR_RETURN(const Value* v, Find(name));
  if (const int64_t* i = std::get_if<int64_t>(v)) return *i;
  return InvalidArgument("custom-call attribute '%s' is %s, not an integer", std::string(name), KindName(*v));
}

absl::StatusOr<double> CustomCallAttributes::GetFloat(absl::string_view name) const {
  ASSIGN_OR_RETURN(const Value* v, Find(name));
  if (const double* d = std::get_if<double>(v)) return *d;
  if (const int64_t* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
  return InvalidArgument("custom-call attribute '%s' is %s, not a number", std::string(name), KindName(*v));
}

absl::StatusOr<bool> CustomCallAttributes::GetBool(absl::string_view name) const {
  ASSIGN_OR_RETURN(const Value* v, Find(name));
  if (const bool* b = std::get_if<bool>(v)) return *b;
  return InvalidArgument("custom-call attribute '%s' is %s, not a boolean", std::string(name), KindName(*v));
}

absl::StatusOr<std::string> CustomCallAttributes::GetString(absl::string_view name) const {
  ASSIGN_OR_RETURN(const Value* v, Find(name));
  if (const std::string* s = std::get_if<std::string>(v)) return *s;
  return InvalidArgument("custom-call attribute '%s' is %s, not a string", std::string(name), KindName(*v));
}

std::vector<std::string> CustomCallAttributes::Names() const {
  std::vector<std::string> names;
  for (const auto& [k, v] : values_) names.push_back(k);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace xla
