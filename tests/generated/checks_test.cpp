// The generated code built with BITWIRE_SERIALIZE_CHECKS=1: `check` directives write an aligned 32-bit
// marker that reads verify, MaxBits counts them, and ProtocolId is the fingerprint with check markers
// (so builds with and without checks refuse each other's packets). This program includes only headers:
// nothing in it is shared with code built without checks.
#include <gtest/gtest.h>

#include "codec_checks.hpp"
#include "constructs.hpp"
#include "game.hpp"
#include "schema_compile.hpp"
#include "support/seed.hpp"
#include "values.hpp"

namespace {

using namespace bitwire::test::gen;
using bitwire::ReadError;
namespace dc = demo::constructs;

static_assert(bitwire::kSerializeChecks, "this test is built with BITWIRE_SERIALIZE_CHECKS=1");

TEST(SerializeChecks, MaxBitsCountsTheMarkers) {
  EXPECT_EQ(dc::Directives::MaxBits, 130u);  // 91 without, plus align (7) and the 32-bit marker
  EXPECT_EQ(dc::Everything::MaxBits, 3606u);
  Draws draws(1, Fill::kWorst);
  // One alignment more than without checks: the marker aligns first.
  check_worst_case(draw<dc::Directives>(draws), 0, 3);
  check_worst_case(draw<dc::Everything>(draws), 1, 7);
}

TEST(SerializeChecks, TheMarkerIsWrittenAlignedAndVerified) {
  dc::Directives directives;
  directives.aligned_byte = 0xAB;
  // before 0, padding 1..7, aligned_byte 8..15, marker 16..47 (already aligned), then the string.
  const Encoded encoded = encode(directives, 0);
  ASSERT_GE(encoded.bytes.size(), 6u);
  EXPECT_EQ(static_cast<unsigned>(encoded.bytes[1]), 0xABu);
  EXPECT_EQ(static_cast<unsigned>(encoded.bytes[2]), 0x78u);
  EXPECT_EQ(static_cast<unsigned>(encoded.bytes[3]), 0x56u);
  EXPECT_EQ(static_cast<unsigned>(encoded.bytes[4]), 0x34u);
  EXPECT_EQ(static_cast<unsigned>(encoded.bytes[5]), 0x12u);
  for (size_t bit = 16; bit < 48; ++bit) {
    std::vector<std::byte> bytes = encoded.bytes;
    bytes[bit / 8] ^= static_cast<std::byte>(1u << (bit % 8));
    dc::Directives read;
    const Decoded decoded = decode(bytes, 0, read);
    EXPECT_FALSE(decoded.ok) << bit;
    EXPECT_EQ(decoded.error, ReadError::kCheckMismatch) << bit;
    EXPECT_EQ(decoded.error_bit, 16u) << bit;
  }
  // At an odd start the marker's own alignment pads: non-zero padding there is refused too.
  dc::Directives moved;
  moved.before = true;
  const Encoded shifted = encode(moved, 3);  // before at 3, padding 4..7, byte 8..15, marker 16..47
  EXPECT_EQ(static_cast<unsigned>(shifted.bytes[2]), 0x78u);
}

TEST(SerializeChecks, RandomObjectsRoundTrip) {
  BITWIRE_SEEDED_TEST_SEED(0xc4ec'0001);
  check_random_objects<dc::Directives>(seed, scaled(2000));
  check_random_objects<dc::Everything>(seed + 1, scaled(300));
}

TEST(SerializeChecks, ProtocolIdIsTheFingerprintWithChecks) {
  const std::map<std::string, std::string> imports{{"common.net", read_schema("common.net")}};
  const uint64_t with = protocol_id("constructs.net", read_schema("constructs.net"), imports, true);
  const uint64_t without = protocol_id("constructs.net", read_schema("constructs.net"), imports, false);
  EXPECT_NE(with, without);
  EXPECT_EQ(dc::ProtocolId, with);
  // game.net has no `check`: one id for both builds.
  EXPECT_EQ(game::ProtocolId, protocol_id("game.net", read_schema("game.net"), imports, false));
  EXPECT_EQ(game::ProtocolId, protocol_id("game.net", read_schema("game.net"), imports, true));
}

}  // namespace
