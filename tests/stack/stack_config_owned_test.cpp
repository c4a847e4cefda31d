// The fields the stack owns exist once in a StackConfig (stack/stack_config.hpp): max_clients and
// protocol_id at the top, the private key as a Server constructor argument. A config that says otherwise
// cannot be written, or check() refuses it.
#include <gtest/gtest.h>

#include <cstdint>

#include "bitwire/stack/server.hpp"
#include "bitwire/stack/stack_config.hpp"
#include "bitwire/transport/transport.hpp"
#include "support/stack_harness.hpp"

namespace bitwire::test {
namespace {

template <typename Settings>
constexpr bool kHasMaxClients = requires(Settings s) {
  s.max_clients;
};
template <typename Settings>
constexpr bool kHasProtocolId = requires(Settings s) {
  s.protocol_id;
};
template <typename Settings>
constexpr bool kHasPrivateKey = requires(Settings s) {
  s.private_key;
};

using StackServerSettings = decltype(StackConfig{}.server);

// `server.max_clients = 2` beside `max_clients = 8` used to pass check() and build 8 slots; the server's
// protocol id and private key were overwritten the same way. The stack's server settings have none of them.
TEST(StackConfigOwnedFields, ServerSlotsCannotContradictMaxClients) {
  EXPECT_FALSE(kHasMaxClients<StackServerSettings>)
      << "StackConfig.server.max_clients can disagree with max_clients";
  EXPECT_FALSE(kHasProtocolId<StackServerSettings>) << "StackConfig.server.protocol_id can disagree";
  EXPECT_FALSE(kHasPrivateKey<StackServerSettings>)
      << "StackConfig.server.private_key is kept in a shared config";
  static_assert(kHasMaxClients<netcode::ServerConfig>, "the traits see a max_clients where there is one");

  // The one max_clients is the slot count, and the stack's netcode server has as many.
  LoopbackNetwork network;
  LoopbackTransport transport(network, Address::ipv4(10, 0, 0, 1, 1));
  Server server(stack_test_config(8), kStackFactory, netcode::random_key(), transport,
                transport.local_address());
  ASSERT_TRUE(server.ok()) << server.error_reason();
  EXPECT_EQ(server.max_clients(), 8);
  EXPECT_EQ(server.config().max_clients, 8);
}

// connection.protocol_id and connection.endpoint.protocol_id used to be overwritten whatever they said.
TEST(StackConfigOwnedFields, AConnectionProtocolIdOtherThanTheStacksIsRefused) {
  StackConfig config = stack_test_config();
  config.protocol_id = 7;
  config.connection.protocol_id = 5;
  ASSERT_FALSE(config.check().ok()) << "a second protocol id passed";
  EXPECT_STREQ(
      config.check().reason(),
      "StackConfig.connection.protocol_id = 5 is not StackConfig.protocol_id = 7 (the stack sets it: "
      "leave it 0)");
  EXPECT_TRUE(config.sanitized().check().ok());
  EXPECT_EQ(config.sanitized().connection.protocol_id, 7u);

  config.connection.protocol_id = 0;
  config.connection.endpoint.protocol_id = 9;
  EXPECT_STREQ(
      config.check().reason(),
      "StackConfig.connection.endpoint.protocol_id = 9 is not StackConfig.protocol_id = 7 (the stack sets "
      "it: leave it 0)");
  EXPECT_TRUE(config.sanitized().check().ok());

  // 0 ("the stack's") and the stack's own id both pass, and name the same protocol.
  StackConfig unset = stack_test_config();
  unset.protocol_id = 7;
  StackConfig same = unset;
  same.connection.protocol_id = 7;
  same.connection.endpoint.protocol_id = 7;
  EXPECT_TRUE(unset.check().ok()) << unset.check().reason();
  EXPECT_TRUE(same.check().ok()) << same.check().reason();
  EXPECT_EQ(stack_protocol_id(kStackFactory, unset), stack_protocol_id(kStackFactory, same));
}

}  // namespace
}  // namespace bitwire::test
