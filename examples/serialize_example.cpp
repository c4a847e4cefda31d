// A hand-written message: one packet written with the runtime's serialize functions, its bytes printed, then
// read back and checked field by field. Built as `serialize_example`.
#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "bitwire/serialize/serialize.hpp"

namespace {

enum class Weapon : uint8_t { kRevolver, kShotgun, kRifle };

struct Vec3 {
  float x = 0, y = 0, z = 0;

  template <typename Stream>
  bool serialize(Stream& stream) {
    BITWIRE_TRY(bitwire::serialize_compressed_float(stream, x, -1000.0f, 1000.0f, 0.01f));
    BITWIRE_TRY(bitwire::serialize_compressed_float(stream, y, -1000.0f, 1000.0f, 0.01f));
    BITWIRE_TRY(bitwire::serialize_compressed_float(stream, z, -1000.0f, 1000.0f, 0.01f));
    return true;
  }
};

// A player state update, as a game would send it every tick.
struct PlayerState {
  uint32_t tick = 0;
  uint16_t player = 0;       // [0, 63]: 6 bits
  int32_t health = 0;        // [-50, 200]: 8 bits
  bool crouching = false;
  Weapon weapon = Weapon::kRevolver;
  Vec3 position;
  char name[16] = {};
  uint32_t acked_event = 0;  // relative to the previous acked event: 1 to 7 bits when close

  template <typename Stream>
  bool serialize(Stream& stream) {
    BITWIRE_TRY(bitwire::serialize_uint32(stream, tick));
    BITWIRE_TRY(bitwire::serialize_int(stream, player, 0, 63));
    BITWIRE_TRY(bitwire::serialize_int(stream, health, -50, 200));
    BITWIRE_TRY(bitwire::serialize_bool(stream, crouching));
    BITWIRE_TRY(bitwire::serialize_enum(stream, weapon, Weapon::kRevolver, Weapon::kRifle));
    BITWIRE_TRY(bitwire::serialize_object(stream, position));
    BITWIRE_TRY(bitwire::serialize_int_relative(stream, 1000, acked_event));
    BITWIRE_TRY(bitwire::serialize_string(stream, name));
    BITWIRE_TRY(bitwire::serialize_check(stream));
    return true;
  }
};

void print(const char* title, const PlayerState& s) {
  std::printf("%s: tick=%" PRIu32 " player=%u health=%d crouching=%d weapon=%d position=(%.2f, %.2f, %.2f) "
              "acked_event=%" PRIu32 " name=\"%s\"\n",
              title, s.tick, unsigned{s.player}, s.health, s.crouching ? 1 : 0, static_cast<int>(s.weapon),
              static_cast<double>(s.position.x), static_cast<double>(s.position.y),
              static_cast<double>(s.position.z), s.acked_event, s.name);
}

}  // namespace

int main() {
  PlayerState sent;
  sent.tick = 123456;
  sent.player = 17;
  sent.health = 87;
  sent.crouching = true;
  sent.weapon = Weapon::kShotgun;
  sent.position = {12.34f, -56.78f, 999.99f};
  sent.acked_event = 1003;
  std::strcpy(sent.name, "Ada");
  print("sent    ", sent);

  std::printf("measured bound: %zu bits\n", bitwire::measure_bits(sent));
  std::array<std::byte, 64> packet{};
  const size_t size = bitwire::write_object(packet, sent);
  std::printf("packet (%zu bytes):", size);
  for (size_t i = 0; i < size; ++i) std::printf(" %02x", static_cast<unsigned>(packet[i]));
  std::printf("\n");

  PlayerState received;
  const bitwire::ReadResult result = bitwire::read_object(std::span<const std::byte>(packet.data(), size), received);
  if (!result) {
    std::printf("read failed: %s at bit %zu\n", bitwire::to_string(result.error), result.error_bit);
    return 1;
  }
  print("received", received);

  // A corrupted copy: one flipped bit in the name is caught by the reader, not trusted.
  auto corrupted = packet;
  corrupted[size - 6] ^= std::byte{0x80};
  PlayerState rejected;
  const auto bad = bitwire::read_object(std::span<const std::byte>(corrupted.data(), size), rejected);
  std::printf("corrupted copy: %s (%s at bit %zu)\n", bad ? "accepted" : "refused", bitwire::to_string(bad.error),
              bad.error_bit);

  const bool same = received.tick == sent.tick && received.player == sent.player &&
                    received.health == sent.health && received.crouching == sent.crouching &&
                    received.weapon == sent.weapon && received.acked_event == sent.acked_event &&
                    std::strcmp(received.name, sent.name) == 0;
  std::printf("round trip: %s\n", same ? "all exact fields match" : "MISMATCH");
  return same ? 0 : 1;
}
