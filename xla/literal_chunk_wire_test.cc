#include "xla/literal_chunk_wire.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "gtest/gtest.h"
#include "xla/shape_util.h"

namespace xla {
namespace {

using ::testing::HasSubstr;

// The bytes of a buffer, in one string.
std::string Flatten(const grpc::ByteBuffer& raw) {
  grpc::Slice slice;
  EXPECT_TRUE(raw.DumpToSingleSlice(&slice).ok());
  return std::string(reinterpret_cast<const char*>(slice.begin()), slice.size());
}

// `bytes` as a buffer of slices of `slice_size` bytes (a receiver sees
// frames of any size).
grpc::ByteBuffer InSlices(const std::string& bytes, size_t slice_size) {
  std::vector<grpc::Slice> slices;
  for (size_t at = 0; at < bytes.size(); at += slice_size) {
    slices.emplace_back(bytes.data() + at, std::min(slice_size, bytes.size() - at));
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

// What ReadChunk hands over: the data passed piece by piece, or the parsed
// message.
struct Read {
  absl::StatusOr<bool> general;
  std::string appended;
  LiteralChunk parsed;
};
Read ReadAll(const grpc::ByteBuffer& raw) {
  Read read;
  read.general = ReadChunk(
      raw,
      [&](absl::string_view piece) {
        read.appended.append(piece.data(), piece.size());
        return absl::OkStatus();
      },
      &read.parsed);
  return read;
}

TEST(LiteralChunkWireTest, ADataChunkIsTheProtobufEncodingAndRefersToTheBytes) {
  for (size_t size : {size_t{1}, size_t{127}, size_t{128}, size_t{300}, size_t{1} << 20}) {
    std::string data(size, '\0');
    for (size_t i = 0; i < size; ++i) data[i] = static_cast<char>(i * 7 + 3);
    grpc::ByteBuffer raw = DataChunkReferencing(data, nullptr);
    LiteralChunk expected;
    expected.set_data(data);
    EXPECT_EQ(Flatten(raw), expected.SerializeAsString()) << size;
    // The data slice is the string's own memory, not a copy.
    std::vector<grpc::Slice> slices;
    ASSERT_TRUE(raw.Dump(&slices).ok());
    ASSERT_EQ(slices.size(), 2u);
    EXPECT_EQ(reinterpret_cast<const char*>(slices[1].begin()), data.data());
  }
}

TEST(LiteralChunkWireTest, TheOwnerIsHeldUntilTheLastReferenceGoes) {
  std::string data(4096, 'x');
  auto owner = std::make_shared<int>(0);
  std::weak_ptr<int> watch = owner;
  {
    grpc::ByteBuffer raw = DataChunkReferencing(data, std::move(owner));
    grpc::ByteBuffer shared(raw);
    raw.Clear();
    EXPECT_FALSE(watch.expired());
  }
  EXPECT_TRUE(watch.expired());
}

TEST(LiteralChunkWireTest, DataOnlyChunksArePassedOnFromTheirSlicesWhateverTheSlicing) {
  std::string data(1000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i);
  LiteralChunk chunk;
  chunk.set_data(data);
  const std::string wire = chunk.SerializeAsString();
  // Slices of one byte split the header too.
  for (size_t slice_size : {size_t{1}, size_t{2}, size_t{3}, size_t{64}, wire.size()}) {
    Read read = ReadAll(InSlices(wire, slice_size));
    ASSERT_TRUE(read.general.ok()) << read.general.status();
    EXPECT_FALSE(*read.general);
    EXPECT_EQ(read.appended, data) << slice_size;
  }
}

TEST(LiteralChunkWireTest, OtherEncodingsAreParsed) {
  // A shape (what the first chunk carries), with data after it.
  LiteralChunk with_shape;
  *with_shape.mutable_shape() = ShapeUtil::MakeShape(F32, {2, 3}).ToProto();
  with_shape.set_data("abcd");
  Read read = ReadAll(InSlices(with_shape.SerializeAsString(), 5));
  ASSERT_TRUE(read.general.ok());
  EXPECT_TRUE(*read.general);
  EXPECT_TRUE(read.appended.empty());
  EXPECT_EQ(read.parsed.data(), "abcd");
  EXPECT_EQ(ShapeUtil::FromProto(read.parsed.shape()).value(), ShapeUtil::MakeShape(F32, {2, 3}));

  // The data field twice (protobuf keeps the last): not the one-field form,
  // so it is parsed, and the appended bytes are never the first copy's.
  LiteralChunk first, second;
  first.set_data("first");
  second.set_data("second!");
  read = ReadAll(InSlices(first.SerializeAsString() + second.SerializeAsString(), 4));
  ASSERT_TRUE(read.general.ok());
  EXPECT_TRUE(*read.general);
  EXPECT_EQ(read.parsed.data(), "second!");

  // An unknown field after the data.
  std::string with_unknown = first.SerializeAsString() + std::string("\x18\x05", 2);  // field 3, varint 5
  read = ReadAll(InSlices(with_unknown, 100));
  ASSERT_TRUE(read.general.ok());
  EXPECT_TRUE(*read.general);
  EXPECT_EQ(read.parsed.data(), "first");
}

TEST(LiteralChunkWireTest, BytesThatAreNoLiteralChunkAreInvalidArgument) {
  // A data header that claims more bytes than follow, a truncated varint,
  // and a field of an invalid wire type.
  for (const std::string& bad : {std::string("\x12\x10" "abc", 5), std::string("\x12\xff\xff", 3),
                                 std::string("\x0f\x01", 2)}) {
    Read read = ReadAll(InSlices(bad, 2));
    ASSERT_FALSE(read.general.ok());
    EXPECT_EQ(read.general.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(read.general.status().message(), HasSubstr("not a valid xla.LiteralChunk"));
    EXPECT_TRUE(read.appended.empty());
  }
}

TEST(LiteralChunkWireTest, AnAppendErrorIsReturned) {
  LiteralChunk chunk;
  chunk.set_data("data");
  absl::StatusOr<bool> general = ReadChunk(
      InSlices(chunk.SerializeAsString(), 3), [](absl::string_view) { return absl::InvalidArgumentError("full"); },
      &chunk);
  EXPECT_EQ(general.status(), absl::InvalidArgumentError("full"));
}

TEST(LiteralChunkWireTest, MessagesRoundTripThroughByteBuffers) {
  LiteralChunk chunk;
  *chunk.mutable_shape() = ShapeUtil::MakeTupleShape({ShapeUtil::MakeShape(PRED, {7})}).ToProto();
  grpc::ByteBuffer raw = SerializeToByteBuffer(chunk).value();
  EXPECT_EQ(Flatten(raw), chunk.SerializeAsString());
  LiteralChunk back;
  ASSERT_TRUE(ParseFromByteBuffer(InSlices(Flatten(raw), 3), &back));
  EXPECT_EQ(back.SerializeAsString(), chunk.SerializeAsString());
  EXPECT_FALSE(ParseFromByteBuffer(InSlices(std::string("\x0f\x01", 2), 1), &back));
}

}  // namespace
}  // namespace xla
