// Fuzzes idlc through its back end: the input is the text of a schema file, parsed, checked and, when
// it checks clean, emitted as C++ for every package. Properties: no crash, hang, assertion or unbounded
// allocation anywhere from text to header; and nothing from the schema can leave a comment of the
// header (no CR, no line that ends in a backslash).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "check/check.hpp"
#include "frontend/diagnostics.hpp"
#include "backend/cpp/emit_cpp.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  idlc::Diagnostics diagnostics;
  const std::map<std::string, std::string> imports = {
      {"common.net",
       "package common;\nconst Max = 8;\nenum Kind { A, B }\nstruct Vec3 { float x; float y; float z; }\n"}};
  std::unique_ptr<idlc::model::Schema> schema = idlc::compile_source("fuzz.net", text, diagnostics, imports);
  if (!schema) return 0;
  for (const idlc::model::Package& package : schema->packages) {
    const std::string header = idlc::emit_cpp_header(package);
    if (header.find('\r') != std::string::npos) std::abort();
    if (header.find("\\\n") != std::string::npos) std::abort();
  }
  return 0;
}
