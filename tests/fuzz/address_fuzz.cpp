// Property: any text the address parser accepts prints to a text that parses to the same Address, and
// printing that Address again gives the same text (print is canonical). Refusals must carry a reason.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "bitwire/transport/address.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  bitwire::Address first;
  const char* error = bitwire::parse_address(text, first);
  if (error != nullptr) {
    if (error[0] == '\0') std::abort();
    return 0;
  }
  char printed[bitwire::kMaxAddressText];
  const size_t n = first.print(printed);
  if (n >= bitwire::kMaxAddressText) std::abort();
  bitwire::Address second;
  if (bitwire::parse_address(std::string_view(printed, n), second) != nullptr) std::abort();
  if (!(second == first) || second.hash() != first.hash()) std::abort();
  char again[bitwire::kMaxAddressText];
  const size_t m = second.print(again);
  if (m != n || std::memcmp(printed, again, n) != 0) std::abort();
  return 0;
}
