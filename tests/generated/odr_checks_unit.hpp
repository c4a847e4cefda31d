// Two translation units of one program that include constructs.hpp (whose wire depends on
// BITWIRE_SERIALIZE_CHECKS), one built with check markers and one without (odr_checks_test.cpp). Each
// reports what it sees; the test checks that the two settings keep distinct definitions instead of
// one silently replacing the other at link time.
#pragma once

#include <cstddef>
#include <cstdint>

namespace odr_checks {

struct Report {
  bool checks = false;                 // bitwire::kSerializeChecks in the unit
  std::uint64_t protocol_id = 0;       // demo::constructs::ProtocolId as the unit sees it
  std::size_t max_bits = 0;            // Directives::MaxBits
  const void* protocol_id_address = nullptr;
  std::size_t written_bits = 0;        // bits a default Directives writes through the unit's serialize
};

Report with_checks();     // built with BITWIRE_SERIALIZE_CHECKS=1
Report without_checks();  // built with BITWIRE_SERIALIZE_CHECKS=0

}  // namespace odr_checks
