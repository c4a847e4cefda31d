// The delta path through the Connection reader: two Connections with delta_baselines set exchange a
// delta-form message (Track) on an unreliable channel over a Link whose loss, duplication and reordering the
// input decides, and the input also injects hostile packets straight into the receiver's process_packet:
// recorded packets replayed under another sequence, recorded packets with bytes flipped (a delta naming a
// baseline the receiver holds, does not hold, or holds for another snapshot), and raw bytes.
//
// Input: byte 0 picks the layout (bits 0..1: the baseline ring, 2, 4, 8 or 32 snapshots; bit 2: a reliable
// channel beside the unreliable one). Then one operation per byte (low 3 bits), with its arguments in the
// next bytes where it takes them:
//   0 A sends a Track whose coordinates move by the argument (signed) from the last one
//   1 one tick (both sides update, the link delivers, each side sends a packet)
//   2 set loss / duplicate / reorder percent and latency from the argument
//   3 replay recorded packet (argument & 7) to B under sequence (next argument)
//   4 replay recorded packet (argument & 7) to B with byte (next argument) xor (next argument) [forged]
//   5 process the rest of the input, up to 255 bytes by the argument, as one packet to B       [forged]
//   6 ten ticks
//   7 A sends a Track with every field new (the argument seeds it)
// The track is the hand-written message below (the runtime's delta primitives, as generated code calls
// them), so this target compiles in seconds under ASan + UBSan; delta_fuzz fuzzes generated delta readers.
//
// Checked on every input (a violation traps): every Track B receives has every field in its range; until
// the first forged packet, every Track B receives equals what A sent under its tick, field for field;
// a packet B refuses changes no receive queue, and a refusal for a missing baseline is counted by both
// the connection and its rings; neither side's pool grows past its capacity, and after reset() nothing
// is left in either pool.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "bitwire/message/connection.hpp"
#include "bitwire/serialize/delta.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "bitwire/sim/link.hpp"
#include "support/fuzz_conditions.hpp"

namespace {

constexpr int16_t kMin = -1000;
constexpr int16_t kMax = 1000;

// A delta message written by hand the way idlc writes one: the changed bit, then per field its changed bit
// and its relative change (serialize_bits_delta / serialize_int_delta) or a bool's flip.
struct Track {
  static constexpr uint32_t kTypeId = 1;
  static constexpr size_t MaxBits = 32 + 11 + 11 + 1;
  // changed; tick: changed, selector, 32 bits whole; x and y: changed, selector, 11 bits whole; flag.
  static constexpr size_t MaxDeltaBits = 1 + (1 + 2 + 32) + 2 * (1 + 2 + 11) + 1;
  uint32_t tick = 0;
  int16_t x = 0;
  int16_t y = 0;
  bool flag = false;

  friend bool operator==(const Track&, const Track&) = default;

  template <typename Stream>
  bool serialize(Stream& stream) {
    BITWIRE_TRY(bitwire::serialize_bits(stream, tick, 32));
    BITWIRE_TRY(bitwire::serialize_int(stream, x, kMin, kMax));
    BITWIRE_TRY(bitwire::serialize_int(stream, y, kMin, kMax));
    return bitwire::serialize_bool(stream, flag);
  }

  template <typename Stream>
  bool serialize_delta(Stream& stream, const Track& base) {
    bool changed = false;
    if constexpr (!Stream::kIsReading) changed = !(*this == base);
    BITWIRE_TRY(bitwire::serialize_bool(stream, changed));
    if (!changed) {
      if constexpr (Stream::kIsReading) *this = base;
      return true;
    }
    BITWIRE_TRY(number(stream, tick, base.tick,
                       [&](auto& s) { return bitwire::serialize_bits_delta(s, tick, base.tick, 32); }));
    BITWIRE_TRY(number(stream, x, base.x,
                       [&](auto& s) { return bitwire::serialize_int_delta(s, x, base.x, kMin, kMax, 11); }));
    BITWIRE_TRY(number(stream, y, base.y,
                       [&](auto& s) { return bitwire::serialize_int_delta(s, y, base.y, kMin, kMax, 11); }));
    bool flip = false;
    if constexpr (!Stream::kIsReading) flip = flag != base.flag;
    BITWIRE_TRY(bitwire::serialize_bool(stream, flip));
    if constexpr (Stream::kIsReading) flag = base.flag != flip;
    return true;
  }

  // Writing and measuring do not modify the message (the generated form has the same overload).
  template <typename Stream>
  bool serialize_delta(Stream& stream, const Track& base) const requires(!Stream::kIsReading) {
    return const_cast<Track*>(this)->serialize_delta(stream, base);
  }

