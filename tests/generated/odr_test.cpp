// Two translation units include every generated header and are linked into this program (a generated
// definition that is not inline fails the link); both units agree on every byte they write, and each
// generated constant has one address.
#include <gtest/gtest.h>

#include "odr_unit.hpp"
#include "support/seed.hpp"

namespace {

TEST(GeneratedOdr, TwoUnitsAgreeOnBytesTextAndConstants) {
  BITWIRE_SEEDED_TEST_SEED(0x0d12'0001);
  const odr::UnitReport a = odr::run_unit_a(seed);
  const odr::UnitReport b = odr::run_unit_b(seed);
  EXPECT_FALSE(a.bytes.empty());
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(a.messages_read, 10u) << "6 game and 4 constructs messages read back";
  EXPECT_EQ(b.messages_read, 10u);
  EXPECT_EQ(a.game_protocol_id, b.game_protocol_id);
  EXPECT_EQ(a.constructs_protocol_id, b.constructs_protocol_id);
  EXPECT_EQ(a.common_protocol_id, b.common_protocol_id);
  EXPECT_EQ(a.snapshot_max_bits, b.snapshot_max_bits);
  EXPECT_EQ(a.game_factory, b.game_factory);
}

}  // namespace
