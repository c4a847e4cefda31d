// The C++ back end: one header per schema package, holding plain structs with one templated
// serialize(Stream&) that writes, reads and measures through the bitwire runtime, plus MaxBits, operator==,
// formatting, the package's MessageType, message factory, serialize_message and ProtocolId.
#pragma once

#include <string>

#include "model.hpp"

namespace idlc {

// The header's file name: the schema file's stem plus ".hpp" ("game.net" -> "game.hpp"). Imports are
// included by this name, so every header of a program goes to one directory.
std::string cpp_header_name(const model::Package& package);

// The header's text. Deterministic: the same model gives the same bytes.
std::string emit_cpp_header(const model::Package& package);

}  // namespace idlc
