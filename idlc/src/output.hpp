// Writing generated headers to disk: one header per package of the schema (imported packages too, since
// a header includes the headers of its imports), and optionally a Makefile-style depfile naming every
// schema read, so build systems regenerate when an imported schema changes.
#pragma once

#include <string>

#include "model.hpp"

namespace idlc {

// Writes the headers into `out_dir` (created if missing). A header whose content is unchanged is not
// rewritten, so its timestamp does not trigger rebuilds. Returns false with `error` set on failure.
bool write_cpp_headers(const model::Schema& schema, const std::string& out_dir, const std::string& depfile,
                       std::string& error);

}  // namespace idlc
