// Fuzzes idlc's front and middle end: the input is the text of a schema file, parsed and checked from
// memory (it may import itself or a small fixed helper file). Any input must end in a model or in
// diagnostics: no crash, hang, assertion or unbounded allocation. The fingerprint and the layout run
// on every model that checks clean, and formatting runs on every diagnostic.
#include <cstddef>
#include <cstdint>
#include <string>

#include "check/check.hpp"
#include "frontend/diagnostics.hpp"
#include "model/layout.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  idlc::Diagnostics diagnostics;
  const std::map<std::string, std::string> imports = {
      {"common.net",
       "package common;\nconst Max = 8;\nenum Kind { A, B }\nstruct Vec3 { float x; float y; float z; }\n"}};
  std::unique_ptr<idlc::model::Schema> schema = idlc::compile_source("fuzz.net", text, diagnostics, imports);
  if (schema) {
    for (const idlc::model::Package& package : schema->packages) {
      (void)idlc::layout_text(package);
      (void)idlc::layout_json(package);
    }
  }
  for (const idlc::Diagnostic* d : diagnostics.sorted()) (void)diagnostics.format(*d);
  return 0;
}
