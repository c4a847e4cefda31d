// The benchmark back end (idlc --random / --bench): for a package, a header of random valid instances
// (`<stem>_random.hpp`: one `bitwire::random_fill(bitwire::Random&, T&)` per struct, enum and flag set)
// and a Google Benchmark program (`<stem>_bench.cpp`: write, read and measure of every message, wire
// bytes as counters). Both sit next to the package's header (emit_cpp.hpp) and include it; nothing here
// changes what that header holds.
#pragma once

#include <string>

#include "model/model.hpp"

namespace idlc {

std::string cpp_random_header_name(const model::Package& package);  // "game.net" -> "game_random.hpp"
std::string cpp_bench_source_name(const model::Package& package);   // "game.net" -> "game_bench.cpp"

// The texts. Deterministic: the same model gives the same bytes.
std::string emit_cpp_random_header(const model::Package& package);
std::string emit_cpp_bench_source(const model::Package& package);

// Writes `<stem>_random.hpp` for every package of the schema (imports included: a random header includes
// those of its imports) and, with `bench`, `<stem>_bench.cpp` for every package named on the command
// line. Unchanged files are not rewritten. Returns false with `error` set on failure.
bool write_cpp_bench_files(const model::Schema& schema, const std::string& out_dir, bool bench, std::string& error);

}  // namespace idlc
