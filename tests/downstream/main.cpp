// Round-trips one generated message through the installed runtime headers, with nothing linked but the
// idlc_generate() target. Exit status 0 when everything matches.
#include <array>
#include <cstdio>

#include "shooter.v2.hpp"

int main() {
  shooter::Hello hello;
  hello.name = "downstream";
  hello.team = common::Team::Blue;
  hello.rating = 733;
  std::array<std::byte, shooter::Hello::MaxBytes> buffer{};
  const size_t size = bitwire::write_object(buffer, hello);
  shooter::Hello received;
  const bool ok = static_cast<bool>(bitwire::read_object(std::span<const std::byte>(buffer.data(), size), received));
  std::printf("my_game: %zu bytes, %s, %s\n", size, ok && received == hello ? "round trip ok" : "MISMATCH",
              shooter::to_string(received).c_str());
  return ok && received == hello ? 0 : 1;
}
