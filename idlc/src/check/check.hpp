// The compiler's middle end: load + parse + check a schema program into the resolved model.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/diagnostics.hpp"
#include "frontend/loader.hpp"
#include "model/model.hpp"

namespace idlc {

// Loads `root_paths` and every file they import, parses and checks them. Every error goes to
// `diagnostics`. Returns the model only when there was no error at all.
std::unique_ptr<model::Schema> compile(const std::vector<std::string>& root_paths, FileSystem& file_system,
                                       Diagnostics& diagnostics, const LoadOptions& options = {});

// Compiles one schema held in memory as file `path`; `imports` are further in-memory files (path ->
// text) it may import. For tests and fuzzing.
std::unique_ptr<model::Schema> compile_source(const std::string& path, const std::string& text,
                                              Diagnostics& diagnostics,
                                              const std::map<std::string, std::string>& imports = {});

}  // namespace idlc
