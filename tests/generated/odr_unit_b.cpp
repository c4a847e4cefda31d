// ODR unit B: includes the generated headers in another order (see odr_unit.hpp).
#include "common.hpp"
#include "constructs.hpp"
#include "game.hpp"
#include "odr_unit_body.hpp"

namespace odr {

UnitReport run_unit_b(uint64_t seed) {
  return run_unit<2>(seed);
}

}  // namespace odr