  template <typename Stream, typename T, typename Change>
  static bool number(Stream& stream, T& value, T base, Change change) {
    bool changed = false;
    if constexpr (!Stream::kIsReading) changed = value != base;
    BITWIRE_TRY(bitwire::serialize_bool(stream, changed));
    if (changed) return change(stream);
    if constexpr (Stream::kIsReading) value = base;
    return true;
  }
};

struct Note {
  static constexpr uint32_t kTypeId = 0;
  uint8_t value = 0;
  template <typename Stream>
  bool serialize(Stream& stream) {
    return bitwire::serialize_int(stream, value, uint8_t{0}, uint8_t{200});
  }
};

constexpr bitwire::MessageTypeInfo kTypes[] = {bitwire::describe_message<Note>("Note"),
                                               bitwire::describe_message<Track>("Track")};

constexpr int kTrackChannel = 0;
constexpr size_t kRecorded = 8;
constexpr size_t kMaxPacket = 300;
constexpr uint32_t kSentRing = 256;

struct Session {
  explicit Session(const bitwire::ConnectionConfig& config)
      : link(bitwire::LinkConfig::symmetric(bitwire::NetworkConditions{}, 11, 512, 1500)),
        a(bitwire::MessageFactory(kTypes), config),
        b(bitwire::MessageFactory(kTypes), config) {
    a.endpoint().set_callbacks(link.callbacks(bitwire::LinkSide::kA, a.endpoint_callbacks()));
    // B's packets pass through record() on their way in, so that they can be replayed or forged later;
    // every other callback forwards to the connection's own.
    bitwire::EndpointCallbacks inner = b.endpoint_callbacks();
    b_inner = inner;
    inner.context = this;
    inner.process = [](void* context, uint16_t sequence, std::span<const std::byte> payload) {
      auto* self = static_cast<Session*>(context);
      self->record(payload);
      return self->b_inner.process(self->b_inner.context, sequence, payload);
    };
    inner.transmit = b_inner.transmit == nullptr
                         ? nullptr
                         : +[](void* context, uint16_t sequence, std::span<const std::byte> datagram) {
                             auto* self = static_cast<Session*>(context);
                             self->b_inner.transmit(self->b_inner.context, sequence, datagram);
                           };
    inner.on_ack = b_inner.on_ack == nullptr ? nullptr : +[](void* context, uint16_t sequence) {
      auto* self = static_cast<Session*>(context);
      self->b_inner.on_ack(self->b_inner.context, sequence);
    };
    b.endpoint().set_callbacks(link.callbacks(bitwire::LinkSide::kB, inner));
    link.connect(a.endpoint(), b.endpoint());
  }

  void record(std::span<const std::byte> payload) {
    if (payload.size() > kMaxPacket) return;
    Packet& slot = recorded[next_record++ % kRecorded];
    std::memcpy(slot.bytes.data(), payload.data(), payload.size());
    slot.size = payload.size();
  }

  void tick() {
    now += 1.0 / 60.0;
    a.update(now);
    b.update(now);
    link.update(now);
    a.send_packets();
    b.send_packets();
    drain();
  }

  void send_track(int16_t dx, int16_t dy, bool flip) {
    Track next = last;
    next.tick = last.tick + 1;
    next.x = static_cast<int16_t>(std::clamp<int>(last.x + dx, kMin, kMax));
    next.y = static_cast<int16_t>(std::clamp<int>(last.y + dy, kMin, kMax));
    next.flag = last.flag != flip;
    bitwire::MessageHandle m = a.create<Track>();
    if (!m) return;
    *m.as<Track>() = next;
    if (!a.send(kTrackChannel, std::move(m))) return;
    last = next;
    sent[next.tick % kSentRing] = next;
    if (a.channel_count() > 1) {
      // A reliable message beside it: a refused packet must not deliver it either.
      if (bitwire::MessageHandle note = a.create<Note>()) {
        note.as<Note>()->value = static_cast<uint8_t>(next.tick % 201);
        a.send(1, std::move(note));
      }
    }
  }

