// Compiling the real schemas/*.net (or edited copies of their text) with idlc's library at test time,
// for tests that compare generated constants with the compiler's model. Needs idlc_lib and
// BITWIRE_SCHEMAS_DIR.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "check/check.hpp"
#include "frontend/diagnostics.hpp"
#include "model/model.hpp"

namespace bitwire::test::gen {

inline std::string read_schema(const std::string& name) {
  std::ifstream in(std::string(BITWIRE_SCHEMAS_DIR) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Compiled {
  idlc::Diagnostics diagnostics;
  std::unique_ptr<idlc::model::Schema> schema;
};

// Compiles `root` (the text of schemas/<name>) with `imports` (file name -> text) from memory.
inline std::unique_ptr<Compiled> compile(const std::string& name, const std::string& root,
                                         const std::map<std::string, std::string>& imports = {}) {
  auto compiled = std::make_unique<Compiled>();
  compiled->schema = idlc::compile_source(name, root, compiled->diagnostics, imports);
  EXPECT_TRUE(compiled->schema != nullptr) << compiled->diagnostics.summary();
  return compiled;
}

// The root package's ProtocolId: without check markers, or with them (BITWIRE_SERIALIZE_CHECKS=1).
inline uint64_t protocol_id(const std::string& name, const std::string& root,
                            const std::map<std::string, std::string>& imports = {}, bool checks = false) {
  auto compiled = compile(name, root, imports);
  if (!compiled->schema) return 0;
  const idlc::model::Package& package = *compiled->schema->roots.front();
  return checks ? package.protocol_id_with_checks : package.protocol_id;
}

}  // namespace bitwire::test::gen
