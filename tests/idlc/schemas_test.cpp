// The schemas in schemas/: they check clean, game.net is the protocol the README describes, and
// constructs.net really exercises every construct of the language.
#include <gtest/gtest.h>

#include <set>

#include "check/check.hpp"
#include "support.hpp"

namespace {

using namespace idlc;

std::unique_ptr<model::Schema> load(const std::string& name, Diagnostics& diagnostics) {
  DiskFileSystem file_system;
  return compile({std::string(IDLC_SCHEMAS_DIR) + "/" + name}, file_system, diagnostics);
}

const model::Struct& message(const model::Package& package, const std::string& name) {
  for (const model::Struct* m : package.messages) {
    if (m->name == name) return *m;
  }
  throw std::runtime_error("no message " + name);
}

TEST(Schemas, GameProtocol) {
  Diagnostics diagnostics;
  auto schema = load("game.net", diagnostics);
  ASSERT_TRUE(schema) << test::diagnostic_lines(diagnostics, "");
  const model::Package& game = *schema->roots.front();
  EXPECT_EQ(game.name, "game");
  ASSERT_EQ(game.imports.size(), 1u);
  EXPECT_EQ(game.imports[0]->name, "common");
  std::vector<std::string> names;
  for (const model::Struct* m : game.messages) names.push_back(m->name);
  EXPECT_EQ(names, (std::vector<std::string>{"PlayerInput", "Snapshot", "Events", "ScoreUpdate", "Chat",
                                             "LevelLoad"}));
  EXPECT_EQ(game.message_type_bits, 3);
  ASSERT_TRUE(game.budget_bytes);
  for (const model::Struct* m : game.messages) {
    ASSERT_TRUE(m->budget_bytes) << m->name;
    EXPECT_LE(m->max_bytes, *m->budget_bytes) << m->name;
  }
  // A snapshot holds up to 64 entities with quantized positions and orientations.
  const model::Struct& snapshot = message(game, "Snapshot");
  const model::Field& entities = snapshot.fields.at(2);
  EXPECT_EQ(entities.shape, model::Shape::VariableArray);
  EXPECT_EQ(entities.array_max, 64u);
  const model::Struct& entity = *entities.type.structure;
  std::set<std::string> entity_types;
  for (const model::Field& f : entity.fields) {
    if (f.type.kind == model::TypeKind::Struct) entity_types.insert(f.type.structure->name);
  }
  EXPECT_TRUE(entity_types.count("Position"));
  EXPECT_TRUE(entity_types.count("Orientation"));
  EXPECT_TRUE(entity_types.count("Velocity"));
}

TEST(Schemas, ConstructsCoversEveryConstruct) {
  Diagnostics diagnostics;
  auto schema = load("constructs.net", diagnostics);
  ASSERT_TRUE(schema) << test::diagnostic_lines(diagnostics, "");
  const model::Package& p = *schema->roots.front();
  std::set<model::TypeKind> kinds;
  std::set<model::Shape> shapes;
  std::set<model::ItemKind> items;
  std::set<model::Condition::Test> tests;
  std::set<model::Value::Kind> defaults;
  std::set<model::IntEncoding> encodings;
  bool optional = false, message_field = false, imported = false, raw_width = false, declared_storage = false;
  std::function<void(const model::Struct&, const std::vector<model::Item>&)> walk =
      [&](const model::Struct& s, const std::vector<model::Item>& body) {
        for (const model::Item& item : body) {
          items.insert(item.kind);
          if (item.kind == model::ItemKind::If) {
            tests.insert(item.condition.test);
            walk(s, item.then_items);
            walk(s, item.else_items);
          }
        }
      };
  for (const model::Struct& s : p.structs) {
    walk(s, s.body);
    for (const model::Field& f : s.fields) {
      kinds.insert(f.type.kind);
      shapes.insert(f.shape);
      optional |= f.optional;
      if (f.default_value) defaults.insert(f.default_value->kind);
      if (f.type.kind == model::TypeKind::Integer) {
        encodings.insert(f.type.integer.encoding);
        raw_width |= f.type.integer.encoding == model::IntEncoding::Raw &&
                     f.type.integer.bits != f.type.integer.storage.bits;
      }
      if (f.type.kind == model::TypeKind::Struct) {
        message_field |= f.type.structure->is_message;
        imported |= f.type.structure->package != &p;
      }
    }
  }
  for (const model::Enum& e : p.enums) declared_storage |= e.storage_declared;
  EXPECT_EQ(kinds.size(), 12u) << "every TypeKind";
  EXPECT_EQ(shapes.size(), 4u) << "every Shape";
  EXPECT_EQ(items.size(), 4u) << "fields, align, check, if";
  EXPECT_EQ(tests.size(), 4u) << "if (x), if (!x), ==, !=";
  EXPECT_EQ(defaults.size(), 5u) << "every default kind";
  EXPECT_EQ(encodings.size(), 2u);
  EXPECT_TRUE(optional);
  EXPECT_TRUE(message_field);
  EXPECT_TRUE(imported);
  EXPECT_TRUE(raw_width);
  EXPECT_TRUE(declared_storage);
  EXPECT_FALSE(p.flags.empty());
  EXPECT_TRUE(p.budget_bytes);
  EXPECT_EQ(p.name_parts.size(), 2u);
  bool own_budget = false;
  for (const model::Struct* m : p.messages)
    own_budget |= m->budget_bytes && *m->budget_bytes != *p.budget_bytes;
  EXPECT_TRUE(own_budget);
  // Constant expressions: every operator, forward references, enum counts, imported constants.
  std::map<std::string, std::int64_t> constants;
  for (const model::Constant& c : p.constants) constants[c.name] = c.value;
  EXPECT_EQ(constants["Mixed"], -3);
  EXPECT_EQ(constants["Later"], 42);
  EXPECT_EQ(constants["Modes"], 7);
  EXPECT_EQ(constants["ImportedExtent"], 512);
  EXPECT_EQ(constants["Hex"], 0xFFFF);
  // Doc comments reach the model.
  EXPECT_FALSE(p.doc.empty());
}

}  // namespace
