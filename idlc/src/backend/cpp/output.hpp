// Writing generated code to disk: one header and its source files per package of the schema (imported packages too, since
// a header includes the headers of its imports), and optionally a Makefile-style depfile naming every
// schema read, so build systems regenerate when an imported schema changes.
#pragma once

#include <filesystem>
#include <string>

#include "backend/cpp/emit_cpp.hpp"
#include "model/model.hpp"

namespace idlc {

// The one output writer of every back end: writes `contents` to `path` unless the file already holds
// exactly those bytes, so an unchanged output keeps its timestamp and triggers no rebuild. Returns false
// with `error` set when the file cannot be written.
bool write_if_changed(const std::filesystem::path& path, const std::string& contents, std::string& error);

// Writes the headers and their source files (NAME.hpp, NAME.cpp and, with options.factory_sources N > 1,
// NAME_factory_1.cpp ... NAME_factory_<N-1>.cpp per package) into `out_dir`
// (created if missing). A file whose content is unchanged is not rewritten, so its timestamp does not
// trigger rebuilds. Returns false with `error` set on failure.
bool write_cpp_headers(const model::Schema& schema, const std::string& out_dir, const std::string& depfile,
                       std::string& error, const CppOptions& options = {});

}  // namespace idlc
