// Round-trips a message of the second protocol and touches the packet endpoint, so the installed static
// library is linked too. Exit status 0 when everything matches.
#include <array>
#include <cstdio>

#include "bitwire/packet/endpoint.hpp"
#include "lobby.hpp"

int main() {
  lobby::Join join;
  join.player = 4242;
  join.spectator = true;
  std::array<std::byte, lobby::Join::MaxBytes> buffer{};
  const size_t size = bitwire::write_object(buffer, join);
  lobby::Join received;
  const bool ok = static_cast<bool>(bitwire::read_object(std::span<const std::byte>(buffer.data(), size), received));
  const bool endpoint_ok = bitwire::Endpoint::memory_required(bitwire::EndpointConfig{}) > 0;
  std::printf("my_lobby: %zu bytes, %s\n", size, ok && received == join ? "round trip ok" : "MISMATCH");
  return ok && received == join && endpoint_ok ? 0 : 1;
}
