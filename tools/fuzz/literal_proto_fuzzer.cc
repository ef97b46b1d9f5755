// Fuzz target: the literal and shape protos (what transfers receive). The
// first byte says which; a literal that imports must print and round-trip.
#include <cstdint>
#include <cstdlib>

#include "proto/xla_data.pb.h"
#include "xla/literal.h"
#include "xla/shape_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool is_shape = data[0] & 1;
  ++data;
  --size;
  if (is_shape) {
    xla::ShapeProto proto;
    if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
    absl::StatusOr<xla::Shape> shape = xla::ShapeUtil::FromProto(proto);
    if (shape.ok()) (void)shape->ToString();
    return 0;
  }
  xla::LiteralProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  absl::StatusOr<xla::Literal> literal = xla::Literal::FromProto(proto);
  if (!literal.ok()) return 0;
  (void)literal->ToString();
  absl::StatusOr<xla::Literal> again = xla::Literal::FromProto(literal->ToProto());
  // An imported literal round-trips, bit for bit (NaNs included).
  if (!again.ok() || again->ToProto().SerializeAsString() != literal->ToProto().SerializeAsString()) std::abort();
  return 0;
}
