// Round-trips one generated message through the installed runtime, and touches the packet endpoint so the
// installed static library is linked too. Exit status 0 when everything matches.
#include <array>
#include <cstdio>

#include "bitwire/endpoint.hpp"
#include "shooter.hpp"

int main() {
  shooter::Hello hello;
  hello.name = "downstream";
  hello.team = shooter::Team::Blue;
  hello.rating = 733;
  std::array<std::byte, shooter::Hello::MaxBytes> buffer{};
  const size_t size = bitwire::write_object(buffer, hello);
  shooter::Hello received;
  const bool ok = static_cast<bool>(bitwire::read_object(std::span<const std::byte>(buffer.data(), size), received));
  const bool endpoint_ok = bitwire::Endpoint::memory_required(bitwire::EndpointConfig{}) > 0;
  std::printf("downstream: %zu bytes, %s, %s\n", size, ok && received == hello ? "round trip ok" : "MISMATCH",
              shooter::to_string(received).c_str());
  return ok && received == hello && endpoint_ok ? 0 : 1;
}
