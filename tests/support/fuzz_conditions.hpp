// One fuzz input byte as simulated link conditions, shared by the connection fuzzers so that a corpus byte
// means the same link in each: bits 0-2 loss (0-84%), 3-4 duplicates and 5-6 reordering (0-60%), bit 7
// latency (0 or 40 ms).
#pragma once

#include <cstdint>

#include "bitwire/sim/simulator.hpp"

namespace bitwire::test {

inline NetworkConditions fuzz_conditions(uint8_t arg) {
  NetworkConditions conditions;
  conditions.loss_percent = (arg & 7) * 12.0;
  conditions.duplicate_percent = ((arg >> 3) & 3) * 20.0;
  conditions.reorder_percent = ((arg >> 5) & 3) * 20.0;
  conditions.latency_ms = (arg >> 7) * 40.0;
  return conditions;
}

}  // namespace bitwire::test
