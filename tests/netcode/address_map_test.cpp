// AddressMap, the netcode server's sender lookup: its home slots are keyed (an attacker who chooses its
// source addresses cannot aim them at one slot), and it finds, replaces and erases like a map whatever the
// probe runs look like.
#include <gtest/gtest.h>

#include <sodium.h>

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "../../runtime/src/netcode/address_map.hpp"

namespace bitwire::detail {
namespace {

class AddressMapTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_GE(sodium_init(), 0); }
};

// Addresses in one IPv6 /64 and port whose unkeyed Address::hash() lands in one slot of a map of
// `capacity` slots: what an attacker computes when the home slot is a function of the address alone.
std::vector<Address> colliding_under_the_unkeyed_hash(size_t capacity, int count) {
  std::vector<Address> out;
  const size_t mask = capacity - 1;
  std::array<uint8_t, 16> bytes{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0xaa};
  size_t target = 0;
  for (uint64_t interface_id = 1; static_cast<int>(out.size()) < count; ++interface_id) {
    for (int i = 0; i < 8; ++i)
      bytes[static_cast<size_t>(8 + i)] = static_cast<uint8_t>(interface_id >> (8 * i));
    const Address a = Address::ipv6_bytes(bytes, 40000);
    if (out.empty()) target = a.hash() & mask;
    if ((a.hash() & mask) == target) out.push_back(a);
  }
  return out;
}

TEST_F(AddressMapTest, AddressesThatCollideUnderTheUnkeyedHashAreSpreadByTheKeyedOne) {
  // 1,024 entries -> 2,048 slots. 32 addresses sharing one unkeyed home would build a 32-long probe run.
  AddressMap map(1024);
  const std::vector<Address> chosen = colliding_under_the_unkeyed_hash(2048, 32);
  std::set<uint64_t> homes;
  for (const Address& a : chosen) homes.insert(map.hash(a) & 2047);
  // Uniform homes for 32 keys in 2,048 slots are nearly all distinct; one shared home is what the attack
  // needs.
  EXPECT_GE(homes.size(), 28u);
}

TEST_F(AddressMapTest, EachMapDrawsItsOwnKey) {
  AddressMap first(64);
  AddressMap second(64);
  int differ = 0;
  for (uint8_t i = 0; i < 64; ++i) {
    const Address a = Address::ipv4(10, 0, 0, i, 5000);
    EXPECT_EQ(first.hash(a), first.hash(a));
    if (first.hash(a) != second.hash(a)) ++differ;
  }
  EXPECT_EQ(differ, 64);
}

TEST_F(AddressMapTest, FindsInsertsReplacesAndErasesLikeAMap) {
  constexpr size_t kEntries = 300;
  AddressMap map(kEntries);
  std::map<std::pair<uint16_t, uint8_t>, int> model;  // (port, last byte) -> value
  std::mt19937 rng(7);
  // Few distinct addresses, many operations: long runs, replacement and backward-shift deletion.
  for (int step = 0; step < 200000; ++step) {
    const auto port = static_cast<uint16_t>(1000 + rng() % 24);
    const auto last = static_cast<uint8_t>(rng() % 16);
    const Address a = Address::ipv4(192, 168, 1, last, port);
    const auto key = std::make_pair(port, last);
    const unsigned op = rng() % 3;
    if (op == 0 && (model.size() < kEntries || model.count(key) != 0)) {
      const int value = static_cast<int>(rng() % 1000);
      map.insert(a, value);
      model[key] = value;
    } else if (op == 1) {
      map.erase(a);
      model.erase(key);
    }
    const auto it = model.find(key);
    ASSERT_EQ(map.find(a), it == model.end() ? -1 : it->second) << "step " << step;
  }
  for (const auto& [key, value] : model)
    EXPECT_EQ(map.find(Address::ipv4(192, 168, 1, key.second, key.first)), value);
}

}  // namespace
}  // namespace bitwire::detail
