// Address: strict parsing (one refusal per rule, with its reason), canonical printing, value semantics.
#include "bitwire/transport/address.hpp"

#include <gtest/gtest.h>

#include <string>
#include <unordered_set>

namespace bitwire {
namespace {

std::string round_trip(const char* text) {
  Address address;
  const char* error = parse_address(text, address);
  EXPECT_EQ(error, nullptr) << text << ": " << (error ? error : "");
  return address.to_string();
}

std::string refusal(const char* text) {
  Address address = Address::ipv4(9, 9, 9, 9, 9);
  const char* error = parse_address(text, address);
  EXPECT_NE(error, nullptr) << text << " parsed";
  EXPECT_EQ(address, Address::ipv4(9, 9, 9, 9, 9)) << "a refused parse must leave the output unchanged";
  return error ? error : "";
}

TEST(Address, ParsesAndPrintsIPv4) {
  EXPECT_EQ(round_trip("127.0.0.1:40000"), "127.0.0.1:40000");
  EXPECT_EQ(round_trip("0.0.0.0:0"), "0.0.0.0:0");
  EXPECT_EQ(round_trip("255.255.255.255:65535"), "255.255.255.255:65535");
  Address a;
  ASSERT_EQ(parse_address("10.1.2.3:7", a), nullptr);
  EXPECT_EQ(a, Address::ipv4(10, 1, 2, 3, 7));
  EXPECT_TRUE(a.is_ipv4());
  EXPECT_EQ(a.port(), 7);
}

TEST(Address, ParsesAndPrintsIPv6Canonically) {
  EXPECT_EQ(round_trip("[::1]:5000"), "[::1]:5000");
  EXPECT_EQ(round_trip("[::]:0"), "[::]:0");
  EXPECT_EQ(round_trip("[2001:DB8:0:0:0:0:0:1]:80"), "[2001:db8::1]:80");
  EXPECT_EQ(round_trip("[2001:0db8:0000:0001:0000:0000:0000:0001]:1"), "[2001:db8:0:1::1]:1");
  // One zero group is not compressed (RFC 5952 4.2.2); the first of two equal runs is.
  EXPECT_EQ(round_trip("[1:0:2:3:4:5:6:7]:1"), "[1:0:2:3:4:5:6:7]:1");
  EXPECT_EQ(round_trip("[1:0:0:2:0:0:3:4]:1"), "[1::2:0:0:3:4]:1");
  EXPECT_EQ(round_trip("[1:2:3:4:5:6:7::]:1"), "[1:2:3:4:5:6:7:0]:1");
  EXPECT_EQ(round_trip("[fe80::]:1"), "[fe80::]:1");
  Address a;
  ASSERT_EQ(parse_address("[1:2:3:4:5:6:7:8]:9", a), nullptr);
  EXPECT_EQ(a, Address::ipv6({1, 2, 3, 4, 5, 6, 7, 8}, 9));
  EXPECT_EQ(a.ipv6_group(7), 8);
}

TEST(Address, RefusesEveryMalformedFormWithAReason) {
  EXPECT_EQ(refusal(""), "empty address");
  EXPECT_EQ(refusal("127.0.0.1"), "missing ':port'");
  EXPECT_EQ(refusal("127.0.0.1:"), "missing port after ':'");
  EXPECT_EQ(refusal("127.0.0.01:1"), "leading zero in an IPv4 octet");
  EXPECT_EQ(refusal("127.0.0.1:080"), "leading zero in the port");
  EXPECT_EQ(refusal("256.0.0.1:1"), "IPv4 octet above 255");
  EXPECT_EQ(refusal("1.2.3.4:65536"), "port above 65535");
  EXPECT_EQ(refusal("1.2.3.4:99999999"), "port above 65535");
  EXPECT_EQ(refusal("1.2.3:1"), "fewer than four IPv4 octets");
  EXPECT_EQ(refusal("1.2.3.4.5:1"), "more than four IPv4 octets");
  EXPECT_EQ(refusal("1..3.4:1"), "empty IPv4 octet");
  EXPECT_EQ(refusal("1.2.3.4:1x"), "unexpected character in a decimal number");
  EXPECT_EQ(refusal("1.2.3.4:+1"), "unexpected character in a decimal number");
  EXPECT_EQ(refusal(" 1.2.3.4:1"), "unexpected character in a decimal number");
  EXPECT_EQ(refusal("::1:5"), "IPv6 addresses must be written as [v6]:port");
  EXPECT_EQ(refusal("[::1]"), "missing ':port' after ']'");
  EXPECT_EQ(refusal("[::1]x:1"), "expected ':' after ']'");
  EXPECT_EQ(refusal("[::1:1"), "missing ']' after an IPv6 address");
  EXPECT_EQ(refusal("[fe80::1%eth0]:1"), "IPv6 zone ids are not supported");
  EXPECT_EQ(refusal("[::ffff:1.2.3.4]:1"), "embedded IPv4 notation in IPv6 is not supported");
  EXPECT_EQ(refusal("[1::2::3]:1"), "more than one '::' in an IPv6 address");
  EXPECT_EQ(refusal("[12345::]:1"), "IPv6 group longer than four hex digits");
  EXPECT_EQ(refusal("[1:2:3:4:5:6:7]:1"), "IPv6 address without '::' needs eight groups");
  EXPECT_EQ(refusal("[1:2:3:4:5:6:7:8:9]:1"), "more than eight IPv6 groups");
  EXPECT_EQ(refusal("[1:2:3:4::5:6:7:8]:1"), "'::' in an IPv6 address that already has eight groups");
  EXPECT_EQ(refusal("[1:2:3:4:5:6:7:g]:1"), "unexpected character in an IPv6 group");
  EXPECT_EQ(refusal("[:1:2:3:4:5:6:7]:1"), "empty IPv6 group");
  EXPECT_EQ(refusal("[::1]:1 "), "unexpected character in a decimal number");
}

TEST(Address, ValueSemanticsOrderAndHash) {
  const Address v4 = Address::ipv4(127, 0, 0, 1, 1);
  const Address mapped = Address::ipv6({0, 0, 0, 0, 0, 0xFFFF, 0x7F00, 0x0001}, 1);
  EXPECT_NE(v4, mapped) << "an IPv4 address is not its mapped IPv6 form";
  EXPECT_NE(v4, v4.with_port(2));
  EXPECT_LT(v4, v4.with_port(2));
  EXPECT_EQ(Address(), Address());
  EXPECT_EQ(Address().to_string(), "none");
  std::unordered_set<Address> set{v4, mapped, v4.with_port(2), v4};
  EXPECT_EQ(set.size(), 3u);
  EXPECT_EQ(std::hash<Address>{}(v4), v4.hash());
}

TEST(Address, LongestTextFitsTheBuffer) {
  const Address widest = Address::ipv6({0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF}, 65535);
  char text[kMaxAddressText];
  const size_t n = widest.print(text);
  EXPECT_EQ(n, 47u);
  EXPECT_LT(n, kMaxAddressText);
}

}  // namespace
}  // namespace bitwire
