// bitwire_token: makes a netcode 1.02 connect token for development, as a backend would.
//
//   bitwire_token --new-key > dev.key                      # 32 random bytes as 64 hex digits
//   bitwire_token --key-file dev.key --protocol-id 0x1234 --client-id 7 --server 127.0.0.1:40000 --out
//   token.bin BITWIRE_PRIVATE_KEY=$(cat dev.key) bitwire_token --protocol-id 0x1234 --client-id 7 --server
//   [::1]:40000 --hex
//
// The private key comes from --key-file or from the environment variable named by --key-env (default
// BITWIRE_PRIVATE_KEY); there is no built-in key in any build. The token is written raw (2048 bytes) to
// --out, or as hex to stdout with --hex. --help prints the usage and which protocol id a token needs. Exit
// codes: 0 ok (and --help), 1 a refused input, 2 usage.
//
// The protocol id: a bitwire Server accepts tokens for stack_protocol_id(factory, config) -- the schema's id
// (`idlc --layout` prints it) folded with the StackConfig's channel layout -- which only the game's binary
// knows. The server reports it as Server::protocol_id() and logs it at kInfo when it starts; a token made
// with the schema's id is refused ("request for another protocol id" in the server's log).
#include <cerrno>
#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <string_view>

#include "bitwire/netcode/token.hpp"

namespace {

using bitwire::netcode::Key;

constexpr const char* kUsage =
    "usage: bitwire_token --new-key\n"
    "       bitwire_token [--key-file FILE | --key-env NAME] --protocol-id N --client-id N\n"
    "                     --server ADDRESS [--server ADDRESS ...] [--expire SECONDS] [--timeout SECONDS]\n"
    "                     [--user-data HEX] [--now UNIX_SECONDS] (--out FILE | --hex)\n"
    "       bitwire_token --help\n";

int usage(const char* message) {
  if (message != nullptr) std::fprintf(stderr, "bitwire_token: %s\n", message);
  std::fprintf(stderr, "%s(see --help)\n", kUsage);
  return 2;
}

int help() {
  std::printf(
      "bitwire_token: makes a netcode 1.02 connect token for development, as a game's backend would.\n\n%s\n"
      "options:\n"
      "  --new-key            print a new random private key (64 hex digits) and exit\n"
      "  --key-file FILE      the server's private key, 64 hex digits\n"
      "  --key-env NAME       ... or from this environment variable (default BITWIRE_PRIVATE_KEY)\n"
      "  --protocol-id N      the id the server accepts: for a bitwire Server, its stack protocol id\n"
      "                       (Server::protocol_id() = stack_protocol_id(factory, config), which the server\n"
      "                       logs at start: 'server ... protocol id 0x...'), NOT the schema's ProtocolId "
      "that\n"
      "                       `idlc --layout` prints: the stack folds the channel layout into it. A token "
      "for\n"
      "                       another id is refused (the server logs 'request for another protocol id')\n"
      "  --client-id N        the client's unique id (64 bits)\n"
      "  --server ADDRESS     a server the client may connect to (1..32, tried in order): 127.0.0.1:40000,\n"
      "                       [::1]:40000\n"
      "  --expire SECONDS     token lifetime (default 30)\n"
      "  --timeout SECONDS    seconds of silence before either end drops the connection (default 10; -1: "
      "never)\n"
      "  --user-data HEX      up to 256 bytes handed to the server with the connection\n"
      "  --now UNIX_SECONDS   creation time (default: now)\n"
      "  --out FILE           write the 2048-byte token to FILE\n"
      "  --hex                print the token as hex to stdout\n"
      "  --help, -h           this text\n\n"
      "exit status: 0 success, 1 a refused input (key, address, token), 2 usage errors\n",
      kUsage);
  return 0;
}

bool parse_u64(const char* text, uint64_t& out) {
  if (text == nullptr || *text == '\0' || *text == '-') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 0);
  if (errno != 0 || *end != '\0') return false;
  out = value;
  return true;
}

// Exactly 2 * out.size() hex digits into `out`.
bool parse_hex(std::string_view text, std::span<std::byte> out) {
  if (text.size() != 2 * out.size()) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<std::byte>(hi * 16 + lo);
  }
  return true;
}

std::string trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

