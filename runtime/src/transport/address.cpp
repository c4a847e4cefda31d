// Address construction, strict parsing and canonical printing.
#include "bitwire/transport/address.hpp"

#include <cstring>

namespace bitwire {

Address Address::ipv4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint16_t port) {
  return ipv4(std::array<uint8_t, 4>{a, b, c, d}, port);
}

Address Address::ipv4(const std::array<uint8_t, 4>& bytes, uint16_t port) {
  Address address;
  address.family_ = AddressFamily::kIPv4;
  address.port_ = port;
  for (int i = 0; i < 4; ++i) address.bytes_[i] = bytes[i];
  return address;
}

Address Address::ipv6(const std::array<uint16_t, 8>& groups, uint16_t port) {
  std::array<uint8_t, 16> bytes{};
  for (int i = 0; i < 8; ++i) {
    bytes[2 * i] = static_cast<uint8_t>(groups[i] >> 8);
    bytes[2 * i + 1] = static_cast<uint8_t>(groups[i] & 0xFF);
  }
  return ipv6_bytes(bytes, port);
}

Address Address::ipv6_bytes(const std::array<uint8_t, 16>& bytes, uint16_t port) {
  Address address;
  address.family_ = AddressFamily::kIPv6;
  address.port_ = port;
  address.bytes_ = bytes;
  return address;
}

Address Address::with_port(uint16_t port) const {
  Address copy = *this;
  copy.port_ = port;
  return copy;
}

uint16_t Address::ipv6_group(int index) const {
  return static_cast<uint16_t>((bytes_[2 * index] << 8) | bytes_[2 * index + 1]);
}

