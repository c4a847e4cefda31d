// The netcode API's byte type: keys, nonces, user data, the sealed private token and the token a client
// connects with are std::byte, as on the rest of the packet path, with no uint8_t overloads beside them.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "bitwire/stack/client.hpp"
#include "bitwire/netcode/token.hpp"
#include "support/stack_harness.hpp"

namespace bitwire::netcode {
namespace {

template <typename Array>
constexpr bool is_byte_array = std::is_same_v<typename Array::value_type, std::byte>;

// bitwire::Client::connect takes a std::span<const std::byte> and nothing else.
template <typename Span>
constexpr bool client_connects_with = requires(bitwire::Client& client, Span bytes) {
  client.connect(bytes, 0.0);
};

template <typename Array>
Array counting_bytes(int first, int step) {
  Array out{};
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::byte>(first + step * static_cast<int>(i));
  return out;
}

TEST(NetcodeBytes, PublicValueTypesAreStdByte) {
  static_assert(is_byte_array<Key>);
  static_assert(is_byte_array<UserData>);
  static_assert(is_byte_array<TokenNonce>);
  static_assert(is_byte_array<decltype(ConnectToken::private_data)>);
  static_assert(std::is_same_v<decltype(ConnectTokenPrivate::user_data), UserData>);
  static_assert(std::is_same_v<decltype(ConnectTokenParams::user_data), UserData>);
  static_assert(std::is_same_v<decltype(ChallengeToken::user_data), UserData>);
  static_assert(std::is_same_v<decltype(&bitwire::Client::connect),
                               bool (bitwire::Client::*)(std::span<const std::byte>, double, const char**)>,
                "one connect, taking std::byte");
  static_assert(client_connects_with<std::span<const std::byte>>);
  static_assert(!client_connects_with<std::span<const uint8_t>>, "no uint8_t overload");

  // A token round trip through the std::byte API: build, write, read, open the private part.
  ConnectTokenParams params;
  params.protocol_id = 0x0123456789ABCDEFull;
  params.client_id = 99;
  params.create_timestamp = 1'700'000'000;
  params.server_addresses.count = 1;
  params.server_addresses.items[0] = Address::ipv4(127, 0, 0, 1, 40000);
  params.user_data = counting_bytes<UserData>(0x11, 3);
  const Key private_key = counting_bytes<Key>(0x01, 1);
  const Key client_to_server = counting_bytes<Key>(0x40, 5);
  const Key server_to_client = counting_bytes<Key>(0x80, 7);
  const TokenNonce nonce = counting_bytes<TokenNonce>(0xA0, 1);
  ConnectToken token;
  const char* reason = nullptr;
  ASSERT_TRUE(
      build_connect_token(params, private_key, client_to_server, server_to_client, nonce, token, &reason))
      << reason;
  std::array<std::byte, kConnectTokenBytes> bytes{};
  ASSERT_TRUE(write_connect_token(token, bytes, &reason)) << reason;
  ConnectToken back;
  ASSERT_TRUE(read_connect_token(bytes, back, &reason)) << reason;
  EXPECT_EQ(back, token);
  EXPECT_EQ(back.nonce, nonce);
  EXPECT_EQ(back.client_to_server_key, client_to_server);
  EXPECT_EQ(back.server_to_client_key, server_to_client);

  std::array<std::byte, kConnectTokenPrivateBytes> sealed = back.private_data;
  const uint64_t protocol = params.protocol_id;
  ASSERT_TRUE(
      decrypt_connect_token_private(sealed, protocol, back.expire_timestamp, back.nonce, private_key));
  ConnectTokenPrivate plain;
  ASSERT_TRUE(read_connect_token_private(sealed, plain, &reason)) << reason;
  EXPECT_EQ(plain.client_id, 99u);
  EXPECT_EQ(plain.user_data, params.user_data);
  EXPECT_EQ(plain.client_to_server_key, client_to_server);
  sealed = back.private_data;
  Key wrong_key = private_key;
  wrong_key[0] ^= std::byte{0x01};
  EXPECT_FALSE(decrypt_connect_token_private(sealed, protocol, back.expire_timestamp, back.nonce, wrong_key));

  // And a bitwire::Client connects with such a token (std::array<std::byte, 2048>).
  test::StackHarness h(1);
  h.add_client();
  const test::StackToken stack_token = h.token(1000);
  static_assert(is_byte_array<test::StackToken>);
  ASSERT_TRUE(h.clients[0]->connect(stack_token, h.now, &reason)) << reason;
  EXPECT_TRUE(h.run_until([&] { return h.all_connected(); }));
}

}  // namespace
}  // namespace bitwire::netcode
