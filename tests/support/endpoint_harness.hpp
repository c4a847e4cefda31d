// Test helpers for Endpoint suites: a Peer that records what its endpoint transmits, delivers and acks,
// and a counting global allocator. Include from exactly one translation unit per test executable (the
// allocator replaces the global operator new/delete).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "bitwire/packet/endpoint.hpp"
#include "support/bytes.hpp"

namespace bitwire::test {

// Counts every global allocation. `counting_allocations` is read before and after the code under test.
struct AllocationCounter {
  uint64_t count = 0;
  uint64_t bytes = 0;
};
inline AllocationCounter counting_allocations;

struct Delivery {
  uint16_t sequence = 0;
  std::vector<uint8_t> payload;
};

// One endpoint and everything it did. Lives on the heap (callbacks keep its address).
class Peer {
 public:
  explicit Peer(const EndpointConfig& config, double now = 0.0)
      : endpoint(config, EndpointCallbacks{this, &Peer::on_transmit, &Peer::on_process, &Peer::on_ack}, now) {
  }
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  static std::unique_ptr<Peer> make(const EndpointConfig& config, double now = 0.0) {
    return std::make_unique<Peer>(config, now);
  }

  Endpoint endpoint;
  std::vector<std::vector<uint8_t>> outbox;  // datagrams transmitted, oldest first
  std::vector<uint16_t> outbox_sequences;    // the sequence passed with each datagram
  std::vector<Delivery> delivered;           // payloads accepted by process
  std::vector<uint16_t> acked_by_callback;   // on_ack calls
  bool refuse = false;                       // process returns false while set
  bool defer = false;                        // process defers (defer_packet, false) while set

  // Sends a payload and returns the datagrams it produced (also left in outbox).
  std::vector<std::vector<uint8_t>> send(const std::vector<uint8_t>& payload) {
    const size_t before = outbox.size();
    endpoint.send_packet(bitwire::test::view(payload));
    return {outbox.begin() + static_cast<std::ptrdiff_t>(before), outbox.end()};
  }

  std::vector<std::vector<uint8_t>> take_outbox() {
    std::vector<std::vector<uint8_t>> taken;
    taken.swap(outbox);
    outbox_sequences.clear();
    return taken;
  }

 private:
  static void on_transmit(void* context, uint16_t sequence, std::span<const std::byte> datagram) {
    auto* self = static_cast<Peer*>(context);
    self->outbox.push_back(test::to_vector(datagram));
    self->outbox_sequences.push_back(sequence);
  }
  static bool on_process(void* context, uint16_t sequence, std::span<const std::byte> payload) {
    auto* self = static_cast<Peer*>(context);
    if (self->refuse) return false;
    if (self->defer) {
      self->endpoint.defer_packet();
      return false;
    }
    self->delivered.push_back(Delivery{sequence, test::to_vector(payload)});
    return true;
  }
  static void on_ack(void* context, uint16_t sequence) {
    static_cast<Peer*>(context)->acked_by_callback.push_back(sequence);
  }
};

// A payload whose bytes depend on (seed, size), so a corrupted or mis-assembled one is detected.
inline std::vector<uint8_t> pattern_payload(size_t size, uint32_t seed) {
  std::vector<uint8_t> payload(size);
  uint32_t x = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < size; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    payload[i] = static_cast<uint8_t>(x);
  }
  return payload;
}

}  // namespace bitwire::test

// The counting global allocator (one definition per executable: this header is included once per test).
// new and delete both go to malloc/free; GCC cannot see that pairing through the replacement and warns.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t size) {
  ++bitwire::test::counting_allocations.count;
  bitwire::test::counting_allocations.bytes += size;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  return ::operator new(size);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
