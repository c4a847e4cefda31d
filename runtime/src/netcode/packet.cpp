// netcode 1.02 packet encoding, decoding and replay protection.
#include "bitwire/netcode/packet.hpp"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "bytes.hpp"

namespace bitwire::netcode {

using detail::ByteReader;
using detail::ByteWriter;
using detail::sodium_bytes;
using detail::view;

const char* to_string(PacketType type) {
  switch (type) {
    case PacketType::kConnectionRequest: return "connection request";
    case PacketType::kConnectionDenied: return "connection denied";
    case PacketType::kConnectionChallenge: return "connection challenge";
    case PacketType::kConnectionResponse: return "connection response";
    case PacketType::kKeepAlive: return "keep-alive";
    case PacketType::kPayload: return "payload";
    case PacketType::kDisconnect: return "disconnect";
  }
  return "unknown";
}

const char* to_string(PacketError error) {
  switch (error) {
    case PacketError::kNone: return "none";
    case PacketError::kRequestWrongSize: return "request: not 1078 bytes";
    case PacketError::kRequestVersion: return "request: wrong version info";
    case PacketError::kRequestProtocolId: return "request: wrong protocol id";
    case PacketError::kRequestTokenExpired: return "request: connect token expired";
    case PacketError::kRequestTokenDecryptFailed: return "request: private connect token does not decrypt";
    case PacketError::kRequestTokenUnreadable: return "request: private connect token malformed";
    case PacketError::kRequestServerNotInToken: return "request: server address not in the token";
    case PacketError::kRequestAddressConnected: return "request: address already connected";
    case PacketError::kRequestClientIdConnected: return "request: client id already connected";
    case PacketError::kRequestTokenReused: return "request: connect token used from another address";
    case PacketError::kRequestPendingExpired: return "request: token past its pending lifetime";
    case PacketError::kRequestNoMapping: return "request: no room for an encryption mapping";
    case PacketError::kNoKey: return "no encryption mapping for the address";
    case PacketError::kTooSmall: return "packet under 18 bytes";
    case PacketError::kInvalidType: return "invalid packet type";
    case PacketError::kTypeNotAllowed: return "packet type not accepted here";
    case PacketError::kBadSequenceBytes: return "sequence bytes outside [1, 8]";
    case PacketError::kTooSmallForSequence: return "packet shorter than prefix + sequence + MAC";
    case PacketError::kReplayed: return "replayed or too old";
    case PacketError::kDecryptFailed: return "decrypt failed";
    case PacketError::kWrongBodySize: return "wrong body size for the packet type";
    case PacketError::kChallengeTokenInvalid: return "response: challenge token invalid";
    case PacketError::kResponseAddressConnected: return "response: address already connected";
    case PacketError::kResponseClientIdConnected: return "response: client id already connected";
    case PacketError::kNotConnected: return "not connected";
    case PacketError::kWrongState: return "not expected in this state";
    case PacketError::kFromWrongAddress: return "not from the server address";
    case PacketError::kOversized: return "datagram larger than the receive buffer";
    case PacketError::kCount: break;
  }
  return "unknown";
}

int sequence_bytes(uint64_t sequence) {
  int n = 1;
  while (n < 8 && (sequence >> (8 * n)) != 0) ++n;
  return n;
}

size_t write_request_packet(const ConnectToken& token, std::span<std::byte> out) {
  BITWIRE_ASSERT(out.size() >= kRequestPacketBytes);
  ByteWriter w(out.first(kRequestPacketBytes));
  w.u8(0);
  w.bytes(detail::version_info());
  w.u64(token.protocol_id);
  w.u64(token.expire_timestamp);
  w.bytes(view(token.nonce));
  w.bytes(view(token.private_data));
  return w.size();
}

PacketError read_request_packet(std::span<std::byte> datagram, uint64_t protocol_id, uint64_t now_unix,
                                RequestPacket& out) {
  if (datagram.size() != kRequestPacketBytes) return PacketError::kRequestWrongSize;
  if (!std::ranges::equal(datagram.subspan(1, kVersionInfoBytes), detail::version_info())) {
    return PacketError::kRequestVersion;
  }
  ByteReader r(datagram.subspan(1 + kVersionInfoBytes, 16));
  uint64_t packet_protocol_id = 0, expire = 0;
  r.u64(packet_protocol_id);
  r.u64(expire);
  if (packet_protocol_id != protocol_id) return PacketError::kRequestProtocolId;
  if (expire <= now_unix) return PacketError::kRequestTokenExpired;
  out.expire_timestamp = expire;
  out.nonce = datagram.subspan(1 + kVersionInfoBytes + 16, kConnectTokenNonceBytes);
  out.private_data =
      datagram.subspan(1 + kVersionInfoBytes + 16 + kConnectTokenNonceBytes, kConnectTokenPrivateBytes);
  return PacketError::kNone;
}

namespace {

// The version info, the protocol id (little-endian) and the prefix byte: stored directly, the writer's
// per-byte loop and checks cost as much again as the rest of the seal's own work on every packet.
std::array<std::byte, kVersionInfoBytes + 9> packet_associated_data(uint64_t protocol_id, uint8_t prefix) {
  std::array<std::byte, kVersionInfoBytes + 9> ad;
  std::memcpy(ad.data(), kVersionInfo, kVersionInfoBytes);
  bitwire::detail::store_le64(ad.data() + kVersionInfoBytes, protocol_id);
  ad[kVersionInfoBytes + 8] = std::byte{prefix};
  return ad;
}

}  // namespace

size_t write_encrypted_packet(PacketType type, uint64_t sequence, std::span<const std::byte> body,
                              uint64_t protocol_id, const Key& key, std::span<std::byte> out) {
  const size_t body_size = body.size();
  BITWIRE_ASSERT(type != PacketType::kConnectionRequest);
  BITWIRE_ASSERT(body_size <= kMaxPayloadBytes);
  const int n = sequence_bytes(sequence);
  BITWIRE_ASSERT(out.size() >= 1 + static_cast<size_t>(n) + body_size + kMacBytes);
  const uint8_t prefix = static_cast<uint8_t>((n << 4) | static_cast<int>(type));
  out[0] = std::byte{prefix};
  for (int i = 0; i < n; ++i)
    out[1 + static_cast<size_t>(i)] = static_cast<std::byte>((sequence >> (8 * i)) & 0xFFu);
  std::byte* sealed = out.data() + 1 + n;
  // The cipher reads the body and writes the sealed bytes in one pass when the two do not overlap (the
  // stack's case: the body is the endpoint's packet, the output the transport's room) or are the same
  // bytes; a partial overlap, which the cipher does not allow, is moved into place first.
  const std::byte* plain = body.data();
  const auto from = reinterpret_cast<uintptr_t>(plain);  // addresses: the two may be unrelated buffers
  const auto to = reinterpret_cast<uintptr_t>(sealed);
  const bool disjoint = body_size == 0 || from + body_size <= to || to + body_size <= from;
  if (!disjoint && plain != sealed) {
    std::memmove(sealed, plain, body_size);
    plain = sealed;
  }
  const auto ad = packet_associated_data(protocol_id, prefix);
  const auto nonce = detail::sequence_nonce(sequence);
  crypto_init();
  unsigned long long mac_size = 0;
  crypto_aead_chacha20poly1305_ietf_encrypt_detached(
      sodium_bytes(sealed), sodium_bytes(sealed + body_size), &mac_size, sodium_bytes(plain), body_size,
      sodium_bytes(ad.data()), ad.size(), nullptr, sodium_bytes(nonce.data()), sodium_bytes(key.data()));
  const size_t sealed_size = body_size + static_cast<size_t>(mac_size);
  return 1 + static_cast<size_t>(n) + sealed_size;
}

void ReplayProtection::reset() {
  most_recent_ = 0;
  received_.fill(UINT64_MAX);
}

bool ReplayProtection::already_received(uint64_t sequence) const {
  // Written so that it cannot overflow for sequences near 2^64.
  if (most_recent_ >= kWindow && sequence <= most_recent_ - kWindow) return true;
  const uint64_t entry = received_[sequence % kWindow];
  return entry != UINT64_MAX && entry >= sequence;
}

void ReplayProtection::advance(uint64_t sequence) {
  if (sequence > most_recent_) most_recent_ = sequence;
  received_[sequence % kWindow] = sequence;
}

PacketError read_encrypted_packet(std::span<std::byte> datagram, uint64_t protocol_id, const Key& key,
                                  TypeMask allowed, ReplayProtection* replay, EncryptedPacket& out) {
  const size_t size = datagram.size();
  if (size < kMinEncryptedPacketBytes) return PacketError::kTooSmall;
  const uint8_t prefix = std::to_integer<uint8_t>(datagram[0]);
  const int type = prefix & 0xF;
  if (type >= kPacketTypeCount) return PacketError::kInvalidType;
  if ((allowed & (TypeMask{1} << type)) == 0 || type == 0) return PacketError::kTypeNotAllowed;
  const int n = prefix >> 4;
  if (n < 1 || n > 8) return PacketError::kBadSequenceBytes;
  if (size < 1 + static_cast<size_t>(n) + kMacBytes) return PacketError::kTooSmallForSequence;
  uint64_t sequence = 0;
  for (int i = 0; i < n; ++i)
    sequence |= std::to_integer<uint64_t>(datagram[1 + static_cast<size_t>(i)]) << (8 * i);
  const bool replay_checked = replay != nullptr && type >= static_cast<int>(PacketType::kKeepAlive);
  if (replay_checked && replay->already_received(sequence)) return PacketError::kReplayed;
  const auto ad = packet_associated_data(protocol_id, prefix);
  const auto nonce = detail::sequence_nonce(sequence);
  std::byte* sealed = datagram.data() + 1 + n;
  const size_t sealed_size = size - 1 - static_cast<size_t>(n);
  unsigned long long body_size = 0;
  if (!crypto_init() ||
      crypto_aead_chacha20poly1305_ietf_decrypt(
          sodium_bytes(sealed), &body_size, nullptr, sodium_bytes(sealed), sealed_size,
          sodium_bytes(ad.data()), ad.size(), sodium_bytes(nonce.data()), sodium_bytes(key.data())) != 0) {
    return PacketError::kDecryptFailed;
  }
  if (replay_checked) replay->advance(sequence);
  const auto packet_type = static_cast<PacketType>(type);
  bool size_ok = false;
  switch (packet_type) {
    case PacketType::kConnectionDenied:
    case PacketType::kDisconnect: size_ok = body_size == 0; break;
    case PacketType::kConnectionChallenge:
    case PacketType::kConnectionResponse: size_ok = body_size == kChallengeBodyBytes; break;
    case PacketType::kKeepAlive: size_ok = body_size == kKeepAliveBodyBytes; break;
    case PacketType::kPayload: size_ok = body_size >= 1 && body_size <= kMaxPayloadBytes; break;
    case PacketType::kConnectionRequest: break;
  }
  if (!size_ok) return PacketError::kWrongBodySize;
  out.type = packet_type;
  out.sequence = sequence;
  out.body = std::span<std::byte>(sealed, static_cast<size_t>(body_size));
  return PacketError::kNone;
}

void write_challenge_body(uint64_t challenge_sequence, std::span<const std::byte> sealed_token,
                          std::span<std::byte> out) {
  BITWIRE_ASSERT(sealed_token.size() >= kChallengeTokenBytes && out.size() >= kChallengeBodyBytes);
  ByteWriter w(out.first(kChallengeBodyBytes));
  w.u64(challenge_sequence);
  w.bytes(sealed_token.first(kChallengeTokenBytes));
}

void read_challenge_body(std::span<const std::byte> body, uint64_t& challenge_sequence,
                         std::span<const std::byte>& sealed_token) {
  // A short body (never, after read_encrypted_packet) reads as far as it goes and yields an empty token.
  ByteReader r(body);
  r.u64(challenge_sequence);
  sealed_token = body.size() >= kChallengeBodyBytes ? body.subspan(8, kChallengeTokenBytes)
                                                    : std::span<const std::byte>{};
}

void write_keep_alive_body(uint32_t client_index, uint32_t max_clients, std::span<std::byte> out) {
  BITWIRE_ASSERT(out.size() >= kKeepAliveBodyBytes);
  ByteWriter w(out.first(kKeepAliveBodyBytes));
  w.u32(client_index);
  w.u32(max_clients);
}

void read_keep_alive_body(std::span<const std::byte> body, uint32_t& client_index, uint32_t& max_clients) {
  ByteReader r(body);
  r.u32(client_index);
  r.u32(max_clients);
}

}  // namespace bitwire::netcode
