// The C++ back end: per schema package one header, holding plain structs with one templated
// serialize(Stream&) that writes, reads and measures through the bitwire runtime, plus MaxBits, operator==,
// formatting, the package's MessageType, serialize_message and ProtocolId; and the source files defining
// the package's message factory (every message's serialize for the four stream kinds, compiled once per
// program instead of in every file that dispatches messages, spread over as many files as asked).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "model/model.hpp"

namespace idlc {

// The header's file name: the schema file's stem plus ".hpp" ("game.net" -> "game.hpp"). Imports are
// included by this name, so every header of a program goes to one directory.
std::string cpp_header_name(const model::Package& package);

// What to emit besides serialization.
struct CppOptions {
  // Readable text for logs: format_value() and to_string() for structs, flag sets and enums'
  // format_value(). Off (idlc --no-format) leaves them and bitwire/serialize/format.hpp out of the header.
  bool format = true;
  // Source files the package's message factory is spread over: NAME.cpp, then NAME_factory_1.cpp ...
  //   kFactorySourcesAuto (idlc's default, --factory-sources auto): chosen from the package, one file per
  //     kMinMessagesPerFactorySource messages (rounded down, at least 1), at most kAutoMaxFactorySources
  //     files;
  //   N in [1, kMaxFactorySources] (--factory-sources N; idlc_generate): exactly N files whatever the schema
  //     holds, so a build system knows them before idlc runs; those the package does not fill are empty.
  int factory_sources = 0;
};

inline constexpr int kFactorySourcesAuto = 0;
inline constexpr int kMaxFactorySources = 64;

// A factory source file holds at least this many messages (unless the package has fewer). Each file that
// holds any includes the package's header, which costs about as much to compile as a few messages' entry
// points; at this share the header is a fifth of a file's compile time with g++ -O2 on a package of 200
// typical messages (bench/RESULTS.md, "The factory's source files"), and a file takes about 20 s and
// 0.5 GB instead of the 100-130 s and up to 1.7 GB of 200 messages in one file.
inline constexpr std::size_t kMinMessagesPerFactorySource = 25;

// What kFactorySourcesAuto chooses at most: more files than a build machine has cores only add header
// parses (a larger package gets larger shares instead).
inline constexpr int kAutoMaxFactorySources = 16;

// The number of source files of `package`'s factory: options.factory_sources clamped to
// [1, kMaxFactorySources], or for kFactorySourcesAuto the package's own count (above).
int factory_source_count(const model::Package& package, const CppOptions& options);

// The messages (by index in type-id order, [first, last)) whose entry points source file `index` of
// `files` defines: contiguous shares of nearly equal size over as many files as hold at least
// kMinMessagesPerFactorySource messages each; the other files get an empty range.
std::pair<std::size_t, std::size_t> factory_share(std::size_t messages, int files, int index);

// The source file's name: the schema file's stem plus ".cpp", next to the header.
std::string cpp_source_name(const model::Package& package);

// Every source file's name, in order: cpp_source_name, then STEM_factory_1.cpp ... (one per further file).
std::vector<std::string> cpp_source_names(const model::Package& package, const CppOptions& options = {});

// The header's text. Deterministic: the same model gives the same bytes.
std::string emit_cpp_header(const model::Package& package, const CppOptions& options = {});

// The text of source file `index` (of cpp_source_names): file 0 defines message_factory(), the table of
// every message's entry points for the four stream kinds; each file defines the entry points of its share
// of the messages (factory_share). A file with no share (and the one file of a package without messages)
// is a comment: an empty translation unit. A file that holds any includes the header.
std::string emit_cpp_source(const model::Package& package, const CppOptions& options = {}, int index = 0);

}  // namespace idlc
