// Helpers shared by the idlc tests: compile schema text from memory and read diagnostics as lines.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "check/check.hpp"
#include "frontend/diagnostics.hpp"
#include "model/model.hpp"

namespace idlc::test {

struct Compiled {
  Diagnostics diagnostics;
  std::unique_ptr<model::Schema> schema;
  // `line:col: message` per error in source order (notes as `line:col: note: message`); errors in
  // files other than `path` are prefixed with their file name.
  std::string errors;
  const model::Package& package() const { return *schema->roots.front(); }
};

inline std::string diagnostic_lines(const Diagnostics& diagnostics, const std::string& root) {
  std::string out;
  auto place = [&](const Diagnostic& d) {
    if (d.file == nullptr) return std::string();
    LineColumn lc = diagnostics.line_column(*d.file, d.offset);
    std::string prefix = d.file->path == root ? "" : d.file->path + ":";
    return prefix + std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": ";
  };
  for (const Diagnostic* d : diagnostics.sorted()) {
    out += place(*d) + d->message + "\n";
    for (const Diagnostic& note : d->notes) out += place(note) + "note: " + note.message + "\n";
  }
  return out;
}

inline std::unique_ptr<Compiled> compile_text(const std::string& text,
                                              const std::map<std::string, std::string>& imports = {},
                                              const std::string& path = "test.net") {
  auto result = std::make_unique<Compiled>();
  result->schema = compile_source(path, text, result->diagnostics, imports);
  result->errors = diagnostic_lines(result->diagnostics, path);
  return result;
}

// Compiles `body` after a `package t;` line and returns the model or fails the test with the errors.
#define IDLC_COMPILE_OK(compiled, text)                         \
  auto compiled = ::idlc::test::compile_text(text);             \
  ASSERT_TRUE(compiled->schema != nullptr) << compiled->errors; \
  ASSERT_EQ(compiled->errors, "")

}  // namespace idlc::test
