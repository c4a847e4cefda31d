// The C++ back end: per schema package one header, holding plain structs with one templated
// serialize(Stream&) that writes, reads and measures through the bitwire runtime, plus MaxBits, operator==,
// formatting, the package's MessageType, serialize_message and ProtocolId; and one source file defining
// the package's message factory (every message's serialize for the four stream kinds, compiled once per
// program instead of in every file that dispatches messages).
#pragma once

#include <string>

#include "model.hpp"

namespace idlc {

// The header's file name: the schema file's stem plus ".hpp" ("game.net" -> "game.hpp"). Imports are
// included by this name, so every header of a program goes to one directory.
std::string cpp_header_name(const model::Package& package);

// What to emit besides serialization.
struct CppOptions {
  // Readable text for logs: format_value() and to_string() for structs, flag sets and enums'
  // format_value(). Off (idlc --no-format) leaves them and bitwire/format.hpp out of the header.
  bool format = true;
};

// The source file's name: the schema file's stem plus ".cpp", next to the header.
std::string cpp_source_name(const model::Package& package);

// The header's text. Deterministic: the same model gives the same bytes.
std::string emit_cpp_header(const model::Package& package, const CppOptions& options = {});

// The source file's text: message_factory() for a package with messages, else a comment (an empty
// translation unit). It includes the header.
std::string emit_cpp_source(const model::Package& package, const CppOptions& options = {});

}  // namespace idlc
