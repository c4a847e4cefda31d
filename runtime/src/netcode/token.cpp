// netcode 1.02 connect tokens and challenge tokens.
#include "bitwire/netcode/token.hpp"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "bytes.hpp"

namespace bitwire::netcode {

using detail::ByteReader;
using detail::ByteWriter;
using detail::sodium_bytes;
using detail::view;
using detail::writable;

static_assert(sizeof kVersionInfo == kVersionInfoBytes);

namespace {

bool set_reason(const char** reason, const char* text) {
  if (reason != nullptr) *reason = text;
  return false;
}

const char* check_addresses(const ServerAddresses& addresses) {
  if (addresses.count < 1 || addresses.count > kMaxServersPerConnect) {
    return "number of server addresses must be in [1, 32]";
  }
  for (int i = 0; i < addresses.count; ++i) {
    if (addresses.items[i].is_none()) return "empty server address";
    if (addresses.items[i].port() == 0) return "server address with port 0";
  }
  return nullptr;
}

void write_addresses(ByteWriter& w, const ServerAddresses& addresses) {
  w.u32(static_cast<uint32_t>(addresses.count));
  for (int i = 0; i < addresses.count; ++i) detail::write_address(w, addresses.items[i]);
}

bool read_addresses(ByteReader& r, ServerAddresses& addresses, const char** reason) {
  uint32_t count = 0;
  if (!r.u32(count)) return set_reason(reason, "truncated address count");
  if (count < 1 || count > static_cast<uint32_t>(kMaxServersPerConnect)) {
    return set_reason(reason, "number of server addresses outside [1, 32]");
  }
  addresses = ServerAddresses{};
  addresses.count = static_cast<int>(count);
  for (uint32_t i = 0; i < count; ++i) {
    const char* why = nullptr;
    if (!detail::read_address(r, addresses.items[i], &why)) return set_reason(reason, why);
  }
  return true;
}

// version info (13) + protocol id (8) + expire timestamp (8).
std::array<std::byte, kVersionInfoBytes + 16> token_associated_data(uint64_t protocol_id,
                                                                    uint64_t expire_timestamp) {
  std::array<std::byte, kVersionInfoBytes + 16> ad{};
  ByteWriter w(ad);
  w.bytes(detail::version_info());
  w.u64(protocol_id);
  w.u64(expire_timestamp);
  return ad;
}

}  // namespace

bool crypto_init() {
  static const bool ready = sodium_init() >= 0;
  return ready;
}

void random_bytes(std::span<std::byte> out) {
  crypto_init();
  randombytes_buf(out.data(), out.size());
}

Key random_key() {
  Key key;
  random_bytes(writable(key));
  return key;
}

bool write_connect_token_private(const ConnectTokenPrivate& token, std::span<std::byte> out,
                                 const char** reason) {
  BITWIRE_ASSERT(out.size() >= kConnectTokenPrivateBytes);
  if (const char* problem = check_addresses(token.server_addresses)) return set_reason(reason, problem);
  std::fill_n(out.begin(), kConnectTokenPrivateBytes, std::byte{0});
  ByteWriter w(out.first(kConnectTokenPrivateBytes - kMacBytes));
  w.u64(token.client_id);
  w.u32(static_cast<uint32_t>(token.timeout_seconds));
  write_addresses(w, token.server_addresses);
  w.bytes(view(token.client_to_server_key));
  w.bytes(view(token.server_to_client_key));
  w.bytes(view(token.user_data));
  return true;
}

bool read_connect_token_private(std::span<const std::byte> in, ConnectTokenPrivate& token,
                                const char** reason) {
  if (in.size() < kConnectTokenPrivateBytes - kMacBytes)
    return set_reason(reason, "truncated private connect token");
  ByteReader r(in.first(kConnectTokenPrivateBytes - kMacBytes));
  ConnectTokenPrivate t;
  uint32_t timeout = 0;
  if (!r.u64(t.client_id) || !r.u32(timeout)) return set_reason(reason, "truncated private connect token");
  t.timeout_seconds = static_cast<int32_t>(timeout);
  if (!read_addresses(r, t.server_addresses, reason)) return false;
  if (!r.bytes(writable(t.client_to_server_key)) || !r.bytes(writable(t.server_to_client_key)) ||
      !r.bytes(writable(t.user_data))) {
    return set_reason(reason, "truncated private connect token");
  }
  token = t;
  return true;
}

bool encrypt_connect_token_private(std::span<std::byte> buffer, uint64_t protocol_id,
                                   uint64_t expire_timestamp, const TokenNonce& nonce,
                                   const Key& private_key) {
  if (buffer.size() != kConnectTokenPrivateBytes || !crypto_init()) return false;
  const auto ad = token_associated_data(protocol_id, expire_timestamp);
  unsigned long long sealed = 0;
  const int rc = crypto_aead_xchacha20poly1305_ietf_encrypt(
      sodium_bytes(buffer.data()), &sealed, sodium_bytes(buffer.data()),
      kConnectTokenPrivateBytes - kMacBytes, sodium_bytes(ad.data()), ad.size(), nullptr,
      sodium_bytes(nonce.data()), sodium_bytes(private_key.data()));
  return rc == 0 && sealed == kConnectTokenPrivateBytes;
}

bool decrypt_connect_token_private(std::span<std::byte> buffer, uint64_t protocol_id,
                                   uint64_t expire_timestamp, const TokenNonce& nonce,
                                   const Key& private_key) {
  if (buffer.size() != kConnectTokenPrivateBytes || !crypto_init()) return false;
  const auto ad = token_associated_data(protocol_id, expire_timestamp);
  unsigned long long opened = 0;
  const int rc = crypto_aead_xchacha20poly1305_ietf_decrypt(
      sodium_bytes(buffer.data()), &opened, nullptr, sodium_bytes(buffer.data()), kConnectTokenPrivateBytes,
      sodium_bytes(ad.data()), ad.size(), sodium_bytes(nonce.data()), sodium_bytes(private_key.data()));
  return rc == 0 && opened == kConnectTokenPrivateBytes - kMacBytes;
}

bool write_connect_token(const ConnectToken& token, std::span<std::byte> out, const char** reason) {
  BITWIRE_ASSERT(out.size() >= kConnectTokenBytes);
  if (const char* problem = check_addresses(token.server_addresses)) return set_reason(reason, problem);
  if (token.create_timestamp > token.expire_timestamp) {
    return set_reason(reason, "create timestamp after expire timestamp");
  }
  std::fill_n(out.begin(), kConnectTokenBytes, std::byte{0});
  ByteWriter w(out.first(kConnectTokenBytes));
  w.bytes(detail::version_info());
  w.u64(token.protocol_id);
  w.u64(token.create_timestamp);
  w.u64(token.expire_timestamp);
  w.bytes(view(token.nonce));
  w.bytes(view(token.private_data));
  w.u32(static_cast<uint32_t>(token.timeout_seconds));
  write_addresses(w, token.server_addresses);
  w.bytes(view(token.client_to_server_key));
  w.bytes(view(token.server_to_client_key));
  return true;
}

bool read_connect_token(std::span<const std::byte> in, ConnectToken& token, const char** reason) {
  if (in.size() < kConnectTokenBytes) return set_reason(reason, "truncated connect token");
  ByteReader r(in.first(kConnectTokenBytes));
  std::array<std::byte, kVersionInfoBytes> version{};
  r.bytes(version);
  if (!std::ranges::equal(version, detail::version_info())) {
    return set_reason(reason, "version info is not \"NETCODE 1.02\"");
  }
  ConnectToken t;
  uint32_t timeout = 0;
  r.u64(t.protocol_id);
  r.u64(t.create_timestamp);
  r.u64(t.expire_timestamp);
  r.bytes(writable(t.nonce));
  r.bytes(writable(t.private_data));
  r.u32(timeout);
  t.timeout_seconds = static_cast<int32_t>(timeout);
  if (!read_addresses(r, t.server_addresses, reason)) return false;
  if (!r.bytes(writable(t.client_to_server_key)) || !r.bytes(writable(t.server_to_client_key))) {
    return set_reason(reason, "truncated connect token");
  }
  if (t.create_timestamp > t.expire_timestamp) return set_reason(reason, "create timestamp after expire timestamp");
  token = t;
  return true;
}

bool build_connect_token(const ConnectTokenParams& params, const Key& private_key, const Key& client_to_server,
                         const Key& server_to_client, const TokenNonce& nonce, ConnectToken& out,
                         const char** reason) {
  if (params.expire_seconds < 0) return set_reason(reason, "expire_seconds must be >= 0");
  ConnectTokenPrivate plain;
  plain.client_id = params.client_id;
  plain.timeout_seconds = params.timeout_seconds;
  plain.server_addresses = params.server_addresses;
  plain.client_to_server_key = client_to_server;
  plain.server_to_client_key = server_to_client;
  plain.user_data = params.user_data;
  ConnectToken token;
  if (!write_connect_token_private(plain, writable(token.private_data), reason)) return false;
  token.protocol_id = params.protocol_id;
  token.create_timestamp = params.create_timestamp;
  token.expire_timestamp = params.create_timestamp + static_cast<uint64_t>(params.expire_seconds);
  token.nonce = nonce;
  if (!encrypt_connect_token_private(writable(token.private_data), token.protocol_id, token.expire_timestamp,
                                     nonce, private_key)) {
    return set_reason(reason, "libsodium failed to encrypt the private connect token");
  }
  token.timeout_seconds = params.timeout_seconds;
  token.server_addresses = params.server_addresses;
  token.client_to_server_key = client_to_server;
  token.server_to_client_key = server_to_client;
  out = token;
  return true;
}

bool generate_connect_token(const ConnectTokenParams& params, const Key& private_key, ConnectToken& out,
                            const char** reason) {
  if (!crypto_init()) return set_reason(reason, "libsodium failed to initialise");
  TokenNonce nonce;
  random_bytes(writable(nonce));
  return build_connect_token(params, private_key, random_key(), random_key(), nonce, out, reason);
}

void seal_challenge_token(const ChallengeToken& token, uint64_t sequence, const Key& key,
                          std::span<std::byte> out) {
  BITWIRE_ASSERT(out.size() >= kChallengeTokenBytes);
  std::fill_n(out.begin(), kChallengeTokenBytes, std::byte{0});
  ByteWriter w(out.first(kChallengeTokenBytes - kMacBytes));
  w.u64(token.client_id);
  w.bytes(view(token.user_data));
  const auto nonce = detail::sequence_nonce(sequence);
  crypto_init();
  unsigned long long sealed = 0;
  crypto_aead_chacha20poly1305_ietf_encrypt(sodium_bytes(out.data()), &sealed, sodium_bytes(out.data()),
                                            kChallengeTokenBytes - kMacBytes, nullptr, 0, nullptr,
                                            sodium_bytes(nonce.data()), sodium_bytes(key.data()));
}

bool open_challenge_token(std::span<const std::byte> in, uint64_t sequence, const Key& key,
                          ChallengeToken& token) {
  if (in.size() < kChallengeTokenBytes || !crypto_init()) return false;
  std::array<std::byte, kChallengeTokenBytes> plain{};
  const auto nonce = detail::sequence_nonce(sequence);
  unsigned long long opened = 0;
  if (crypto_aead_chacha20poly1305_ietf_decrypt(sodium_bytes(plain.data()), &opened, nullptr,
                                                sodium_bytes(in.data()), kChallengeTokenBytes, nullptr, 0,
                                                sodium_bytes(nonce.data()), sodium_bytes(key.data())) != 0) {
    return false;
  }
  ByteReader r(std::span<const std::byte>(plain).first(kChallengeTokenBytes - kMacBytes));
  r.u64(token.client_id);
  r.bytes(writable(token.user_data));
  return true;
}

}  // namespace bitwire::netcode
