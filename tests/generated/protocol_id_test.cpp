// ProtocolId in the generated headers: it is the compiler's fingerprint of the schema as it is now, it
// differs between packages, it survives comment, doc-comment and whitespace changes to the real schema
// files, and it changes with a wire-relevant edit. (idlc's own tests cover the fingerprint rules on
// small schemas; these run the real schemas/*.net through idlc's library at test time.)
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "common.hpp"
#include "constructs.hpp"
#include "game.hpp"
#include "schema_compile.hpp"

namespace {

using bitwire::test::gen::protocol_id;
using bitwire::test::gen::read_schema;

// The schema with every comment removed and all whitespace runs (outside string literals) squeezed or
// stretched: the same tokens, laid out differently.
std::string reformat(const std::string& text, bool stretch) {
  std::string out;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;  // line and doc comments
      out += '\n';
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      i += 2;
      while (i + 1 < text.size() && !(text[i] == '*' && text[i + 1] == '/')) ++i;
      ++i;
      out += ' ';
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!out.empty() && out.back() != ' ' && out.back() != '\n') out += stretch ? "\n\t  /* x */ " : " ";
    } else {
      out += c;
    }
  }
  return out;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

class ProtocolIdOfSchemas : public ::testing::Test {
 protected:
  std::string common_ = read_schema("common.net");
  std::string game_ = read_schema("game.net");
  std::string constructs_ = read_schema("constructs.net");
  std::map<std::string, std::string> imports_{{"common.net", common_}};
};

TEST_F(ProtocolIdOfSchemas, GeneratedConstantsAreTheCompilersFingerprints) {
  EXPECT_EQ(game::ProtocolId, protocol_id("game.net", game_, imports_));
  EXPECT_EQ(common::ProtocolId, protocol_id("common.net", common_));
  // This test is built without BITWIRE_SERIALIZE_CHECKS: the id without check markers.
  EXPECT_EQ(demo::constructs::ProtocolId, protocol_id("constructs.net", constructs_, imports_));
}

TEST_F(ProtocolIdOfSchemas, DiffersBetweenPackages) {
  EXPECT_NE(game::ProtocolId, common::ProtocolId);
  EXPECT_NE(game::ProtocolId, demo::constructs::ProtocolId);
  EXPECT_NE(common::ProtocolId, demo::constructs::ProtocolId);
}

TEST_F(ProtocolIdOfSchemas, StableAcrossCommentsAndWhitespace) {
  for (bool stretch : {false, true}) {
    SCOPED_TRACE(stretch ? "stretched" : "squeezed");
    const std::string game = reformat(game_, stretch);
    const std::string common = reformat(common_, stretch);
    ASSERT_EQ(game.find("///"), std::string::npos);
    EXPECT_EQ(protocol_id("game.net", game, {{"common.net", common}}), game::ProtocolId);
    EXPECT_EQ(protocol_id("common.net", common), common::ProtocolId);
    EXPECT_EQ(protocol_id("constructs.net", reformat(constructs_, stretch), {{"common.net", common}}),
              demo::constructs::ProtocolId);
  }
  // Default values do not reach the wire either.
  EXPECT_EQ(
      protocol_id("game.net", replaced(game_, "int<0 .. 100> health = 100;", "int<0 .. 100> health = 7;"),
                  imports_),
      game::ProtocolId);
}

TEST_F(ProtocolIdOfSchemas, ChangesWithTheWireShape) {
  const std::pair<const char*, const char*> edits[] = {
      {"res 0.01> yaw", "res 0.02> yaw"},
      {"uint<0 .. 7> clips;", "uint<0 .. 8> clips;"},
      {"Weapon switch_to?;", "Weapon switch_to;"},
      {"string<64> level", "string<65> level"},
      {"EntityState entities[0 .. MaxEntities];", "EntityState entities[1 .. MaxEntities];"},
      {"enum ChatChannel { All, Team, Whisper }", "enum ChatChannel { All, Whisper, Team }"},
  };
  for (const auto& [from, to] : edits) {
    EXPECT_NE(protocol_id("game.net", replaced(game_, from, to), imports_), game::ProtocolId)
        << from << " -> " << to;
  }
  // An imported struct's shape is part of the importing package's id.
  EXPECT_NE(protocol_id("game.net", game_,
                        {{"common.net", replaced(common_, "int<-511 .. 511> c;", "int<-512 .. 511> c;")}}),
            game::ProtocolId);
}

}  // namespace
