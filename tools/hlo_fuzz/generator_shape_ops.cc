// Data-movement op families: broadcast, reshape, transpose, slice, reverse,
// concatenate, pad, iota, dynamic-slice, dynamic-update-slice. They never
// change values, so results keep their operands' precision.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/hlo_fuzz/generator_internal.h"
#include "xla/shape_inference.h"
#include "xla/shape_util.h"

namespace xla {
namespace hlo_fuzz {
namespace {

int64_t Elements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

}  // namespace

bool Generator::BroadcastOp() {
  Value* x = Pick([](const Value& v) { return v.shape.rank() <= 3; });
  if (x == nullptr) return false;
  const int rank = x->shape.rank();
  const int out_rank = std::min(4, rank + Range(Chance(0.1) ? 0 : 1, 2));
  // Which output dimensions the operand's map to (increasing).
  std::vector<int64_t> positions(out_rank);
  for (int i = 0; i < out_rank; ++i) positions[i] = i;
  for (int i = out_rank - 1; i > 0; --i) std::swap(positions[i], positions[Uniform(i + 1)]);
  positions.resize(rank);
  std::sort(positions.begin(), positions.end());
  std::vector<int64_t> out(out_rank, 0);
  for (int i = 0; i < out_rank; ++i) out[i] = Range(1, 3);
  for (int i = 0; i < rank; ++i) out[positions[i]] = x->shape.dimensions(i);
  for (int i = 0; i < out_rank && Elements(out) > max_elements(); ++i) {
    if (std::find(positions.begin(), positions.end(), i) == positions.end()) out[i] = 1;
  }
  if (Elements(out) > max_elements()) return false;
  Emit(MakeShape(x->shape.element_type(), out),
       absl::StrCat("broadcast(", Use(x), "), dimensions=", ListText(positions)), x->precision, "broadcast");
  return true;
}

bool Generator::ReshapeOp() {
  Value* x = Pick([](const Value&) { return true; });
  if (x == nullptr) return false;
  const int64_t n = Elements(x->shape.dimensions());
  std::vector<int64_t> out;
  if (n == 0) {
    out = RandomDims(Range(1, 3));
    out[Uniform(static_cast<int>(out.size()))] = 0;
  } else {
    std::vector<int64_t> factors;
    int64_t rest = n;
    for (int64_t f = 2; f * f <= rest; ++f) {
      while (rest % f == 0) {
        factors.push_back(f);
        rest /= f;
      }
    }
    if (rest > 1) factors.push_back(rest);
    const int rank = factors.empty() ? Range(0, 2) : Range(1, 3);
    out.assign(rank, 1);
    for (int64_t f : factors) out[Uniform(rank)] *= f;
    if (rank > 0 && Chance(0.3)) out.insert(out.begin() + Uniform(rank + 1), 1);
  }
  Emit(MakeShape(x->shape.element_type(), out), absl::StrCat("reshape(", Use(x), ")"), x->precision, "reshape");
  return true;
}

bool Generator::TransposeOp() {
  Value* x = Pick([](const Value& v) { return v.shape.rank() >= 2; });
  if (x == nullptr) return false;
  const int rank = x->shape.rank();
  std::vector<int64_t> perm(rank);
  for (int i = 0; i < rank; ++i) perm[i] = i;
  for (int i = rank - 1; i > 0; --i) std::swap(perm[i], perm[Uniform(i + 1)]);
  std::vector<int64_t> out(rank);
  for (int i = 0; i < rank; ++i) out[i] = x->shape.dimensions(perm[i]);
  Emit(MakeShape(x->shape.element_type(), out),
       absl::StrCat("transpose(", Use(x), "), dimensions=", ListText(perm)), x->precision, "transpose");
  return true;
}

bool Generator::SliceOp() {
  Value* x = Pick([](const Value& v) { return v.shape.rank() >= 1; });
  if (x == nullptr) return false;
  std::vector<std::string> parts;
  std::vector<int64_t> out;
  bool strided = false;
  for (int64_t d : x->shape.dimensions()) {
    const int64_t start = Range(0, static_cast<int>(d));
    const int64_t limit = Range(static_cast<int>(start), static_cast<int>(d));
    const int64_t stride = Weighted({5, 2, 1}) + 1;
    strided |= stride > 1;
    parts.push_back(stride == 1 ? absl::StrCat("[", start, ":", limit, "]")
                                : absl::StrCat("[", start, ":", limit, ":", stride, "]"));
    out.push_back((limit - start + stride - 1) / stride);
  }
  if (strided) Count("slice:strided");
  Emit(MakeShape(x->shape.element_type(), out),
       absl::StrCat("slice(", Use(x), "), slice={", absl::StrJoin(parts, ", "), "}"), x->precision, "slice");
  return true;
}

bool Generator::ReverseOp() {
  Value* x = Pick([](const Value& v) { return v.shape.rank() >= 1; });
  if (x == nullptr) return false;
  std::vector<int64_t> dims;
  for (int i = 0; i < x->shape.rank(); ++i) {
    if (Chance(0.5)) dims.push_back(i);
  }
  if (dims.empty()) dims.push_back(Uniform(x->shape.rank()));
  Emit(MakeShape(x->shape.element_type(), x->shape.dimensions()),
       absl::StrCat("reverse(", Use(x), "), dimensions=", ListText(dims)), x->precision, "reverse");
  return true;
}

bool Generator::ConcatenateOp() {
  Value* x = Pick([](const Value& v) { return v.shape.rank() >= 1; });
  if (x == nullptr) return false;
  const PrimitiveType t = x->shape.element_type();
  const int k = Uniform(x->shape.rank());
  std::vector<Value*> operands = {x};
  const int n = Range(2, 3);
  std::vector<int64_t> out = x->shape.dimensions();
  for (int i = 1; i < n; ++i) {
    std::vector<int64_t> dims = x->shape.dimensions();
    dims[k] = Chance(0.5) ? dims[k] : Range(0, 3);
    out[k] += dims[k];
    operands.push_back(FindOrMake(t, dims, false));
  }
  if (Elements(out) > 2 * max_elements()) return false;
  if (Chance(0.5)) std::swap(operands[0], operands[Uniform(n)]);
  std::vector<std::string> names;
  std::vector<Precision> precisions;
  for (Value* v : operands) {
    names.push_back(Use(v));
    precisions.push_back(v->precision);
  }
  Emit(MakeShape(t, out),
       absl::StrCat("concatenate(", absl::StrJoin(names, ", "), "), dimensions={", k, "}"), Join(precisions),
       "concatenate");
  return true;
}

bool Generator::PadOp() {
  Value* x = Pick([](const Value& v) { return v.shape.rank() >= 1; });
  if (x == nullptr) return false;
  const PrimitiveType t = x->shape.element_type();
  PaddingConfig config;
  std::vector<std::string> parts;
  bool negative = false, interior = false;
  for (int64_t d : x->shape.dimensions()) {
    int64_t low = Range(-2, 2), high = Range(-2, 2), in = Weighted({6, 3, 1});
    const int64_t size = low + high + d + std::max<int64_t>(d - 1, 0) * in;
    if (size < 0) low = high = 0;
    auto* dim = config.add_dimensions();
    dim->set_edge_padding_low(low);
    dim->set_edge_padding_high(high);
    dim->set_interior_padding(in);
    negative |= low < 0 || high < 0;
    interior |= in > 0;
    parts.push_back(in == 0 ? absl::StrCat(low, "_", high) : absl::StrCat(low, "_", high, "_", in));
  }
  Value* value = Chance(0.7) ? ScalarConstant(t) : FindOrMake(t, {}, false);
  absl::StatusOr<Shape> out = ShapeInference::InferPadShape(x->shape, value->shape, config);
  if (!out.ok() || Elements(out->dimensions()) > 2 * max_elements()) return false;
  if (negative) Count("pad:negative");
  if (interior) Count("pad:interior");
  const Precision both[] = {x->precision, value->precision};
  Emit(MakeShape(t, out->dimensions()),
       absl::StrCat("pad(", Use(x), ", ", Use(value), "), padding=", absl::StrJoin(parts, "x")), Join(both), "pad");
  return true;
}

bool Generator::IotaOp() {
  const PrimitiveType t = Chance(0.5) ? RandomIntType() : RandomFloatType();
  const std::vector<int64_t> dims = RandomDims(Range(1, 3));
  const int k = Uniform(static_cast<int>(dims.size()));
  Emit(MakeShape(t, dims), absl::StrCat("iota(), iota_dimension=", k), Exact(static_cast<double>(dims[k])), "iota");
  return true;
}

bool Generator::DynamicSliceOp() {
  Value* x = Pick([](const Value& v) { return v.shape.rank() >= 1; });
  if (x == nullptr) return false;
  static const PrimitiveType kIndexTypes[] = {S32, S64, U32};
  const PrimitiveType index_type = kIndexTypes[Weighted({7, 2, 1})];
  std::vector<std::string> indices;
  std::vector<int64_t> sizes;
  for (int64_t d : x->shape.dimensions()) {
    indices.push_back(Use(IndexScalar(index_type, d)));
    sizes.push_back(d == 0 ? 0 : Range(1, static_cast<int>(d)));
  }
  Emit(MakeShape(x->shape.element_type(), sizes),
       absl::StrCat("dynamic-slice(", Use(x), ", ", absl::StrJoin(indices, ", "),
                    "), dynamic_slice_sizes=", ListText(sizes)),
       x->precision, "dynamic-slice");
  return true;
}

bool Generator::DynamicUpdateSliceOp() {
  Value* x = Pick([](const Value& v) { return v.shape.rank() >= 1; });
  if (x == nullptr) return false;
  const PrimitiveType index_type = Chance(0.8) ? S32 : S64;
  std::vector<int64_t> update_dims;
  for (int64_t d : x->shape.dimensions()) update_dims.push_back(Range(d > 0 && Chance(0.9) ? 1 : 0, d));
  Value* update = FindOrMake(x->shape.element_type(), update_dims, false);
  std::vector<std::string> indices;
  for (int64_t d : x->shape.dimensions()) indices.push_back(Use(IndexScalar(index_type, d)));
  const Precision both[] = {x->precision, update->precision};
  Emit(MakeShape(x->shape.element_type(), x->shape.dimensions()),
       absl::StrCat("dynamic-update-slice(", Use(x), ", ", Use(update), ", ", absl::StrJoin(indices, ", "), ")"),
       Join(both), "dynamic-update-slice");
  return true;
}

}  // namespace hlo_fuzz
}  // namespace xla
