// Address: an IPv4 or IPv6 address and a UDP port, as a plain value (comparable, hashable, no OS types).
//
// Contracts:
// - Text form, strict both ways: `a.b.c.d:port` and `[v6]:port`. parse_address() refuses everything else with
//   a static reason: leading zeros in an IPv4 octet or the port, octets above 255, ports above 65535, a missing
//   port, trailing garbage, zone ids (`%eth0`), embedded IPv4 notation in IPv6 (`::ffff:1.2.3.4`), more than
//   one `::`, groups of more than four hex digits. Port 0 is accepted (it means "any port" to UdpSocket::open);
//   layers that need a real peer port (connect tokens, sends) refuse it themselves.
// - Printing is canonical: IPv4 in decimal, IPv6 in RFC 5952 form (lowercase hex, no leading zeros, the
//   longest run of two or more zero groups -- the first one on a tie -- written as `::`). So for every text t
//   that parses, print(parse(t)) parses to the same Address, and print is a fixed point after one round.
// - An IPv4 address is never equal to its IPv4-mapped IPv6 form; UdpSocket turns mapped addresses it receives
//   on a dual-stack socket back into IPv4 ones, so the peer of one datagram always has one Address.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace bitwire {

enum class AddressFamily : uint8_t { kNone = 0, kIPv4 = 1, kIPv6 = 2 };

// The longest text print() writes: "[" + 39 + "]:" + 5 digits, plus the terminator.
inline constexpr size_t kMaxAddressText = 48;

class Address {
 public:
  Address() = default;  // the empty address (family kNone); equal only to itself

  static Address ipv4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint16_t port);
  // `bytes` in network order (a.b.c.d -> {a, b, c, d}).
  static Address ipv4(const std::array<uint8_t, 4>& bytes, uint16_t port);
  // `groups` as written, most significant first ([a:b:c:d:e:f:g:h] -> {a, ..., h}).
  static Address ipv6(const std::array<uint16_t, 8>& groups, uint16_t port);
  // `bytes` in network order (the 16 bytes of an in6_addr).
  static Address ipv6_bytes(const std::array<uint8_t, 16>& bytes, uint16_t port);

  AddressFamily family() const { return family_; }
  bool is_none() const { return family_ == AddressFamily::kNone; }
  bool is_ipv4() const { return family_ == AddressFamily::kIPv4; }
  bool is_ipv6() const { return family_ == AddressFamily::kIPv6; }
  uint16_t port() const { return port_; }
  Address with_port(uint16_t port) const;
  // Network-order bytes: the first 4 for IPv4 (the rest are zero), all 16 for IPv6.
  const std::array<uint8_t, 16>& bytes() const { return bytes_; }
  uint16_t ipv6_group(int index) const;  // index in [0, 8); IPv6 only

  // Writes the canonical text form into `out` (at least kMaxAddressText bytes) with a terminator and returns
  // its length. The empty address prints as "none".
  size_t print(char* out) const;
  std::string to_string() const;

  // A full 64-bit mix of the family, the port and the address bytes (every input bit reaches the low bits).
  // Unkeyed: anyone can compute it, so a table whose keys an attacker chooses (the senders of datagrams)
  // must not take its slots from it; the netcode server's maps use a keyed hash of their own.
  size_t hash() const;

  friend bool operator==(const Address&, const Address&) = default;
  friend auto operator<=>(const Address&, const Address&) = default;

 private:
  AddressFamily family_ = AddressFamily::kNone;
  uint16_t port_ = 0;
  std::array<uint8_t, 16> bytes_{};
};

// Parses `text` strictly (see the contracts above). Returns nullptr and sets `out` on success; otherwise
// returns a static description of the first problem and leaves `out` unchanged.
const char* parse_address(std::string_view text, Address& out);

}  // namespace bitwire

template <>
struct std::hash<bitwire::Address> {
  size_t operator()(const bitwire::Address& address) const noexcept { return address.hash(); }
};
