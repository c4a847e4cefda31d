// netcode 1.02 golden vectors under fixed keys and nonces. Each expected buffer is laid out here by hand from
// the standard (STANDARD.md of mas-bandwidth/netcode, "netcode 1.02"), field by field with the byte values
// written out; the sealed parts are then libsodium's AEAD over those hand-built plaintexts with the associated
// data and nonce also built by hand here. So the library must agree with a from-the-text construction, not
// with itself. Separately, kReference* digests pin the whole outputs, as produced by the reference
// implementation (netcode.c, built outside this repository with the same keys and nonces).
#include <gtest/gtest.h>
#include <sodium.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "bitwire/netcode/packet.hpp"
#include "bitwire/netcode/token.hpp"
#include "support/bytes.hpp"

namespace bitwire::netcode {
namespace {

using Bytes = std::vector<uint8_t>;

// Fixed inputs. Keys and nonces are arithmetic sequences so the bytes are easy to read in a hex dump.
constexpr uint64_t kProtocolId = 0x1122334455667788ull;
constexpr uint64_t kClientId = 0x0102030405060708ull;
constexpr uint64_t kCreate = 1700000000ull;  // 0x6553F100
constexpr int kExpireSeconds = 30;           // expire = 1700000030 = 0x6553F11E
constexpr int32_t kTimeout = 5;

// BLAKE2b-256 (crypto_generichash) of each output as the reference implementation produced it: netcode.c at
// commit 139beaee204dd28befde9fdb2a05648d784b4eb9, built outside this repository with the inputs above.
constexpr const char* kReferencePrivateDigest = "e41ab0ceac277cb1f0688f84bed7c50559760c83fcf7b3dd0f0efa202f9d2037";
constexpr const char* kReferencePublicDigest = "3d42e2d42129f73e6c9cad8d386d41965d8913c97f12f04dca17132ee179f0f3";
constexpr const char* kReferenceChallengeDigest = "d2abaa521fcbd961f7f144505021160eefb905976d9b88bca95d6b2fee304687";
constexpr const char* kReferenceDeniedDigest = "b48bd1a84e9288d2ab20d5572d99f1866cb86c7e2fa77d97baa0e6a0b8a29c06";
constexpr const char* kReferenceChallengePacketDigest =
    "756140272bac2f37d24fb3511bb4bfe36a48ed431784b685f8d20c2ce5c69472";
constexpr const char* kReferenceResponseDigest = "2a0b0ac6642b0151e301a3a14a8fc7485cd7e9f4badddb195c925d924c485c4a";
constexpr const char* kReferenceKeepAliveDigest = "6a95b45d5b47bc78bcca533532f7eb02969e02227097b2c15129044d55a7e945";
constexpr const char* kReferencePayloadDigest = "9efe21c6cb53e864eed0d27f41581474fedce01ea0cc88837abd22bbf4616a26";
constexpr const char* kReferenceDisconnectDigest = "9566916ff27499f06de2861d5d730d99923ab97df470d718b99528c9d13e2302";

Key sequence_key(uint8_t first) {
  Key k;
  for (size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::byte>(first + i);
  return k;
}
const Key kPrivateKey = sequence_key(0x00);
const Key kClientToServer = sequence_key(0x40);
const Key kServerToClient = sequence_key(0x80);
TokenNonce fixed_nonce() {
  TokenNonce n;
  for (size_t i = 0; i < n.size(); ++i) n[i] = static_cast<std::byte>(0xA0 + i);
  return n;
}
UserData fixed_user_data() {
  UserData u;
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<std::byte>(i);
  return u;
}

ConnectTokenParams fixed_params() {
  ConnectTokenParams p;
  p.protocol_id = kProtocolId;
  p.client_id = kClientId;
  p.create_timestamp = kCreate;
  p.expire_seconds = kExpireSeconds;
  p.timeout_seconds = kTimeout;
  p.server_addresses.count = 2;
  p.server_addresses.items[0] = Address::ipv4(127, 0, 0, 1, 40000);
  p.server_addresses.items[1] = Address::ipv6({0x2001, 0xdb8, 0, 0, 0, 0, 0, 1}, 40001);
  p.user_data = fixed_user_data();
  return p;
}

void append(Bytes& out, std::initializer_list<int> bytes) {
  for (int b : bytes) out.push_back(static_cast<uint8_t>(b));
}
void append(Bytes& out, const uint8_t* p, size_t n) {
  out.insert(out.end(), p, p + n);
}
void append(Bytes& out, const std::byte* p, size_t n) {
  for (size_t i = 0; i < n; ++i) out.push_back(std::to_integer<uint8_t>(p[i]));
}

// A key or nonce as the unsigned char libsodium takes, copied (no cast), for the hand-built references.
template <size_t N>
std::array<unsigned char, N> raw(const std::array<std::byte, N>& bytes) {
  std::array<unsigned char, N> out{};
  for (size_t i = 0; i < N; ++i) out[i] = std::to_integer<unsigned char>(bytes[i]);
  return out;
}
void pad_to(Bytes& out, size_t size) {
  out.resize(size, 0);
}
const Bytes kVersion = {'N', 'E', 'T', 'C', 'O', 'D', 'E', ' ', '1', '.', '0', '2', 0};

// The two server addresses as the standard lays them out.
void append_addresses(Bytes& out) {
  append(out, {0x02, 0x00, 0x00, 0x00});              // num server addresses = 2 (u32)
  append(out, {0x01, 127, 0, 0, 1, 0x40, 0x9C});      // type 1, a.b.c.d, port 40000 = 0x9C40 LE
  append(out, {0x02, 0x01, 0x20, 0xB8, 0x0D, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x00,  // type 2, 8 x u16 LE
               0x41, 0x9C});                          // port 40001 = 0x9C41 LE
}

Bytes hand_private_plaintext() {
  Bytes b;
  append(b, {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01});  // client id (u64 LE)
  append(b, {0x05, 0x00, 0x00, 0x00});                          // timeout seconds 5 (u32)
  append_addresses(b);
  append(b, kClientToServer.data(), 32);
  append(b, kServerToClient.data(), 32);
  const UserData user = fixed_user_data();
  append(b, user.data(), user.size());
  pad_to(b, kConnectTokenPrivateBytes);  // zero pad (the last 16 bytes become the MAC)
  return b;
}

Bytes hand_token_associated_data(uint64_t expire) {
  Bytes ad = kVersion;
  for (int i = 0; i < 8; ++i) ad.push_back(static_cast<uint8_t>(kProtocolId >> (8 * i)));
  for (int i = 0; i < 8; ++i) ad.push_back(static_cast<uint8_t>(expire >> (8 * i)));
  return ad;
}

Bytes hand_sealed_private() {
  Bytes plain = hand_private_plaintext();
  const Bytes ad = hand_token_associated_data(kCreate + kExpireSeconds);
  Bytes sealed(kConnectTokenPrivateBytes);
  unsigned long long n = 0;
  const TokenNonce nonce = fixed_nonce();
  EXPECT_EQ(
      crypto_aead_xchacha20poly1305_ietf_encrypt(sealed.data(), &n, plain.data(), 1008, ad.data(), ad.size(),
                                                 nullptr, raw(nonce).data(), raw(kPrivateKey).data()),
      0);
  EXPECT_EQ(n, 1024u);
  return sealed;
}

std::string digest(const uint8_t* data, size_t size) {
  uint8_t hash[32];
  crypto_generichash(hash, sizeof hash, data, size, nullptr, 0);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : hash) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

ConnectToken fixed_token() {
  ConnectToken token;
  const char* reason = nullptr;
  EXPECT_TRUE(build_connect_token(fixed_params(), kPrivateKey, kClientToServer, kServerToClient, fixed_nonce(), token,
                                  &reason))
      << reason;
  return token;
}

TEST(NetcodeGolden, PrivateConnectTokenPlaintextIsTheStandardLayout) {
  ConnectTokenPrivate plain;
  plain.client_id = kClientId;
  plain.timeout_seconds = kTimeout;
  plain.server_addresses = fixed_params().server_addresses;
  plain.client_to_server_key = kClientToServer;
  plain.server_to_client_key = kServerToClient;
  plain.user_data = fixed_user_data();
  std::array<uint8_t, kConnectTokenPrivateBytes> out{};
  ASSERT_TRUE(write_connect_token_private(plain, std::as_writable_bytes(std::span(out))));
  const Bytes expected = hand_private_plaintext();
  ASSERT_EQ(0, std::memcmp(out.data(), expected.data(), expected.size()));
  ConnectTokenPrivate back;
  ASSERT_TRUE(read_connect_token_private(std::as_bytes(std::span(out)), back));
  EXPECT_EQ(back, plain);
}

TEST(NetcodeGolden, PrivateConnectTokenIsSealedWithXChaCha20OverVersionProtocolExpire) {
  const ConnectToken token = fixed_token();
  const Bytes expected = hand_sealed_private();
  ASSERT_EQ(0, std::memcmp(token.private_data.data(), expected.data(), expected.size()));
  const Bytes private_data = test::to_vector(token.private_data);
  EXPECT_EQ(digest(private_data.data(), private_data.size()), kReferencePrivateDigest);
  std::array<std::byte, kConnectTokenPrivateBytes> copy = token.private_data;
  ASSERT_TRUE(
      decrypt_connect_token_private(copy, kProtocolId, kCreate + kExpireSeconds, fixed_nonce(), kPrivateKey));
  EXPECT_EQ(0, std::memcmp(copy.data(), hand_private_plaintext().data(), 1008));
  copy = token.private_data;
  EXPECT_FALSE(decrypt_connect_token_private(copy, kProtocolId, kCreate + kExpireSeconds + 1, fixed_nonce(),
                                             kPrivateKey))
      << "the expire timestamp is authenticated";
}

TEST(NetcodeGolden, PublicConnectTokenIsTheStandardLayout) {
  const ConnectToken token = fixed_token();
  std::array<uint8_t, kConnectTokenBytes> out{};
  ASSERT_TRUE(write_connect_token(token, std::as_writable_bytes(std::span(out))));
  Bytes expected = kVersion;                                         // version info (13)
  append(expected, {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11});  // protocol id (u64 LE)
  append(expected, {0x00, 0xF1, 0x53, 0x65, 0, 0, 0, 0});              // create 1700000000
  append(expected, {0x1E, 0xF1, 0x53, 0x65, 0, 0, 0, 0});              // expire 1700000030
  const TokenNonce nonce = fixed_nonce();
  append(expected, nonce.data(), nonce.size());                      // nonce (24)
  const Bytes sealed = hand_sealed_private();
  append(expected, sealed.data(), sealed.size());                    // encrypted private part (1024)
  append(expected, {0x05, 0, 0, 0});                                 // timeout seconds
  append_addresses(expected);
  append(expected, kClientToServer.data(), 32);
  append(expected, kServerToClient.data(), 32);
  pad_to(expected, kConnectTokenBytes);
  ASSERT_EQ(0, std::memcmp(out.data(), expected.data(), expected.size()));
  EXPECT_EQ(digest(out.data(), out.size()), kReferencePublicDigest);
  ConnectToken back;
  ASSERT_TRUE(read_connect_token(std::as_bytes(std::span(out)), back));
  EXPECT_EQ(back, token);
}

TEST(NetcodeGolden, ChallengeTokenIsSealedWithChaCha20IetfAndTheSequenceNonce) {
  ChallengeToken token;
  token.client_id = kClientId;
  token.user_data = fixed_user_data();
  const uint64_t sequence = 0x0000000100000002ull;
  std::array<uint8_t, kChallengeTokenBytes> out{};
  seal_challenge_token(token, sequence, kPrivateKey, std::as_writable_bytes(std::span(out)));
  Bytes plain;
  append(plain, {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01});  // client id
  append(plain, token.user_data.data(), kUserDataBytes);            // user data (256)
  pad_to(plain, 284);                                               // zero pad to 300 - 16
  const uint8_t nonce[12] = {0, 0, 0, 0, 0x02, 0, 0, 0, 0x01, 0, 0, 0};  // 4 zero bytes + sequence LE
  Bytes expected(300);
  unsigned long long n = 0;
  crypto_aead_chacha20poly1305_ietf_encrypt(expected.data(), &n, plain.data(), 284, nullptr, 0, nullptr,
                                            nonce, raw(kPrivateKey).data());
  ASSERT_EQ(0, std::memcmp(out.data(), expected.data(), 300));
  EXPECT_EQ(digest(out.data(), out.size()), kReferenceChallengeDigest);
  ChallengeToken back;
  ASSERT_TRUE(open_challenge_token(std::as_bytes(std::span(out)), sequence, kPrivateKey, back));
  EXPECT_EQ(back, token);
  EXPECT_FALSE(open_challenge_token(std::as_bytes(std::span(out)), sequence + 1, kPrivateKey, back));
}

TEST(NetcodeGolden, ConnectionRequestIsUnencryptedAnd1078Bytes) {
  const ConnectToken token = fixed_token();
  std::array<uint8_t, kRequestPacketBytes> out{};
  ASSERT_EQ(write_request_packet(token, std::as_writable_bytes(std::span(out))), 1078u);
  Bytes expected = {0x00};                                            // prefix byte 0
  append(expected, kVersion.data(), kVersion.size());
  append(expected, {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11});  // protocol id
  append(expected, {0x1E, 0xF1, 0x53, 0x65, 0, 0, 0, 0});              // expire timestamp
  const TokenNonce nonce = fixed_nonce();
  append(expected, nonce.data(), nonce.size());
  const Bytes sealed = hand_sealed_private();
  append(expected, sealed.data(), sealed.size());
  ASSERT_EQ(expected.size(), 1078u);
  EXPECT_EQ(0, std::memcmp(out.data(), expected.data(), expected.size()));
}

// An encrypted packet built by hand: prefix, sequence bytes as given, then the AEAD of `body` with
// AD = version + protocol id + prefix and nonce = 4 zero bytes + sequence LE.
Bytes hand_packet(uint8_t prefix, std::initializer_list<int> sequence_bytes_le, uint64_t sequence, const Bytes& body,
                  const Key& key) {
  Bytes out = {prefix};
  append(out, sequence_bytes_le);
  Bytes ad = kVersion;
  append(ad, {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11});
  ad.push_back(prefix);
  uint8_t nonce[12] = {};
  for (int i = 0; i < 8; ++i) nonce[4 + i] = static_cast<uint8_t>(sequence >> (8 * i));
  Bytes sealed(body.size() + 16);
  unsigned long long n = 0;
  crypto_aead_chacha20poly1305_ietf_encrypt(sealed.data(), &n, body.data(), body.size(), ad.data(), ad.size(),
                                            nullptr, nonce, raw(key).data());
  append(out, sealed.data(), sealed.size());
  return out;
}

void expect_packet(PacketType type, uint64_t sequence, const Bytes& body, const Bytes& expected,
                   const char* reference_digest) {
  std::array<uint8_t, kMaxPacketBytes> out{};
  const size_t size = write_encrypted_packet(type, sequence, bitwire::test::view(body), kProtocolId,
                                             kServerToClient, std::as_writable_bytes(std::span(out)));
  ASSERT_EQ(size, expected.size()) << to_string(type);
  EXPECT_EQ(0, std::memcmp(out.data(), expected.data(), size)) << to_string(type);
  EXPECT_EQ(digest(out.data(), size), reference_digest) << to_string(type);
  EncryptedPacket packet;
  ASSERT_EQ(read_encrypted_packet(std::as_writable_bytes(std::span(out)).first(size), kProtocolId,
                                  kServerToClient, 0x7E, nullptr, packet),
            PacketError::kNone);
  EXPECT_EQ(packet.type, type);
  EXPECT_EQ(packet.sequence, sequence);
  ASSERT_EQ(packet.body.size(), body.size());
  if (!body.empty()) {
    EXPECT_EQ(0, std::memcmp(packet.body.data(), body.data(), body.size()));
  }
}

TEST(NetcodeGolden, DeniedPacket) {
  // Sequence 2^63 takes all 8 bytes: prefix (8 << 4) | 1 = 0x81.
  expect_packet(PacketType::kConnectionDenied, 0x8000000000000000ull, {},
                hand_packet(0x81, {0, 0, 0, 0, 0, 0, 0, 0x80}, 0x8000000000000000ull, {}, kServerToClient),
                kReferenceDeniedDigest);
}

Bytes challenge_body() {
  Bytes body;
  append(body, {0x2A, 0, 0, 0, 0, 0, 0, 0});  // challenge token sequence 42 (u64 LE)
  for (int i = 0; i < 300; ++i) body.push_back(static_cast<uint8_t>(0xC0 ^ i));  // stands for a sealed token
  return body;
}

TEST(NetcodeGolden, ChallengePacket) {
  // Sequence 1000 = 0x03E8 -> two bytes E8 03, prefix (2 << 4) | 2 = 0x22.
  expect_packet(PacketType::kConnectionChallenge, 1000, challenge_body(),
                hand_packet(0x22, {0xE8, 0x03}, 1000, challenge_body(), kServerToClient), kReferenceChallengePacketDigest);
}

TEST(NetcodeGolden, ResponsePacket) {
  // Sequence 0x010203 -> three bytes 03 02 01, prefix (3 << 4) | 3 = 0x33.
  expect_packet(PacketType::kConnectionResponse, 0x010203, challenge_body(),
                hand_packet(0x33, {0x03, 0x02, 0x01}, 0x010203, challenge_body(), kServerToClient),
                kReferenceResponseDigest);
}

TEST(NetcodeGolden, KeepAlivePacket) {
  // Sequence 0 still takes one byte: prefix (1 << 4) | 4 = 0x14. Body: client index 7, max clients 64.
  const Bytes body = {7, 0, 0, 0, 64, 0, 0, 0};
  expect_packet(PacketType::kKeepAlive, 0, body, hand_packet(0x14, {0x00}, 0, body, kServerToClient),
                kReferenceKeepAliveDigest);
}

TEST(NetcodeGolden, PayloadPacket) {
  // Sequence 0xFF -> one byte, prefix 0x15.
  const Bytes body = {'h', 'e', 'l', 'l', 'o'};
  expect_packet(PacketType::kPayload, 0xFF, body, hand_packet(0x15, {0xFF}, 0xFF, body, kServerToClient),
                kReferencePayloadDigest);
}

TEST(NetcodeGolden, DisconnectPacket) {
  // Sequence 2^56 -> eight bytes, prefix (8 << 4) | 6 = 0x86.
  expect_packet(PacketType::kDisconnect, 0x0100000000000000ull, {},
                hand_packet(0x86, {0, 0, 0, 0, 0, 0, 0, 0x01}, 0x0100000000000000ull, {}, kServerToClient),
                kReferenceDisconnectDigest);
}

TEST(NetcodeGolden, MinimalSequenceEncoding) {
  EXPECT_EQ(sequence_bytes(0), 1);
  EXPECT_EQ(sequence_bytes(0xFF), 1);
  EXPECT_EQ(sequence_bytes(0x100), 2);
  EXPECT_EQ(sequence_bytes(1000), 2);
  EXPECT_EQ(sequence_bytes(0xFFFFFF), 3);
  EXPECT_EQ(sequence_bytes(0x00FFFFFFFFFFFFFFull), 7);
  EXPECT_EQ(sequence_bytes(0x0100000000000000ull), 8);
  EXPECT_EQ(sequence_bytes(UINT64_MAX), 8);
}

TEST(NetcodeGolden, ReadersRefuseMalformedTokens) {
  std::array<uint8_t, kConnectTokenBytes> out{};
  ASSERT_TRUE(write_connect_token(fixed_token(), std::as_writable_bytes(std::span(out))));
  const char* reason = nullptr;
  ConnectToken token;
  auto bad = out;
  bad[12] = 'x';  // the version's terminator
  EXPECT_FALSE(read_connect_token(std::as_bytes(std::span(bad)), token, &reason));
  EXPECT_STREQ(reason, "version info is not \"NETCODE 1.02\"");
  const size_t count_at = 13 + 8 + 8 + 8 + 24 + 1024 + 4;
  bad = out;
  bad[count_at] = 33;
  EXPECT_FALSE(read_connect_token(std::as_bytes(std::span(bad)), token, &reason));
  EXPECT_STREQ(reason, "number of server addresses outside [1, 32]");
  bad = out;
  bad[count_at] = 0;
  EXPECT_FALSE(read_connect_token(std::as_bytes(std::span(bad)), token, &reason));
  bad = out;
  bad[count_at + 4] = 3;  // address type 3
  EXPECT_FALSE(read_connect_token(std::as_bytes(std::span(bad)), token, &reason));
  EXPECT_STREQ(reason, "server address type is neither 1 (IPv4) nor 2 (IPv6)");
  bad = out;
  bad[13 + 8] = 0xFF;  // create timestamp far after expire
  bad[13 + 8 + 7] = 0xFF;
  EXPECT_FALSE(read_connect_token(std::as_bytes(std::span(bad)), token, &reason));
  EXPECT_STREQ(reason, "create timestamp after expire timestamp");

  ConnectTokenParams params = fixed_params();
  params.server_addresses.count = 0;
  EXPECT_FALSE(build_connect_token(params, kPrivateKey, kClientToServer, kServerToClient, fixed_nonce(), token, &reason));
  EXPECT_STREQ(reason, "number of server addresses must be in [1, 32]");
  params = fixed_params();
  params.server_addresses.items[1] = params.server_addresses.items[1].with_port(0);
  EXPECT_FALSE(build_connect_token(params, kPrivateKey, kClientToServer, kServerToClient, fixed_nonce(), token, &reason));
  EXPECT_STREQ(reason, "server address with port 0");
}

TEST(NetcodeGolden, ThirtyTwoIPv6AddressesFitBothParts) {
  ConnectTokenParams params = fixed_params();
  params.server_addresses.count = 32;
  for (int i = 0; i < 32; ++i) {
    params.server_addresses.items[i] =
        Address::ipv6({0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, static_cast<uint16_t>(i)}, 65535);
  }
  ConnectToken token;
  ASSERT_TRUE(build_connect_token(params, kPrivateKey, kClientToServer, kServerToClient, fixed_nonce(), token));
  std::array<uint8_t, kConnectTokenBytes> out{};
  ASSERT_TRUE(write_connect_token(token, std::as_writable_bytes(std::span(out))));
  ConnectToken back;
  ASSERT_TRUE(read_connect_token(std::as_bytes(std::span(out)), back));
  EXPECT_EQ(back, token);
  auto sealed = token.private_data;
  ASSERT_TRUE(decrypt_connect_token_private(std::as_writable_bytes(std::span(sealed)), kProtocolId,
                                            token.expire_timestamp, fixed_nonce(), kPrivateKey));
  ConnectTokenPrivate plain;
  ASSERT_TRUE(read_connect_token_private(std::as_bytes(std::span(sealed)), plain));
  EXPECT_EQ(plain.server_addresses, params.server_addresses);
}

}  // namespace
}  // namespace bitwire::netcode
