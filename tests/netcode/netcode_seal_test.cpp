// write_encrypted_packet seals the body wherever it lies: in its own buffer (read and sealed in one pass),
// already at its place in the output, or overlapping the output at another offset. The bytes are the same
// in all three, and they open to the body.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "bitwire/netcode/packet.hpp"

namespace bitwire::netcode {
namespace {

constexpr uint64_t kProtocol = 0x1122334455667788ull;

Key test_key() {
  Key key{};
  for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::byte>(i * 5 + 1);
  return key;
}

TEST(NetcodeSeal, TheBodysPlaceDoesNotChangeTheSealedBytes) {
  const Key key = test_key();
  constexpr uint64_t kSequence = 0x1234;  // 2 sequence bytes: the body starts at out[3]
  for (const size_t body_size : {size_t{0}, size_t{1}, size_t{58}, size_t{629}, size_t{1200}}) {
    std::vector<std::byte> body(body_size);
    for (size_t i = 0; i < body_size; ++i) body[i] = static_cast<std::byte>(i * 7 + 3);
    const size_t room = 1 + 8 + body_size + kMacBytes + 8;

    std::vector<std::byte> apart(room);
    const size_t size = write_encrypted_packet(PacketType::kPayload, kSequence, body, kProtocol, key, apart);
    ASSERT_EQ(size, 1 + 2 + body_size + kMacBytes);

    std::vector<std::byte> in_place(room);
    std::copy(body.begin(), body.end(), in_place.begin() + 3);
    EXPECT_EQ(write_encrypted_packet(PacketType::kPayload, kSequence,
                                     std::span<const std::byte>(in_place).subspan(3, body_size), kProtocol,
                                     key, in_place),
              size);
    EXPECT_TRUE(
        std::equal(apart.begin(), apart.begin() + static_cast<std::ptrdiff_t>(size), in_place.begin()))
        << body_size << " bytes in place";

    std::vector<std::byte> overlapping(room);
    std::copy(body.begin(), body.end(), overlapping.begin() + 5);  // 2 bytes after where it goes
    EXPECT_EQ(write_encrypted_packet(PacketType::kPayload, kSequence,
                                     std::span<const std::byte>(overlapping).subspan(5, body_size), kProtocol,
                                     key, overlapping),
              size);
    EXPECT_TRUE(
        std::equal(apart.begin(), apart.begin() + static_cast<std::ptrdiff_t>(size), overlapping.begin()))
        << body_size << " bytes overlapping";

    if (body_size == 0) continue;  // a payload packet carries at least one byte
    EncryptedPacket opened;
    ASSERT_EQ(read_encrypted_packet(std::span<std::byte>(apart).first(size), kProtocol, key,
                                    type_bit(PacketType::kPayload), nullptr, opened),
              PacketError::kNone);
    ASSERT_EQ(opened.body.size(), body_size);
    EXPECT_TRUE(std::equal(body.begin(), body.end(), opened.body.begin()));
  }
}

}  // namespace
}  // namespace bitwire::netcode
