// The generator's machinery: randomness, names, shapes and layouts, the
// value pool, constants and operands.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/hlo_fuzz/generator_internal.h"
#include "xla/primitive_util.h"
#include "xla/shape_util.h"

namespace xla {
namespace hlo_fuzz {
namespace {

bool IsSigned(PrimitiveType t) { return primitive_util::IsSignedIntegralType(t); }

std::string MinText(PrimitiveType t) {
  switch (t) {
    case S8: return "-128";
    case S32: return "-2147483648";
    case S64: return "-9223372036854775808";
    default: return "0";
  }
}

std::string MaxText(PrimitiveType t) {
  switch (t) {
    case S8: return "127";
    case S32: return "2147483647";
    case S64: return "9223372036854775807";
    case U8: return "255";
    case U32: return "4294967295";
    case F16: return "65504";
    case BF16: return "3.38e+38";
    case F32: return "3.4e+38";
    case F64: return "1.7e+308";
    default: return "1";
  }
}

std::string SubnormalText(PrimitiveType t) {
  switch (t) {
    case F16: return "1e-07";
    case F64: return "4.9e-320";
    default: return "1e-40";
  }
}

// |value| of a constant's text (0 for NaN and infinities: they are specials,
// not magnitudes).
double TextMagnitude(const std::string& text) {
  if (text == "true") return 1;
  if (text == "false") return 0;
  const double v = std::fabs(std::strtod(text.c_str(), nullptr));
  return std::isfinite(v) ? v : 0;
}

}  // namespace

Generator::Generator(uint64_t seed, const GeneratorOptions& options) : rng_(seed), options_(options) {}

int Generator::Uniform(int n) { return n <= 1 ? 0 : static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
int Generator::Range(int lo, int hi) { return lo + Uniform(hi - lo + 1); }
bool Generator::Chance(double p) { return static_cast<double>(rng_() % 1000000) < p * 1000000; }

int Generator::Weighted(const std::vector<int>& weights) {
  int total = 0;
  for (int w : weights) total += w;
  int r = Uniform(total);
  for (size_t i = 0; i < weights.size(); ++i) {
    if (r < weights[i]) return static_cast<int>(i);
    r -= weights[i];
  }
  return 0;
}

std::string Generator::Fresh(absl::string_view stem) { return absl::StrCat(stem, next_name_++); }

std::string Generator::TypeName(PrimitiveType type) { return std::string(primitive_util::LowercaseName(type)); }

std::string Generator::ShapeText(const Shape& shape) {
  if (shape.IsTuple()) {
    std::vector<std::string> parts;
    for (const Shape& s : shape.tuple_shapes()) parts.push_back(ShapeText(s));
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  std::string text = absl::StrCat(TypeName(shape.element_type()), "[", absl::StrJoin(shape.dimensions(), ","), "]");
  if (shape.has_layout() && shape.layout() != ShapeUtil::DefaultLayout(shape.rank())) {
    absl::StrAppend(&text, "{", absl::StrJoin(shape.layout().minor_to_major(), ","), "}");
  }
  return text;
}

Value* Generator::Emit(const Shape& shape, const std::string& rhs, const Precision& precision, absl::string_view op) {
  Value v;
  v.name = Fresh("v");
  v.shape = shape;
  v.precision = precision;
  v.line = static_cast<int>(scope_->lines.size());
  v.is_leaf = op == "parameter" || op == "constant";
  scope_->lines.push_back(absl::StrCat("  ", v.name, " = ", ShapeText(shape), " ", rhs));
  Count(std::string(op));
  if (shape.has_layout() && shape.layout() != ShapeUtil::DefaultLayout(shape.rank())) Count("layout:non-default");
  for (int64_t d : shape.dimensions()) {
    if (d == 0) Count("dim:0");
    if (d == 1) Count("dim:1");
  }
  if (!precision.exact()) Count("approximate");
  scope_->values.push_back(std::move(v));
  return &scope_->values.back();
}

std::string Generator::EmitTuple(const std::vector<Shape>& shapes, const std::string& rhs, absl::string_view op) {
  const std::string name = Fresh("t");
  scope_->lines.push_back(
      absl::StrCat("  ", name, " = ", ShapeText(ShapeUtil::MakeTupleShape(shapes)), " ", rhs));
  Count(std::string(op));
  return name;
}

std::string Generator::Use(Value* v) {
  if (++v->uses == 2) Count("multi-use");
  return v->name;
}

void Generator::MarkRoot(Value* v) {
  std::string& line = scope_->lines[v->line];
  line = absl::StrCat("  ROOT ", line.substr(2));
  ++v->uses;
}

std::string Generator::ComputationText(const Scope& scope) {
  return absl::StrCat(scope.name, " {\n", absl::StrJoin(scope.lines, "\n"), "\n}\n\n");
}

void Generator::PushScope(const std::string& name) {
  auto scope = std::make_unique<Scope>();
  scope->name = name;
  scope->is_entry = scopes_.empty();
  scope->depth = scopes_.empty() ? 0 : scope_->depth + 1;
  scopes_.push_back(std::move(scope));
  scope_ = scopes_.back().get();
}

std::unique_ptr<Scope> Generator::PopScope() {
  std::unique_ptr<Scope> done = std::move(scopes_.back());
  scopes_.pop_back();
  scope_ = scopes_.empty() ? nullptr : scopes_.back().get();
  return done;
}

PrimitiveType Generator::RandomFloatType() {
  static const PrimitiveType kTypes[] = {F32, F64, BF16, F16};
  return kTypes[Weighted({55, 20, 13, 12})];
}

PrimitiveType Generator::RandomIntType() {
  static const PrimitiveType kTypes[] = {S32, S64, S8, U8, U32};
  return kTypes[Weighted({35, 15, 15, 15, 20})];
}

PrimitiveType Generator::RandomArrayType() {
  switch (Weighted({55, 35, 10})) {
    case 0: return RandomFloatType();
    case 1: return RandomIntType();
    default: return PRED;
  }
}

std::vector<int64_t> Generator::RandomDims(int rank) {
  if (large_ && rank > 0) {
    // 64K-128K elements: small leading dimensions and one long one.
    static const int64_t kSmall[] = {1, 2, 3, 7, 16, 17, 64, 100, 255, 256};
    std::vector<int64_t> dims;
    int64_t product = 1;
    for (int i = 1; i < rank; ++i) {
      dims.push_back(kSmall[Uniform(10)]);
      product *= dims.back();
    }
    const int64_t target = 65536 + Uniform(65536);
    dims.insert(dims.begin() + Uniform(rank), std::max<int64_t>(1, target / product));
    return dims;
  }
  static const int64_t kSizes[] = {0, 1, 2, 3, 4, 5};
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) dims.push_back(kSizes[Weighted({3, 18, 30, 26, 14, 9})]);
  auto elements = [&] {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  };
  while (elements() > options_.max_elements) {
    *std::max_element(dims.begin(), dims.end()) -= 1;
  }
  return dims;
}

Shape Generator::MakeShape(PrimitiveType type, const std::vector<int64_t>& dims) {
  Shape shape = ShapeUtil::MakeShape(type, dims);
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> minor_to_major(rank);
  for (int i = 0; i < rank; ++i) minor_to_major[i] = rank - 1 - i;
  if (rank >= 2 && Chance(0.3)) {
    for (int i = rank - 1; i > 0; --i) std::swap(minor_to_major[i], minor_to_major[Uniform(i + 1)]);
  }
  shape.set_layout(Layout(minor_to_major));
  return shape;
}

Shape Generator::RandomShape(PrimitiveType type, int rank) { return MakeShape(type, RandomDims(rank)); }

Value* Generator::Pick(const std::function<bool(const Value&)>& filter) {
  std::vector<Value*> all, fresh;
  for (Value& v : scope_->values) {
    if (v.precision.unusable || !filter(v)) continue;
    all.push_back(&v);
    if (v.uses == 0 && !v.is_leaf) fresh.push_back(&v);
  }
  if (all.empty()) return nullptr;
  const int r = Uniform(10);
  if (r < 4 && !fresh.empty()) return fresh[Uniform(static_cast<int>(fresh.size()))];
  if (r < 7) {
    const int recent = std::min<int>(4, static_cast<int>(all.size()));
    return all[all.size() - 1 - Uniform(recent)];
  }
  return all[Uniform(static_cast<int>(all.size()))];
}

Value* Generator::NewParameter(const Shape& shape) {
  Value* v = Emit(shape, absl::StrCat("parameter(", scope_->parameters++, ")"),
                  Exact(IsFloat(shape.element_type()) ? kAssumedParameterMagnitude
                                                      : TypeMagnitude(shape.element_type())),
                  "parameter");
  return v;
}

Value* Generator::ScalarConstant(PrimitiveType type, const std::string& literal_text) {
  Precision p = Exact(TextMagnitude(literal_text));
  p.nonneg = literal_text[0] != '-' && literal_text != "nan";
  p.may_be_inf = literal_text.find("inf") != std::string::npos;
  return Emit(ShapeUtil::MakeShape(type, {}), absl::StrCat("constant(", literal_text, ")"), p, "constant");
}

std::string Generator::ScalarLiteralText(PrimitiveType type) {
  if (type == PRED) return Chance(0.5) ? "true" : "false";
  const bool edge = Chance(0.35);
  if (IsFloat(type)) {
    static const char* kOrdinary[] = {"0", "1", "-1", "0.5", "2", "-2.5", "3", "1.5", "-0.25", "100", "0.1"};
    if (!edge) return kOrdinary[Uniform(11)];
    const std::string edges[] = {"-0", "nan", "inf", "-inf", SubnormalText(type), "-" + SubnormalText(type),
                                 MaxText(type), "-" + MaxText(type)};
    return edges[Weighted({3, 3, 2, 2, 2, 1, 1, 1})];
  }
  const int bits = primitive_util::BitWidth(type);
  if (!edge) {
    static const char* kSigned[] = {"0", "1", "-1", "2", "3", "7", "-8"};
    static const char* kUnsigned[] = {"0", "1", "2", "3", "7", "128"};
    return IsSigned(type) ? kSigned[Uniform(7)] : kUnsigned[Uniform(6)];
  }
  const std::string edges[] = {MinText(type), MaxText(type), std::to_string(bits - 1), std::to_string(bits),
                               std::to_string(bits + 1)};
  return edges[Uniform(5)];
}

Value* Generator::ScalarConstant(PrimitiveType type) { return ScalarConstant(type, ScalarLiteralText(type)); }

std::string Generator::IdentityText(HloOpcode op, PrimitiveType type) {
  const bool is_float = IsFloat(type);
  switch (op) {
    case HloOpcode::kMultiply: return type == PRED ? "true" : "1";
    case HloOpcode::kMaximum:
      if (type == PRED) return "false";
      return is_float ? "-inf" : MinText(type);
    case HloOpcode::kMinimum:
      if (type == PRED) return "true";
      return is_float ? "inf" : MaxText(type);
    case HloOpcode::kAnd:
      if (type == PRED) return "true";
      return IsSigned(type) ? "-1" : MaxText(type);
    default:  // add, or, xor
      return type == PRED ? "false" : "0";
  }
}

Value* Generator::IndexScalar(PrimitiveType type, int64_t dim) {
  if (Chance(0.25)) {
    Value* v = Pick([&](const Value& v) {
      return v.shape.element_type() == type && v.shape.rank() == 0 && v.precision.exact();
    });
    if (v != nullptr) return v;
  }
  if (scope_->is_entry && scope_->parameters < options_.max_parameters && Chance(0.2)) {
    return NewParameter(ShapeUtil::MakeShape(type, {}));
  }
  std::vector<std::string> choices = {"0", "1", std::to_string(dim), std::to_string(dim + 2),
                                      std::to_string(std::max<int64_t>(dim - 1, 0))};
  if (IsSigned(type)) {
    choices.push_back("-1");
    choices.push_back("-5");
    choices.push_back(MinText(type));
  }
  choices.push_back(MaxText(type));
  return ScalarConstant(type, choices[Uniform(static_cast<int>(choices.size()))]);
}

namespace {

// Nested-brace literal text of `dims` with values from `next`.
std::string ArrayText(const std::vector<int64_t>& dims, size_t d, const std::function<std::string()>& next) {
  if (d == dims.size()) return next();
  std::vector<std::string> parts;
  for (int64_t i = 0; i < dims[d]; ++i) parts.push_back(ArrayText(dims, d + 1, next));
  return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
}

}  // namespace

Value* Generator::IndexArray(const std::vector<int64_t>& dims, int64_t lo, int64_t hi) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  const Shape shape = MakeShape(S32, dims);
  if (scope_->is_entry && scope_->parameters < options_.max_parameters && Chance(0.2)) return NewParameter(shape);
  if (n == 0) {
    Value* zero = ScalarConstant(S32, "0");
    return Emit(shape, absl::StrCat("broadcast(", Use(zero), "), dimensions={}"), Exact(0), "broadcast");
  }
  double mag = 0;
  const std::string text = ArrayText(dims, 0, [&] {
    const int64_t v = Chance(0.05) ? (Chance(0.5) ? -2147483647 - 1 : 2147483647) : lo + Uniform(hi - lo + 1);
    mag = std::max(mag, std::fabs(static_cast<double>(v)));
    return std::to_string(v);
  });
  return Emit(shape, absl::StrCat("constant(", text, ")"), Exact(mag), "constant");
}

Value* Generator::FindOrMake(PrimitiveType type, const std::vector<int64_t>& dims, bool exact) {
  std::vector<Value*> matches;
  for (Value& v : scope_->values) {
    if (v.shape.element_type() == type && v.shape.dimensions() == dims && !v.precision.unusable &&
        (!exact || v.precision.exact())) {
      matches.push_back(&v);
    }
  }
  if (!matches.empty() && Chance(0.65)) return matches[Uniform(static_cast<int>(matches.size()))];
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  const bool can_param = scope_->is_entry && scope_->parameters < options_.max_parameters;
  const int rank = static_cast<int>(dims.size());
  switch (Weighted({can_param ? 30 : 0, 30, rank > 0 && type != PRED ? 8 : 0, n > 0 && n <= 6 && rank <= 2 ? 12 : 0,
                    10})) {
    case 0:
      return NewParameter(MakeShape(type, dims));
    case 2: {
      const int dim = Uniform(rank);
      Value* v = Emit(MakeShape(type, dims), absl::StrCat("iota(), iota_dimension=", dim),
                      Exact(static_cast<double>(dims[dim])), "iota");
      return v;
    }
    case 3: {
      double mag = 0;
      const std::string text = ArrayText(dims, 0, [&] {
        std::string literal = ScalarLiteralText(type);
        mag = std::max(mag, TextMagnitude(literal));
        return literal;
      });
      return Emit(MakeShape(type, dims), absl::StrCat("constant(", text, ")"), Exact(mag), "constant");
    }
    case 4: {
      Value* source = Pick([&](const Value& v) {
        return v.shape.dimensions() == dims && v.shape.element_type() != type &&
               !UnaryPrecision(HloOpcode::kConvert, v.shape.element_type(), type, v.precision).unusable &&
               (!exact || v.precision.exact());
      });
      if (source != nullptr) {
        const Precision p = UnaryPrecision(HloOpcode::kConvert, source->shape.element_type(), type, source->precision);
        return Emit(MakeShape(type, dims), absl::StrCat("convert(", Use(source), ")"), p, "convert");
      }
      break;
    }
    default:
      break;
  }
  Value* scalar = ScalarConstant(type);
  if (rank == 0) return scalar;
  return Emit(MakeShape(type, dims), absl::StrCat("broadcast(", Use(scalar), "), dimensions={}"), scalar->precision,
              "broadcast");
}

std::string Generator::ScalarReducer(HloOpcode op, PrimitiveType type) {
  const std::string op_name = op == HloOpcode::kParameter ? "assign" : std::string(HloOpcodeString(op));
  const std::string key = absl::StrCat(op_name, "_", TypeName(type));
  auto it = reducers_.find(key);
  if (it != reducers_.end()) return it->second;
  const std::string name = Fresh(absl::StrCat("red_", op_name, "_", TypeName(type), "_"));
  const std::string t = TypeName(type) + "[]";
  const std::string a = Fresh("a"), b = Fresh("b"), r = Fresh("r");
  std::string body;
  if (op == HloOpcode::kParameter) {
    body = absl::StrCat("  ", a, " = ", t, " parameter(0)\n  ROOT ", b, " = ", t, " parameter(1)\n");
  } else {
    body = absl::StrCat("  ", a, " = ", t, " parameter(0)\n  ", b, " = ", t, " parameter(1)\n  ROOT ", r, " = ", t,
                        " ", op_name, "(", a, ", ", b, ")\n");
  }
  AddComputation(absl::StrCat(name, " {\n", body, "}\n\n"));
  Count(absl::StrCat("reducer:", op_name));
  reducers_[key] = name;
  return name;
}

ProgramShape MakeProgramShape(const std::vector<Shape>& parameters, const Shape& result) {
  ProgramShape p;
  for (size_t i = 0; i < parameters.size(); ++i) {
    p.parameters().push_back(parameters[i]);
    p.parameter_names().push_back(absl::StrCat("p", i));
  }
  p.result() = result;
  return p;
}

std::vector<int64_t> RemoveDims(const std::vector<int64_t>& dims, const std::vector<int64_t>& removed) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i) {
    if (std::find(removed.begin(), removed.end(), i) == removed.end()) out.push_back(dims[i]);
  }
  return out;
}

std::string ListText(const std::vector<int64_t>& values) { return absl::StrCat("{", absl::StrJoin(values, ","), "}"); }

}  // namespace hlo_fuzz
}  // namespace xla
