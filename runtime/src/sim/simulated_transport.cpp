#include "bitwire/sim/simulated_transport.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

namespace bitwire {
namespace {

// An address as it travels through a simulator: family, port (big-endian) and the 16 address bytes.
constexpr size_t kAddressBytes = 1 + 2 + 16;
// Written twice: a corruption that hits it shows as two copies that differ.
constexpr size_t kHeaderBytes = 2 * kAddressBytes;
// The receive ring's bytes (ring_size * max_datagram) are bounded like a simulator's slots.
constexpr int64_t kMaxRingBytes = int64_t{1} << 30;

void put_address(std::byte* out, const Address& address) {
  out[0] = static_cast<std::byte>(address.family());
  out[1] = static_cast<std::byte>(address.port() >> 8);
  out[2] = static_cast<std::byte>(address.port() & 0xFF);
  std::memcpy(out + 3, address.bytes().data(), 16);
  std::memcpy(out + kAddressBytes, out, kAddressBytes);
}

// False when the two copies differ or the family is unknown (a corrupted header).
bool get_address(const std::byte* in, Address& address) {
  if (std::memcmp(in, in + kAddressBytes, kAddressBytes) != 0) return false;
  const auto family = static_cast<AddressFamily>(in[0]);
  const auto port =
      static_cast<uint16_t>((std::to_integer<unsigned>(in[1]) << 8) | std::to_integer<unsigned>(in[2]));
  std::array<uint8_t, 16> bytes{};
  std::memcpy(bytes.data(), in + 3, 16);
  switch (family) {
    case AddressFamily::kNone:
      address = Address();
      return true;
    case AddressFamily::kIPv4:
      address = Address::ipv4(std::array<uint8_t, 4>{bytes[0], bytes[1], bytes[2], bytes[3]}, port);
      return true;
    case AddressFamily::kIPv6:
      address = Address::ipv6_bytes(bytes, port);
      return true;
  }
  return false;
}

constexpr auto kSimulatedTransportLimits = config_table(
    Field<SimulatedTransportConfig, int>{.name = "max_datagram",
                                         .member = &SimulatedTransportConfig::max_datagram,
                                         .min = 1,
                                         .max = static_cast<int>(kMaxUdpPayloadBytes - kHeaderBytes),
                                         .unit = "bytes"},
    Field<SimulatedTransportConfig, int>{.name = "ring_size",
                                         .member = &SimulatedTransportConfig::ring_size,
                                         .min = 1,
                                         .max = 1 << 16,
                                         .upper =
                                             [](const SimulatedTransportConfig& c) {
                                               return static_cast<int>(kMaxRingBytes / c.max_datagram);
                                             },
                                         .upper_text = "2^30 / max_datagram"});

// A direction's simulator config with its mtu widened to carry the address header.
NetworkSimulatorConfig direction(NetworkSimulatorConfig config, int max_datagram) {
  config.mtu = max_datagram + static_cast<int>(kHeaderBytes);
  return config;
}

// A usable stand-in for a refused config: the constructor still allocates something bounded.
SimulatedTransportConfig bounded(const SimulatedTransportConfig& config) {
  SimulatedTransportConfig c = sanitize_config(config, kSimulatedTransportLimits);
  return c;
}

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

struct SimulatedTransport::Entry {
  Address from;
  double arrival = 0.0;
  size_t size = 0;
};

SimulatedTransportConfig SimulatedTransportConfig::symmetric(const NetworkConditions& conditions,
                                                             uint64_t seed) {
  SimulatedTransportConfig config;
  config.outgoing.seed = seed;
  config.incoming.seed = seed ^ 0xBB67AE8584CAA73Bull;  // any fixed, different value
  config.outgoing.conditions = conditions;
  config.incoming.conditions = conditions;
  return config;
}

ConfigCheck SimulatedTransportConfig::check() const {
  if (const ConfigCheck own = check_config("SimulatedTransportConfig", *this, kSimulatedTransportLimits); !own)
    return own;
  if (const ConfigCheck problem = direction(outgoing, max_datagram).check(); !problem) {
    return config_part_check("SimulatedTransportConfig.outgoing", problem);
  }
  return config_part_check("SimulatedTransportConfig.incoming", direction(incoming, max_datagram).check());
}

SimulatedTransport::SimulatedTransport(Transport& inner, const NetworkConditions& conditions, uint64_t seed)
    : SimulatedTransport(inner, SimulatedTransportConfig::symmetric(conditions, seed)) {}

SimulatedTransport::SimulatedTransport(Transport& inner, const SimulatedTransportConfig& config)
    : inner_(inner),
      max_datagram_(bounded(config).max_datagram),
      outgoing_(direction(config.outgoing, max_datagram_)),
      incoming_(direction(config.incoming, max_datagram_)),
      scratch_(std::make_unique<std::byte[]>(kHeaderBytes + static_cast<size_t>(max_datagram_))),
      ring_size_(bounded(config).ring_size),
      steady_origin_(steady_seconds()) {
  keep_config_reason(error_reason_, config.check());
  ring_bytes_ =
      std::make_unique<std::byte[]>(static_cast<size_t>(ring_size_) * static_cast<size_t>(max_datagram_));
  ring_ = std::make_unique<Entry[]>(static_cast<size_t>(ring_size_));
}

SimulatedTransport::~SimulatedTransport() = default;

bool SimulatedTransport::dated() const {
  return has_clock() || inner_.has_clock();
}

double SimulatedTransport::now() const {
  if (has_clock()) return clock_now();
  if (inner_.has_clock()) return inner_.clock_now();
  return steady_seconds() - steady_origin_;
}

bool SimulatedTransport::set_conditions(const NetworkConditions& conditions) {
  if (!conditions.check()) return false;
  outgoing_.set_conditions(conditions);
  incoming_.set_conditions(conditions);
  return true;
}

void SimulatedTransport::send(const Address& to, std::span<const std::byte> datagram) {
  if (!ok()) {
    ++stats_.refused;
    return;
  }
  const double time = now();
  if (datagram.size() > static_cast<size_t>(max_datagram_)) {
    ++stats_.too_large;
  } else {
    put_address(scratch_.get(), to);
    std::memcpy(scratch_.get() + kHeaderBytes, datagram.data(), datagram.size());
    outgoing_.send(time, std::span<const std::byte>(scratch_.get(), kHeaderBytes + datagram.size()));
  }
  flush_outgoing(time);
}

void SimulatedTransport::flush_outgoing(double time) {
  outgoing_.deliver(time, [this](std::span<const std::byte> packet) {
    Address to;
    if (packet.size() < kHeaderBytes || !get_address(packet.data(), to)) {
      ++stats_.misaddressed;
      return;
    }
    inner_.send(to, packet.subspan(kHeaderBytes));
  });
}

void SimulatedTransport::read_inner(double time) {
  std::byte* const payload = scratch_.get() + kHeaderBytes;
  const std::span<std::byte> buffer(payload, static_cast<size_t>(max_datagram_));
  Address from;
  size_t size = 0;
  for (;;) {
    double arrival = std::numeric_limits<double>::quiet_NaN();
    if (!inner_.receive(buffer, from, size, arrival)) break;
    if (size == 0) {
      // Oversized for our buffer (or empty): the Transport contract reports it with size 0; so do we, at
      // once.
      ++stats_.inner_oversized;
      if (ring_count_ == ring_size_) {
        ++stats_.ring_dropped;
        continue;
      }
      Entry& entry = ring_[static_cast<size_t>((ring_head_ + ring_count_) % ring_size_)];
      entry = Entry{from, time, 0};
      ++ring_count_;
      continue;
    }
    // The link starts where the datagram reached this host, not at this read.
    const double entered = std::isfinite(arrival) ? std::min(arrival, time) : time;
    put_address(scratch_.get(), from);
    incoming_.send(entered, std::span<const std::byte>(scratch_.get(), kHeaderBytes + size));
  }
}

void SimulatedTransport::flush_incoming(double time) {
  // At most the room left in the ring: what does not fit stays in the simulator until receive() makes room.
  incoming_.deliver(time, ring_size_ - ring_count_,
                    [this](std::span<const std::byte> packet, double arrival) {
                      Address from;
                      if (packet.size() < kHeaderBytes || !get_address(packet.data(), from)) {
                        ++stats_.misaddressed;
                        return;
                      }
                      if (ring_count_ == ring_size_) {
                        ++stats_.ring_dropped;
                        return;
                      }
                      const size_t slot = static_cast<size_t>((ring_head_ + ring_count_) % ring_size_);
                      const size_t size = packet.size() - kHeaderBytes;
                      ring_[slot] = Entry{from, arrival, size};
                      std::memcpy(ring_bytes_.get() + slot * static_cast<size_t>(max_datagram_),
                                  packet.data() + kHeaderBytes, size);
                      ++ring_count_;
                    });
}

void SimulatedTransport::pump() {
  const double time = now();
  flush_outgoing(time);
  read_inner(time);
  flush_incoming(time);
}

bool SimulatedTransport::receive(std::span<std::byte> buffer, Address& from, size_t& size,
                                 double& arrival_time) {
  if (!ok()) {
    // Read the inner transport dry and drop what it holds: nothing crosses a refused link.
    while (inner_.receive(std::span(scratch_.get(), static_cast<size_t>(max_datagram_)), from, size,
                          arrival_time)) {
      ++stats_.refused;
    }
    return false;
  }
  if (ring_count_ == 0) pump();
  if (ring_count_ == 0) return false;
  const size_t slot = static_cast<size_t>(ring_head_);
  const Entry& entry = ring_[slot];
  ring_head_ = (ring_head_ + 1) % ring_size_;
  --ring_count_;
  from = entry.from;
  arrival_time = dated() ? entry.arrival : std::numeric_limits<double>::quiet_NaN();
  if (entry.size > buffer.size()) {
    size = 0;  // the Transport contract: an oversized datagram is reported with size 0, never cut short
    return true;
  }
  std::memcpy(buffer.data(), ring_bytes_.get() + slot * static_cast<size_t>(max_datagram_), entry.size);
  size = entry.size;
  return true;
}

}  // namespace bitwire
