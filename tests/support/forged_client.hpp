// A netcode client identity a test drives by hand: its own connect token (so its keys are known) and the
// datagrams forged with it. Once the server's challenge to it is captured, its request, response and
// disconnect make a whole connection, and replaying the three from the same address makes another: the
// server accepts a token again from the address that first used it, a challenge token does not expire, and
// replay protection starts afresh with every connection. This is what an attacker holding a few valid
// tokens can do at line rate.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <vector>

#include "bitwire/netcode/packet.hpp"
#include "bitwire/netcode/token.hpp"
#include "bitwire/transport/address.hpp"

namespace bitwire::test {

using ForgedDatagram = std::vector<std::byte>;

struct ForgedClient {
  Address address;
  uint64_t protocol_id = 0;
  netcode::ConnectToken token;
  ForgedDatagram request;
  ForgedDatagram response;    // empty until take_challenge() succeeds
  ForgedDatagram disconnect;  // likewise

  // `params.server_addresses` must name the server.
  ForgedClient(const Address& from, const netcode::ConnectTokenParams& params,
               const netcode::Key& private_key)
      : address(from), protocol_id(params.protocol_id) {
    const char* reason = nullptr;
    EXPECT_TRUE(netcode::generate_connect_token(params, private_key, token, &reason)) << reason;
    request.resize(netcode::kRequestPacketBytes);
    request.resize(netcode::write_request_packet(token, request));
  }

  ForgedDatagram encrypted(netcode::PacketType type, uint64_t sequence,
                           std::span<const std::byte> body) const {
    ForgedDatagram out(netcode::kReceiveBufferBytes);
    out.resize(
        netcode::write_encrypted_packet(type, sequence, body, protocol_id, token.client_to_server_key, out));
    return out;
  }

  // Opens a datagram the server sent to this identity (a copy: decryption is in place). False when it does
  // not open under this identity's key.
  bool open(std::span<const std::byte> datagram, netcode::PacketType& type, ForgedDatagram& body) const {
    ForgedDatagram copy(datagram.begin(), datagram.end());
    netcode::EncryptedPacket packet;
    constexpr netcode::TypeMask kAny = 0x7F;
    if (netcode::read_encrypted_packet(copy, protocol_id, token.server_to_client_key, kAny, nullptr,
                                       packet) != netcode::PacketError::kNone) {
      return false;
    }
    type = packet.type;
    body.assign(packet.body.begin(), packet.body.end());
    return true;
  }

  // Builds the response and disconnect from the server's challenge to this identity; false when
  // `datagram` is not one.
  bool take_challenge(std::span<const std::byte> datagram) {
    netcode::PacketType type{};
    ForgedDatagram body;
    if (!open(datagram, type, body) || type != netcode::PacketType::kConnectionChallenge) return false;
    response = encrypted(netcode::PacketType::kConnectionResponse, 0, body);
    disconnect = encrypted(netcode::PacketType::kDisconnect, 1, {});
    return true;
  }
};

inline std::span<const std::byte> bytes_of(const ForgedDatagram& d) {
  return std::span<const std::byte>(d.data(), d.size());
}

}  // namespace bitwire::test
