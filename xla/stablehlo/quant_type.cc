#include "xla/stablehlo/quant_type.h"

#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace xla {
namespace stablehlo {
namespace {

PrimitiveType StorageType(bool is_signed, int bits) {
  switch (bits) {
    case 2: return is_signed ? S2 : U2;
    case 4: return is_signed ? S4 : U4;
    case 8: return is_signed ? S8 : U8;
    case 16: return is_signed ? S16 : U16;
    default: return is_signed ? S32 : U32;
  }
}

// A cursor over the type's text; errors are located in the source.
class QuantTextParser {
 public:
  QuantTextParser(absl::string_view text, size_t loc, const Lexer& lexer) : text_(text), loc_(loc), lex_(lexer) {}

  absl::StatusOr<QuantizedType> Parse() {
    QuantizedType q;
    if (!Consume("!quant.uniform")) {
      return Error(absl::StrCat("unsupported quantized type '", text_,
                                "' (only !quant.uniform<storage:expressed, scale:zero_point> is supported)"));
    }
    if (!Consume("<")) return Error("expected '<' after !quant.uniform");
    // Storage type, e.g. i8 or u8, and its optional <min:max>.
    const size_t storage_at = pos_;
    const std::string storage = Word();
    int bits = 0;
    const bool is_signed = !storage.empty() && storage[0] == 'i';
    if (storage.size() < 2 || (storage[0] != 'i' && storage[0] != 'u') ||
        !absl::SimpleAtoi(storage.substr(1), &bits) || !(bits == 2 || bits == 4 || bits == 8 || bits == 16 || bits == 32)) {
      return Error(absl::StrCat("quantized storage type must be i2, i4, i8, i16, i32, u2, u4, u8, u16 or u32, got '",
                                storage, "'"),
                   storage_at);
    }
    q.storage = StorageType(is_signed, bits);
    const int64_t type_min = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
    const int64_t type_max = is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
    q.storage_min = type_min;
    q.storage_max = type_max;
    if (Consume("<")) {
      const size_t at = pos_;
      if (!Integer(&q.storage_min) || !Consume(":") || !Integer(&q.storage_max) || !Consume(">")) {
        return Error("expected <min:max> after the storage type", at);
      }
      if (q.storage_min < type_min || q.storage_max > type_max || q.storage_min >= q.storage_max) {
        return Error(absl::StrCat("storage range <", q.storage_min, ":", q.storage_max, "> must lie in ", storage,
                                  "'s [", type_min, ", ", type_max, "] with min < max"),
                     at);
      }
    }
    if (!Consume(":")) return Error("expected ':' and the expressed type after the storage type");
    const size_t expressed_at = pos_;
    const std::string expressed = Word();
    if (expressed == "f16") {
      q.expressed = F16;
    } else if (expressed == "bf16") {
      q.expressed = BF16;
    } else if (expressed == "f32") {
      q.expressed = F32;
    } else if (expressed == "f64") {
      q.expressed = F64;
    } else {
      return Error(absl::StrCat("quantized expressed type must be f16, bf16, f32 or f64, got '", expressed, "'"),
                   expressed_at);
    }
    if (Consume(":")) {
      const size_t at = pos_;
      int64_t axis = 0;
      if (!Integer(&axis) || axis < 0) return Error("expected a quantization axis (a non-negative integer)", at);
      q.axis = axis;
    }
    if (!Consume(",")) return Error("expected ',' and the scale");
    if (Consume("{")) {
      if (!q.axis.has_value()) return Error("a {scale:zero_point, ...} list needs a quantization axis (f32:N)");
      do {
        if (absl::Status s = ScaleAndZeroPoint(&q); !s.ok()) return s;
      } while (Consume(","));
      if (!Consume("}")) return Error("expected '}' after the per-axis scales");
    } else {
      if (q.axis.has_value()) return Error("a per-axis type needs {scale:zero_point, ...}");
      if (absl::Status s = ScaleAndZeroPoint(&q); !s.ok()) return s;
    }
    if (!Consume(">")) return Error("expected '>' at the end of the quantized type");
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the quantized type");
    return q;
  }

 private:
  absl::Status ScaleAndZeroPoint(QuantizedType* q) {
    SkipSpace();
    const size_t at = pos_;
    size_t end = pos_;
    while (end < text_.size() && (absl::ascii_isalnum(text_[end]) || text_[end] == '.' || text_[end] == '-' ||
                                  text_[end] == '+')) {
      ++end;
    }
    double scale = 0;
    if (!absl::SimpleAtod(text_.substr(pos_, end - pos_), &scale)) return Error("expected a scale (a number)", at);
    pos_ = end;
    if (!(std::isfinite(scale) && scale > 0)) return Error("a scale must be positive and finite", at);
    int64_t zero_point = 0;
    if (Consume(":")) {
      const size_t zp_at = pos_;
      if (!Integer(&zero_point)) return Error("expected a zero point (an integer)", zp_at);
      if (zero_point < q->storage_min || zero_point > q->storage_max) {
        return Error(absl::StrCat("zero point ", zero_point, " is outside the storage range [", q->storage_min,
                                  ", ", q->storage_max, "]"),
                     zp_at);
      }
    }
    q->scales.push_back(scale);
    q->zero_points.push_back(zero_point);
    return absl::OkStatus();
  }

  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(text_[pos_])) ++pos_;
  }
  bool Consume(absl::string_view s) {
    SkipSpace();
    if (text_.substr(pos_, s.size()) != s) return false;
    pos_ += s.size();
    return true;
  }
  std::string Word() {
    SkipSpace();
    size_t end = pos_;
    while (end < text_.size() && absl::ascii_isalnum(text_[end])) ++end;
    std::string w(text_.substr(pos_, end - pos_));
    pos_ = end;
    return w;
  }
  bool Integer(int64_t* out) {
    SkipSpace();
    size_t end = pos_;
    if (end < text_.size() && (text_[end] == '-' || text_[end] == '+')) ++end;
    while (end < text_.size() && absl::ascii_isdigit(text_[end])) ++end;
    if (!absl::SimpleAtoi(text_.substr(pos_, end - pos_), out)) return false;
    pos_ = end;
    return true;
  }
  absl::Status Error(absl::string_view message) { return Error(message, pos_); }
  absl::Status Error(absl::string_view message, size_t at) { return lex_.Error(loc_ + at, message); }

  absl::string_view text_;
  size_t loc_;
  const Lexer& lex_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<QuantizedType> ParseQuantizedType(absl::string_view text, size_t loc, const Lexer& lexer) {
  return QuantTextParser(text, loc, lexer).Parse();
}

absl::Status CheckQuantizedTensor(const Type& type, const Lexer& lexer) {
  if (!type.quant.has_value() || !type.quant->axis.has_value()) return absl::OkStatus();
  const int64_t axis = *type.quant->axis;
  const int64_t rank = static_cast<int64_t>(type.dims.size());
  if (axis >= rank) {
    return lexer.Error(type.loc, absl::StrCat("quantization axis ", axis, " is out of range for rank ", rank));
  }
  if (static_cast<int64_t>(type.quant->scales.size()) != type.dims[axis]) {
    return lexer.Error(type.loc, absl::StrCat("per-axis quantization lists ", type.quant->scales.size(),
                                              " scales but dimension ", axis, " has size ", type.dims[axis]));
  }
  return absl::OkStatus();
}

}  // namespace stablehlo
}  // namespace xla
