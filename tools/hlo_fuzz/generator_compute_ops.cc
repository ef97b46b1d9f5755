// Structured op families: gather, scatter, reduce (single and variadic),
// reduce-window, dot, convolution. Attributes are drawn at random and the
// result shape comes from ShapeInference (an attribute set it rejects is
// simply dropped).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/hlo_fuzz/generator_internal.h"
#include "xla/primitive_util.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"

namespace xla {
namespace hlo_fuzz {
namespace {

using O = HloOpcode;

int64_t Elements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

int64_t MaxDim(const std::vector<int64_t>& dims) {
  int64_t m = 0;
  for (int64_t d : dims) m = std::max(m, d);
  return m;
}

std::vector<int64_t> Sorted(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The generator's estimate of folding `steps` elements with `op` ("assign"
// when kParameter) sequentially; the runner's analysis redoes it exactly.
Precision FoldEstimate(HloOpcode op, PrimitiveType t, Precision acc, const Precision& x, int64_t steps) {
  for (int64_t i = 0; i < std::min<int64_t>(steps, 64); ++i) {
    const Precision next = op == O::kParameter ? x : BinaryPrecision(op, t, acc, x);
    const Precision both[] = {acc, next};
    acc = Join(both);
  }
  return acc;
}

std::vector<std::string> WindowFields(const Window& window) {
  auto field = [&](const char* name, auto get, int64_t dflt) -> std::string {
    std::vector<std::string> parts;
    bool all_default = true;
    for (const WindowDimension& d : window.dimensions()) {
      const int64_t v = get(d);
      all_default &= v == dflt;
      parts.push_back(std::to_string(v));
    }
    if (all_default && dflt >= 0) return "";
    return absl::StrCat(name, "=", absl::StrJoin(parts, "x"));
  };
  std::vector<std::string> pads;
  bool padded = false;
  for (const WindowDimension& d : window.dimensions()) {
    pads.push_back(absl::StrCat(d.padding_low(), "_", d.padding_high()));
    padded |= d.padding_low() != 0 || d.padding_high() != 0;
  }
  std::vector<std::string> out = {
      field("size", [](const WindowDimension& d) { return d.size(); }, -1),
      field("stride", [](const WindowDimension& d) { return d.stride(); }, 1),
      padded ? absl::StrCat("pad=", absl::StrJoin(pads, "x")) : "",
      field("lhs_dilate", [](const WindowDimension& d) { return d.base_dilation(); }, 1),
      field("rhs_dilate", [](const WindowDimension& d) { return d.window_dilation(); }, 1),
      field("rhs_reversal", [](const WindowDimension& d) { return d.window_reversal() ? 1 : 0; }, 0)};
  out.erase(std::remove(out.begin(), out.end(), ""), out.end());
  return out;
}

}  // namespace

bool Generator::GatherOp() {
  Value* x = Pick([](const Value& v) { return v.shape.rank() >= 1 && v.shape.rank() <= 3; });
  if (x == nullptr) return false;
  const std::vector<int64_t>& in = x->shape.dimensions();
  const int rank = x->shape.rank();
  std::vector<int64_t> order(rank);
  for (int i = 0; i < rank; ++i) order[i] = i;
  for (int i = rank - 1; i > 0; --i) std::swap(order[i], order[Uniform(i + 1)]);
  const int k = Range(1, rank);
  std::vector<int64_t> start_index_map(order.begin(), order.begin() + k), collapsed, slice_sizes(rank);
  for (int64_t d : start_index_map) {
    if (in[d] >= 1 && Chance(0.5)) collapsed.push_back(d);
  }
  for (int i = 0; i < rank; ++i) {
    const bool is_collapsed = std::find(collapsed.begin(), collapsed.end(), i) != collapsed.end();
    slice_sizes[i] = is_collapsed ? 1 : (in[i] == 0 ? 0 : Range(1, static_cast<int>(in[i])));
  }
  const int batch_rank = Range(0, 2);
  std::vector<int64_t> index_dims;
  for (int i = 0; i < batch_rank; ++i) index_dims.push_back(Weighted({1, 6, 6, 3}));
  const bool implicit_vector = k == 1 && Chance(0.3);
  if (!implicit_vector) index_dims.push_back(k);
  Value* indices = IndexArray(index_dims, -2, MaxDim(in) + 2);
  const int offset_count = rank - static_cast<int>(collapsed.size());
  std::vector<int64_t> positions(batch_rank + offset_count);
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = i;
  for (int i = static_cast<int>(positions.size()) - 1; i > 0; --i) std::swap(positions[i], positions[Uniform(i + 1)]);
  positions.resize(offset_count);
  GatherDimensionNumbers dn;
  for (int64_t d : Sorted(positions)) dn.add_offset_dims(d);
  for (int64_t d : Sorted(collapsed)) dn.add_collapsed_slice_dims(d);
  for (int64_t d : start_index_map) dn.add_start_index_map(d);
  dn.set_index_vector_dim(batch_rank);
  absl::StatusOr<Shape> out = ShapeInference::InferGatherShape(x->shape, indices->shape, dn, slice_sizes);
  if (!out.ok() || Elements(out->dimensions()) > 2 * max_elements()) return false;
  Emit(MakeShape(x->shape.element_type(), out->dimensions()),
       absl::StrCat("gather(", Use(x), ", ", Use(indices), "), offset_dims=", ListText(Sorted(positions)),
                    ", collapsed_slice_dims=", ListText(Sorted(collapsed)),
                    ", start_index_map=", ListText(start_index_map), ", index_vector_dim=", batch_rank,
                    ", slice_sizes=", ListText(slice_sizes)),
       x->precision, "gather");
  return true;
}

bool Generator::ScatterOp() {
  Value* x = Pick([](const Value& v) { return v.shape.rank() >= 1 && v.shape.rank() <= 3; });
  if (x == nullptr) return false;
  const PrimitiveType t = x->shape.element_type();
  const std::vector<int64_t>& in = x->shape.dimensions();
  const int rank = x->shape.rank();
  std::vector<int64_t> order(rank);
  for (int i = 0; i < rank; ++i) order[i] = i;
  for (int i = rank - 1; i > 0; --i) std::swap(order[i], order[Uniform(i + 1)]);
  const int k = Range(1, rank);
  std::vector<int64_t> to_operand(order.begin(), order.begin() + k), inserted, window;
  for (int64_t d : to_operand) {
    if (in[d] >= 1 && Chance(0.5)) inserted.push_back(d);
  }
  for (int i = 0; i < rank; ++i) {
    if (std::find(inserted.begin(), inserted.end(), i) != inserted.end()) continue;
    window.push_back(in[i] == 0 ? 0 : Range(1, static_cast<int>(in[i])));
  }
  const int64_t n = Weighted({1, 4, 4, 3});
  const int update_rank = 1 + static_cast<int>(window.size());
  const int batch_position = Uniform(update_rank);
  std::vector<int64_t> update_dims, update_window_dims;
  for (int i = 0, w = 0; i < update_rank; ++i) {
    if (i == batch_position) {
      update_dims.push_back(n);
    } else {
      update_dims.push_back(window[w++]);
      update_window_dims.push_back(i);
    }
  }
  HloOpcode op;
  if (IsFloat(t)) {
    static const HloOpcode kOps[] = {O::kAdd, O::kMaximum, O::kMinimum, O::kParameter};
    op = kOps[Weighted({4, 2, 2, 2})];
  } else if (t == PRED) {
    static const HloOpcode kOps[] = {O::kOr, O::kAnd, O::kParameter};
    op = kOps[Uniform(3)];
  } else {
    static const HloOpcode kOps[] = {O::kAdd, O::kMultiply, O::kMaximum, O::kMinimum, O::kXor, O::kParameter};
    op = kOps[Weighted({3, 1, 1, 1, 1, 2})];
  }
  Value* indices = IndexArray({n, static_cast<int64_t>(k)}, -1, MaxDim(in) + 1);
  Value* updates = FindOrMake(t, update_dims, false);
  ScatterDimensionNumbers dn;
  for (int64_t d : update_window_dims) dn.add_update_window_dims(d);
  for (int64_t d : Sorted(inserted)) dn.add_inserted_window_dims(d);
  for (int64_t d : to_operand) dn.add_scatter_dims_to_operand_dims(d);
  dn.set_index_vector_dim(1);
  const Shape scalar = ShapeUtil::MakeShape(t, {});
  const ProgramShape combiner = MakeProgramShape({scalar, scalar}, scalar);
  absl::StatusOr<Shape> out =
      ShapeInference::InferScatterShape({&x->shape, &indices->shape, &updates->shape}, dn, combiner);
  if (!out.ok()) return false;
  const Precision p = FoldEstimate(op, t, x->precision, updates->precision, Elements(update_dims));
  if (p.unusable) return false;
  const std::string reducer = ScalarReducer(op, t);
  Emit(MakeShape(t, in),
       absl::StrCat("scatter(", Use(x), ", ", Use(indices), ", ", Use(updates),
                    "), update_window_dims=", ListText(update_window_dims),
                    ", inserted_window_dims=", ListText(Sorted(inserted)),
                    ", scatter_dims_to_operand_dims=", ListText(to_operand), ", index_vector_dim=1, to_apply=",
                    reducer),
       p, "scatter");
  return true;
}

// (value, index) pairs keeping the largest value, the smaller index on ties.
std::string Generator::ArgmaxReducer(PrimitiveType type) {
  const std::string key = absl::StrCat("argmax_", TypeName(type));
  auto it = reducers_.find(key);
  if (it != reducers_.end()) return it->second;
  const std::string name = Fresh(key + "_");
  const std::string t = TypeName(type) + "[]";
  std::vector<std::string> n;
  for (int i = 0; i < 10; ++i) n.push_back(Fresh("r"));
  AddComputation(absl::StrCat(
      name, " {\n  ", n[0], " = ", t, " parameter(0)\n  ", n[1], " = s32[] parameter(1)\n  ", n[2], " = ", t,
      " parameter(2)\n  ", n[3], " = s32[] parameter(3)\n  ", n[4], " = pred[] compare(", n[0], ", ", n[2],
      "), direction=GT\n  ", n[5], " = pred[] compare(", n[0], ", ", n[2], "), direction=EQ\n  ", n[6],
      " = pred[] compare(", n[1], ", ", n[3], "), direction=LT\n  ", n[7], " = pred[] and(", n[5], ", ", n[6],
      ")\n  ", n[8], " = pred[] or(", n[4], ", ", n[7], ")\n  ", n[9], " = ", t, " select(", n[8], ", ", n[0],
      ", ", n[2], ")\n  ", n[0], "i = s32[] select(", n[8], ", ", n[1], ", ", n[3], ")\n  ROOT ", n[0], "t = (",
      t, ", s32[]) tuple(", n[9], ", ", n[0], "i)\n}\n\n"));
  Count("reducer:argmax");
  reducers_[key] = name;
  return name;
}

bool Generator::ReduceOp() {
  Value* x = Pick([](const Value& v) { return v.shape.rank() >= 1; });
  if (x == nullptr) return false;
  const PrimitiveType t = x->shape.element_type();
  const std::vector<int64_t>& in = x->shape.dimensions();
  std::vector<int64_t> reduced;
  for (int i = 0; i < x->shape.rank(); ++i) {
    if (Chance(0.5)) reduced.push_back(i);
  }
  if (reduced.empty() && Chance(0.8)) reduced.push_back(Uniform(x->shape.rank()));
  if (reduced.size() > 1) Count("reduce:several-dims");
  const std::vector<int64_t> out = RemoveDims(in, reduced);
  const int64_t count = Elements(in) / std::max<int64_t>(Elements(out), 1);
  if (t != PRED && x->precision.exact() && !large_ && Chance(0.2)) {
    // Variadic: argmax over (x, iota).
    Value* index = Emit(MakeShape(S32, in), absl::StrCat("iota(), iota_dimension=", reduced.empty() ? 0 : reduced[0]),
                        Exact(static_cast<double>(MaxDim(in))), "iota");
    Value* lowest = ScalarConstant(t, IdentityText(O::kMaximum, t));
    Value* zero = ScalarConstant(S32, "0");
    const std::string reducer = ArgmaxReducer(t);
    const Shape value_shape = MakeShape(t, out), index_shape = MakeShape(S32, out);
    const std::string tuple =
        EmitTuple({value_shape, index_shape},
                  absl::StrCat("reduce(", Use(x), ", ", Use(index), ", ", Use(lowest), ", ", Use(zero),
                               "), dimensions=", ListText(reduced), ", to_apply=", reducer),
                  "reduce");
    Count("reduce:variadic");
    Emit(value_shape, absl::StrCat("get-tuple-element(", tuple, "), index=0"), Exact(x->precision.mag),
         "get-tuple-element");
    Emit(index_shape, absl::StrCat("get-tuple-element(", tuple, "), index=1"), Exact(MaxDim(in)),
         "get-tuple-element");
    return true;
  }
  HloOpcode op;
  if (IsFloat(t)) {
    static const HloOpcode kOps[] = {O::kAdd, O::kMaximum, O::kMinimum};
    op = kOps[Weighted({5, 2, 2})];
  } else if (t == PRED) {
    op = Chance(0.5) ? O::kAnd : O::kOr;
  } else {
    static const HloOpcode kOps[] = {O::kAdd, O::kMultiply, O::kMaximum, O::kMinimum, O::kAnd, O::kOr, O::kXor};
    op = kOps[Weighted({3, 2, 2, 2, 1, 1, 1})];
  }
  Value* init = ScalarConstant(t, IdentityText(op, t));
  Precision p;
  if (op == O::kAdd && (t == F32 || t == F64)) {
    const Precision both[] = {x->precision, init->precision};
    p = ReassociatedSumPrecision(t, t, Join(both), count + 1);
  } else {
    p = FoldEstimate(op, t, init->precision, x->precision, count);
  }
  if (p.unusable) return false;
  Emit(MakeShape(t, out),
       absl::StrCat("reduce(", Use(x), ", ", Use(init), "), dimensions=", ListText(reduced), ", to_apply=",
                    ScalarReducer(op, t)),
       p, "reduce");
  return true;
}

bool Generator::ReduceWindowOp() {
  Value* x = Pick([](const Value& v) { return v.shape.rank() >= 1 && v.shape.rank() <= 4; });
  if (x == nullptr) return false;
  const PrimitiveType t = x->shape.element_type();
  Window window;
  int64_t window_elements = 1;
  for (int i = 0; i < x->shape.rank(); ++i) {
    WindowDimension* d = window.add_dimensions();
    d->set_size(Range(1, 3));
    d->set_stride(Weighted({3, 2, 1}) + 1);
    d->set_padding_low(Weighted({5, 3, 1}) - (Chance(0.1) ? 1 : 0));
    d->set_padding_high(Weighted({5, 3, 1}) - (Chance(0.1) ? 1 : 0));
    d->set_base_dilation(Chance(0.15) ? 2 : 1);
    d->set_window_dilation(Chance(0.15) ? 2 : 1);
    window_elements *= d->size();
  }
  const Shape scalar = ShapeUtil::MakeShape(t, {});
  const std::string window_text = absl::StrJoin(WindowFields(window), " ");
  if (t != PRED && x->precision.exact() && !large_ && Chance(0.12)) {
    // Variadic: argmax pooling over (x, iota).
    Value* index = Emit(MakeShape(S32, x->shape.dimensions()), "iota(), iota_dimension=0",
                        Exact(static_cast<double>(MaxDim(x->shape.dimensions()))), "iota");
    Value* lowest = ScalarConstant(t, IdentityText(O::kMaximum, t));
    Value* zero = ScalarConstant(S32, "0");
    const Shape s32 = ShapeUtil::MakeShape(S32, {});
    const ProgramShape reducer_shape =
        MakeProgramShape({scalar, s32, scalar, s32}, ShapeUtil::MakeTupleShape({scalar, s32}));
    absl::StatusOr<Shape> out = ShapeInference::InferReduceWindowShape(
        {&x->shape, &index->shape, &lowest->shape, &zero->shape}, window, reducer_shape);
    if (!out.ok() || !out->IsTuple()) return false;
    const std::vector<int64_t> dims = out->tuple_shapes(0).dimensions();
    // The get-tuple-elements keep the tuple's element layouts.
    const Shape value_shape = MakeShape(t, dims), index_shape = MakeShape(S32, dims);
    const std::string tuple = EmitTuple(
        {value_shape, index_shape},
        absl::StrCat("reduce-window(", Use(x), ", ", Use(index), ", ", Use(lowest), ", ", Use(zero), "), window={",
                     window_text, "}, to_apply=", ArgmaxReducer(t)),
        "reduce-window");
    Count("reduce-window:variadic");
    Emit(value_shape, absl::StrCat("get-tuple-element(", tuple, "), index=0"), Exact(x->precision.mag),
         "get-tuple-element");
    Emit(index_shape, absl::StrCat("get-tuple-element(", tuple, "), index=1"), Exact(MaxDim(dims)),
         "get-tuple-element");
    return true;
  }
  HloOpcode op;
  if (t == PRED) {
    op = Chance(0.5) ? O::kAnd : O::kOr;
  } else {
    static const HloOpcode kOps[] = {O::kAdd, O::kMaximum, O::kMinimum};
    op = kOps[Weighted({4, 3, 2})];
  }
  Value* init = Chance(0.8) ? ScalarConstant(t, IdentityText(op, t)) : ScalarConstant(t);
  absl::StatusOr<Shape> out = ShapeInference::InferReduceWindowShape(
      {&x->shape, &init->shape}, window, MakeProgramShape({scalar, scalar}, scalar));
  if (!out.ok() || Elements(out->dimensions()) > 2 * max_elements()) return false;
  const Precision both[] = {x->precision, init->precision};
  const Precision p = FoldEstimate(op, t, init->precision, Join(both), window_elements);
  if (p.unusable) return false;
  Emit(MakeShape(t, out->dimensions()),
       absl::StrCat("reduce-window(", Use(x), ", ", Use(init), "), window={", window_text, "}, to_apply=",
                    ScalarReducer(op, t)),
       p, "reduce-window");
  return true;
}

bool Generator::DotOp() {
  Value* x = Pick([](const Value& v) {
    return v.shape.rank() >= 1 && v.shape.rank() <= 3 && v.shape.element_type() != PRED &&
           v.shape.element_type() != U32;
  });
  if (x == nullptr) return false;
  const PrimitiveType t = x->shape.element_type();
  enum Role { kBatch, kContracting, kFree };
  std::vector<Role> roles;
  for (int i = 0; i < x->shape.rank(); ++i) roles.push_back(static_cast<Role>(Weighted({2, 4, 4})));
  // The other operand's dimensions: batch and contracting ones in the same
  // order, then 0-2 free ones, shuffled.
  struct Dim {
    int64_t size;
    Role role;
    int pair;  // index among the batch or contracting dimensions
  };
  std::vector<Dim> other;
  std::vector<int64_t> lhs_batch, lhs_contracting;
  for (int i = 0; i < x->shape.rank(); ++i) {
    if (roles[i] == kBatch) {
      other.push_back({x->shape.dimensions(i), kBatch, static_cast<int>(lhs_batch.size())});
      lhs_batch.push_back(i);
    } else if (roles[i] == kContracting) {
      other.push_back({x->shape.dimensions(i), kContracting, static_cast<int>(lhs_contracting.size())});
      lhs_contracting.push_back(i);
    }
  }
  for (int i = Range(0, 2); i > 0; --i) other.push_back({Weighted({1, 5, 5, 3}), kFree, 0});
  for (int i = static_cast<int>(other.size()) - 1; i > 0; --i) std::swap(other[i], other[Uniform(i + 1)]);
  if (other.size() > 4) return false;
  std::vector<int64_t> rhs_dims, rhs_batch(lhs_batch.size()), rhs_contracting(lhs_contracting.size());
  for (size_t i = 0; i < other.size(); ++i) {
    rhs_dims.push_back(other[i].size);
    if (other[i].role == kBatch) rhs_batch[other[i].pair] = i;
    if (other[i].role == kContracting) rhs_contracting[other[i].pair] = i;
  }
  Value* y = FindOrMake(t, rhs_dims, false);
  DotDimensionNumbers dn;
  for (int64_t d : lhs_batch) dn.add_lhs_batch_dimensions(d);
  for (int64_t d : rhs_batch) dn.add_rhs_batch_dimensions(d);
  for (int64_t d : lhs_contracting) dn.add_lhs_contracting_dimensions(d);
  for (int64_t d : rhs_contracting) dn.add_rhs_contracting_dimensions(d);
  absl::StatusOr<Shape> out = ShapeInference::InferDotOpShape(x->shape, y->shape, dn);
  if (!out.ok() || Elements(out->dimensions()) > 2 * max_elements()) return false;
  if (Chance(0.25)) {
    // Mixed precision: a result type of the operands' kind (f32 dot(bf16,
    // bf16), s32 dot(s8, s8)); the operands convert to it.
    out->set_element_type(IsFloat(t) ? RandomFloatType() : RandomIntType());
    if (out->element_type() != t) Count("dot:mixed-precision");
  }
  int64_t k = 1;
  for (int64_t d : lhs_contracting) k *= x->shape.dimensions(d);
  const Precision p = ContractionPrecision(t, out->element_type(), x->precision, y->precision, k);
  if (p.unusable) return false;
  std::string attrs;
  auto add = [&](const char* name, const std::vector<int64_t>& dims) {
    if (!dims.empty()) absl::StrAppend(&attrs, ", ", name, "=", ListText(dims));
  };
  add("lhs_batch_dims", lhs_batch);
  add("lhs_contracting_dims", lhs_contracting);
  add("rhs_batch_dims", rhs_batch);
  add("rhs_contracting_dims", rhs_contracting);
  if (!lhs_batch.empty()) Count("dot:batch");
  if (lhs_contracting.empty()) Count("dot:outer");
  Emit(MakeShape(out->element_type(), out->dimensions()), absl::StrCat("dot(", Use(x), ", ", Use(y), ")", attrs), p,
       "dot");
  return true;
}

bool Generator::ConvolutionOp() {
  static const PrimitiveType kTypes[] = {F32, F64, BF16, S32};
  const PrimitiveType t = kTypes[Weighted({6, 1, 1, 2})];
  const int spatial = Range(1, 2);
  const int64_t batch = Range(1, 2), in_features = Range(1, 3);
  const int64_t groups = Chance(0.3) ? in_features : 1;
  const int64_t out_features = groups * Range(1, 2);
  std::vector<int64_t> sizes, kernel;
  Window window;
  for (int i = 0; i < spatial; ++i) {
    sizes.push_back(Range(1, 5));
    kernel.push_back(Range(1, 3));
    WindowDimension* d = window.add_dimensions();
    d->set_size(kernel.back());
    d->set_stride(Range(1, 2));
    d->set_padding_low(Weighted({1, 4, 3}) - 1);
    d->set_padding_high(Weighted({1, 4, 3}) - 1);
    d->set_base_dilation(Chance(0.15) ? 2 : 1);
    d->set_window_dilation(Chance(0.15) ? 2 : 1);
    d->set_window_reversal(Chance(0.1));
  }
  // Labels in random positions, e.g. b01f_01io->bf01.
  auto labels = [&](std::string letters) {
    for (int i = static_cast<int>(letters.size()) - 1; i > 0; --i) std::swap(letters[i], letters[Uniform(i + 1)]);
    return letters;
  };
  const std::string digits = spatial == 1 ? "0" : "01";
  const std::string in_labels = labels("bf" + digits), k_labels = labels("io" + digits),
                    out_labels = labels("bf" + digits);
  std::vector<int64_t> in_dims, k_dims;
  ConvolutionDimensionNumbers dn;
  for (size_t p = 0; p < in_labels.size(); ++p) {
    const char c = in_labels[p];
    in_dims.push_back(c == 'b' ? batch : c == 'f' ? in_features : sizes[c - '0']);
    if (c == 'b') dn.set_input_batch_dimension(p);
    if (c == 'f') dn.set_input_feature_dimension(p);
  }
  for (size_t p = 0; p < k_labels.size(); ++p) {
    const char c = k_labels[p];
    k_dims.push_back(c == 'i' ? in_features / groups : c == 'o' ? out_features : kernel[c - '0']);
    if (c == 'i') dn.set_kernel_input_feature_dimension(p);
    if (c == 'o') dn.set_kernel_output_feature_dimension(p);
  }
  for (size_t p = 0; p < out_labels.size(); ++p) {
    if (out_labels[p] == 'b') dn.set_output_batch_dimension(p);
    if (out_labels[p] == 'f') dn.set_output_feature_dimension(p);
  }
  for (int s = 0; s < spatial; ++s) {
    dn.add_input_spatial_dimensions(in_labels.find('0' + s));
    dn.add_kernel_spatial_dimensions(k_labels.find('0' + s));
    dn.add_output_spatial_dimensions(out_labels.find('0' + s));
  }
  Value* x = FindOrMake(t, in_dims, false);
  Value* w = FindOrMake(t, k_dims, false);
  absl::StatusOr<Shape> out = ShapeInference::InferConvolveShape(x->shape, w->shape, window, dn, groups, 1);
  if (!out.ok() || Elements(out->dimensions()) > 4 * max_elements()) return false;
  int64_t k = in_features / groups;
  for (int64_t s : kernel) k *= s;
  const Precision p = ContractionPrecision(t, t, x->precision, w->precision, k);
  if (p.unusable) return false;
  if (groups > 1) Count("convolution:grouped");
  Emit(MakeShape(t, out->dimensions()),
       absl::StrCat("convolution(", Use(x), ", ", Use(w), "), window={", absl::StrJoin(WindowFields(window), " "),
                    "}, dim_labels=", in_labels, "_", k_labels, "->", out_labels,
                    groups > 1 ? absl::StrCat(", feature_group_count=", groups) : ""),
       p, "convolution");
  return true;
}

}  // namespace hlo_fuzz
}  // namespace xla
