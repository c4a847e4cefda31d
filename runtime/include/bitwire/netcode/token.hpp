// netcode 1.02 connect tokens and challenge tokens (wire-format.md section 4; docs/transport.md,
// "netcode 1.02", has every byte).
//
// A connect token is made by the backend with the private key it shares with the dedicated servers, and
// handed to a client over a secure channel (HTTPS). Its private part, sealed with XChaCha20-Poly1305, is what
// the client forwards to a server in its connection request; its public part tells the client where to
// connect and which keys to encrypt with. A challenge token is sealed by a server under its per-run key and
// bounced off the client to prove that the client receives packets at the address it claims.
//
// Contracts:
// - All integers little-endian; buffers fixed-size and zero-padded (1024, 2048, 300 bytes).
// - Crypto is libsodium only: crypto_aead_xchacha20poly1305_ietf (token private part),
//   crypto_aead_chacha20poly1305_ietf (challenge tokens), randombytes_buf (keys, nonces).
// - Readers take untrusted bytes: they return false with a static reason and never read past the buffer.
// - Writers refuse (return false with a reason) what the standard forbids: 0 or more than 32 server
// addresses,
//   an empty address or port 0, create timestamp after expiry.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "bitwire/transport/address.hpp"

namespace bitwire::netcode {

inline constexpr char kVersionInfo[13] = "NETCODE 1.02";  // 12 characters and the terminator: 13 bytes
inline constexpr size_t kVersionInfoBytes = 13;
inline constexpr size_t kKeyBytes = 32;
inline constexpr size_t kMacBytes = 16;
inline constexpr size_t kUserDataBytes = 256;
inline constexpr size_t kConnectTokenNonceBytes = 24;
inline constexpr size_t kConnectTokenPrivateBytes = 1024;
inline constexpr size_t kConnectTokenBytes = 2048;
inline constexpr size_t kChallengeTokenBytes = 300;
inline constexpr int kMaxServersPerConnect = 32;

// Keys, nonces and user data are bytes on the wire and nothing else: std::byte, as on the whole packet path
// (no arithmetic, no accidental conversion to an integer).
using Key = std::array<std::byte, kKeyBytes>;
using UserData = std::array<std::byte, kUserDataBytes>;
using TokenNonce = std::array<std::byte, kConnectTokenNonceBytes>;

// Initialises libsodium once (safe to call from any thread, any number of times). False when it cannot start;
// every function below calls it and fails when it does.
bool crypto_init();

// Fills `out` with random bytes from libsodium.
void random_bytes(std::span<std::byte> out);
Key random_key();

struct ServerAddresses {
  std::array<Address, kMaxServersPerConnect> items{};
  int count = 0;  // in [1, 32] in a valid token
  friend bool operator==(const ServerAddresses&, const ServerAddresses&) = default;
};

// The private part, before encryption.
struct ConnectTokenPrivate {
  uint64_t client_id = 0;       // globally unique id of the authenticated client
  int32_t timeout_seconds = 0;  // seconds of silence before either side gives up; negative: never (dev only)
  ServerAddresses server_addresses;
  Key client_to_server_key{};
  Key server_to_client_key{};
  UserData user_data{};
  friend bool operator==(const ConnectTokenPrivate&, const ConnectTokenPrivate&) = default;
};

// The whole token as the client holds it.
struct ConnectToken {
  uint64_t protocol_id = 0;
  uint64_t create_timestamp = 0;  // unix seconds
  uint64_t expire_timestamp = 0;  // unix seconds
  TokenNonce nonce{};
  std::array<std::byte, kConnectTokenPrivateBytes> private_data{};  // sealed private part + its 16-byte MAC
  int32_t timeout_seconds = 0;
  ServerAddresses server_addresses;
  Key client_to_server_key{};
  Key server_to_client_key{};
  friend bool operator==(const ConnectToken&, const ConnectToken&) = default;
};

// Plain private part <-> its 1024-byte buffer (zero-padded; the last 16 bytes are left for the MAC). `out`
// holds at least kConnectTokenPrivateBytes (asserted); a shorter `in` is refused.
bool write_connect_token_private(const ConnectTokenPrivate& token, std::span<std::byte> out,
                                 const char** reason = nullptr);
bool read_connect_token_private(std::span<const std::byte> in, ConnectTokenPrivate& token,
                                const char** reason = nullptr);

// Seals / opens the first 1008 bytes of `buffer` (exactly kConnectTokenPrivateBytes, else false) in place,
// the MAC in the last 16. The associated data is version info + protocol id + expire timestamp.
bool encrypt_connect_token_private(std::span<std::byte> buffer, uint64_t protocol_id,
                                   uint64_t expire_timestamp, const TokenNonce& nonce,
                                   const Key& private_key);
bool decrypt_connect_token_private(std::span<std::byte> buffer, uint64_t protocol_id,
                                   uint64_t expire_timestamp, const TokenNonce& nonce,
                                   const Key& private_key);

// The 2048-byte public token. `out` holds at least kConnectTokenBytes (asserted).
bool write_connect_token(const ConnectToken& token, std::span<std::byte> out, const char** reason = nullptr);
// Refuses a wrong version info, an address count outside [1, 32], an unknown address type, and a create
// timestamp after the expire timestamp (the client's "invalid connect token" rules), and an `in` shorter than
// kConnectTokenBytes.
bool read_connect_token(std::span<const std::byte> in, ConnectToken& token, const char** reason = nullptr);

// What the backend decides for one client.
struct ConnectTokenParams {
  uint64_t protocol_id = 0;         // the game's protocol id
  uint64_t client_id = 0;           // the authenticated client
  uint64_t create_timestamp = 0;    // unix seconds now
  int expire_seconds = 30;          // token lifetime: expire = create + this (>= 0)
  int32_t timeout_seconds = 10;     // connection timeout carried to both ends
  ServerAddresses server_addresses; // 1..32 servers, tried in order
  UserData user_data{};             // opaque to netcode, readable by the server after connect
};

// Builds a token with the given keys and nonce (deterministic: for tests and goldens).
bool build_connect_token(const ConnectTokenParams& params, const Key& private_key, const Key& client_to_server,
                         const Key& server_to_client, const TokenNonce& nonce, ConnectToken& out,
                         const char** reason = nullptr);
// Builds a token with fresh random keys and nonce (the backend's normal path).
bool generate_connect_token(const ConnectTokenParams& params, const Key& private_key, ConnectToken& out,
                            const char** reason = nullptr);

// Challenge token: client id and user data, sealed under the server's per-run key with the challenge
// sequence as nonce (4 zero bytes + u64 LE), no associated data.
struct ChallengeToken {
  uint64_t client_id = 0;
  UserData user_data{};
  friend bool operator==(const ChallengeToken&, const ChallengeToken&) = default;
};

// `out` holds at least kChallengeTokenBytes (asserted); an `in` shorter than that does not open.
void seal_challenge_token(const ChallengeToken& token, uint64_t sequence, const Key& key,
                          std::span<std::byte> out);
bool open_challenge_token(std::span<const std::byte> in, uint64_t sequence, const Key& key,
                          ChallengeToken& token);

}  // namespace bitwire::netcode