  // B processes a packet that did not come through the link.
  void inject(uint16_t sequence, std::span<const std::byte> bytes, bool forged) {
    forged_any = forged_any || forged;
    size_t depth = 0;
    for (int c = 0; c < b.channel_count(); ++c) depth += b.receive_queue_depth(c);
    const uint64_t refused_before = b.counters().packets_no_baseline;
    const uint64_t ring_refused_before = b.delta_baselines().counters().refused_no_baseline;
    if (!b.process_packet(sequence, bytes)) {
      size_t after = 0;
      for (int c = 0; c < b.channel_count(); ++c) after += b.receive_queue_depth(c);
      if (after != depth) __builtin_trap();  // a refused packet applied something
    }
    // A refusal for a missing baseline is counted on both sides of the boundary, or on neither.
    if ((b.counters().packets_no_baseline - refused_before) !=
        (b.delta_baselines().counters().refused_no_baseline - ring_refused_before)) {
      __builtin_trap();
    }
    drain();
  }

  void drain() {
    for (int c = 0; c < b.channel_count(); ++c) {
      while (bitwire::MessageHandle m = b.receive(c)) {
        const Track* track = m.as<Track>();
        if (track == nullptr) continue;
        if (track->x < kMin || track->x > kMax || track->y < kMin || track->y > kMax) __builtin_trap();
        if (!forged_any) {
          // Unforged: a Track is what A sent under its tick (A sends at most kSentRing ticks per run).
          if (track->tick == 0 || track->tick > last.tick || !(sent[track->tick % kSentRing] == *track)) {
            __builtin_trap();
          }
        }
      }
    }
    if (a.pool().live() > a.pool().capacity() || b.pool().live() > b.pool().capacity()) __builtin_trap();
  }

  struct Packet {
    std::array<std::byte, kMaxPacket> bytes{};
    size_t size = 0;
  };

  bitwire::Link link;
  bitwire::Connection a;
  bitwire::Connection b;
  bitwire::EndpointCallbacks b_inner;
  std::array<Packet, kRecorded> recorded{};
  size_t next_record = 0;
  std::array<Track, kSentRing> sent{};
  Track last;
  bool forged_any = false;
  double now = 0.0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  bitwire::ConnectionConfig config;
  config.max_packet_size = kMaxPacket;
  config.message_pool_size = 256;  // small fixed storage keeps each run cheap
  config.block_pool_size = 1;
  config.delta_baselines = std::array<int, 4>{2, 4, 8, 32}[data[0] & 3];
  config.channel_count = (data[0] & 4) != 0 ? 2 : 1;
  config.channels[kTrackChannel].type = bitwire::ChannelType::kUnreliableUnordered;
  config.channels[kTrackChannel].max_messages_per_packet = 4;
  config.channels[kTrackChannel].send_queue_size = 16;
  config.channels[kTrackChannel].receive_queue_size = 16;
  config.channels[1].send_queue_size = 16;
  config.channels[1].receive_queue_size = 16;
  config.channels[1].disable_blocks = true;
  auto session = std::make_unique<Session>(config);
  size_t i = 1;
  const auto argument = [&]() -> uint8_t { return i < size ? data[i++] : 0; };
  while (i < size && session->last.tick + 1 < kSentRing) {
    const uint8_t op = data[i++] & 7;
    switch (op) {
      case 0: {
        const auto move = static_cast<int8_t>(argument());
        session->send_track(move, static_cast<int16_t>(-move / 3), (move & 1) != 0);
        break;
      }
      case 1:
        session->tick();
        break;
      case 2:
        session->link.set_conditions(bitwire::test::fuzz_conditions(argument()));
        break;
      case 3: {
        const Session::Packet& p = session->recorded[argument() % kRecorded];
        const uint16_t sequence = argument();
        // Replayed unchanged: a real (if stale or duplicated) packet, so not forged.
        if (p.size != 0) session->inject(sequence, {p.bytes.data(), p.size}, false);
        break;
      }
      case 4: {
        Session::Packet p = session->recorded[argument() % kRecorded];
        const uint8_t at = argument();
        const uint8_t mask = argument();
        if (p.size == 0) break;
        p.bytes[at % p.size] ^= static_cast<std::byte>(mask);
        session->inject(static_cast<uint16_t>(at), {p.bytes.data(), p.size}, true);
        break;
      }
      case 5: {
        const size_t n = std::min<size_t>(argument(), size - i);
        session->inject(static_cast<uint16_t>(i), {reinterpret_cast<const std::byte*>(data + i), n}, true);
        i += n;
        break;
      }
      case 6:
        for (int k = 0; k < 10; ++k) session->tick();
        break;
      case 7: {
        const uint8_t arg = argument();
        session->send_track(static_cast<int16_t>(arg * 7 - 900), static_cast<int16_t>(arg * 5), true);
        break;
      }
      default:
        break;
    }
  }
  session->a.reset();
  session->b.reset();
  if (session->a.pool().live() != 0 || session->b.pool().live() != 0) __builtin_trap();
  return 0;
}
