// A scripted two-endpoint session over a hostile link. The input is a script: a header picks the seed
// and the endpoints' configuration, then each op either changes a direction's network conditions, sends
// a payload from one side, advances time, injects raw bytes (straight into an endpoint or onto the
// simulated wire), replays a mutated copy of the last datagram a side sent, or resets an endpoint.
//
// Checked on every input (abort on failure): no crash, hang or sanitizer report; the session ledger
// (support/session.hpp) finds no violation -- while the link is trusted (no injection, mutation or reset
// yet), every delivered payload is intact and is the one sent with its sequence and no packet is acked
// that the peer did not accept; always, no ack of a packet never sent and no ack reported twice; the
// statistics stay finite and in range.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "bitwire/sim/link.hpp"
#include "support/bytes.hpp"
#include "support/session.hpp"

namespace {

using bitwire::LinkSide;
using bitwire::NetworkConditions;

// Reads the script; past the end every read yields zeros, so every input is a valid script.
class Script {
 public:
  Script(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool done() const { return position_ >= size_; }
  uint8_t byte() { return position_ < size_ ? data_[position_++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(byte() | (byte() << 8)); }
  uint64_t u64() {
    uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value |= static_cast<uint64_t>(byte()) << (8 * i);
    return value;
  }
  // Up to `count` bytes of the script itself, as raw packet bytes.
  std::pair<const uint8_t*, size_t> bytes(size_t count) {
    const size_t available = position_ < size_ ? size_ - position_ : 0;
    count = std::min(count, available);
    const uint8_t* start = data_ + position_;
    position_ += count;
    return {start, count};
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

[[noreturn]] void fail(const char* what, bitwire::test::Session& session) {
  std::fprintf(stderr, "session_fuzz: %s\n%s", what, session.report().c_str());
  std::abort();
}

void check_statistics(bitwire::test::Session& session) {
  for (const LinkSide side : {LinkSide::kA, LinkSide::kB}) {
    const bitwire::Endpoint& e = session.endpoint(side);
    const double values[] = {e.rtt_ms(),    e.rtt_min_ms(), e.rtt_max_ms(),    e.rtt_avg_ms(),
                             e.jitter_ms(), e.sent_kbps(),  e.received_kbps(), e.acked_kbps()};
    for (double value : values) {
      if (!std::isfinite(value) || value < 0.0) fail("a statistic is negative or not finite", session);
    }
    const double loss = e.packet_loss_percent();
    if (!(loss >= 0.0 && loss <= 100.0)) fail("packet loss outside [0, 100]", session);
  }
}

NetworkConditions conditions_from(Script& script) {
  NetworkConditions c;
  c.latency_ms = script.byte() * 8.0;  // 0 .. 2 s
  c.jitter_ms = script.byte() * 4.0;   // 0 .. 1 s
  c.loss_percent = script.byte() % 101;
  c.burst_enter_percent = script.byte() % 21;
  c.burst_exit_percent = 1 + script.byte() % 100;
  c.duplicate_percent = script.byte() % 101;
  c.reorder_percent = script.byte() % 101;
  c.reorder_delay_ms = script.byte() * 4.0;
  c.corrupt_percent = script.byte() % 101;
  c.corrupt_max_bits = 3;  // within what the envelope's CRC32 always detects
  const uint8_t bandwidth = script.byte();
  c.bandwidth_kbps = bandwidth < 128 ? 0.0 : (bandwidth - 127) * 16.0;
  c.queue_bytes = script.byte() * 256;
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Script script(data, size);
  bitwire::test::SessionOptions options;
  options.seed = script.u64();
  const uint8_t shape = script.byte();
  constexpr int kFragmentSizes[] = {64, 256, 1024, 1000};
  constexpr int kMaxFragments[] = {1, 4, 16, 64};
  constexpr int kBuffers[] = {32, 64, 256, 1024};
  auto& endpoint = options.endpoint;
  endpoint.fragment_size = kFragmentSizes[shape & 3];
  endpoint.fragment_above = endpoint.fragment_size;
  endpoint.max_fragments = kMaxFragments[(shape >> 2) & 3];
  endpoint.max_packet_size = std::min(16 * 1024, endpoint.fragment_size * endpoint.max_fragments);
  // Exactly the fragments max_packet_size needs (EndpointConfig's limits refuse more).
  endpoint.max_fragments = (endpoint.max_packet_size + endpoint.fragment_size - 1) / endpoint.fragment_size;
  endpoint.sent_packets_buffer_size = kBuffers[(shape >> 4) & 3];
  endpoint.received_packets_buffer_size = kBuffers[(shape >> 6) & 3];
  const uint8_t shape2 = script.byte();
  endpoint.fragment_reassembly_buffer_size = kBuffers[shape2 & 3];
  endpoint.reassembly_slots = 1 << ((shape2 >> 2) & 3);  // 1, 2, 4, 8
  endpoint.ack_buffer_size = kBuffers[(shape2 >> 4) & 3];
  endpoint.envelope = (shape2 & 0x40) == 0;
  endpoint.protocol_id = 0xB17'3172'5E55'1017ull;
  options.trusted_link = endpoint.envelope;  // without the CRC, corruption may reach the payload
  options.refuse_percent = (shape2 & 0x80) ? 10.0 : 0.0;
  options.link =
      bitwire::LinkConfig::symmetric(NetworkConditions{}, options.seed, /*capacity=*/256, /*mtu=*/1200);

  auto session = std::make_unique<bitwire::test::Session>(options);
  long tick = 0;
  constexpr double kTick = 0.01;
  constexpr long kMaxTicks = 6000;  // 60 simulated seconds at most, whatever the script says
  auto advance = [&](long ticks) {
    for (long i = 0; i < ticks && tick < kMaxTicks; ++i)
      session->advance(static_cast<double>(++tick) * kTick);
  };
  uint8_t scratch[2048];

  for (int op = 0; op < 4096 && !script.done(); ++op) {
    const uint8_t code = script.byte();
    const LinkSide side = (code & 0x80) ? LinkSide::kB : LinkSide::kA;
    const LinkSide other = side == LinkSide::kA ? LinkSide::kB : LinkSide::kA;
    switch (code & 0x0F) {
      case 0:
      case 1:
      case 2:
      case 3: {  // send a payload (the most common op)
        const size_t max = static_cast<size_t>(endpoint.max_packet_size);
        session->send(side, 16 + script.u16() % max);
        break;
      }
      case 4:
      case 5:
      case 6: {  // advance time
        advance(1 + script.byte() % 64);
        break;
      }
      case 7: {  // new network conditions for one direction
        session->link().leaving(side).set_conditions(conditions_from(script));
        break;
      }
      case 8: {  // raw bytes straight into an endpoint
        const auto [bytes, count] = script.bytes(script.byte() * 8u);
        session->set_trusted_link(false);
        session->endpoint(side).receive_packet(bitwire::test::view(bytes, count));
        break;
      }
      case 9: {  // raw bytes onto the simulated wire
        const auto [bytes, count] = script.bytes(script.byte() * 8u);
        session->set_trusted_link(false);
        session->link().send(other, bitwire::test::view(bytes, count));
        break;
      }
      case 10:
      case 11: {  // replay the last datagram `other` sent, mutated, into `side`
        const auto last = session->last_datagram(other);
        size_t length = std::min(last.size(), sizeof scratch);
        if (length > 0) std::memcpy(scratch, last.data(), length);
        const uint8_t how = script.byte();
        const uint16_t where = script.u16();
        const uint8_t value = script.byte();
        if (length > 0) {
          switch (how & 3) {
            case 0:
              scratch[where % length] ^= static_cast<uint8_t>(1u << (value & 7));
              break;
            case 1:
              scratch[where % length] = value;
              break;
            case 2:
              length = where % (length + 1);
              break;  // truncate
            case 3:
              break;  // exact replay
          }
        }
        if ((how & 3) != 3) session->set_trusted_link(false);
        session->endpoint(side).receive_packet(bitwire::test::view(scratch, length));
        break;
      }
      case 12: {  // an endpoint starts over
        session->reset_endpoint(side);
        break;
      }
      default: {  // both send, one tick
        session->send(LinkSide::kA, 16 + script.u16() % static_cast<size_t>(endpoint.max_packet_size));
        session->send(LinkSide::kB, 16 + script.byte());
        advance(1);
        break;
      }
    }
    if (session->violations() != 0) fail("ledger violation", *session);
  }
  // Let everything in flight land (conditions reach at most ~4 s of delay, plus any queue).
  for (int i = 0; i < 1000 && (session->link().leaving(LinkSide::kA).in_flight() > 0 ||
                               session->link().leaving(LinkSide::kB).in_flight() > 0);
       ++i) {
    advance(1);
  }
  advance(2);
  if (session->violations() != 0) fail("ledger violation", *session);
  check_statistics(*session);
  if (std::getenv("BITWIRE_FUZZ_VERBOSE") != nullptr) std::fprintf(stderr, "%s", session->report().c_str());
  return 0;
}
