// Two files of one program built with different BITWIRE_SERIALIZE_CHECKS settings: every generated
// entity whose meaning depends on the setting (ProtocolId, MaxBits, serialize) must have a distinct
// definition per setting, or the linker keeps one and the other file silently uses the wrong wire.
#include <gtest/gtest.h>

#include "odr_checks_unit.hpp"

namespace {

TEST(OdrChecks, EachSettingKeepsItsOwnProtocolIdAndMaxBits) {
  const odr_checks::Report on = odr_checks::with_checks();
  const odr_checks::Report off = odr_checks::without_checks();
  ASSERT_TRUE(on.checks);
  ASSERT_FALSE(off.checks);
  EXPECT_NE(on.protocol_id, off.protocol_id);
  EXPECT_GT(on.max_bits, off.max_bits);
  // One object per setting: a shared inline variable would be one address for two different values.
  EXPECT_NE(on.protocol_id_address, off.protocol_id_address);
}

TEST(OdrChecks, EachSettingKeepsItsOwnSerialize) {
  const odr_checks::Report on = odr_checks::with_checks();
  const odr_checks::Report off = odr_checks::without_checks();
  // The marker (aligned, 32 bits) is written only by the unit built with checks. Were the two
  // instantiations merged, both units would write the same number of bits.
  EXPECT_GE(on.written_bits, off.written_bits + 32);
}

}  // namespace
