// ODR unit A: includes the generated headers in one order (see odr_unit.hpp).
#include "common.hpp"
#include "constructs.hpp"
#include "game.hpp"
#include "odr_unit_body.hpp"

namespace odr {

UnitReport run_unit_a(uint64_t seed) {
  return run_unit<1>(seed);
}

}  // namespace odr
