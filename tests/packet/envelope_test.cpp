#include "bitwire/packet/envelope.hpp"
#include "support/bytes.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace bitwire {
namespace {

TEST(Envelope, ChecksumIsCrcOfProtocolIdLittleEndianThenPacket) {
  const uint64_t id = 0x0123456789ABCDEFull;
  const uint8_t packet[] = {0x3E, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 'h', 'i'};
  std::vector<uint8_t> joined = {0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01};
  joined.insert(joined.end(), std::begin(packet), std::end(packet));
  const Envelope envelope(id);
  EXPECT_EQ(envelope.checksum(bitwire::test::view(packet)), crc32(joined.data(), joined.size()));
  EXPECT_EQ(envelope.protocol_id(), id);
}

TEST(Envelope, GoldenBytes) {
  // crc32 over 8 zero bytes (protocol id 0) then "123456789".
  const std::vector<uint8_t> reference = {0,   0,   0,   0,   0,   0,   0,   0,  '1',
                                          '2', '3', '4', '5', '6', '7', '8', '9'};
  const uint32_t crc = crc32(reference.data(), reference.size());
  std::vector<uint8_t> datagram = {0, 0, 0, 0, '1', '2', '3', '4', '5', '6', '7', '8', '9'};
  const Envelope envelope(0);
  EXPECT_EQ(envelope.seal(bitwire::test::writable(datagram), 9), 13u);
  EXPECT_EQ(datagram[0], static_cast<uint8_t>(crc));
  EXPECT_EQ(datagram[1], static_cast<uint8_t>(crc >> 8));
  EXPECT_EQ(datagram[2], static_cast<uint8_t>(crc >> 16));
  EXPECT_EQ(datagram[3], static_cast<uint8_t>(crc >> 24));
  EXPECT_TRUE(envelope.open(bitwire::test::view(datagram)));
}

TEST(Envelope, SealThenOpen) {
  const Envelope envelope(0xFEEDFACEull);
  std::vector<uint8_t> datagram(4 + 100);
  for (size_t i = 4; i < datagram.size(); ++i) datagram[i] = static_cast<uint8_t>(i);
  envelope.seal(bitwire::test::writable(datagram), 100);
  EXPECT_TRUE(envelope.open(bitwire::test::view(datagram)));
}

TEST(Envelope, EmptyPacketIsLegal) {
  const Envelope envelope(7);
  uint8_t datagram[4];
  EXPECT_EQ(envelope.seal(bitwire::test::writable(datagram), 0), 4u);
  EXPECT_TRUE(envelope.open(bitwire::test::view(datagram, 4)));
}

TEST(Envelope, RejectsOtherProtocolId) {
  const Envelope ours(1), theirs(2);
  std::vector<uint8_t> datagram(4 + 20, 0xAB);
  theirs.seal(bitwire::test::writable(datagram), 20);
  EXPECT_FALSE(ours.open(bitwire::test::view(datagram)));
}

TEST(Envelope, RejectsEveryBitFlip) {
  const Envelope envelope(0x42);
  std::vector<uint8_t> datagram(4 + 40);
  for (size_t i = 4; i < datagram.size(); ++i) datagram[i] = static_cast<uint8_t>(i * 13);
  envelope.seal(bitwire::test::writable(datagram), 40);
  for (size_t bit = 0; bit < datagram.size() * 8; ++bit) {
    datagram[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    ASSERT_FALSE(envelope.open(bitwire::test::view(datagram))) << bit;
    datagram[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
  }
}

TEST(Envelope, RejectsShortDatagramsAndNull) {
  const Envelope envelope(0);
  const uint8_t bytes[3] = {0, 0, 0};
  for (size_t size = 0; size < 4; ++size) EXPECT_FALSE(envelope.open(bitwire::test::view(bytes, size))) << size;
  EXPECT_FALSE(envelope.open({}));
}

TEST(Envelope, RejectsTruncation) {
  const Envelope envelope(9);
  std::vector<uint8_t> datagram(4 + 16, 0x5A);
  envelope.seal(bitwire::test::writable(datagram), 16);
  for (size_t size = 4; size < datagram.size(); ++size)
    EXPECT_FALSE(envelope.open(bitwire::test::view(datagram.data(), size))) << size;
}

}  // namespace
}  // namespace bitwire

namespace bitwire {
namespace {

// What docs/packets.md (sections 1.1 and 9) says the envelope is not: authentication. CRC32 is affine, so
// for three inputs of one length crc(x ^ y ^ z) = crc(x) ^ crc(y) ^ crc(z). With x = protocol id + observed
// packet, y = zeros + observed packet and z = zeros + forged packet, x ^ y ^ z = protocol id + forged
// packet: one observed datagram seals any packet of its length, and the protocol id is never learned.
TEST(Envelope, OneObservedDatagramSealsAForgedPacketWithoutTheProtocolId) {
  const Envelope envelope(0x5EC2E7D00DF00Dull);  // unknown to the attacker
  constexpr size_t kPacket = 24;
  std::vector<uint8_t> observed(4 + kPacket);
  for (size_t i = 4; i < observed.size(); ++i) observed[i] = static_cast<uint8_t>(i * 7 + 1);
  envelope.seal(test::writable(observed), kPacket);

  std::vector<uint8_t> forged(4 + kPacket);
  for (size_t i = 4; i < forged.size(); ++i) forged[i] = static_cast<uint8_t>(0xF0 ^ (i * 31));
  std::vector<uint8_t> zeros_then_observed(8, 0), zeros_then_forged(8, 0);
  zeros_then_observed.insert(zeros_then_observed.end(), observed.begin() + 4, observed.end());
  zeros_then_forged.insert(zeros_then_forged.end(), forged.begin() + 4, forged.end());
  const uint32_t observed_crc = static_cast<uint32_t>(observed[0]) | static_cast<uint32_t>(observed[1]) << 8 |
                                static_cast<uint32_t>(observed[2]) << 16 | static_cast<uint32_t>(observed[3]) << 24;
  const uint32_t forged_crc = observed_crc ^ crc32(zeros_then_observed.data(), zeros_then_observed.size()) ^
                              crc32(zeros_then_forged.data(), zeros_then_forged.size());
  for (int i = 0; i < 4; ++i) forged[static_cast<size_t>(i)] = static_cast<uint8_t>(forged_crc >> (8 * i));

  EXPECT_NE(forged, observed);
  EXPECT_TRUE(envelope.open(test::view(forged))) << "the envelope accepts the forgery";
}

}  // namespace
}  // namespace bitwire
