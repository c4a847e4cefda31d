// ReassemblerConfig's table (kReassemblerConfigLimits): every field at and past both ends, the config an
// Endpoint derives always passing it, and a Reassembler built directly from a bad config flagged and
// sanitized. (Its own file: reassembler.hpp and block.hpp both name a PacketFragmentResult.)
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "bitwire/packet/endpoint.hpp"
#include "bitwire/packet/reassembler.hpp"
#include "support/config_table_probe.hpp"

namespace bitwire::test {
namespace {

TEST(ConfigTable, ReassemblerConfigEveryFieldAtAndPastBothEnds) {
  exercise_table("ReassemblerConfig", kReassemblerConfigLimits, ReassemblerConfig{});
  ReassemblerConfig largest;  // the largest packets and window: the memory cap leaves few slots
  largest.window = 32768;
  largest.max_fragments = 256;
  largest.fragment_size = static_cast<int>(kMaxUdpPayloadBytes);
  largest.slots = 2;
  exercise_table("ReassemblerConfig", kReassemblerConfigLimits, largest);
  ReassemblerConfig smallest;  // one-byte fragments: the slot count's own maximum binds
  smallest.window = 1;
  smallest.max_fragments = 1;
  smallest.fragment_size = 1;
  smallest.slots = 65536;
  exercise_table("ReassemblerConfig", kReassemblerConfigLimits, smallest);
}

// Every config an Endpoint derives for its Reassembler passes the reassembler's own table, from the
// smallest to the largest legal EndpointConfig (each field at both ends, the rest sanitized around it).
TEST(ConfigTable, EndpointDerivedReassemblerConfigAlwaysPasses) {
  std::vector<EndpointConfig> configs = {EndpointConfig{}};
  for_each_field(kEndpointConfigLimits, [&](const auto& field) {
    for (const auto value : probes(field, EndpointConfig{})) {
      EndpointConfig c;
      c.*field.member = value;
      configs.push_back(c.sanitized());
    }
  });
  EndpointConfig largest;
  largest.fragment_size = kMaxFragmentSize;
  largest.max_packet_size = kMaxFragmentsLimit * kMaxFragmentSize;
  largest.max_fragments = kMaxFragmentsLimit;
  largest.fragment_reassembly_buffer_size = 32768;
  largest.reassembly_slots = 1024;
  configs.push_back(largest.sanitized());
  for (const EndpointConfig& c : configs) {
    ASSERT_TRUE(c.check().ok());
    const ReassemblerConfig derived = endpoint_reassembler_config(c);
    EXPECT_TRUE(derived.check().ok()) << derived.check().reason();
    EXPECT_EQ(derived.slots, c.reassembly_slots) << "the endpoint's slots are used as they are";
  }
}

// A Reassembler built directly with 300 fragments per packet (the slot's mask holds 256) and a window
// past 32768 was trusted: fragment 280 wrote past the mask. The config is flagged and sanitized, and a
// fragment outside the config in use is refused in every build.
TEST(ReassemblerConfigCheck, DirectlyBuiltReassemblerWithBadConfigIsFlaggedAndSanitized) {
  ReassemblerConfig config;
  config.window = 65536;
  config.slots = 2;
  config.max_fragments = 300;
  config.fragment_size = 4;
  Reassembler reassembler(config);
  ASSERT_NE(reassembler.error_reason(), nullptr);
  EXPECT_STREQ(reassembler.error_reason(), "ReassemblerConfig.window = 65536 is outside [1, 32768]");
  EXPECT_EQ(reassembler.config().window, 32768);
  EXPECT_EQ(reassembler.config().max_fragments, 256);
  EXPECT_TRUE(reassembler.config().check().ok());
  const std::byte body[4] = {};
  EXPECT_EQ(reassembler.add(1, 280, 300, body, 0, 0, 4), PacketFragmentResult::kInvalid);
  EXPECT_EQ(reassembler.add(1, 3, 2, body, 0, 0, 4), PacketFragmentResult::kInvalid) << "id >= count";
  const std::byte big[5] = {};
  EXPECT_EQ(reassembler.add(1, 0, 2, big, 0, 0, 5), PacketFragmentResult::kInvalid)
      << "body above fragment_size";
  EXPECT_EQ(reassembler.busy_slots(), 0) << "nothing stored";
  EXPECT_EQ(reassembler.add(1, 255, 256, body, 0, 0, 4), PacketFragmentResult::kStored)
      << "the last legal id";
}

// Slots past the memory cap are lowered, not allocated: 65,536 slots of 256 fragments of 65,507 bytes
// (1 TiB) was allocated as asked.
TEST(ReassemblerConfigCheck, SlotsAboveTheMemoryCapAreFlaggedAndLowered) {
  ReassemblerConfig config;
  config.slots = 65536;
  config.max_fragments = 256;
  config.fragment_size = static_cast<int>(kMaxUdpPayloadBytes);
  const Reassembler reassembler(config);
  ASSERT_NE(reassembler.error_reason(), nullptr);
  EXPECT_NE(std::string(reassembler.error_reason()).find("ReassemblerConfig.slots = 65536 is outside [1, 4]"),
            std::string::npos)
      << reassembler.error_reason();
  EXPECT_EQ(reassembler.config().slots, 4);
  EXPECT_LE(reassembler.memory_bytes(), kMaxReassemblerMemoryBytes);
  EXPECT_EQ(Reassembler(ReassemblerConfig{}).error_reason(), nullptr);
}

TEST(ConfigTableDocs, PacketsDocPrintsReassemblerLimits) {
  expect_doc_matches("docs/packets.md", "ReassemblerConfig", kReassemblerConfigLimits);
}

}  // namespace
}  // namespace bitwire::test