void print_hex(std::span<const std::byte> bytes) {
  for (const std::byte b : bytes) std::printf("%02x", std::to_integer<unsigned>(b));
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (!bitwire::netcode::crypto_init()) {
    std::fprintf(stderr, "bitwire_token: libsodium failed to initialise\n");
    return 1;
  }
  const char* key_file = nullptr;
  const char* key_env = "BITWIRE_PRIVATE_KEY";
  const char* out_file = nullptr;
  bool hex = false, have_protocol = false, have_client = false;
  uint64_t now = static_cast<uint64_t>(std::time(nullptr));
  bitwire::netcode::ConnectTokenParams params;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    auto need = [&]() -> bool {
      if (value == nullptr) return false;
      ++i;
      return true;
    };
    uint64_t number = 0;
    if (arg == "--help" || arg == "-h") {
      return help();
    } else if (arg == "--new-key") {
      const Key key = bitwire::netcode::random_key();
      print_hex(key);
      return 0;
    } else if (arg == "--key-file") {
      if (!need()) return usage("--key-file needs a path");
      key_file = value;
    } else if (arg == "--key-env") {
      if (!need()) return usage("--key-env needs a variable name");
      key_env = value;
    } else if (arg == "--protocol-id") {
      if (!need() || !parse_u64(value, params.protocol_id)) return usage("--protocol-id needs an unsigned integer");
      have_protocol = true;
    } else if (arg == "--client-id") {
      if (!need() || !parse_u64(value, params.client_id)) return usage("--client-id needs an unsigned integer");
      have_client = true;
    } else if (arg == "--server") {
      if (!need()) return usage("--server needs an address");
      bitwire::Address address;
      if (const char* error = bitwire::parse_address(value, address)) {
        std::fprintf(stderr, "bitwire_token: --server %s: %s\n", value, error);
        return 1;
      }
      if (params.server_addresses.count == bitwire::netcode::kMaxServersPerConnect) {
        return usage("at most 32 --server addresses");
      }
      params.server_addresses.items[params.server_addresses.count++] = address;
    } else if (arg == "--expire") {
      if (!need() || !parse_u64(value, number) || number > 0x7FFFFFFF) return usage("--expire needs seconds");
      params.expire_seconds = static_cast<int>(number);
    } else if (arg == "--timeout") {
      // Negative timeouts (never time out) are for development only; the tool accepts -1 explicitly.
      if (!need()) return usage("--timeout needs seconds");
      if (std::string_view(value) == "-1") {
        params.timeout_seconds = -1;
      } else if (!parse_u64(value, number) || number > 0x7FFFFFFF) {
        return usage("--timeout needs seconds (or -1)");
      } else {
        params.timeout_seconds = static_cast<int32_t>(number);
      }
    } else if (arg == "--user-data") {
      if (!need()) return usage("--user-data needs hex");
      const std::string_view text = value;
      if (text.size() > 2 * params.user_data.size() || text.size() % 2 != 0 ||
          !parse_hex(text, std::span(params.user_data).first(text.size() / 2))) {
        return usage("--user-data needs up to 512 hex digits");
      }
    } else if (arg == "--now") {
      if (!need() || !parse_u64(value, now)) return usage("--now needs unix seconds");
    } else if (arg == "--out") {
      if (!need()) return usage("--out needs a path");
      out_file = value;
    } else if (arg == "--hex") {
      hex = true;
    } else {
      return usage(("unknown option " + std::string(arg)).c_str());
    }
  }
  if (!have_protocol || !have_client || params.server_addresses.count == 0) {
    return usage("--protocol-id, --client-id and at least one --server are required");
  }
  if ((out_file == nullptr) == !hex) return usage("give exactly one of --out FILE or --hex");

  std::string key_text;
  if (key_file != nullptr) {
    std::ifstream in(key_file);
    if (!in) {
      std::fprintf(stderr, "bitwire_token: cannot read key file %s\n", key_file);
      return 1;
    }
    key_text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } else if (const char* env = std::getenv(key_env)) {
    key_text = env;
  } else {
    std::fprintf(stderr, "bitwire_token: no private key: use --key-file FILE or set %s (make one with --new-key)\n",
                 key_env);
    return 1;
  }
  Key key;
  if (!parse_hex(trim(key_text), key)) {
    std::fprintf(stderr, "bitwire_token: the private key must be 64 hex digits\n");
    return 1;
  }
  params.create_timestamp = now;
  bitwire::netcode::ConnectToken token;
  const char* reason = nullptr;
  if (!bitwire::netcode::generate_connect_token(params, key, token, &reason)) {
    std::fprintf(stderr, "bitwire_token: %s\n", reason);
    return 1;
  }
  std::byte bytes[bitwire::netcode::kConnectTokenBytes];
  if (!bitwire::netcode::write_connect_token(token, bytes, &reason)) {
    std::fprintf(stderr, "bitwire_token: %s\n", reason);
    return 1;
  }
  if (hex) {
    print_hex(bytes);
    return 0;
  }
  std::FILE* out = std::fopen(out_file, "wb");
  if (out == nullptr || std::fwrite(bytes, 1, sizeof bytes, out) != sizeof bytes || std::fclose(out) != 0) {
    std::fprintf(stderr, "bitwire_token: cannot write %s\n", out_file);
    return 1;
  }
  std::fprintf(stderr, "bitwire_token: wrote %s (client %" PRIu64 ", expires %" PRIu64 ")\n", out_file,
               params.client_id, token.expire_timestamp);
  return 0;
}
