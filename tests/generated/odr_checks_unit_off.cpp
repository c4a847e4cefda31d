// odr_checks_test's unit built without check markers.
#define BITWIRE_SERIALIZE_CHECKS 0
#include "constructs.hpp"
#include "odr_checks_unit_body.hpp"

namespace odr_checks {

Report without_checks() { return report(); }

}  // namespace odr_checks
