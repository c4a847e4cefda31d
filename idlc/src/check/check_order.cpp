// Orders the structs of a package so that each is checked after the structs its fields use, without
// recursion: a chain of thousands of nested structs (or one with deep if blocks at every level) must not
// exhaust the stack. Containment cycles are reported here, at the reference that closes them.
#include <set>

#include "check/checker.hpp"

namespace idlc::detail {

// The structs of this package that the fields of `symbol`'s struct use, in source order.
std::vector<std::pair<const ast::TypeExpr*, Symbol*>> Checker::struct_dependencies(Symbol& symbol) {
  std::vector<std::pair<const ast::TypeExpr*, Symbol*>> uses;
  const auto& decl = *static_cast<const ast::StructDecl*>(symbol.decl);
  std::vector<std::pair<const std::vector<ast::Item>*, std::size_t>> pending{{&decl.items, 0}};
  while (!pending.empty()) {
    auto& [items, next] = pending.back();
    if (next == items->size()) {
      pending.pop_back();
      continue;
    }
    const ast::Item& item = (*items)[next++];
    if (const auto* field = get_if<ast::Field>(item)) {
      const ast::TypeExpr& type = field->type;
      Symbol* used = find_symbol(type.name, type.name.size(), *symbol.scope, nullptr);
      if (used != nullptr && used->kind == model::DeclKind::Struct && used->scope == symbol.scope) {
        uses.emplace_back(&type, used);
      }
    } else if (const auto* block = get_if<ast::Box<ast::IfBlock>>(item)) {
      // Visit the else side after the then side: push it first.
      pending.emplace_back(&block->get().else_items, 0);
      pending.emplace_back(&block->get().then_items, 0);
    }
  }
  return uses;
}

void Checker::resolve_structs_in_dependency_order(Scope& scope) {
  enum class Color { White, Gray, Black };
  std::map<const Symbol*, Color> color;
  struct Frame {
    Symbol* symbol;
    std::vector<std::pair<const ast::TypeExpr*, Symbol*>> uses;
    std::size_t next = 0;
  };
  for (Symbol& root : scope.symbols) {
    if (root.kind != model::DeclKind::Struct || color[&root] != Color::White) continue;
    std::vector<Frame> stack;
    color[&root] = Color::Gray;
    stack.push_back(Frame{&root, struct_dependencies(root)});
    while (!stack.empty()) {
      Frame& frame = stack.back();
      if (frame.next == frame.uses.size()) {
        color[frame.symbol] = Color::Black;
        Symbol* done = frame.symbol;
        stack.pop_back();
        // Every struct it uses is resolved (or failed, or a reported cycle edge): shallow recursion.
        resolve(*done, nullptr, 0);
        continue;
      }
      auto [type, used] = frame.uses[frame.next++];
      Color& c = color[used];
      if (c == Color::Black) continue;
      if (c == Color::Gray) {
        std::string chain;
        bool in_cycle = false;
        for (const Frame& f : stack) {
          if (f.symbol == used) in_cycle = true;
          if (in_cycle) chain += f.symbol->name + " -> ";
        }
        chain += used->name;
        error(
            scope, type->name.back().offset,
            "'" + used->name + "' depends on itself (" + chain +
                "); a struct is stored inline, so it cannot contain itself, even through arrays or optional "
                "fields: break the cycle");
        cycle_edges_.insert(type);
        continue;
      }
      c = Color::Gray;
      stack.push_back(Frame{used, struct_dependencies(*used)});
    }
  }
}

}  // namespace idlc::detail
