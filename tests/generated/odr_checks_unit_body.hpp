// The body of both units of odr_checks_test (see odr_checks_unit.hpp). Included after constructs.hpp.
#pragma once

#include <cstddef>

#include "odr_checks_unit.hpp"

namespace odr_checks {

namespace {  // internal linkage: each unit keeps its own report()

Report report() {
  Report r;
  r.checks = bitwire::kSerializeChecks;
  r.protocol_id = demo::constructs::ProtocolId;
  r.max_bits = demo::constructs::Directives::MaxBits;
  r.protocol_id_address = &demo::constructs::ProtocolId;
  // The member template's instantiation, through a volatile pointer so that the call is not inlined and
  // reaches the definition the linker kept (one per mangled name).
  bool (demo::constructs::Directives::*volatile serialize)(bitwire::WriteStream&) =
      &demo::constructs::Directives::serialize<bitwire::WriteStream>;
  demo::constructs::Directives directives;
  std::byte buffer[64] = {};
  bitwire::WriteStream writer(buffer);
  (directives.*serialize)(writer);
  r.written_bits = writer.bits_processed();
  return r;
}

}  // namespace
}  // namespace odr_checks
