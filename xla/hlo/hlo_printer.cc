// HLO text printer. Prints from the IR objects in the format hlo_parser.cc
// reads back. Attributes are printed in one fixed order: an attribute is
// printed when it is meaningful for the opcode (even at its default, e.g.
// `dimensions={}` on broadcast) or when it holds a non-default value on any
// other opcode, so nothing stored in the instruction is silently dropped and
// parse -> print -> parse -> print is stable.
//
// Conventions shared with the parser:
//  - unknown_attributes (attributes without a typed field) are printed last,
//    verbatim, sorted by name.
//  - A constant whose value was elided in the input (`constant({...})`) has
//    unknown_attributes["elided"] == "true"; it is printed as `{...}` again.
#include "xla/hlo/hlo_printer.h"

#include "xla/hlo/input_output_alias.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "proto/hlo.pb.h"
#include "xla/hlo/hlo_computation.h"
#include "xla/hlo/hlo_instruction.h"
#include "xla/hlo/hlo_module.h"
#include "xla/hlo/hlo_opcode.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

bool IsOneOf(HloOpcode op, std::initializer_list<HloOpcode> ops) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

// Names always carry the '%' sigil; an unnamed instruction (built in code and
// never named) gets a stable synthetic name so the text still parses.
std::string InstrName(const HloInstruction& instr) {
  if (!instr.name().empty()) return absl::StrCat("%", instr.name());
  return absl::StrCat("%", HloOpcodeString(instr.opcode()), ".", instr.unique_id());
}

std::string CompName(const HloComputation* comp) {
  if (comp == nullptr) return "%<null>";
  if (!comp->name().empty()) return absl::StrCat("%", comp->name());
  return absl::StrCat("%computation.", comp->unique_id());
}

