// The model's decisions for the delta form (docs/schema-language.md, "Delta messages"): the bit cost of
// every struct's changes against a baseline, which structs get a generated delta form, and what the
// language refuses inside one.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/model.hpp"

namespace idlc::model {

// Fills Struct::delta_changes, delta_cost and delta_max_bits_without_checks of a checked struct whose
// nested structs are complete. Every struct gets them; only the ones with delta_form use them.
void complete_delta(Struct& s);

// Sets Struct::delta_form on every struct declared `delta` and every struct of the package its fields
// reach through struct types of the same package. Returns what the delta form cannot carry, as (source
// offset, message) pairs for the checker to report.
std::vector<std::pair<std::uint32_t, std::string>> mark_delta_forms(Package& package);

}  // namespace idlc::model