namespace {

size_t put_decimal(char* out, unsigned value) {
  char digits[10];
  size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  for (size_t i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
  return n;
}

size_t put_hex(char* out, unsigned value) {
  static constexpr char kHex[] = "0123456789abcdef";
  char digits[4];
  size_t n = 0;
  do {
    digits[n++] = kHex[value & 0xF];
    value >>= 4;
  } while (value != 0);
  for (size_t i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
  return n;
}

}  // namespace

size_t Address::print(char* out) const {
  size_t n = 0;
  if (family_ == AddressFamily::kNone) {
    std::memcpy(out, "none", 5);
    return 4;
  }
  if (family_ == AddressFamily::kIPv4) {
    for (int i = 0; i < 4; ++i) {
      if (i > 0) out[n++] = '.';
      n += put_decimal(out + n, bytes_[i]);
    }
  } else {
    // RFC 5952: the longest run of at least two zero groups (the first on a tie) becomes "::".
    int best_start = -1, best_length = 1;
    for (int i = 0; i < 8;) {
      if (ipv6_group(i) != 0) {
        ++i;
        continue;
      }
      int j = i;
      while (j < 8 && ipv6_group(j) == 0) ++j;
      if (j - i > best_length) {
        best_start = i;
        best_length = j - i;
      }
      i = j;
    }
    out[n++] = '[';
    for (int i = 0; i < 8; ++i) {
      if (i == best_start) {
        out[n++] = ':';
        out[n++] = ':';
        i += best_length - 1;
        continue;
      }
      if (i > 0 && i != best_start + best_length) out[n++] = ':';
      n += put_hex(out + n, ipv6_group(i));
    }
    out[n++] = ']';
  }
  out[n++] = ':';
  n += put_decimal(out + n, port_);
  out[n] = '\0';
  return n;
}

std::string Address::to_string() const {
  char text[kMaxAddressText];
  const size_t n = print(text);
  return std::string(text, n);
}

size_t Address::hash() const {
  // The family and port, then the 16 address bytes as two words, each folded in through a full 64-bit
  // mix (MurmurHash3's finalizer), so every input bit reaches the low bits a table's mask keeps.
  auto mix = [](uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
  };
  uint64_t low = 0, high = 0;
  std::memcpy(&low, bytes_.data(), sizeof low);
  std::memcpy(&high, bytes_.data() + sizeof low, sizeof high);
  uint64_t h = mix((static_cast<uint64_t>(family_) << 16 | port_) ^ 0x9e3779b97f4a7c15ull);
  h = mix(h ^ low);
  h = mix(h ^ high);
  return static_cast<size_t>(h);
}

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A decimal number of 1..max_digits digits with no leading zero (except "0" itself), at most `max`.
const char* parse_decimal(std::string_view text, unsigned max, const char* what_empty, const char* what_zero,
                          const char* what_range, unsigned& value) {
  if (text.empty()) return what_empty;
  for (char c : text) {
    if (!is_digit(c)) return "unexpected character in a decimal number";
  }
  if (text.size() > 1 && text[0] == '0') return what_zero;
  if (text.size() > 5) return what_range;
  unsigned v = 0;
  for (char c : text) v = v * 10 + static_cast<unsigned>(c - '0');
  if (v > max) return what_range;
  value = v;
  return nullptr;
}

const char* parse_port(std::string_view text, uint16_t& port) {
  unsigned value = 0;
  const char* error = parse_decimal(text, 65535, "missing port after ':'", "leading zero in the port",
                                    "port above 65535", value);
  if (error != nullptr) return error;
  port = static_cast<uint16_t>(value);
  return nullptr;
}

const char* parse_ipv4(std::string_view host, std::array<uint8_t, 4>& bytes) {
  int octet = 0;
  size_t start = 0;
  while (true) {
    size_t dot = host.find('.', start);
    std::string_view part = host.substr(start, dot == std::string_view::npos ? host.npos : dot - start);
    unsigned value = 0;
    const char* error = parse_decimal(part, 255, "empty IPv4 octet", "leading zero in an IPv4 octet",
                                      "IPv4 octet above 255", value);
    if (error != nullptr) return error;
    if (octet >= 4) return "more than four IPv4 octets";
    bytes[octet++] = static_cast<uint8_t>(value);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (octet != 4) return "fewer than four IPv4 octets";
  return nullptr;
}

// Parses one run of ':'-separated hex groups (no "::" inside). An empty run is allowed (around "::").
const char* parse_groups(std::string_view text, uint16_t* groups, int& count) {
  count = 0;
  if (text.empty()) return nullptr;
  size_t start = 0;
  while (true) {
    size_t colon = text.find(':', start);
    std::string_view part = text.substr(start, colon == std::string_view::npos ? text.npos : colon - start);
    if (part.empty()) return "empty IPv6 group";
    if (part.find('.') != std::string_view::npos) return "embedded IPv4 notation in IPv6 is not supported";
    if (part.size() > 4) return "IPv6 group longer than four hex digits";
    unsigned value = 0;
    for (char c : part) {
      int h = hex_value(c);
      if (h < 0) return "unexpected character in an IPv6 group";
      value = value * 16 + static_cast<unsigned>(h);
    }
    if (count >= 8) return "more than eight IPv6 groups";
    groups[count++] = static_cast<uint16_t>(value);
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return nullptr;
}

const char* parse_ipv6(std::string_view host, std::array<uint16_t, 8>& groups) {
  if (host.find('%') != std::string_view::npos) return "IPv6 zone ids are not supported";
  const size_t gap = host.find("::");
  uint16_t head[8] = {}, tail[8] = {};
  int head_count = 0, tail_count = 0;
  if (gap == std::string_view::npos) {
    const char* error = parse_groups(host, head, head_count);
    if (error != nullptr) return error;
    if (head_count != 8) return "IPv6 address without '::' needs eight groups";
  } else {
    if (host.find("::", gap + 1) != std::string_view::npos) return "more than one '::' in an IPv6 address";
    const char* error = parse_groups(host.substr(0, gap), head, head_count);
    if (error != nullptr) return error;
    error = parse_groups(host.substr(gap + 2), tail, tail_count);
    if (error != nullptr) return error;
    // "::" stands for at least one zero group (RFC 4291 allows one; RFC 5952 never prints it for one).
    if (head_count + tail_count > 7) return "'::' in an IPv6 address that already has eight groups";
  }
  groups = {};
  for (int i = 0; i < head_count; ++i) groups[i] = head[i];
  for (int i = 0; i < tail_count; ++i) groups[8 - tail_count + i] = tail[i];
  return nullptr;
}

}  // namespace

const char* parse_address(std::string_view text, Address& out) {
  if (text.empty()) return "empty address";
  if (text.size() >= kMaxAddressText) return "address text too long";
  uint16_t port = 0;
  if (text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return "missing ']' after an IPv6 address";
    if (close + 1 >= text.size() || text[close + 1] != ':') {
      return close + 1 >= text.size() ? "missing ':port' after ']'" : "expected ':' after ']'";
    }
    const char* error = parse_port(text.substr(close + 2), port);
    if (error != nullptr) return error;
    std::array<uint16_t, 8> groups{};
    error = parse_ipv6(text.substr(1, close - 1), groups);
    if (error != nullptr) return error;
    out = Address::ipv6(groups, port);
    return nullptr;
  }
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return "missing ':port'";
  if (text.find(':', colon + 1) != std::string_view::npos) return "IPv6 addresses must be written as [v6]:port";
  const char* error = parse_port(text.substr(colon + 1), port);
  if (error != nullptr) return error;
  std::array<uint8_t, 4> bytes{};
  error = parse_ipv4(text.substr(0, colon), bytes);
  if (error != nullptr) return error;
  out = Address::ipv4(bytes, port);
  return nullptr;
}

}  // namespace bitwire
