// One handler per StableHLO op (and func.call, the check dialect and the
// interpreter ops): each maps the op's operands and attributes onto an HLO
// instruction whose shape comes from shape inference.
#include <functional>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "xla/shape_util.h"
#include "xla/stablehlo/dense_literal.h"
#include "xla/stablehlo/emitter.h"
#include "xla/stablehlo/type_conversion.h"
#include "xla/status_macros.h"

namespace xla {
namespace stablehlo {
namespace {

const absl::flat_hash_map<std::string, HloOpcode>& UnaryOps() {
  static const auto* ops = new absl::flat_hash_map<std::string, HloOpcode>{
      {"abs", HloOpcode::kAbs},
      {"cbrt", HloOpcode::kCbrt},
      {"ceil", HloOpcode::kCeil},
      {"count_leading_zeros", HloOpcode::kClz},
      {"cosine", HloOpcode::kCos},
      {"exponential", HloOpcode::kExp},
      {"exponential_minus_one", HloOpcode::kExpm1},
      {"floor", HloOpcode::kFloor},
      {"imag", HloOpcode::kImag},
      {"is_finite", HloOpcode::kIsFinite},
      {"log", HloOpcode::kLog},
      {"log_plus_one", HloOpcode::kLog1p},
      {"logistic", HloOpcode::kLogistic},
      {"negate", HloOpcode::kNegate},
      {"not", HloOpcode::kNot},
      {"popcnt", HloOpcode::kPopulationCount},
      {"real", HloOpcode::kReal},
      {"round_nearest_afz", HloOpcode::kRoundNearestAfz},
      {"round_nearest_even", HloOpcode::kRoundNearestEven},
      {"rsqrt", HloOpcode::kRsqrt},
      {"sign", HloOpcode::kSign},
      {"sine", HloOpcode::kSin},
      {"sqrt", HloOpcode::kSqrt},
      {"tan", HloOpcode::kTan},
      {"tanh", HloOpcode::kTanh},
  };
  return *ops;
}

const absl::flat_hash_map<std::string, HloOpcode>& BinaryOps() {
  static const auto* ops = new absl::flat_hash_map<std::string, HloOpcode>{
      {"add", HloOpcode::kAdd},
      {"and", HloOpcode::kAnd},
      {"atan2", HloOpcode::kAtan2},
      {"complex", HloOpcode::kComplex},
      {"divide", HloOpcode::kDivide},
      {"maximum", HloOpcode::kMaximum},
      {"minimum", HloOpcode::kMinimum},
      {"multiply", HloOpcode::kMultiply},
      {"or", HloOpcode::kOr},
      {"power", HloOpcode::kPower},
      {"remainder", HloOpcode::kRemainder},
      {"shift_left", HloOpcode::kShiftLeft},
      {"shift_right_arithmetic", HloOpcode::kShiftRightArithmetic},
      {"shift_right_logical", HloOpcode::kShiftRightLogical},
      {"subtract", HloOpcode::kSubtract},
      {"xor", HloOpcode::kXor},
  };
  return *ops;
}

// Ops that exist in StableHLO but that this system's HLO, shape inference
// or evaluator do not implement yet, with what is missing.
const absl::flat_hash_map<std::string, std::string>& MissingOps() {
  static const auto* ops = new absl::flat_hash_map<std::string, std::string>{
      {"set_dimension_size",
       "dynamic shapes are not supported (the StableHLO specification does not define set_dimension_size: one of its "
       "unspecced dynamism ops; the builder's SetDimensionSize covers static shapes)"},
  };
  return *ops;
}

absl::StatusOr<PrecisionConfig::Precision> ParsePrecision(const Emitter& e, const Attr& a) {
  std::string v = a.text;
  if (a.kind != Attr::kEnum) return e.Error(a.loc, "expected a precision (DEFAULT, HIGH, HIGHEST)");
  if (v == "DEFAULT") return PrecisionConfig::DEFAULT;
  if (v == "HIGH") return PrecisionConfig::HIGH;
  if (v == "HIGHEST") return PrecisionConfig::HIGHEST;
  return e.Error(a.loc, absl::StrCat("unknown precision '", v, "'"));
}

absl::Status SetPrecision(const Emitter& e, const Op& op, HloInstructionProto* attrs) {
  const Attr* p = e.FindAttr(op, {"precision_config", "precision"});
  if (p == nullptr) return absl::OkStatus();
  if (p->kind != Attr::kArray) return e.Error(p->loc, "expected a list of precisions");
  for (const Attr& item : p->list) {
    ASSIGN_OR_RETURN(auto precision, ParsePrecision(e, item));
    attrs->mutable_precision_config()->add_operand_precision(precision);
  }
  return absl::OkStatus();
}

// Reads the fields of a #stablehlo.X<key = [..], ...> struct into int lists.
absl::StatusOr<std::vector<int64_t>> StructInts(const Emitter& e, const Attr& s, const char* key) {
  const Attr* a = s.Find(key);
  if (a == nullptr) return std::vector<int64_t>();
  return e.IntList(*a);
}

absl::StatusOr<int64_t> StructInt(const Emitter& e, const Attr& s, const char* key, int64_t default_value) {
  const Attr* a = s.Find(key);
  if (a == nullptr) return default_value;
  return NumberToInt(*a, e.lexer());
}

absl::Status CheckStructKeys(const Emitter& e, const Attr& s, std::initializer_list<const char*> keys) {
  for (const auto& [key, value] : s.fields) {
    bool known = false;
    for (const char* k : keys) known |= key == k;
    if (!known) return e.Error(value.loc, absl::StrCat("unknown key '", key, "' in #", s.text));
  }
  return absl::OkStatus();
}

// A window from reduce_window/select_and_scatter/convolution attributes;
// `sizes` are the window dimensions. `padding_operand` (dynamic_conv's
// constant padding, rows of [low, high]) replaces the padding attribute.
absl::StatusOr<Window> MakeWindow(const Emitter& e, const Op& op, absl::Span<const int64_t> sizes,
                                  const std::vector<std::vector<int64_t>>* padding_operand = nullptr) {
  const size_t rank = sizes.size();
  auto get = [&](std::initializer_list<const char*> names, int64_t fill) -> absl::StatusOr<std::vector<int64_t>> {
    ASSIGN_OR_RETURN(std::vector<int64_t> v, e.IntListAttr(op, names, /*required=*/false));
    if (v.empty() && e.FindAttr(op, names) == nullptr) v.assign(rank, fill);
    if (v.size() != rank) {
      return e.OpError(op, absl::StrCat("'", *names.begin(), "' has ", v.size(), " entries, expected ", rank));
    }
    return v;
  };
  ASSIGN_OR_RETURN(auto strides, get({"window_strides"}, 1));
  ASSIGN_OR_RETURN(auto base_dilations, get({"base_dilations", "lhs_dilation"}, 1));
  ASSIGN_OR_RETURN(auto window_dilations, get({"window_dilations", "rhs_dilation"}, 1));
  std::vector<std::vector<int64_t>> padding(rank, std::vector<int64_t>{0, 0});
  if (padding_operand != nullptr) {
    if (padding_operand->size() != rank) {
      return e.OpError(op, absl::StrCat("padding has ", padding_operand->size(), " rows, expected ", rank));
    }
    padding = *padding_operand;
  } else if (const Attr* p = e.FindAttr(op, {"padding"})) {
    ASSIGN_OR_RETURN(padding, e.IntMatrix(*p));
    if (padding.size() != rank) {
      return e.OpError(op, absl::StrCat("padding has ", padding.size(), " rows, expected ", rank));
    }
    for (const auto& row : padding) {
      if (row.size() != 2) return e.OpError(op, "each padding row needs [low, high]");
    }
  }
  std::vector<bool> reversal(rank, false);
  if (const Attr* r = e.FindAttr(op, {"window_reversal"})) {
    if (r->list.size() != rank) return e.OpError(op, "window_reversal needs one entry per spatial dimension");
    for (size_t i = 0; i < rank; ++i) {
      const Attr& item = r->list[i];
      if (item.kind == Attr::kBool) {
        reversal[i] = item.b;
      } else {
        ASSIGN_OR_RETURN(int64_t v, NumberToInt(item, e.lexer()));
        reversal[i] = v != 0;
      }
    }
  }
  Window window;
  for (size_t i = 0; i < rank; ++i) {
    WindowDimension* d = window.add_dimensions();
    d->set_size(sizes[i]);
    d->set_stride(strides[i]);
    d->set_padding_low(padding[i][0]);
    d->set_padding_high(padding[i][1]);
    d->set_base_dilation(base_dilations[i]);
    d->set_window_dilation(window_dilations[i]);
    d->set_window_reversal(reversal[i]);
  }
  return window;
}

absl::StatusOr<ConvolutionDimensionNumbers> ConvDims(const Emitter& e, const Op& op) {
  const Attr* a = e.FindAttr(op, {"dimension_numbers"});
  if (a == nullptr) return e.OpError(op, "needs dimension_numbers");
  ConvolutionDimensionNumbers dn;
  if (a->kind == Attr::kStruct) {
    RETURN_IF_ERROR(CheckStructKeys(e, *a, {"input_batch_dimension", "input_feature_dimension",
                                            "input_spatial_dimensions", "kernel_input_feature_dimension",
                                            "kernel_output_feature_dimension", "kernel_spatial_dimensions",
                                            "output_batch_dimension", "output_feature_dimension",
                                            "output_spatial_dimensions"}));
    ASSIGN_OR_RETURN(int64_t ib, StructInt(e, *a, "input_batch_dimension", 0));
    ASSIGN_OR_RETURN(int64_t ifd, StructInt(e, *a, "input_feature_dimension", 0));
    ASSIGN_OR_RETURN(int64_t kif, StructInt(e, *a, "kernel_input_feature_dimension", 0));
    ASSIGN_OR_RETURN(int64_t kof, StructInt(e, *a, "kernel_output_feature_dimension", 0));
    ASSIGN_OR_RETURN(int64_t ob, StructInt(e, *a, "output_batch_dimension", 0));
    ASSIGN_OR_RETURN(int64_t of, StructInt(e, *a, "output_feature_dimension", 0));
    ASSIGN_OR_RETURN(auto is, StructInts(e, *a, "input_spatial_dimensions"));
    ASSIGN_OR_RETURN(auto ks, StructInts(e, *a, "kernel_spatial_dimensions"));
    ASSIGN_OR_RETURN(auto os, StructInts(e, *a, "output_spatial_dimensions"));
    dn.set_input_batch_dimension(ib);
    dn.set_input_feature_dimension(ifd);
    dn.set_kernel_input_feature_dimension(kif);
    dn.set_kernel_output_feature_dimension(kof);
    dn.set_output_batch_dimension(ob);
    dn.set_output_feature_dimension(of);
    for (int64_t d : is) dn.add_input_spatial_dimensions(d);
    for (int64_t d : ks) dn.add_kernel_spatial_dimensions(d);
    for (int64_t d : os) dn.add_output_spatial_dimensions(d);
    return dn;
  }
  if (a->kind != Attr::kConv || a->conv == nullptr) return e.Error(a->loc, "expected convolution dimension numbers");
  // Each layout lists, per tensor dimension, its role: a letter or the
  // index of a spatial dimension.
  auto assign = [&](const std::vector<std::string>& layout, char batch, char feature, int64_t* batch_dim,
                    int64_t* feature_dim, std::vector<int64_t>* spatial) -> absl::Status {
    std::vector<int64_t> by_index(layout.size(), -1);
    bool seen_batch = false, seen_feature = false;
    for (size_t i = 0; i < layout.size(); ++i) {
      const std::string& d = layout[i];
      if (d.size() == 1 && d[0] == batch && !seen_batch) {
        *batch_dim = static_cast<int64_t>(i);
        seen_batch = true;
      } else if (d.size() == 1 && d[0] == feature && !seen_feature) {
        *feature_dim = static_cast<int64_t>(i);
        seen_feature = true;
      } else {
        int64_t s;
        if (!absl::SimpleAtoi(d, &s) || s < 0 || s >= static_cast<int64_t>(layout.size()) || by_index[s] != -1) {
          return e.Error(a->loc, absl::StrCat("invalid convolution dimension '", d, "'"));
        }
        by_index[s] = static_cast<int64_t>(i);
      }
    }
    if (!seen_batch || !seen_feature) {
      return e.Error(a->loc, absl::StrCat("a convolution layout needs '", std::string(1, batch), "' and '",
                                          std::string(1, feature), "'"));
    }
    const size_t spatial_count = layout.size() - 2;
    for (size_t s = 0; s < spatial_count; ++s) {
      if (by_index[s] < 0) return e.Error(a->loc, absl::StrCat("spatial dimension ", s, " is missing"));
      spatial->push_back(by_index[s]);
    }
    return absl::OkStatus();
  };
  int64_t ib, ifd, kof, kif, ob, of;
  std::vector<int64_t> is, ks, os;
  RETURN_IF_ERROR(assign(a->conv->input, 'b', 'f', &ib, &ifd, &is));
  RETURN_IF_ERROR(assign(a->conv->kernel, 'o', 'i', &kof, &kif, &ks));
  RETURN_IF_ERROR(assign(a->conv->output, 'b', 'f', &ob, &of, &os));
  dn.set_input_batch_dimension(ib);
  dn.set_input_feature_dimension(ifd);
  dn.set_kernel_input_feature_dimension(kif);
  dn.set_kernel_output_feature_dimension(kof);
  dn.set_output_batch_dimension(ob);
  dn.set_output_feature_dimension(of);
  for (int64_t d : is) dn.add_input_spatial_dimensions(d);
  for (int64_t d : ks) dn.add_kernel_spatial_dimensions(d);
  for (int64_t d : os) dn.add_output_spatial_dimensions(d);
  return dn;
}

}  // namespace

absl::StatusOr<Values> Emitter::LowerStablehloOp(const Op& op, Scope& scope) {
  std::string name = op.name;
  if (name == "func.call" || name == "call") {
    const Attr* callee = FindAttr(op, {"callee"});
    if (callee == nullptr || callee->kind != Attr::kSymbol) return OpError(op, "needs a callee @f");
    return LowerCall(op, scope, callee->text);
  }
  if (absl::StartsWith(name, "check.") || absl::StartsWith(name, "interpreter.")) return LowerCheck(op, scope);
  if (!absl::StartsWith(name, "stablehlo.")) {
    return OpError(op, "unknown op (not a stablehlo, chlo, func, check or interpreter op)");
  }
  name = name.substr(10);
  if (auto it = UnaryOps().find(name); it != UnaryOps().end()) {
    RETURN_IF_ERROR(ExpectOperands(op, 1));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, it->second, operands));
    return Values{r};
  }
  if (auto it = BinaryOps().find(name); it != BinaryOps().end()) {
    RETURN_IF_ERROR(ExpectOperands(op, 2));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, it->second, operands));
    return Values{r};
  }
  if (IsDistributedOp(name)) return LowerDistributedOp(op, scope, name);
  if (auto it = MissingOps().find(name); it != MissingOps().end()) {
    return OpError(op, absl::StrCat("not supported: ", it->second));
  }
  ASSIGN_OR_RETURN(std::optional<Shape> declared, ResultShape(op, 0));

  if (name == "constant") {
    const Attr* value = FindAttr(op, {"value"});
    if (value == nullptr || value->kind != Attr::kDense) return OpError(op, "needs a dense<...> value");
    if (!value->type.has_value()) return OpError(op, "the value needs a type (dense<...> : tensor<...>)");
    ASSIGN_OR_RETURN(Shape shape, TypeToShape(*value->type, lex_));
    ASSIGN_OR_RETURN(Literal literal, DenseToLiteral(*value->dense, shape, value->loc, lex_));
    return Values{AddConstant(scope, std::move(literal))};
  }
  if (name == "compare") {
    RETURN_IF_ERROR(ExpectOperands(op, 2));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    HloInstructionProto attrs;
    const Attr* dir = FindAttr(op, {"comparison_direction", "_word0"});
    if (dir == nullptr) return OpError(op, "needs a comparison direction");
    static const char* kDirs[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
    bool ok = false;
    for (const char* d : kDirs) ok |= dir->text == d;
    if (!ok) return Error(dir->loc, absl::StrCat("unknown comparison direction '", dir->text, "'"));
    attrs.set_comparison_direction(dir->text);
    if (const Attr* type = FindAttr(op, {"compare_type", "_word1"})) {
      static const char* kTypes[] = {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED", "NOTYPE"};
      bool known = false;
      for (const char* t : kTypes) known |= type->text == t;
      if (!known) return Error(type->loc, absl::StrCat("unknown comparison type '", type->text, "'"));
      if (type->text != "NOTYPE") attrs.set_comparison_type(type->text);
    }
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kCompare, operands, attrs));
    return Values{r};
  }
  if (name == "rng_bit_generator") {
    RETURN_IF_ERROR(ExpectOperands(op, 1));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    ASSIGN_OR_RETURN(std::string algorithm, EnumAttr(op, {"rng_algorithm", "algorithm"}, "DEFAULT"));
    HloInstructionProto attrs;
    if (algorithm == "THREE_FRY") {
      attrs.set_rng_algorithm(RNG_THREE_FRY);
    } else if (algorithm == "PHILOX") {
      attrs.set_rng_algorithm(RNG_PHILOX);
    } else if (algorithm != "DEFAULT") {
      return OpError(op, absl::StrCat("unknown rng algorithm '", algorithm, "' (DEFAULT, THREE_FRY or PHILOX)"));
    }
    ASSIGN_OR_RETURN(Shape state, RequiredResultShape(op, 0));
    ASSIGN_OR_RETURN(Shape bits, RequiredResultShape(op, 1));
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kRngBitGenerator, operands, attrs, {},
                                              ShapeUtil::MakeTupleShape({state, bits})));
    return Untuple(scope, r);
  }
  if (name == "reduce_precision") {
    RETURN_IF_ERROR(ExpectOperands(op, 1));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    HloInstructionProto attrs;
    if (const Attr* format = FindAttr(op, {"format"})) {
      // Pretty form: format = e5m10.
      int32_t exponent_bits = 0, mantissa_bits = 0;
      absl::string_view text = format->text;
      const size_t m = text.find('m');
      if (format->kind != Attr::kEnum || !absl::ConsumePrefix(&text, "e") || m == absl::string_view::npos ||
          !absl::SimpleAtoi(text.substr(0, m - 1), &exponent_bits) ||
          !absl::SimpleAtoi(text.substr(m), &mantissa_bits)) {
        return Error(format->loc, absl::StrCat("expected a format eXmY, got '", format->text, "'"));
      }
      attrs.set_exponent_bits(exponent_bits);
      attrs.set_mantissa_bits(mantissa_bits);
    } else {
      ASSIGN_OR_RETURN(int64_t exponent_bits, IntAttr(op, {"exponent_bits"}));
      ASSIGN_OR_RETURN(int64_t mantissa_bits, IntAttr(op, {"mantissa_bits"}));
      if (exponent_bits > 1024 || mantissa_bits > 1024 || exponent_bits < -1024 || mantissa_bits < -1024) {
        return OpError(op, "exponent_bits and mantissa_bits must fit the format (at most 1024)");
      }
      attrs.set_exponent_bits(static_cast<int32_t>(exponent_bits));
      attrs.set_mantissa_bits(static_cast<int32_t>(mantissa_bits));
    }
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kReducePrecision, operands, attrs));
    return Values{r};
  }
  if (name == "select" || name == "clamp") {
    RETURN_IF_ERROR(ExpectOperands(op, 3));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    ASSIGN_OR_RETURN(HloInstruction * r,
                     Emit(op, scope, name == "select" ? HloOpcode::kSelect : HloOpcode::kClamp, operands));
    return Values{r};
  }
  if (name == "convert" || name == "bitcast_convert" || name == "reshape") {
    RETURN_IF_ERROR(ExpectOperands(op, 1));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    ASSIGN_OR_RETURN(Shape shape, RequiredResultShape(op, 0));
    HloOpcode opcode = name == "convert"           ? HloOpcode::kConvert
                       : name == "bitcast_convert" ? HloOpcode::kBitcastConvert
                                                   : HloOpcode::kReshape;
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, opcode, operands, {}, {}, shape));
    return Values{r};
  }
  // The dynamic_* ops whose shape operands are constants are their static
  // ops: this gives the result shape such an operand names, checked
  // against the declared type (which also gives the element type).
  auto shape_from_operand = [&](size_t i, const char* what) -> absl::StatusOr<Shape> {
    ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ConstantIntOperand(op, i, scope, what));
    if (!declared.has_value()) return OpError(op, "needs its result type");
    if (declared->dimensions() != sizes) {
      return OpError(op, absl::StrCat(what, " [", absl::StrJoin(sizes, ", "), "] does not match the result type ",
                                      declared->ToString()));
    }
    return *declared;
  };
  if (name == "dynamic_iota" || name == "dynamic_broadcast_in_dim" || name == "dynamic_reshape") {
    const bool iota = name == "dynamic_iota";
    RETURN_IF_ERROR(ExpectOperands(op, iota ? 1 : 2));
    ASSIGN_OR_RETURN(Shape shape, shape_from_operand(iota ? 0 : 1, iota ? "output_shape" : "output_dimensions"));
    HloInstructionProto attrs;
    Values operands;
    HloOpcode opcode;
    if (iota) {
      opcode = HloOpcode::kIota;
      ASSIGN_OR_RETURN(int64_t d, IntAttr(op, {"iota_dimension", "dim"}));
      attrs.add_dimensions(d);
    } else {
      ASSIGN_OR_RETURN(HloInstruction * operand, Operand(op, 0, scope));
      operands = {operand};
      opcode = name == "dynamic_reshape" ? HloOpcode::kReshape : HloOpcode::kBroadcast;
    }
    if (opcode == HloOpcode::kBroadcast) {
      ASSIGN_OR_RETURN(auto dims, IntListAttr(op, {"broadcast_dimensions"}));
      // Expansion hints: operand dimensions, each named at most once.
      ASSIGN_OR_RETURN(auto expanding, IntListAttr(op, {"known_expanding_dimensions"}, /*required=*/false));
      ASSIGN_OR_RETURN(auto nonexpanding, IntListAttr(op, {"known_nonexpanding_dimensions"}, /*required=*/false));
      std::vector<bool> named(dims.size(), false);
      for (const auto* hints : {&expanding, &nonexpanding}) {
        for (int64_t d : *hints) {
          if (d < 0 || d >= static_cast<int64_t>(dims.size()) || named[d]) {
            return OpError(op, absl::StrCat("known_(non)expanding_dimensions: ", d,
                                            " is not an operand dimension or is named twice"));
          }
          named[d] = true;
        }
      }
      for (int64_t d : dims) attrs.add_dimensions(d);
    }
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, opcode, operands, attrs, {}, shape));
    return Values{r};
  }
  if (name == "broadcast_in_dim" || name == "transpose" || name == "reverse" || name == "concatenate" ||
      name == "iota") {
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    HloInstructionProto attrs;
    HloOpcode opcode;
    std::vector<int64_t> dims;
    if (name == "broadcast_in_dim") {
      opcode = HloOpcode::kBroadcast;
      ASSIGN_OR_RETURN(dims, IntListAttr(op, {"broadcast_dimensions", "dims"}));
    } else if (name == "transpose") {
      opcode = HloOpcode::kTranspose;
      ASSIGN_OR_RETURN(dims, IntListAttr(op, {"permutation", "dims"}));
    } else if (name == "reverse") {
      opcode = HloOpcode::kReverse;
      ASSIGN_OR_RETURN(dims, IntListAttr(op, {"dimensions", "dims"}));
    } else if (name == "concatenate") {
      opcode = HloOpcode::kConcatenate;
      ASSIGN_OR_RETURN(int64_t d, IntAttr(op, {"dimension", "dim"}));
      dims = {d};
    } else {
      opcode = HloOpcode::kIota;
      ASSIGN_OR_RETURN(int64_t d, IntAttr(op, {"iota_dimension", "dim"}));
      dims = {d};
    }
    for (int64_t d : dims) attrs.add_dimensions(d);
    if ((opcode == HloOpcode::kBroadcast || opcode == HloOpcode::kIota) && !declared.has_value()) {
      return OpError(op, "needs its result type");
    }
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, opcode, operands, attrs, {}, declared));
    return Values{r};
  }
  if (name == "slice" || name == "real_dynamic_slice") {
    const bool dynamic = name == "real_dynamic_slice";
    RETURN_IF_ERROR(ExpectOperands(op, dynamic ? 4 : 1));
    ASSIGN_OR_RETURN(HloInstruction * operand, Operand(op, 0, scope));
    Values operands = {operand};
    std::vector<int64_t> starts, limits, strides;
    if (dynamic) {
      ASSIGN_OR_RETURN(starts, ConstantIntOperand(op, 1, scope, "start_indices"));
      ASSIGN_OR_RETURN(limits, ConstantIntOperand(op, 2, scope, "limit_indices"));
      ASSIGN_OR_RETURN(strides, ConstantIntOperand(op, 3, scope, "strides"));
    } else {
      ASSIGN_OR_RETURN(starts, IntListAttr(op, {"start_indices"}));
      ASSIGN_OR_RETURN(limits, IntListAttr(op, {"limit_indices"}));
      ASSIGN_OR_RETURN(strides, IntListAttr(op, {"strides"}));
    }
    if (starts.size() != limits.size() || starts.size() != strides.size()) {
      return OpError(op, "start_indices, limit_indices and strides differ in length");
    }
    HloInstructionProto attrs;
    for (size_t i = 0; i < starts.size(); ++i) {
      auto* d = attrs.add_slice_dimensions();
      d->set_start(starts[i]);
      d->set_limit(limits[i]);
      d->set_stride(strides[i]);
    }
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kSlice, operands, attrs));
    return Values{r};
  }
  if (name == "pad" || name == "dynamic_pad") {
    const bool dynamic = name == "dynamic_pad";
    RETURN_IF_ERROR(ExpectOperands(op, dynamic ? 5 : 2));
    ASSIGN_OR_RETURN(HloInstruction * operand, Operand(op, 0, scope));
    ASSIGN_OR_RETURN(HloInstruction * padding_value, Operand(op, 1, scope));
    Values operands = {operand, padding_value};
    std::vector<int64_t> low, high, interior;
    if (dynamic) {
      ASSIGN_OR_RETURN(low, ConstantIntOperand(op, 2, scope, "edge_padding_low"));
      ASSIGN_OR_RETURN(high, ConstantIntOperand(op, 3, scope, "edge_padding_high"));
      ASSIGN_OR_RETURN(interior, ConstantIntOperand(op, 4, scope, "interior_padding"));
    } else {
      ASSIGN_OR_RETURN(low, IntListAttr(op, {"edge_padding_low", "low"}));
      ASSIGN_OR_RETURN(high, IntListAttr(op, {"edge_padding_high", "high"}));
      ASSIGN_OR_RETURN(interior, IntListAttr(op, {"interior_padding", "interior"}));
    }
    if (low.size() != high.size() || low.size() != interior.size()) {
      return OpError(op, "low, high and interior padding differ in length");
    }
    HloInstructionProto attrs;
    for (size_t i = 0; i < low.size(); ++i) {
      auto* d = attrs.mutable_padding_config()->add_dimensions();
      d->set_edge_padding_low(low[i]);
      d->set_edge_padding_high(high[i]);
      d->set_interior_padding(interior[i]);
    }
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kPad, operands, attrs));
    return Values{r};
  }
  if (name == "dynamic_slice") {
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    ASSIGN_OR_RETURN(auto sizes, IntListAttr(op, {"slice_sizes", "sizes"}));
    HloInstructionProto attrs;
    for (int64_t s : sizes) attrs.add_dynamic_slice_sizes(s);
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kDynamicSlice, operands, attrs));
    return Values{r};
  }
  if (name == "dynamic_update_slice") {
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kDynamicUpdateSlice, operands));
    return Values{r};
  }
  if (name == "dot_general" || name == "dot") {
    RETURN_IF_ERROR(ExpectOperands(op, 2));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    HloInstructionProto attrs;
    DotDimensionNumbers* dn = attrs.mutable_dot_dimension_numbers();
    if (name == "dot") {
      const int lhs_rank = operands[0]->shape().rank();
      if (lhs_rank < 1 || lhs_rank > 2 || operands[1]->shape().rank() < 1 || operands[1]->shape().rank() > 2) {
        return OpError(op, "dot takes operands of rank 1 or 2");
      }
      dn->add_lhs_contracting_dimensions(lhs_rank - 1);
      dn->add_rhs_contracting_dimensions(0);
    } else if (const Attr* s = FindAttr(op, {"dot_dimension_numbers"})) {
      if (s->kind != Attr::kStruct) return Error(s->loc, "expected #stablehlo.dot<...>");
      RETURN_IF_ERROR(CheckStructKeys(*this, *s, {"lhs_batching_dimensions", "rhs_batching_dimensions",
                                                  "lhs_contracting_dimensions", "rhs_contracting_dimensions"}));
      for (auto [key, add] : std::vector<std::pair<const char*, std::function<void(int64_t)>>>{
               {"lhs_batching_dimensions", [&](int64_t d) { dn->add_lhs_batch_dimensions(d); }},
               {"rhs_batching_dimensions", [&](int64_t d) { dn->add_rhs_batch_dimensions(d); }},
               {"lhs_contracting_dimensions", [&](int64_t d) { dn->add_lhs_contracting_dimensions(d); }},
               {"rhs_contracting_dimensions", [&](int64_t d) { dn->add_rhs_contracting_dimensions(d); }}}) {
        ASSIGN_OR_RETURN(auto dims, StructInts(*this, *s, key));
        for (int64_t d : dims) add(d);
      }
    } else {
      for (const char* key : {"batching_dims", "contracting_dims"}) {
        const Attr* pair = FindAttr(op, {key});
        if (pair == nullptr) continue;
        if (pair->kind != Attr::kArray || pair->text != "pair" || pair->list.size() != 2) {
          return Error(pair->loc, absl::StrCat(key, " must be [lhs dims] x [rhs dims]"));
        }
        ASSIGN_OR_RETURN(auto lhs, IntList(pair->list[0]));
        ASSIGN_OR_RETURN(auto rhs, IntList(pair->list[1]));
        const bool batch = std::string(key) == "batching_dims";
        for (int64_t d : lhs) batch ? dn->add_lhs_batch_dimensions(d) : dn->add_lhs_contracting_dimensions(d);
        for (int64_t d : rhs) batch ? dn->add_rhs_batch_dimensions(d) : dn->add_rhs_contracting_dimensions(d);
      }
    }
    if (FindAttr(op, {"algorithm"}) != nullptr) return OpError(op, "dot algorithms are not supported");
    RETURN_IF_ERROR(SetPrecision(*this, op, &attrs));
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kDot, operands, attrs, {}, declared));
    return Values{r};
  }
  if (name == "convolution" || name == "dynamic_conv") {
    const bool dynamic = name == "dynamic_conv";
    RETURN_IF_ERROR(ExpectOperands(op, dynamic ? 3 : 2));
    ASSIGN_OR_RETURN(HloInstruction * lhs, Operand(op, 0, scope));
    ASSIGN_OR_RETURN(HloInstruction * rhs, Operand(op, 1, scope));
    Values operands = {lhs, rhs};
    HloInstructionProto attrs;
    ASSIGN_OR_RETURN(*attrs.mutable_convolution_dimension_numbers(), ConvDims(*this, op));
    const auto& dn = attrs.convolution_dimension_numbers();
    std::vector<int64_t> sizes;
    for (int64_t d : dn.kernel_spatial_dimensions()) {
      if (d < 0 || d >= operands[1]->shape().rank()) return OpError(op, "kernel spatial dimension out of range");
      sizes.push_back(operands[1]->shape().dimensions(static_cast<int>(d)));
    }
    std::optional<std::vector<std::vector<int64_t>>> padding;
    if (dynamic) {
      ASSIGN_OR_RETURN(auto flat, ConstantIntOperand(op, 2, scope, "padding"));
      ASSIGN_OR_RETURN(HloInstruction * p, Operand(op, 2, scope));
      if (p->shape().rank() != 2 || p->shape().dimensions(1) != 2) {
        return OpError(op, absl::StrCat("padding must be [spatial dimensions, 2], got ", p->shape().ToString()));
      }
      padding.emplace();
      for (size_t i = 0; i + 1 < flat.size(); i += 2) padding->push_back({flat[i], flat[i + 1]});
    }
    ASSIGN_OR_RETURN(*attrs.mutable_window(), MakeWindow(*this, op, sizes, padding ? &*padding : nullptr));
    ASSIGN_OR_RETURN(int64_t fgc, IntAttr(op, {"feature_group_count"}, 1));
    ASSIGN_OR_RETURN(int64_t bgc, IntAttr(op, {"batch_group_count"}, 1));
    attrs.set_feature_group_count(fgc);
    attrs.set_batch_group_count(bgc);
    RETURN_IF_ERROR(SetPrecision(*this, op, &attrs));
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kConvolution, operands, attrs, {}, declared));
    return Values{r};
  }
  if (name == "reduce") {
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    if (op.regions.size() != 1) return OpError(op, "needs one reducer region");
    ASSIGN_OR_RETURN(HloComputation * reducer, LowerReducerRegion(op, op.regions[0], scope, "reduce"));
    ASSIGN_OR_RETURN(auto dims, IntListAttr(op, {"dimensions"}));
    HloInstructionProto attrs;
    for (int64_t d : dims) attrs.add_dimensions(d);
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kReduce, operands, attrs, {reducer}));
    if (r->shape().IsTuple()) return Untuple(scope, r);
    return Values{r};
  }
  if (name == "reduce_window") {
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    if (op.regions.size() != 1) return OpError(op, "needs one reducer region");
    ASSIGN_OR_RETURN(HloComputation * reducer, LowerReducerRegion(op, op.regions[0], scope, "reduce_window"));
    ASSIGN_OR_RETURN(auto sizes, IntListAttr(op, {"window_dimensions"}));
    HloInstructionProto attrs;
    ASSIGN_OR_RETURN(*attrs.mutable_window(), MakeWindow(*this, op, sizes));
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kReduceWindow, operands, attrs, {reducer}));
    if (r->shape().IsTuple()) return Untuple(scope, r);
    return Values{r};
  }
  if (name == "select_and_scatter") {
    RETURN_IF_ERROR(ExpectOperands(op, 3));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    if (op.regions.size() != 2) return OpError(op, "needs two regions (select, scatter)");
    ASSIGN_OR_RETURN(HloComputation * select, LowerReducerRegion(op, op.regions[0], scope, "select"));
    ASSIGN_OR_RETURN(HloComputation * scatter, LowerReducerRegion(op, op.regions[1], scope, "scatter"));
    ASSIGN_OR_RETURN(auto sizes, IntListAttr(op, {"window_dimensions"}));
    HloInstructionProto attrs;
    ASSIGN_OR_RETURN(*attrs.mutable_window(), MakeWindow(*this, op, sizes));
    ASSIGN_OR_RETURN(HloInstruction * r,
                     Emit(op, scope, HloOpcode::kSelectAndScatter, operands, attrs, {select, scatter}));
    return Values{r};
  }
  if (name == "scatter") {
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    if (op.regions.size() != 1) return OpError(op, "needs one update region");
    ASSIGN_OR_RETURN(HloComputation * update, LowerReducerRegion(op, op.regions[0], scope, "scatter"));
    const Attr* s = FindAttr(op, {"scatter_dimension_numbers"});
    if (s == nullptr || s->kind != Attr::kStruct) return OpError(op, "needs #stablehlo.scatter<...> dimension numbers");
    RETURN_IF_ERROR(CheckStructKeys(*this, *s, {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                                                "scatter_indices_batching_dims", "scatter_dims_to_operand_dims",
                                                "index_vector_dim"}));
    HloInstructionProto attrs;
    ScatterDimensionNumbers* dn = attrs.mutable_scatter_dimension_numbers();
    ASSIGN_OR_RETURN(auto uwd, StructInts(*this, *s, "update_window_dims"));
    ASSIGN_OR_RETURN(auto iwd, StructInts(*this, *s, "inserted_window_dims"));
    ASSIGN_OR_RETURN(auto ibd, StructInts(*this, *s, "input_batching_dims"));
    ASSIGN_OR_RETURN(auto sibd, StructInts(*this, *s, "scatter_indices_batching_dims"));
    ASSIGN_OR_RETURN(auto sdod, StructInts(*this, *s, "scatter_dims_to_operand_dims"));
    // The printer leaves index_vector_dim out when it is 0.
    ASSIGN_OR_RETURN(int64_t ivd, StructInt(*this, *s, "index_vector_dim", 0));
    for (int64_t d : uwd) dn->add_update_window_dims(d);
    for (int64_t d : iwd) dn->add_inserted_window_dims(d);
    for (int64_t d : ibd) dn->add_input_batching_dims(d);
    for (int64_t d : sibd) dn->add_scatter_indices_batching_dims(d);
    for (int64_t d : sdod) dn->add_scatter_dims_to_operand_dims(d);
    dn->set_index_vector_dim(ivd);
    ASSIGN_OR_RETURN(bool sorted, BoolAttr(op, "indices_are_sorted", false));
    ASSIGN_OR_RETURN(bool unique, BoolAttr(op, "unique_indices", false));
    attrs.set_indices_are_sorted(sorted);
    attrs.set_unique_indices(unique);
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kScatter, operands, attrs, {update}));
    if (r->shape().IsTuple()) return Untuple(scope, r);
    return Values{r};
  }
  if (name == "gather" || name == "dynamic_gather") {
    const bool dynamic = name == "dynamic_gather";
    RETURN_IF_ERROR(ExpectOperands(op, dynamic ? 3 : 2));
    ASSIGN_OR_RETURN(HloInstruction * operand, Operand(op, 0, scope));
    ASSIGN_OR_RETURN(HloInstruction * start_indices, Operand(op, 1, scope));
    Values operands = {operand, start_indices};
    const Attr* s = FindAttr(op, {"dimension_numbers"});
    if (s == nullptr || s->kind != Attr::kStruct) return OpError(op, "needs #stablehlo.gather<...> dimension numbers");
    RETURN_IF_ERROR(CheckStructKeys(*this, *s, {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                                                "start_indices_batching_dims", "start_index_map",
                                                "index_vector_dim"}));
    HloInstructionProto attrs;
    GatherDimensionNumbers* dn = attrs.mutable_gather_dimension_numbers();
    ASSIGN_OR_RETURN(auto od, StructInts(*this, *s, "offset_dims"));
    ASSIGN_OR_RETURN(auto csd, StructInts(*this, *s, "collapsed_slice_dims"));
    ASSIGN_OR_RETURN(auto obd, StructInts(*this, *s, "operand_batching_dims"));
    ASSIGN_OR_RETURN(auto sibd, StructInts(*this, *s, "start_indices_batching_dims"));
    ASSIGN_OR_RETURN(auto sim, StructInts(*this, *s, "start_index_map"));
    ASSIGN_OR_RETURN(int64_t ivd, StructInt(*this, *s, "index_vector_dim", 0));
    for (int64_t d : od) dn->add_offset_dims(d);
    for (int64_t d : csd) dn->add_collapsed_slice_dims(d);
    for (int64_t d : obd) dn->add_operand_batching_dims(d);
    for (int64_t d : sibd) dn->add_start_indices_batching_dims(d);
    for (int64_t d : sim) dn->add_start_index_map(d);
    dn->set_index_vector_dim(ivd);
    std::vector<int64_t> sizes;
    if (dynamic) {
      ASSIGN_OR_RETURN(sizes, ConstantIntOperand(op, 2, scope, "slice_sizes"));
    } else {
      ASSIGN_OR_RETURN(sizes, IntListAttr(op, {"slice_sizes"}));
    }
    for (int64_t d : sizes) attrs.add_gather_slice_sizes(d);
    ASSIGN_OR_RETURN(bool sorted, BoolAttr(op, "indices_are_sorted", false));
    attrs.set_indices_are_sorted(sorted);
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kGather, operands, attrs));
    return Values{r};
  }
  if (name == "sort") {
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    if (op.regions.size() != 1) return OpError(op, "needs one comparator region");
    ASSIGN_OR_RETURN(HloComputation * comparator, LowerReducerRegion(op, op.regions[0], scope, "sort"));
    ASSIGN_OR_RETURN(int64_t dim, IntAttr(op, {"dimension"}, -1));
    ASSIGN_OR_RETURN(bool stable, BoolAttr(op, "is_stable", false));
    if (dim < 0 && !operands.empty()) dim += operands[0]->shape().rank();
    HloInstructionProto attrs;
    attrs.add_dimensions(dim);
    attrs.set_is_stable(stable);
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kSort, operands, attrs, {comparator}));
    if (r->shape().IsTuple()) return Untuple(scope, r);
    return Values{r};
  }
  if (name == "map") {
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    if (op.regions.size() != 1) return OpError(op, "needs one region");
    ASSIGN_OR_RETURN(HloComputation * fn, LowerReducerRegion(op, op.regions[0], scope, "map"));
    ASSIGN_OR_RETURN(auto dims, IntListAttr(op, {"dimensions"}));
    HloInstructionProto attrs;
    for (int64_t d : dims) attrs.add_dimensions(d);
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kMap, operands, attrs, {fn}));
    return Values{r};
  }
  if (name == "fft") {
    RETURN_IF_ERROR(ExpectOperands(op, 1));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    ASSIGN_OR_RETURN(std::string type, EnumAttr(op, {"fft_type", "type"}));
    FftType fft_type;
    if (!FftType_Parse(type, &fft_type)) {
      return OpError(op, absl::StrCat("unknown fft_type '", type, "' (expected FFT, IFFT, RFFT or IRFFT)"));
    }
    ASSIGN_OR_RETURN(auto lengths, IntListAttr(op, {"fft_length", "length"}));
    HloInstructionProto attrs;
    attrs.set_fft_type(fft_type);
    for (int64_t l : lengths) attrs.add_fft_length(l);
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kFft, operands, attrs, {}, declared));
    return Values{r};
  }
  if (name == "triangular_solve") {
    RETURN_IF_ERROR(ExpectOperands(op, 2));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    HloInstructionProto attrs;
    TriangularSolveOptions* options = attrs.mutable_triangular_solve_options();
    ASSIGN_OR_RETURN(bool left_side, BoolAttr(op, "left_side", false));
    ASSIGN_OR_RETURN(bool lower, BoolAttr(op, "lower", false));
    ASSIGN_OR_RETURN(bool unit_diagonal, BoolAttr(op, "unit_diagonal", false));
    ASSIGN_OR_RETURN(std::string transpose, EnumAttr(op, {"transpose_a"}));
    TriangularSolveOptions::Transpose transpose_a;
    if (!TriangularSolveOptions::Transpose_Parse(transpose, &transpose_a) ||
        transpose_a == TriangularSolveOptions::TRANSPOSE_INVALID) {
      return OpError(op, absl::StrCat("unknown transpose_a '", transpose,
                                      "' (expected NO_TRANSPOSE, TRANSPOSE or ADJOINT)"));
    }
    options->set_left_side(left_side);
    options->set_lower(lower);
    options->set_unit_diagonal(unit_diagonal);
    options->set_transpose_a(transpose_a);
    ASSIGN_OR_RETURN(HloInstruction * r,
                     Emit(op, scope, HloOpcode::kTriangularSolve, operands, attrs, {}, declared));
    return Values{r};
  }
  if (name == "cholesky") {
    RETURN_IF_ERROR(ExpectOperands(op, 1));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    HloInstructionProto attrs;
    ASSIGN_OR_RETURN(bool lower, BoolAttr(op, "lower", false));
    attrs.mutable_cholesky_options()->set_lower(lower);
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kCholesky, operands, attrs, {}, declared));
    return Values{r};
  }
  if (name == "while") return LowerWhile(op, scope);
  if (name == "if" || name == "case") {
    RETURN_IF_ERROR(ExpectOperands(op, 1));
    ASSIGN_OR_RETURN(HloInstruction * index, Operand(op, 0, scope));
    if (name == "if" && op.regions.size() != 2) return OpError(op, "needs two regions (true, false)");
    return LowerConditional(op, scope, index);
  }
  if (name == "tuple") {
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    return Values{AddTuple(scope, operands)};
  }
  if (name == "get_tuple_element") {
    RETURN_IF_ERROR(ExpectOperands(op, 1));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    ASSIGN_OR_RETURN(int64_t index, IntAttr(op, {"index"}));
    HloInstructionProto attrs;
    attrs.set_tuple_index(index);
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kGetTupleElement, operands, attrs));
    return Values{r};
  }
  if (name == "optimization_barrier") {
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    HloInstruction* t = AddTuple(scope, operands);
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kOptimizationBarrier, {t}));
    return Untuple(scope, r);
  }
  if (name == "rng") {
    // Operands a, b and the result's shape (a constant the declared result
    // type already states).
    RETURN_IF_ERROR(ExpectOperands(op, 3));
    ASSIGN_OR_RETURN(HloInstruction * a, Operand(op, 0, scope));
    ASSIGN_OR_RETURN(HloInstruction * b, Operand(op, 1, scope));
    ASSIGN_OR_RETURN(std::string distribution, EnumAttr(op, {"rng_distribution", "distribution"}));
    HloInstructionProto attrs;
    if (distribution == "UNIFORM") {
      attrs.set_distribution(RNG_UNIFORM);
    } else if (distribution == "NORMAL") {
      attrs.set_distribution(RNG_NORMAL);
    } else {
      return OpError(op, absl::StrCat("unknown rng distribution '", distribution, "' (UNIFORM or NORMAL)"));
    }
    ASSIGN_OR_RETURN(Shape shape, RequiredResultShape(op, 0));
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, HloOpcode::kRng, {a, b}, attrs, {}, shape));
    return Values{r};
  }
  if (name == "batch_norm_training" || name == "batch_norm_inference" || name == "batch_norm_grad") {
    const bool inference = name == "batch_norm_inference";
    RETURN_IF_ERROR(ExpectOperands(op, name == "batch_norm_training" ? 3 : 5));
    ASSIGN_OR_RETURN(Values operands, Operands(op, scope));
    const Attr* epsilon = FindAttr(op, {"epsilon"});
    if (epsilon == nullptr) return OpError(op, "needs epsilon");
    ASSIGN_OR_RETURN(double eps, NumberToDouble(*epsilon, lex_));
    ASSIGN_OR_RETURN(int64_t feature_index, IntAttr(op, {"feature_index"}));
    HloInstructionProto attrs;
    attrs.set_epsilon(static_cast<float>(eps));
    attrs.set_feature_index(feature_index);
    const HloOpcode opcode = name == "batch_norm_training" ? HloOpcode::kBatchNormTraining
                             : inference                   ? HloOpcode::kBatchNormInference
                                                           : HloOpcode::kBatchNormGrad;
    ASSIGN_OR_RETURN(HloInstruction * r, Emit(op, scope, opcode, operands, attrs));
    if (inference) return Values{r};
    return Untuple(scope, r);
  }
  if (name == "get_dimension_size") {
    // Shapes are static here, so the size is a constant.
    RETURN_IF_ERROR(ExpectOperands(op, 1));
    ASSIGN_OR_RETURN(HloInstruction * operand, Operand(op, 0, scope));
    ASSIGN_OR_RETURN(int64_t dim, IntAttr(op, {"dimension", "dim"}));
    if (!operand->shape().IsArray() || dim < 0 || dim >= operand->shape().rank()) {
      return OpError(op, absl::StrCat("dimension ", dim, " is out of range for ", operand->shape().ToString()));
    }
    const int64_t size = operand->shape().dimensions(static_cast<int>(dim));
    if (size > std::numeric_limits<int32_t>::max()) return OpError(op, "the size does not fit i32");
    return Values{AddConstant(scope, Literal::CreateR0<int32_t>(static_cast<int32_t>(size)))};
  }
  if (name == "custom_call") {
    const Attr* target = FindAttr(op, {"call_target_name", "callee"});
    if (target == nullptr) return OpError(op, "needs a call target");
    if (absl::StartsWith(target->text, "check.")) return LowerCheck(op, scope);
    return LowerCustomCall(op, scope, target->text);
  }
  if (name == "composite") {
    const Attr* d = FindAttr(op, {"decomposition"});
    if (d == nullptr || d->kind != Attr::kSymbol) return OpError(op, "needs decomposition = @f");
    return LowerCall(op, scope, d->text);
  }
  return OpError(op, "unknown op");
}

}  // namespace stablehlo
}  // namespace xla
