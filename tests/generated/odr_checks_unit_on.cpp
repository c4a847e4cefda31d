// odr_checks_test's unit built with check markers.
#define BITWIRE_SERIALIZE_CHECKS 1
#include "constructs.hpp"
#include "odr_checks_unit_body.hpp"

namespace odr_checks {

Report with_checks() { return report(); }

}  // namespace odr_checks
