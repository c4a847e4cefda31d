// A two-endpoint session over a simulated Link, with a ledger that checks the endpoint's promises while
// it runs: every delivered payload is intact and is the one sent with that sequence, no packet is
// delivered twice, no packet is acked that the peer did not accept, every ack is reported once, and the
// acks() list matches the on_ack calls. Nothing allocates after construction, so a test can count
// allocations around session.tick() calls.
//
// Payload layout (all little-endian): [serial u64][size u32][check u32][filler...]; the check is a hash of
// the serial, the size and the filler, so corruption, truncation and mix-ups are all detected.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bitwire/packet/endpoint.hpp"
#include "bitwire/sim/link.hpp"
#include "bitwire/core/random.hpp"

// The payload filler and check are the harness's own bulk work: under libFuzzer, keep coverage
// instrumentation out of them so the fuzzer's time goes to the code under test.
#if defined(__clang__)
#define BITWIRE_TEST_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define BITWIRE_TEST_NO_COVERAGE
#endif

namespace bitwire::test {

inline constexpr size_t kSessionPayloadHeader = 16;

struct SessionOptions {
  EndpointConfig endpoint;      // both endpoints
  LinkConfig link;              // both directions
  uint64_t seed = 1;            // payload contents, sizes and refusals
  double refuse_percent = 0.0;  // chance the receiver's process callback refuses a payload
  // Off when raw bytes are injected: a forged packet can then be valid, carry any payload and forge acks,
  // so only the checks no forgery can break stay on (acks of packets never sent, acks repeated, the
  // acks() list).
  bool trusted_link = true;
};

// One direction: what `from` sent and what became of it.
struct SessionLedger {
  // Per sequence: the serial of the payload last sent with it (0 = never), and whether that send was
  // accepted by the peer and reported acked.
  std::vector<uint64_t> serial_by_sequence = std::vector<uint64_t>(65536, 0);
  std::vector<uint8_t> received = std::vector<uint8_t>(65536, 0);
  std::vector<uint8_t> acked = std::vector<uint8_t>(65536, 0);
  uint64_t next_serial = 1;

  // Progress.
  uint64_t sent = 0;
  uint64_t delivered = 0;
  uint64_t delivered_bytes = 0;
  uint64_t refused = 0;
  uint64_t acks = 0;

  // Violations: every one must stay 0.
  uint64_t corrupt_payloads = 0;      // delivered bytes fail the check
  uint64_t mismatched_payloads = 0;   // intact payload, but not the one sent with that sequence
  uint64_t duplicate_deliveries = 0;  // the same send delivered twice
  uint64_t acks_never_sent = 0;       // ack of a sequence never sent
  uint64_t acks_not_received = 0;     // ack of a packet the peer did not accept
  uint64_t acks_repeated = 0;         // ack reported twice
  uint64_t ack_list_mismatches = 0;   // acks() differed from the on_ack calls of the tick

