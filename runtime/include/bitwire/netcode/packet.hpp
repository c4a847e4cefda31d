// netcode 1.02 packets: the unencrypted connection request, the six encrypted types, the minimal sequence
// encoding, and replay protection.
//
// Encrypted packet on the wire: [prefix = (sequence bytes << 4) | type] [sequence, 1..8 bytes LE, high zero
// bytes omitted] [body sealed with ChaCha20-Poly1305 IETF] [16-byte MAC]. Associated data: version info (13) +
// protocol id (u64) + prefix byte; nonce: 4 zero bytes + sequence (u64 LE).
//
// Contracts:
// - read_encrypted_packet() makes the checks in the standard's order and stops at the first failure, which it
//   returns as a PacketError (each one a counter in Client/Server). It decrypts in place.
// - No allocation; every size is checked before any byte is read.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "bitwire/netcode/token.hpp"

namespace bitwire::netcode {

enum class PacketType : uint8_t {
  kConnectionRequest = 0,
  kConnectionDenied = 1,
  kConnectionChallenge = 2,
  kConnectionResponse = 3,
  kKeepAlive = 4,
  kPayload = 5,
  kDisconnect = 6,
};
inline constexpr int kPacketTypeCount = 7;
const char* to_string(PacketType type);

inline constexpr size_t kMaxPayloadBytes = 1200;
inline constexpr size_t kRequestPacketBytes = 1 + kVersionInfoBytes + 8 + 8 + kConnectTokenNonceBytes +
                                              kConnectTokenPrivateBytes;  // 1078
inline constexpr size_t kMinEncryptedPacketBytes = 18;                    // prefix + 1 sequence byte + MAC
inline constexpr size_t kChallengeBodyBytes = 8 + kChallengeTokenBytes;    // 308
inline constexpr size_t kKeepAliveBodyBytes = 8;
// The largest datagram netcode sends: a payload packet with an 8-byte sequence.
inline constexpr size_t kMaxPacketBytes = 1 + 8 + kMaxPayloadBytes + kMacBytes;  // 1225
// Receive buffers are this large, so a larger datagram is seen as oversized rather than cut short.
inline constexpr size_t kReceiveBufferBytes = 1500;

// Number of bytes the minimal encoding of `sequence` takes (1..8; zero takes one byte).
int sequence_bytes(uint64_t sequence);

// Bit mask of packet types a reader accepts: (1 << type).
using TypeMask = uint32_t;
inline constexpr TypeMask type_bit(PacketType type) {
  return TypeMask{1} << static_cast<unsigned>(type);
}

// Every reason a packet is dropped, in the order the checks are made (request checks first).
enum class PacketError : uint8_t {
  kNone,
  // connection request (server)
  kRequestWrongSize,          // not 1078 bytes
  kRequestVersion,            // version info is not "NETCODE 1.02"
  kRequestProtocolId,         // another protocol id
  kRequestTokenExpired,       // expire timestamp <= now
  kRequestTokenDecryptFailed, // the private token does not open under the private key
  kRequestTokenUnreadable,    // opened, but malformed (address count or type)
  kRequestServerNotInToken,   // this server's public address is not in the token
  kRequestAddressConnected,   // a client from this address is connected
  kRequestClientIdConnected,  // a client with this id is connected
  kRequestTokenReused,        // the token was used from another address
  kRequestPendingExpired,     // the token's first request is older than its pending lifetime
  kRequestNoMapping,          // no room to remember the encryption mapping
  // encrypted packets
  kNoKey,                     // no encryption mapping for the source address
  kTooSmall,                  // under 18 bytes
  kInvalidType,               // low 4 bits >= 7
  kTypeNotAllowed,            // a type this side never accepts (or not in this state)
  kBadSequenceBytes,          // high 4 bits outside [1, 8]
  kTooSmallForSequence,       // shorter than prefix + sequence + MAC
  kReplayed,                  // replay protection: already received or too old
  kDecryptFailed,             // MAC check failed
  kWrongBodySize,             // decrypted body size wrong for its type
  // after decoding (server / client logic)
  kChallengeTokenInvalid,     // response: the challenge token does not open under this run's key
  kResponseAddressConnected,  // response: the address is already connected
  kResponseClientIdConnected, // response: the client id is already connected
  kNotConnected,              // keep-alive / payload / disconnect from an address with no slot
  kWrongState,                // valid, but not expected in the client's current state
  kFromWrongAddress,          // client: not from the server it is talking to
  kOversized,                 // datagram larger than the receive buffer
  kCount,
};
const char* to_string(PacketError error);
inline constexpr int kPacketErrorCount = static_cast<int>(PacketError::kCount);

// Writes the connection request (1078 bytes) for `token` into `out` (at least that large; asserted).
size_t write_request_packet(const ConnectToken& token, std::span<std::byte> out);

// The fields of a request, after its cheap checks (size, version, protocol id, expiry) -- the token is still
// sealed.
struct RequestPacket {
  uint64_t expire_timestamp = 0;
  std::span<const std::byte> nonce;   // 24 bytes, inside the datagram
  std::span<std::byte> private_data;  // 1024 bytes, inside the datagram (decrypted in place by the server)
};
PacketError read_request_packet(std::span<std::byte> datagram, uint64_t protocol_id, uint64_t now_unix,
                                RequestPacket& out);

// Encrypts `body` (body_size bytes, at most kMaxPayloadBytes) as a packet of `type` (not the request) with
// `sequence`. `out` has room for kMaxPacketBytes (asserted). Returns the packet size.
size_t write_encrypted_packet(PacketType type, uint64_t sequence, std::span<const std::byte> body,
                              uint64_t protocol_id, const Key& key, std::span<std::byte> out);

// Fixed-window replay protection (the standard's algorithm) for one direction of one connection.
class ReplayProtection {
 public:
  static constexpr int kWindow = 256;
  ReplayProtection() { reset(); }
  void reset();
  bool already_received(uint64_t sequence) const;
  void advance(uint64_t sequence);  // after a successful decrypt
  uint64_t most_recent() const { return most_recent_; }

 private:
  uint64_t most_recent_ = 0;
  std::array<uint64_t, kWindow> received_{};
};

struct EncryptedPacket {
  PacketType type = PacketType::kConnectionDenied;
  uint64_t sequence = 0;
  std::span<std::byte> body;  // decrypted in place, inside the datagram
};

// Reads one encrypted packet from untrusted bytes, in the standard's order: size >= 18, type < 7, type in
// `allowed`, sequence bytes in [1, 8], size >= 1 + sequence bytes + 16, replay (keep-alive, payload and
// disconnect only, when `replay` is given), decrypt, advance replay, body size for the type.
PacketError read_encrypted_packet(std::span<std::byte> datagram, uint64_t protocol_id, const Key& key,
                                  TypeMask allowed, ReplayProtection* replay, EncryptedPacket& out);

// Bodies. Writers: `out` at least the body's size, `sealed_token` kChallengeTokenBytes (asserted). Readers
// take a body read_encrypted_packet() has already checked to be exactly its type's size.
void write_challenge_body(uint64_t challenge_sequence, std::span<const std::byte> sealed_token,
                          std::span<std::byte> out);  // 308 bytes
void read_challenge_body(std::span<const std::byte> body, uint64_t& challenge_sequence,
                         std::span<const std::byte>& sealed_token);
void write_keep_alive_body(uint32_t client_index, uint32_t max_clients, std::span<std::byte> out);  // 8 bytes
void read_keep_alive_body(std::span<const std::byte> body, uint32_t& client_index, uint32_t& max_clients);

}  // namespace bitwire::netcode
