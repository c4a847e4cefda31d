// Generated serialize is callable on a const object for writing and measuring (writes never modify the
// object), with the same bytes as the non-const call; reading a const object does not compile.
#include <gtest/gtest.h>

#include <vector>

#include "codec_checks.hpp"
#include "support/seed.hpp"
#include "values.hpp"

namespace {

using namespace bitwire::test::gen;
namespace dc = demo::constructs;

template <typename T>
concept ReadableWhenConst = requires(const T& object, bitwire::ReadStream& stream) { object.serialize(stream); };

static_assert(!ReadableWhenConst<game::Snapshot>, "a const object cannot be read into");
static_assert(!ReadableWhenConst<dc::Everything>, "a const object cannot be read into");

template <typename T>
void expect_const_write_matches(std::uint64_t seed) {
  Draws draws(seed);
  const T object = draw<T>(draws);
  const Encoded expected = encode(object, 0);
  std::vector<std::byte> buffer(2 * T::MaxBytes + 16);
  bitwire::WriteStream stream(buffer);
  ASSERT_TRUE(object.serialize(stream));  // the const overload
  stream.flush();
  buffer.resize(stream.bytes_processed());
  EXPECT_EQ(buffer, expected.bytes);
  bitwire::MeasureStream measure;
  ASSERT_TRUE(object.serialize(measure));
  T copy = object;
  bitwire::MeasureStream copy_measure;
  ASSERT_TRUE(copy.serialize(copy_measure));
  EXPECT_EQ(measure.bits_processed(), copy_measure.bits_processed());
}

TEST(ConstWrite, ConstObjectsWriteAndMeasureTheSameBytes) {
  BITWIRE_SEEDED_TEST_SEED(0xC0457u);
  for (std::uint64_t i = 0; i < 20; ++i) {
    expect_const_write_matches<game::Snapshot>(seed + i);
    expect_const_write_matches<game::PlayerInput>(seed + i);
    expect_const_write_matches<dc::Everything>(seed + i);
    expect_const_write_matches<dc::Conditions>(seed + i);
  }
}

// What game code holds: a const reference. It is written, measured and validated in place (the const
// serialize forwards to the object itself, so nothing is copied), both by its own serialize and by
// serialize_message with the type id, with the bytes of a mutable copy.
bool write_input(bitwire::WriteStream& stream, const game::PlayerInput& input) {
  return game::serialize_message(stream, input);
}

TEST(ConstWrite, ConstReferenceWritesThroughSerializeMessage) {
  game::PlayerInput mutable_input;
  mutable_input.tick = 123456;
  mutable_input.buttons = game::InputButtons::Jump | game::InputButtons::Fire;
  const game::PlayerInput& input = mutable_input;
  std::vector<std::byte> by_reference(64);
  bitwire::WriteStream stream(by_reference);
  ASSERT_TRUE(write_input(stream, input));
  stream.flush();
  by_reference.resize(stream.bytes_processed());

  game::PlayerInput copy = input;
  std::vector<std::byte> by_copy(64);
  bitwire::WriteStream copy_stream(by_copy);
  ASSERT_TRUE(game::serialize_message(copy_stream, copy));
  copy_stream.flush();
  by_copy.resize(copy_stream.bytes_processed());
  EXPECT_EQ(by_reference, by_copy);

  bitwire::ValidateStream validate;
  EXPECT_TRUE(input.serialize(validate));
  bitwire::MeasureStream measure;
  EXPECT_TRUE(game::serialize_message(measure, input));
  EXPECT_EQ(measure.bits_processed(), static_cast<std::size_t>(game::kMessageTypeBits) + 32 + 10 + 16 + 15 + 1);
}

}  // namespace