  uint64_t violations() const {
    return corrupt_payloads + mismatched_payloads + duplicate_deliveries + acks_never_sent +
           acks_not_received + acks_repeated + ack_list_mismatches;
  }
};

class Session {
 public:
  explicit Session(const SessionOptions& options, double now = 0.0)
      : options_(options), link_(options.link), random_(options.seed) {
    const size_t max = static_cast<size_t>(options.endpoint.sanitized().max_packet_size);
    payload_.resize(std::max(max, kSessionPayloadHeader));
    // No datagram is larger than a whole packet plus its headers and the envelope.
    for (auto& datagram : last_datagram_) datagram.resize(max + 64);
    for (int i = 0; i < 2; ++i) {
      ports_[i].session = this;
      ports_[i].side = static_cast<LinkSide>(i);
      const EndpointCallbacks user{&ports_[i], &Session::transmitted, &Session::process, &Session::on_ack};
      endpoints_[i] =
          std::make_unique<Endpoint>(options.endpoint, link_.callbacks(ports_[i].side, user), now);
    }
    link_.connect(*endpoints_[0], *endpoints_[1]);
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Endpoint& endpoint(LinkSide side) { return *endpoints_[index(side)]; }
  Link& link() { return link_; }
  const SessionLedger& ledger(LinkSide from) const { return ledgers_[index(from)]; }
  Random& random() { return random_; }
  void set_trusted_link(bool trusted) { options_.trusted_link = trusted; }

  // One tick: the endpoints and the link advance to `now` (the link delivers what is due), the acks of the
  // tick are checked against acks() and cleared. Sending is separate (send()).
  void advance(double now) {
    endpoints_[0]->update(now);
    endpoints_[1]->update(now);
    link_.update(now);
    for (int i = 0; i < 2; ++i) {
      Endpoint& endpoint = *endpoints_[i];
      const auto listed = endpoint.acks();
      const uint64_t overflowed = endpoint.counters().acks_overflowed;
      if (overflowed == overflowed_[i] && ports_[i].tick_ack_count <= kTickAcks) {
        const bool same = listed.size() == static_cast<size_t>(ports_[i].tick_ack_count) &&
                          std::equal(listed.begin(), listed.end(), ports_[i].tick_acks);
        if (!same) ++ledgers_[i].ack_list_mismatches;
      }
      overflowed_[i] = overflowed;
      endpoint.clear_acks();
      ports_[i].tick_ack_count = 0;
    }
  }

  // endpoint.reset(), keeping the ack bookkeeping in step (the reset empties acks() and the counters).
  // Acks of packets sent before the reset can no longer be told apart from new ones: the link is
  // treated as untrusted from here on.
  void reset_endpoint(LinkSide side) {
    endpoints_[index(side)]->reset();
    ports_[index(side)].tick_ack_count = 0;
    overflowed_[index(side)] = 0;
    options_.trusted_link = false;
  }

  // Sends one payload of `size` bytes (>= 16, <= max_packet_size) from `from`. Returns send_packet's result.
  bool send(LinkSide from, size_t size) {
    size = std::clamp(size, kSessionPayloadHeader, payload_.size());
    SessionLedger& ledger = ledgers_[index(from)];
    Endpoint& endpoint = *endpoints_[index(from)];
    const uint16_t sequence = endpoint.next_sequence();
    const uint64_t serial = ledger.next_serial++;
    fill_payload(serial, size);
    ledger.serial_by_sequence[sequence] = serial;
    ledger.received[sequence] = 0;
    ledger.acked[sequence] = 0;
    ++ledger.sent;
    return endpoint.send_packet({payload_.data(), size});
  }
  // A size uniform in [16, max].
  size_t random_size(size_t max) {
    return static_cast<size_t>(random_.range(static_cast<int64_t>(kSessionPayloadHeader),
                                             static_cast<int64_t>(std::min(max, payload_.size()))));
  }

  uint64_t violations() const { return ledgers_[0].violations() + ledgers_[1].violations(); }

  // The last datagram `side` transmitted (empty before the first).
  std::span<const std::byte> last_datagram(LinkSide side) const {
    return {last_datagram_[index(side)].data(), last_datagram_size_[index(side)]};
  }

  // A readable account (allocates: call outside measured regions).
  std::string report() const {
    std::string text;
    const char* names[2] = {"A->B", "B->A"};
    for (int i = 0; i < 2; ++i) {
      const SessionLedger& l = ledgers_[i];
      text += std::string(names[i]) + ": sent " + std::to_string(l.sent) + ", delivered " +
              std::to_string(l.delivered) + ", refused " + std::to_string(l.refused) + ", acked " +
              std::to_string(l.acks) + "; violations: corrupt " + std::to_string(l.corrupt_payloads) +
              ", mismatched " + std::to_string(l.mismatched_payloads) + ", duplicate " +
              std::to_string(l.duplicate_deliveries) + ", acks never sent " +
              std::to_string(l.acks_never_sent) + ", acks not received " +
              std::to_string(l.acks_not_received) + ", acks repeated " + std::to_string(l.acks_repeated) +
              ", ack list mismatches " + std::to_string(l.ack_list_mismatches) + "\n";
    }
    return text;
  }

  BITWIRE_TEST_NO_COVERAGE static uint32_t payload_check(uint64_t serial, uint32_t size,
                                                         const std::byte* filler, size_t count) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ serial ^ (static_cast<uint64_t>(size) << 32);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
      uint64_t word;
      std::memcpy(&word, filler + i, 8);
      h = (h ^ word) * 0xFF51AFD7ED558CCDull;
      h ^= h >> 29;
    }
    for (; i < count; ++i) h = (h ^ std::to_integer<uint64_t>(filler[i])) * 0x100000001B3ull;
    h ^= h >> 32;
    return static_cast<uint32_t>(h);
  }

