// The parsed form of a StableHLO MLIR module, before lowering to HLO: types,
// attributes and ops in MLIR's generic shape (name, operands, attributes,
// regions, types). Pretty-printed ops are parsed into this same form, so
// lowering sees one spelling per op. Offsets point into the source text for
// located errors.
#ifndef XLA_STABLEHLO_AST_H_
#define XLA_STABLEHLO_AST_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "proto/xla_data.pb.h"

namespace xla {
namespace stablehlo {

// `!quant.uniform<storage<min:max>:expressed[:axis], scale:zero_point>` or
// per axis `{scale:zp, ...}`: a quantized tensor is its storage-type tensor
// in HLO; these parameters stay with the importer (quant_lowering.cc).
struct QuantizedType {
  PrimitiveType storage = PRIMITIVE_TYPE_INVALID;
  int64_t storage_min = 0;
  int64_t storage_max = 0;
  PrimitiveType expressed = PRIMITIVE_TYPE_INVALID;
  std::optional<int64_t> axis;     // per-axis quantization
  std::vector<double> scales;      // one, or one per index along `axis`
  std::vector<int64_t> zero_points;

  bool operator==(const QuantizedType& o) const {
    return storage == o.storage && storage_min == o.storage_min && storage_max == o.storage_max &&
           expressed == o.expressed && axis == o.axis && scales == o.scales && zero_points == o.zero_points;
  }
};

// A type: tensor<dims x elem>, tuple<...>, !stablehlo.token, or a bare
// element type (in attributes: `1 : i64`, `array<i64: ...>`).
struct Type {
  enum Kind { kTensor, kTuple, kToken, kElement };
  Kind kind = kTensor;
  // The element type's spelling ("f32", "complex<f64>", "i4", "!quant...").
  std::string element;
  // PRIMITIVE_TYPE_INVALID when HLO has no such element type; a quantized
  // type's storage type.
  PrimitiveType element_type = PRIMITIVE_TYPE_INVALID;
  std::optional<QuantizedType> quant;
  std::vector<int64_t> dims;
  std::vector<Type> elements;  // tuple
  size_t loc = 0;

  std::string ToString() const;  // MLIR spelling
};

struct FunctionType {
  std::vector<Type> inputs;
  std::vector<Type> results;
};

// One element of a dense literal: a number (decimal, or 0x bit pattern),
// a boolean, a complex pair, or a nested list.
struct DenseNode {
  enum Kind { kNumber, kBool, kComplex, kList };
  Kind kind = kNumber;
  std::string text;  // kNumber
  bool value = false;  // kBool
  std::vector<DenseNode> items;  // kList; kComplex: {re, im}
  size_t loc = 0;
};

struct DenseAttr {
  bool is_blob = false;  // dense<"0x...">
  std::string blob;      // the hex digits after 0x
  bool empty = false;    // dense<>
  DenseNode root;
};

// #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]> and the pretty
// `dim_numbers = ...`: each layout as its letters/digits.
struct ConvLayouts {
  std::vector<std::string> input, kernel, output;
};

struct Attr {
  enum Kind {
    kUnit,        // a name without a value
    kBool,
    kNumber,      // int or float, text kept; `type` tells which
    kString,
    kSymbol,      // @f
    kArray,       // [a, b, ...]
    kDenseArray,  // array<i64: 1, 2>
    kDense,       // dense<...>
    kDict,        // {a = 1, ...}
    kEnum,        // #stablehlo<precision DEFAULT>, or a bare word (DEFAULT, LT)
    kStruct,      // #stablehlo.gather<offset_dims = [1], ...>
    kConv,        // #stablehlo.conv<...>
    kType,
  };
  Kind kind = kUnit;
  size_t loc = 0;
  bool b = false;
  std::string text;  // number text, string, symbol, enum value, struct name
  std::string enum_kind;  // kEnum: "precision" of #stablehlo<precision X>
  std::vector<Attr> list;  // kArray, kDenseArray
  std::vector<std::pair<std::string, Attr>> fields;  // kDict, kStruct
  std::shared_ptr<DenseAttr> dense;
  std::shared_ptr<ConvLayouts> conv;
  std::optional<Type> type;  // `: type` suffix, or the array<T: ...> type

  const Attr* Find(const std::string& name) const;  // kDict/kStruct
};

using AttrDict = std::vector<std::pair<std::string, Attr>>;
const Attr* FindAttr(const AttrDict& dict, const std::string& name);

// A use of a value: %name or %name#index.
struct ValueRef {
  std::string name;
  int64_t index = 0;
  bool has_index = false;
  size_t loc = 0;
};

struct Op;

struct BlockArg {
  std::string name;
  Type type;
  size_t loc = 0;
  AttrDict attrs;  // a function argument's attributes (tf.aliasing_output)
};

struct Block {
  std::vector<BlockArg> args;
  std::vector<Op> ops;
};

struct Region {
  std::vector<Block> blocks;
  size_t loc = 0;
};

// One result group: `%0:2` is {"0", 2}; `%a, %b` is {"a", 1}, {"b", 1}.
struct ResultGroup {
  std::string name;
  int64_t count = 1;
  size_t loc = 0;
};

struct Op {
  std::string name;  // "stablehlo.add", "func.return", "check.expect_eq", ...
  size_t loc = 0;
  std::vector<ResultGroup> results;
  std::vector<ValueRef> operands;
  AttrDict attrs;
  std::vector<Region> regions;
  std::vector<Type> operand_types;
  std::vector<Type> result_types;

  int64_t num_results() const;
};

struct Func {
  std::string name;
  size_t loc = 0;
  bool is_private = false;
  std::vector<BlockArg> args;
  std::vector<Type> result_types;
  Region body;
};

struct Module {
  std::string name;
  size_t loc = 0;
  std::vector<Func> funcs;  // textual order, nested modules flattened
  std::vector<Op> other_ops;  // top-level ops other than func.func (none expected)
};

}  // namespace stablehlo
}  // namespace xla

#endif  // XLA_STABLEHLO_AST_H_