template <typename Container>
std::string IntList(const Container& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

std::string Quote(absl::string_view s) { return absl::StrCat("\"", absl::CEscape(s), "\""); }

// Shortest decimal text that reads back to the same float.
std::string FloatText(float value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  for (int precision = 1; precision < 9; ++precision) {
    std::string s = absl::StrFormat("%.*g", precision, value);
    if (std::strtof(s.c_str(), nullptr) == value) return s;
  }
  return absl::StrFormat("%.9g", value);
}

// Value part of a constant; tuple elements are printed without their shapes
// (the instruction's shape already says them), which Literal::ParseValue reads.
std::string LiteralValueText(const Literal& literal) {
  if (literal.shape().IsTuple()) {
    std::vector<std::string> parts;
    for (const Literal& e : literal.tuple_elements()) parts.push_back(LiteralValueText(e));
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  return literal.ToStringWithoutShape();
}

std::string LowerEnumName(const std::string& name) { return absl::AsciiStrToLower(name); }

// "size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=... rhs_dilate=... rhs_reversal=..."
// Fields at their defaults (stride/dilation 1, padding 0, no reversal) are omitted.
std::string WindowText(const Window& window) {
  if (window.dimensions_size() == 0) return "{}";
  std::vector<std::string> size, stride, pad, lhs_dilate, rhs_dilate, reversal;
  bool any_stride = false, any_pad = false, any_lhs = false, any_rhs = false, any_rev = false;
  for (const WindowDimension& d : window.dimensions()) {
    size.push_back(absl::StrCat(d.size()));
    stride.push_back(absl::StrCat(d.stride()));
    pad.push_back(absl::StrCat(d.padding_low(), "_", d.padding_high()));
    lhs_dilate.push_back(absl::StrCat(d.base_dilation()));
    rhs_dilate.push_back(absl::StrCat(d.window_dilation()));
    reversal.push_back(d.window_reversal() ? "1" : "0");
    any_stride |= d.stride() != 1;
    any_pad |= d.padding_low() != 0 || d.padding_high() != 0;
    any_lhs |= d.base_dilation() != 1;
    any_rhs |= d.window_dilation() != 1;
    any_rev |= d.window_reversal();
  }
  std::string out = absl::StrCat("{size=", absl::StrJoin(size, "x"));
  if (any_stride) absl::StrAppend(&out, " stride=", absl::StrJoin(stride, "x"));
  if (any_pad) absl::StrAppend(&out, " pad=", absl::StrJoin(pad, "x"));
  if (any_lhs) absl::StrAppend(&out, " lhs_dilate=", absl::StrJoin(lhs_dilate, "x"));
  if (any_rhs) absl::StrAppend(&out, " rhs_dilate=", absl::StrJoin(rhs_dilate, "x"));
  if (any_rev) absl::StrAppend(&out, " rhs_reversal=", absl::StrJoin(reversal, "x"));
  return out + "}";
}

std::string PaddingText(const PaddingConfig& config) {
  std::vector<std::string> dims;
  for (const auto& d : config.dimensions()) {
    std::string s = absl::StrCat(d.edge_padding_low(), "_", d.edge_padding_high());
    if (d.interior_padding() != 0) absl::StrAppend(&s, "_", d.interior_padding());
    dims.push_back(s);
  }
  return absl::StrJoin(dims, "x");
}

std::string SliceText(const HloInstructionProto& attrs) {
  std::vector<std::string> dims;
  for (const auto& s : attrs.slice_dimensions()) {
    if (s.stride() == 1) {
      dims.push_back(absl::StrCat("[", s.start(), ":", s.limit(), "]"));
    } else {
      dims.push_back(absl::StrCat("[", s.start(), ":", s.limit(), ":", s.stride(), "]"));
    }
  }
  return absl::StrCat("{", absl::StrJoin(dims, ", "), "}");
}

// "b01f_01io->b01f". Positions outside the operand rank or collisions are
// printed as '?' (the parser then rejects them) instead of indexing out of
// bounds on a malformed proto.
std::string DimLabelsText(const ConvolutionDimensionNumbers& dn) {
  auto render = [](int64_t a, char a_char, int64_t b, char b_char,
                   const google::protobuf::RepeatedField<int64_t>& spatial) {
    int64_t rank = 2 + spatial.size();
    std::string s(rank, '?');
    auto put = [&](int64_t pos, char c) {
      if (pos >= 0 && pos < rank) s[pos] = s[pos] == '?' ? c : '?';
    };
    put(a, a_char);
    put(b, b_char);
    for (int i = 0; i < spatial.size(); ++i) put(spatial[i], i < 10 ? static_cast<char>('0' + i) : '?');
    return s;
  };
  return absl::StrCat(
      render(dn.input_batch_dimension(), 'b', dn.input_feature_dimension(), 'f', dn.input_spatial_dimensions()),
      "_",
      render(dn.kernel_input_feature_dimension(), 'i', dn.kernel_output_feature_dimension(), 'o',
             dn.kernel_spatial_dimensions()),
      "->",
      render(dn.output_batch_dimension(), 'b', dn.output_feature_dimension(), 'f',
             dn.output_spatial_dimensions()));
}

std::string MetadataText(const OpMetadata& m) {
  std::vector<std::string> parts;
  if (!m.op_type().empty()) parts.push_back(absl::StrCat("op_type=", Quote(m.op_type())));
  if (!m.op_name().empty()) parts.push_back(absl::StrCat("op_name=", Quote(m.op_name())));
  if (!m.source_file().empty()) parts.push_back(absl::StrCat("source_file=", Quote(m.source_file())));
  if (m.source_line() != 0) parts.push_back(absl::StrCat("source_line=", m.source_line()));
  return absl::StrCat("{", absl::StrJoin(parts, " "), "}");
}

std::string ShardingText(const OpSharding& s) {
  switch (s.type()) {
    case OpSharding::MAXIMAL:
      if (s.tile_assignment_devices_size() == 1) {
        return absl::StrCat("{maximal device=", s.tile_assignment_devices(0), "}");
      }
      return "{maximal}";
    case OpSharding::OTHER:
      return absl::StrCat("{devices=[", absl::StrJoin(s.tile_assignment_dimensions(), ","), "]",
                          absl::StrJoin(s.tile_assignment_devices(), ","), "}");
    default:
      return "{replicated}";
  }
}

std::string FrontendAttributesText(const FrontendAttributes& fa) {
  // Sorted: proto map iteration order is unspecified.
  std::vector<std::pair<std::string, std::string>> entries(fa.map().begin(), fa.map().end());
  std::sort(entries.begin(), entries.end());
  std::vector<std::string> parts;
  for (const auto& [k, v] : entries) parts.push_back(absl::StrCat(k, "=", Quote(v)));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

std::string ShapeProtoText(const ShapeProto& proto) {
  auto shape = ShapeUtil::FromProto(proto);
  return shape.ok() ? shape->ToString(/*print_layout=*/true) : "<invalid shape>";
}

// Collects "key=value" strings, remembering keys so unknown attributes with
// the same name are not printed twice.
class AttrList {
 public:
  void Add(absl::string_view key, absl::string_view value) {
    keys_.insert(std::string(key));
    items_.push_back(absl::StrCat(key, "=", value));
  }
  bool Has(absl::string_view key) const { return keys_.contains(key); }
  std::string Join() const { return absl::StrJoin(items_, ", "); }
  bool empty() const { return items_.empty(); }

 private:
  std::vector<std::string> items_;
  absl::flat_hash_set<std::string> keys_;
};

void AddCalledComputations(const HloInstruction& instr, AttrList* out) {
  const auto& called = instr.called_computations();
  if (called.empty()) return;
  HloOpcode op = instr.opcode();
  if (op == HloOpcode::kWhile && called.size() == 2) {
    out->Add("condition", CompName(called[0]));
    out->Add("body", CompName(called[1]));
  } else if (op == HloOpcode::kConditional && called.size() == 2 && instr.operand_count() > 0 &&
             instr.operand(0)->shape().element_type() == PRED) {
    out->Add("true_computation", CompName(called[0]));
    out->Add("false_computation", CompName(called[1]));
  } else if (op == HloOpcode::kConditional) {
    std::vector<std::string> names;
    for (const HloComputation* c : called) names.push_back(CompName(c));
    out->Add("branch_computations", absl::StrCat("{", absl::StrJoin(names, ", "), "}"));
  } else if (op == HloOpcode::kSelectAndScatter && called.size() == 2) {
    out->Add("select", CompName(called[0]));
    out->Add("scatter", CompName(called[1]));
  } else if (op == HloOpcode::kFusion && called.size() == 1) {
    out->Add("calls", CompName(called[0]));
  } else if (called.size() == 1 &&
             IsOneOf(op, {HloOpcode::kMap, HloOpcode::kReduce, HloOpcode::kReduceWindow, HloOpcode::kCall,
                          HloOpcode::kSort, HloOpcode::kScatter, HloOpcode::kAllReduce,
                          HloOpcode::kReduceScatter, HloOpcode::kCustomCall})) {
    out->Add("to_apply", CompName(called[0]));
  } else {
    std::vector<std::string> names;
    for (const HloComputation* c : called) names.push_back(CompName(c));
    out->Add("called_computations", absl::StrCat("{", absl::StrJoin(names, ", "), "}"));
  }
}

// Every typed attribute, in the fixed print order.
void AddAttributes(const HloInstruction& instr, AttrList* out) {
  const HloInstructionProto& a = instr.attributes();
  const HloOpcode op = instr.opcode();
  auto is = [op](std::initializer_list<HloOpcode> ops) { return IsOneOf(op, ops); };

  if (op == HloOpcode::kIota) {
    out->Add("iota_dimension", absl::StrCat(a.dimensions_size() > 0 ? a.dimensions(0) : 0));
  } else if (a.dimensions_size() > 0 ||
             is({HloOpcode::kBroadcast, HloOpcode::kReduce, HloOpcode::kTranspose, HloOpcode::kReverse,
                 HloOpcode::kConcatenate, HloOpcode::kMap, HloOpcode::kSort, HloOpcode::kAllGather,
                 HloOpcode::kReduceScatter, HloOpcode::kGetDimensionSize, HloOpcode::kSetDimensionSize})) {
    out->Add("dimensions", IntList(a.dimensions()));
  }
  if (op == HloOpcode::kGetTupleElement || a.tuple_index() != 0) out->Add("index", absl::StrCat(a.tuple_index()));
  if (op == HloOpcode::kCompare) {
    out->Add("direction", a.comparison_direction());
    if (!a.comparison_type().empty()) out->Add("type", a.comparison_type());
  }
  if (op == HloOpcode::kSlice || a.slice_dimensions_size() > 0) out->Add("slice", SliceText(a));
  if (op == HloOpcode::kDynamicSlice || a.dynamic_slice_sizes_size() > 0) {
    out->Add("dynamic_slice_sizes", IntList(a.dynamic_slice_sizes()));
  }
  if (op == HloOpcode::kPad || a.has_padding_config()) out->Add("padding", PaddingText(a.padding_config()));
  if (a.has_window()) out->Add("window", WindowText(a.window()));
  if (a.has_convolution_dimension_numbers()) out->Add("dim_labels", DimLabelsText(a.convolution_dimension_numbers()));
  // On convolution the parser reads an absent (0) group count as 1.
  auto group_count_shown = [op](int64_t n) { return n != 0 && (n != 1 || op != HloOpcode::kConvolution); };
  if (group_count_shown(a.feature_group_count())) {
    out->Add("feature_group_count", absl::StrCat(a.feature_group_count()));
  }
  if (group_count_shown(a.batch_group_count())) out->Add("batch_group_count", absl::StrCat(a.batch_group_count()));

  const DotDimensionNumbers& dot = a.dot_dimension_numbers();
  if (dot.lhs_batch_dimensions_size() > 0) out->Add("lhs_batch_dims", IntList(dot.lhs_batch_dimensions()));
  if (dot.lhs_contracting_dimensions_size() > 0) {
    out->Add("lhs_contracting_dims", IntList(dot.lhs_contracting_dimensions()));
  }
  if (dot.rhs_batch_dimensions_size() > 0) out->Add("rhs_batch_dims", IntList(dot.rhs_batch_dimensions()));
  if (dot.rhs_contracting_dimensions_size() > 0) {
    out->Add("rhs_contracting_dims", IntList(dot.rhs_contracting_dimensions()));
  }
  if (a.precision_config().operand_precision_size() > 0) {
    std::vector<std::string> names;
    for (int p : a.precision_config().operand_precision()) {
      names.push_back(LowerEnumName(PrecisionConfig::Precision_Name(static_cast<PrecisionConfig::Precision>(p))));
    }
    out->Add("operand_precision", absl::StrCat("{", absl::StrJoin(names, ","), "}"));
  }

  // Gather owns index_vector_dim on every opcode but scatter (parser rule too).
  if (op != HloOpcode::kScatter && (op == HloOpcode::kGather || a.has_gather_dimension_numbers())) {
    const GatherDimensionNumbers& g = a.gather_dimension_numbers();
    out->Add("offset_dims", IntList(g.offset_dims()));
    out->Add("collapsed_slice_dims", IntList(g.collapsed_slice_dims()));
    out->Add("start_index_map", IntList(g.start_index_map()));
    if (g.operand_batching_dims_size() > 0) out->Add("operand_batching_dims", IntList(g.operand_batching_dims()));
    if (g.start_indices_batching_dims_size() > 0) {
      out->Add("start_indices_batching_dims", IntList(g.start_indices_batching_dims()));
    }
    out->Add("index_vector_dim", absl::StrCat(g.index_vector_dim()));
  }
  if (op == HloOpcode::kGather || a.gather_slice_sizes_size() > 0) {
    out->Add("slice_sizes", IntList(a.gather_slice_sizes()));
  }
  if (op == HloOpcode::kScatter || a.has_scatter_dimension_numbers()) {
    const ScatterDimensionNumbers& s = a.scatter_dimension_numbers();
    out->Add("update_window_dims", IntList(s.update_window_dims()));
    out->Add("inserted_window_dims", IntList(s.inserted_window_dims()));
    out->Add("scatter_dims_to_operand_dims", IntList(s.scatter_dims_to_operand_dims()));
    if (s.input_batching_dims_size() > 0) out->Add("input_batching_dims", IntList(s.input_batching_dims()));
    if (s.scatter_indices_batching_dims_size() > 0) {
      out->Add("scatter_indices_batching_dims", IntList(s.scatter_indices_batching_dims()));
    }
    if (op == HloOpcode::kScatter) out->Add("index_vector_dim", absl::StrCat(s.index_vector_dim()));
  }
  if (a.indices_are_sorted()) out->Add("indices_are_sorted", "true");
  if (a.unique_indices()) out->Add("unique_indices", "true");
  if (a.is_stable()) out->Add("is_stable", "true");

  if (op == HloOpcode::kReducePrecision || a.exponent_bits() != 0 || a.mantissa_bits() != 0) {
    out->Add("exponent_bits", absl::StrCat(a.exponent_bits()));
    out->Add("mantissa_bits", absl::StrCat(a.mantissa_bits()));
  }
  if (op == HloOpcode::kRng || a.distribution() != RNG_INVALID) {
    out->Add("distribution", LowerEnumName(RandomDistribution_Name(a.distribution())));
  }
  if (op == HloOpcode::kRngBitGenerator || a.rng_algorithm() != RNG_DEFAULT) {
    out->Add("algorithm", LowerEnumName(RandomAlgorithm_Name(a.rng_algorithm())));
  }
  if (op == HloOpcode::kFft || a.fft_type() != FFT || a.fft_length_size() > 0) {
    out->Add("fft_type", FftType_Name(a.fft_type()));
    out->Add("fft_length", IntList(a.fft_length()));
  }
  if (op == HloOpcode::kCustomCall || !a.custom_call_target().empty()) {
    out->Add("custom_call_target", Quote(a.custom_call_target()));
  }
  if (a.custom_call_has_side_effect()) out->Add("custom_call_has_side_effect", "true");
  if (a.custom_call_api_version() != API_VERSION_UNSPECIFIED) {
    out->Add("api_version", CustomCallApiVersion_Name(a.custom_call_api_version()));
  }
  if (a.operand_shapes_with_layout_size() > 0) {
    std::vector<std::string> shapes;
    for (const ShapeProto& s : a.operand_shapes_with_layout()) shapes.push_back(ShapeProtoText(s));
    out->Add("operand_layout_constraints", absl::StrCat("{", absl::StrJoin(shapes, ", "), "}"));
  }
  if (is({HloOpcode::kBatchNormGrad, HloOpcode::kBatchNormInference, HloOpcode::kBatchNormTraining}) ||
      a.epsilon() != 0 || a.feature_index() != 0) {
    out->Add("epsilon", FloatText(a.epsilon()));
    out->Add("feature_index", absl::StrCat(a.feature_index()));
  }
  if (op == HloOpcode::kTopK || a.k() != 0) out->Add("k", absl::StrCat(a.k()));
  if (op == HloOpcode::kTopK || a.largest()) out->Add("largest", a.largest() ? "true" : "false");
  // An empty kind prints nothing: `kind=` alone would not parse back.
  if (!a.fusion_kind().empty()) out->Add("kind", a.fusion_kind());
  if (a.has_triangular_solve_options()) {
    const TriangularSolveOptions& t = a.triangular_solve_options();
    if (t.left_side()) out->Add("left_side", "true");
    if (t.lower() && op != HloOpcode::kCholesky) out->Add("lower", "true");
    if (t.unit_diagonal()) out->Add("unit_diagonal", "true");
    // The parser reads an unset transpose_a on triangular-solve as NO_TRANSPOSE.
    auto transpose = t.transpose_a() == TriangularSolveOptions::TRANSPOSE_INVALID && op == HloOpcode::kTriangularSolve
                         ? TriangularSolveOptions::NO_TRANSPOSE
                         : t.transpose_a();
    out->Add("transpose_a", TriangularSolveOptions::Transpose_Name(transpose));
  }
  if (op == HloOpcode::kCholesky && a.cholesky_options().lower()) out->Add("lower", "true");

  // Forms without a typed field (e.g. iota groups "[2,2]<=[4]") sit in unknown_attributes.
  const bool untyped_groups = a.unknown_attributes().count("replica_groups") > 0;
  if (a.replica_groups_size() > 0 ||
      (!untyped_groups && is({HloOpcode::kAllReduce, HloOpcode::kAllGather, HloOpcode::kAllToAll,
                              HloOpcode::kReduceScatter}))) {
    std::vector<std::string> groups;
    for (const ReplicaGroup& g : a.replica_groups()) groups.push_back(IntList(g.replica_ids()));
    out->Add("replica_groups", absl::StrCat("{", absl::StrJoin(groups, ","), "}"));
  }
  if (op == HloOpcode::kCollectivePermute || a.source_target_pairs_size() > 0) {
    std::vector<std::string> pairs;
    for (const SourceTarget& p : a.source_target_pairs()) {
      pairs.push_back(absl::StrCat("{", p.source(), ",", p.target(), "}"));
    }
    out->Add("source_target_pairs", absl::StrCat("{", absl::StrJoin(pairs, ","), "}"));
  }
  if (a.channel_id() != 0) out->Add("channel_id", absl::StrCat(a.channel_id()));
  if (a.constrain_layout()) out->Add("constrain_layout", "true");
  if (a.use_global_device_ids()) out->Add("use_global_device_ids", "true");
  if (a.is_host_transfer()) out->Add("is_host_transfer", "true");
  if (!a.infeed_config().empty()) out->Add("infeed_config", Quote(a.infeed_config()));
  if (!a.outfeed_config().empty()) out->Add("outfeed_config", Quote(a.outfeed_config()));
  if (a.has_outfeed_shape()) out->Add("outfeed_shape", ShapeProtoText(a.outfeed_shape()));

  AddCalledComputations(instr, out);

  if (a.has_sharding()) out->Add("sharding", ShardingText(a.sharding()));
  if (a.has_frontend_attributes()) out->Add("frontend_attributes", FrontendAttributesText(a.frontend_attributes()));
  if (a.has_metadata()) out->Add("metadata", MetadataText(a.metadata()));
  if (!a.backend_config().empty()) {
    // Structured configs (`{...}`) were kept verbatim; anything else is a string.
    const std::string& bc = a.backend_config();
    bool structured = bc.size() >= 2 && bc.front() == '{' && bc.back() == '}';
    out->Add("backend_config", structured ? bc : Quote(bc));
  }

  std::vector<std::pair<std::string, std::string>> unknown(a.unknown_attributes().begin(),
                                                           a.unknown_attributes().end());
  std::sort(unknown.begin(), unknown.end());
  for (const auto& [key, value] : unknown) {
    if (op == HloOpcode::kConstant && key == "elided") continue;  // printed as the value
    if (!out->Has(key)) out->Add(key, value);
  }
}

std::string SignatureText(const HloComputation& computation) {
  std::vector<std::string> params;
  for (const HloInstruction* p : computation.parameter_instructions()) {
    if (p == nullptr) continue;
    params.push_back(absl::StrCat(p->name(), ": ", p->shape().ToString()));
  }
  const HloInstruction* root = computation.root_instruction();
  return absl::StrCat("(", absl::StrJoin(params, ", "), ") -> ",
                      root != nullptr ? root->shape().ToString() : "()");
}

}  // namespace

std::string HloInstructionToString(const HloInstruction& instr) {
  std::string out = absl::StrCat(InstrName(instr), " = ", instr.shape().ToString(/*print_layout=*/true), " ",
                                 HloOpcodeString(instr.opcode()), "(");
  const HloInstructionProto& a = instr.attributes();
  if (instr.opcode() == HloOpcode::kConstant) {
    auto elided = a.unknown_attributes().find("elided");
    if (!instr.has_literal() || (elided != a.unknown_attributes().end() && elided->second == "true")) {
      out += "{...}";
    } else {
      out += LiteralValueText(instr.literal());
    }
  } else if (instr.opcode() == HloOpcode::kParameter) {
    absl::StrAppend(&out, a.parameter_number());
  } else {
    std::vector<std::string> operands;
    for (const HloInstruction* op : instr.operands()) {
      operands.push_back(op != nullptr ? InstrName(*op) : "%<null>");
    }
    out += absl::StrJoin(operands, ", ");
  }
  out += ")";
  AttrList attrs;
  AddAttributes(instr, &attrs);
  if (!attrs.empty()) absl::StrAppend(&out, ", ", attrs.Join());
  return out;
}

std::string HloComputationToString(const HloComputation& computation) {
  std::string out = absl::StrCat(CompName(&computation), " ", SignatureText(computation), " {\n");
  for (const HloInstruction* instr : computation.instructions()) {
    absl::StrAppend(&out, "  ", instr == computation.root_instruction() ? "ROOT " : "",
                    HloInstructionToString(*instr), "\n");
  }
  out += "}";
  return out;
}

std::string HloModuleToString(const HloModule& module) {
  std::string out = absl::StrCat("HloModule ", module.name());
  // std::map: attributes come out sorted by key.
  for (const auto& [key, value] : module.attributes()) absl::StrAppend(&out, ", ", key, "=", value);
  if (!module.input_output_aliases().empty()) {
    absl::StrAppend(&out, ", input_output_alias=", InputOutputAliasesToText(module.input_output_aliases()));
  }
  out += "\n";
  // Callees come before callers in computations(); the entry is printed last.
  for (const HloComputation* c : module.computations()) {
    if (c == module.entry_computation()) continue;
    absl::StrAppend(&out, "\n", HloComputationToString(*c), "\n");
  }
  if (module.entry_computation() != nullptr) {
    absl::StrAppend(&out, "\nENTRY ", HloComputationToString(*module.entry_computation()), "\n");
  }
  return out;
}

}  // namespace xla