 private:
  static constexpr int kTickAcks = 4096;  // acks checked per endpoint per tick

  struct Port {
    Session* session = nullptr;
    LinkSide side = LinkSide::kA;
    uint16_t tick_acks[kTickAcks];
    int tick_ack_count = 0;
  };

  static int index(LinkSide side) { return static_cast<int>(side); }

  BITWIRE_TEST_NO_COVERAGE void fill_payload(uint64_t serial, size_t size) {
    std::byte* p = payload_.data();
    for (size_t i = kSessionPayloadHeader; i < size; i += 8) {
      const uint64_t word = random_.next();
      std::memcpy(p + i, &word, std::min<size_t>(8, size - i));
    }
    const uint32_t size32 = static_cast<uint32_t>(size);
    const uint32_t check =
        payload_check(serial, size32, p + kSessionPayloadHeader, size - kSessionPayloadHeader);
    std::memcpy(p, &serial, 8);
    std::memcpy(p + 8, &size32, 4);
    std::memcpy(p + 12, &check, 4);
  }

  static void transmitted(void* context, uint16_t, std::span<const std::byte> datagram) {
    Port& port = *static_cast<Port*>(context);
    auto& buffer = port.session->last_datagram_[index(port.side)];
    const size_t size = std::min(datagram.size(), buffer.size());
    std::memcpy(buffer.data(), datagram.data(), size);
    port.session->last_datagram_size_[index(port.side)] = size;
  }

  // The receiver `port.side` accepts (or refuses) a payload sent by the other side.
  static bool process(void* context, uint16_t sequence, std::span<const std::byte> payload) {
    const std::byte* data = payload.data();
    const size_t size = payload.size();
    Port& port = *static_cast<Port*>(context);
    Session& self = *port.session;
    SessionLedger& ledger = self.ledgers_[1 - index(port.side)];
    if (self.options_.trusted_link) {
      uint64_t serial = 0;
      uint32_t size32 = 0, check = 0;
      if (size >= kSessionPayloadHeader) {
        std::memcpy(&serial, data, 8);
        std::memcpy(&size32, data + 8, 4);
        std::memcpy(&check, data + 12, 4);
      }
      if (size < kSessionPayloadHeader || size32 != size ||
          check !=
              payload_check(serial, size32, data + kSessionPayloadHeader, size - kSessionPayloadHeader)) {
        ++ledger.corrupt_payloads;
        return false;
      }
      if (serial != ledger.serial_by_sequence[sequence]) {
        ++ledger.mismatched_payloads;
        return false;
      }
    }
    if (self.options_.refuse_percent > 0.0 && self.random_.chance_percent(self.options_.refuse_percent)) {
      ++ledger.refused;
      return false;
    }
    if (ledger.received[sequence] && self.options_.trusted_link) ++ledger.duplicate_deliveries;
    ledger.received[sequence] = 1;
    ++ledger.delivered;
    ledger.delivered_bytes += size;
    return true;
  }

  // The sender `port.side` hears that `sequence` arrived.
  static void on_ack(void* context, uint16_t sequence) {
    Port& port = *static_cast<Port*>(context);
    Session& self = *port.session;
    SessionLedger& ledger = self.ledgers_[index(port.side)];
    if (port.tick_ack_count < kTickAcks) port.tick_acks[port.tick_ack_count] = sequence;
    ++port.tick_ack_count;
    ++ledger.acks;
    if (ledger.serial_by_sequence[sequence] == 0) {
      ++ledger.acks_never_sent;
    } else if (!ledger.received[sequence] && self.options_.trusted_link) {
      ++ledger.acks_not_received;
    } else if (ledger.acked[sequence]) {
      ++ledger.acks_repeated;
    }
    ledger.acked[sequence] = 1;
  }

  SessionOptions options_;
  Link link_;
  Random random_;
  std::vector<std::byte> payload_;
  Port ports_[2];
  std::unique_ptr<Endpoint> endpoints_[2];
  SessionLedger ledgers_[2];
  uint64_t overflowed_[2] = {0, 0};
  std::vector<std::byte> last_datagram_[2];
  size_t last_datagram_size_[2] = {0, 0};
};

}  // namespace bitwire::test
