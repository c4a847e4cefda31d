// Files, packages and declarations: the checker's driver.
#include "check/check.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "check/checker.hpp"
#include "model/fingerprint.hpp"
#include "check/model_build.hpp"
#include "check/model_delta.hpp"
#include "frontend/lexical.hpp"
#include "frontend/names.hpp"

namespace idlc {

namespace detail {

void Checker::error(const Scope& scope, std::uint32_t offset, std::string message) {
  diagnostics_.error(*scope.source, offset, token_length(scope.source->text, offset), std::move(message));
}

void Checker::error_span(const Scope& scope, std::uint32_t offset, std::uint32_t length,
                         std::string message) {
  diagnostics_.error(*scope.source, offset, length, std::move(message));
}

void Checker::note(const Scope& scope, std::uint32_t offset, std::string message) {
  diagnostics_.note(*scope.source, offset, token_length(scope.source->text, offset), std::move(message));
}

std::string nearest_enumerator(const model::Enum& e, const std::string& name) {
  std::string best;
  std::size_t best_distance = 3;
  for (const model::Enumerator& item : e.items) {
    const std::size_t distance = edit_distance(name, item.name, 2);
    if (distance < best_distance &&
        distance < name.size()) {  // not every one-letter name is a typo of another
      best_distance = distance;
      best = item.name;
    }
  }
  return best;
}

std::string Checker::line_of(const Scope& scope, std::uint32_t offset) const {
  return "line " + std::to_string(diagnostics_.line_column(*scope.source, offset).line);
}

model::Doc Checker::doc_at(const Scope& scope, std::uint32_t offset) const {
  auto it = scope.ast->docs.find(offset);
  return it == scope.ast->docs.end() ? model::Doc{} : it->second;
}

// The first declaration must be `package`; there is exactly one.
bool Checker::check_package_decl(Scope& scope) {
  const auto& declarations = scope.ast->declarations;
  const ast::PackageDecl* package =
      declarations.empty() ? nullptr : get_if<ast::PackageDecl>(declarations.front());
  if (package == nullptr) {
    std::uint32_t at =
        declarations.empty()
            ? next_token_offset(scope.source->text, 0)
            : std::visit(
                  [](const auto& d) -> std::uint32_t {
                    if constexpr (std::is_base_of_v<ast::Positioned, std::decay_t<decltype(d)>>) {
                      return d.offset;
                    } else {
                      return 0;
                    }
                  },
                  declarations.front().get());
    error(scope, at, "a schema file starts with its package: add `package name;` (the C++ namespace) first");
    return false;
  }
  bool ok = true;
  for (std::size_t i = 1; i < declarations.size(); ++i) {
    if (const auto* again = get_if<ast::PackageDecl>(declarations[i])) {
      error(scope, again->offset,
            "the package is already declared on " + line_of(scope, package->offset) +
                ": a file has exactly one package declaration");
      note(scope, package->offset, "first declared here");
      ok = false;
    }
  }
  model::Package& model = *scope.package;
  for (const ast::Identifier& part : *package) {
    if (std::string problem = name_problem(part, NameContext::Package); !problem.empty()) {
      error(scope, part.offset, problem);
      ok = false;
    }
    model.name_parts.push_back(part);
    model.name += (model.name.empty() ? "" : ".") + part;
  }
  if (const ast::Identifier& outer = package->front();
      is_reserved_global(outer) && outer != "std" && outer != "bitwire" && !is_cpp_keyword(outer)) {
    error(scope, outer.offset,
          "'" + outer + "' is declared in the global namespace by the headers the generated code includes, " +
              "so namespace " + outer + " would collide with it: choose another outermost package name");
    ok = false;
  }
  model.doc = doc_at(scope, package->offset);
  if (auto it = packages_by_name_.find(model.name); it != packages_by_name_.end()) {
    error(scope, package->front().offset,
          "package '" + model.name + "' is also declared by " + it->second->source->path +
              ": every schema file needs its own package (each becomes one generated header)");
    ok = false;
  } else {
    packages_by_name_.emplace(model.name, &scope);
  }
  return ok;
}

// Creates a symbol and an empty model object for every declaration, in source order.
void Checker::declare(Scope& scope) {
  model::Package& package = *scope.package;
  std::map<std::string, std::uint32_t> options_seen;
  for (const ast::Declaration& declaration : scope.ast->declarations) {
    if (const auto* option = get_if<ast::OptionDecl>(declaration)) {
      check_option(scope, *option, options_seen);
      continue;
    }
    const ast::Identifier* name = nullptr;
    model::DeclKind kind{};
    const void* decl = nullptr;
    std::uint32_t offset = 0;
    if (const auto* c = get_if<ast::ConstDecl>(declaration)) {
      name = &c->name, kind = model::DeclKind::Constant, decl = c, offset = c->offset;
    } else if (const auto* e = get_if<ast::EnumDecl>(declaration)) {
      name = &e->name, kind = model::DeclKind::Enum, decl = e, offset = e->offset;
    } else if (const auto* f = get_if<ast::FlagsDecl>(declaration)) {
      name = &f->name, kind = model::DeclKind::Flags, decl = f, offset = f->offset;
    } else if (const auto* s = get_if<ast::StructDecl>(declaration)) {
      name = &s->name, kind = model::DeclKind::Struct, decl = s, offset = s->offset;
    } else {
      continue;  // package and import declarations are handled elsewhere
    }
    // A bad name is reported once; the declaration is still checked so its other errors show too.
    NameContext context = kind == model::DeclKind::Constant ? NameContext::Constant : NameContext::Type;
    if (std::string problem = name_problem(*name, context); !problem.empty()) {
      error(scope, name->offset, problem);
    }
    for (const Scope* imported : scope.imports) {
      if (imported->package->name_parts.front() == *name) {
        error(scope, name->offset,
              "'" + *name + "' is also the name of the imported package " + imported->package->name +
                  ", which makes qualified names ambiguous: rename the declaration");
      }
    }
    if (auto it = scope.by_name.find(*name); it != scope.by_name.end()) {
      error(scope, name->offset,
            "'" + *name + "' is already declared on " + line_of(scope, it->second->name_offset) +
                ": names must be unique within a package");
      note(scope, it->second->name_offset, "first declared here");
      continue;
    }
    Symbol& symbol = scope.symbols.emplace_back();
    symbol.kind = kind;
    symbol.name = *name;
    symbol.name_offset = name->offset;
    symbol.decl = decl;
    symbol.scope = &scope;
    scope.by_name.emplace(symbol.name, &symbol);
    model::Doc doc = doc_at(scope, offset);
    switch (kind) {
      case model::DeclKind::Constant: {
        symbol.index = package.constants.size();
        auto& c = package.constants.emplace_back();
        c.name = symbol.name, c.doc = std::move(doc), c.package = &package;
        break;
      }
      case model::DeclKind::Enum: {
        symbol.index = package.enums.size();
        auto& e = package.enums.emplace_back();
        e.name = symbol.name, e.doc = std::move(doc), e.package = &package;
        break;
      }
      case model::DeclKind::Flags: {
        symbol.index = package.flags.size();
        auto& f = package.flags.emplace_back();
        f.name = symbol.name, f.doc = std::move(doc), f.package = &package;
        break;
      }
      case model::DeclKind::Struct: {
        symbol.index = package.structs.size();
        auto& s = package.structs.emplace_back();
        s.name = symbol.name, s.doc = std::move(doc), s.package = &package, s.source_offset = offset;
        s.is_message = static_cast<const ast::StructDecl*>(decl)->is_message;
        s.delta = static_cast<const ast::StructDecl*>(decl)->is_delta;
        break;
      }
    }
    package.declarations.push_back(model::DeclRef{kind, symbol.index});
  }
}

void Checker::check_option(Scope& scope, const ast::OptionDecl& option,
                           std::map<std::string, std::uint32_t>& seen) {
  if (option.key != "budget") {
    error(scope, option.key.offset,
          "unknown option '" + option.key + "': the package options are `option budget = BYTES;`");
    return;
  }
  if (auto it = seen.find(option.key); it != seen.end()) {
    error(scope, option.key.offset,
          "option '" + option.key + "' is already set on " + line_of(scope, it->second));
    return;
  }
  seen.emplace(option.key, option.offset);
  std::optional<std::int64_t> value = eval_int64(option.value, scope, "the budget");
  if (!value) return;
  if (*value < 1 || static_cast<std::uint64_t>(*value) > model::kMaxStructBits / 8) {
    error(scope, option.value.offset,
          "a packet budget is a byte count from 1 to " + std::to_string(model::kMaxStructBits / 8) +
              ", found " + std::to_string(*value));
    return;
  }
  scope.package->budget_bytes = static_cast<std::uint64_t>(*value);
}

bool Checker::resolve(Symbol& symbol, const Scope* from, std::uint32_t at) {
  switch (symbol.state) {
    case State::Done:
      return true;
    case State::Failed:
      return false;
    case State::Resolving: {
      if (from != nullptr) {
        std::string chain;
        bool in_cycle = false;
        for (const Symbol* s : resolving_) {
          if (s == &symbol) in_cycle = true;
          if (in_cycle) chain += s->name + " -> ";
        }
        chain += symbol.name;
        std::string rule =
            symbol.kind == model::DeclKind::Struct
                ? "a struct is stored inline, so it cannot contain itself, even through arrays or "
                  "optional fields: break the cycle"
                : "a value cannot be defined in terms of itself: break the cycle";
        error(*from, at, "'" + symbol.name + "' depends on itself (" + chain + "); " + rule);
      }
      return false;
    }
    case State::Unresolved:
      break;
  }
  // The stack holds the declarations being resolved; kMaxResolveDepth references from the first
  // (e.g. a struct's array size through a chain of constants) are allowed.
  if (resolving_.size() > kMaxResolveDepth) {
    if (from != nullptr) {
      error(*from, at,
            "declarations refer to each other more than " + std::to_string(kMaxResolveDepth) +
                " levels deep here: flatten the chain");
    }
    return false;
  }
  symbol.state = State::Resolving;
  resolving_.push_back(&symbol);
  bool ok = false;
  switch (symbol.kind) {
    case model::DeclKind::Constant:
      ok = resolve_constant(symbol);
      break;
    case model::DeclKind::Enum:
      ok = resolve_enum(symbol);
      break;
    case model::DeclKind::Flags:
      ok = resolve_flags(symbol);
      break;
    case model::DeclKind::Struct:
      ok = resolve_struct(symbol);
      break;
  }
  resolving_.pop_back();
  symbol.state = ok ? State::Done : State::Failed;
  return ok;
}

bool Checker::resolve_constant(Symbol& symbol) {
  const auto& decl = *static_cast<const ast::ConstDecl*>(symbol.decl);
  const AdviceScope advice(*this, kConstantAdvice);
  std::optional<std::int64_t> value = eval_int64(decl.value, *symbol.scope, "constant " + symbol.name);
  if (!value) return false;
  symbol.scope->package->constants[symbol.index].value = *value;
  return true;
}

bool Checker::resolve_enum(Symbol& symbol) {
  Scope& scope = *symbol.scope;
  const auto& decl = *static_cast<const ast::EnumDecl*>(symbol.decl);
  model::Enum& e = scope.package->enums[symbol.index];
  if (decl.items.empty()) {
    error(scope, decl.name.offset, "enum " + symbol.name + " has no values: add at least one");
    return false;
  }
  if (decl.items.size() > kMaxEnumerators) {
    error(scope, decl.name.offset,
          "enum " + symbol.name + " has " + std::to_string(decl.items.size()) + " values; the limit is " +
              std::to_string(kMaxEnumerators));
    return false;
  }
  bool ok = true;
  std::optional<model::IntStorage> declared;
  if (decl.storage) {
    declared = storage_by_name(*decl.storage);
    if (!declared) {
      error(scope, decl.storage->offset,
            "an enum's storage is an integer type int8 .. int64 or uint8 .. uint64, found '" + *decl.storage +
                "'");
      ok = false;
    }
  }
  std::map<std::string, std::uint32_t> names;
  std::map<model::EnumValue, std::string> values;
  Int next = 0;
  for (const ast::Enumerator& item : decl.items) {
    if (std::string problem = name_problem(item.name, NameContext::Enumerator); !problem.empty()) {
      error(scope, item.name.offset, problem);
      ok = false;
    }
    if (auto it = names.find(item.name); it != names.end()) {
      error(scope, item.name.offset,
            "enum " + symbol.name + " already has a value named '" + item.name + "' (" +
                line_of(scope, it->second) + "): rename one of them");
      ok = false;
    }
    names.emplace(item.name, item.name.offset);
    Int value = next;
    std::uint32_t at = item.name.offset;
    if (item.value) {
      std::optional<Int> evaluated = eval_int(*item.value, scope);
      if (!evaluated) {
        ok = false;
        continue;
      }
      value = *evaluated;
      at = item.value->offset;
    }
    next = value + 1;
    // A value is exact in EnumValue over [-2^63, 2^64 - 1]: some 64-bit storage holds each of them (which
    // one holds all of them is checked below).
    if (value < kEnumValueMin || value > kEnumValueMax) {
      error(scope, at, "enum value " + item.name + " = " + to_string(value) + " overflows 64 bits");
      ok = false;
      continue;
    }
    if (auto it = values.find(value); it != values.end()) {
      error(scope, at,
            item.name + " = " + to_string(value) + " repeats the value of " + it->second +
                ": enum values must be distinct");
      ok = false;
      continue;
    }
    values.emplace(value, item.name);
    if (declared && (value < storage_min(*declared) || value > storage_max(*declared))) {
      error(scope, at,
            item.name + " = " + to_string(value) + " does not fit the enum's storage " +
                storage_name(*declared) + " (" + to_string(storage_min(*declared)) + " .. " +
                to_string(storage_max(*declared)) + "): widen the storage or change the value");
      ok = false;
    }
    e.items.push_back(model::Enumerator{item.name, doc_at(scope, item.offset), value});
  }
  if (!ok) return false;
  e.min = values.begin()->first;
  e.max = values.rbegin()->first;
  e.wire_max = e.max;
  if (decl.wire_max && !enum_headroom(scope, decl, declared, e)) return false;
  if (!declared && e.min < 0 && e.wire_max > kInt64Max) {
    // Without a declared storage the checker picks one; none holds both a negative value and one past
    // 2^63 - 1. With a declared storage the per-value check above already said which value does not fit.
    error(scope, decl.name.offset,
          "enum " + symbol.name + " spans " + to_string(e.min) + " .. " + to_string(e.wire_max) +
              ", which no 64-bit storage holds (int64 stops at 9223372036854775807, uint64 at 0): "
              "narrow the values");
    return false;
  }
  e.bits = model::enum_bits_required(e.min, e.wire_max);
  e.storage_declared = declared.has_value();
  e.storage = declared ? *declared : smallest_storage(e.min, e.wire_max, false);
  e.contiguous = e.max - e.min + 1 == static_cast<Int>(e.items.size());
  return true;
}

// `enum E max K { ... }`: the wire range reaches K, above the largest value, so values a later version
// adds up to K are read (and kept) by this one.
bool Checker::enum_headroom(Scope& scope, const ast::EnumDecl& decl, const std::optional<model::IntStorage>& declared,
                            model::Enum& e) {
  std::optional<Int> wire_max = eval_bound(*decl.wire_max, scope, "the wire maximum", true);
  if (!wire_max) return false;
  if (*wire_max < e.max) {
    error(scope, decl.wire_max->offset,
          "the wire maximum " + to_string(*wire_max) + " of enum " + e.name + " is below its largest value " +
              to_string(e.max) + ": headroom (`max K`) must be at least the largest value");
    return false;
  }
  if (declared && *wire_max > storage_max(*declared)) {
    error(scope, decl.wire_max->offset,
          "the wire maximum " + to_string(*wire_max) + " does not fit the enum's storage " +
              storage_name(*declared) + " (" + to_string(storage_min(*declared)) + " .. " +
              to_string(storage_max(*declared)) + "): widen the storage or lower the maximum");
    return false;
  }
  e.wire_max = *wire_max;
  e.headroom = true;
  return true;
}

bool Checker::resolve_flags(Symbol& symbol) {
  Scope& scope = *symbol.scope;
  const auto& decl = *static_cast<const ast::FlagsDecl*>(symbol.decl);
  model::Flags& f = scope.package->flags[symbol.index];
  if (decl.items.empty()) {
    error(scope, decl.name.offset, "flag set " + symbol.name + " has no flags: add at least one");
    return false;
  }
  if (decl.items.size() > static_cast<std::size_t>(model::kMaxFlags)) {
    error(scope, decl.items[model::kMaxFlags].offset,
          "flag set " + symbol.name + " has " + std::to_string(decl.items.size()) +
              " flags; a flag set holds at most " + std::to_string(model::kMaxFlags) + ": split it in two");
    return false;
  }
  bool ok = true;
  std::map<std::string, std::uint32_t> names;
  for (const ast::Identifier& item : decl.items) {
    if (std::string problem = name_problem(item, NameContext::Flag); !problem.empty()) {
      error(scope, item.offset, problem);
      ok = false;
    }
    if (auto it = names.find(item); it != names.end()) {
      error(scope, item.offset,
            "flag set " + symbol.name + " already has a flag named '" + item + "' (" +
                line_of(scope, it->second) + "): rename one of them");
      ok = false;
    }
    names.emplace(item, item.offset);
    f.items.push_back(model::Flag{item, doc_at(scope, item.offset), static_cast<int>(f.items.size())});
  }
  if (!ok) return false;
  f.bits = static_cast<int>(f.items.size());
  f.storage = smallest_storage(0, (Int(1) << f.bits) - 1, false);
  return true;
}

// Message type ids, packet budgets, definition order and the fingerprint.
void Checker::finish_package(Scope& scope) {
  model::Package& package = *scope.package;
  std::uint32_t next_id = 0;
  for (auto& s : package.structs) {
    if (!s.is_message) continue;
    if (next_id == kMaxMessagesPerPackage) {
      error(scope, s.source_offset,
            "package " + package.name + " declares more than " + std::to_string(kMaxMessagesPerPackage) +
                " messages (this is message " + std::to_string(next_id + 1) +
                "): message type ids are 16 bits; move messages into another package");
    }
    s.type_id = next_id++;
    package.messages.push_back(&s);
  }
  package.message_type_bits =
      package.messages.empty()
          ? 0
          : model::bits_required(0, static_cast<std::int64_t>(package.messages.size()) - 1);
  model::complete_package(package);
  for (const auto& [offset, message] : model::mark_delta_forms(package)) error(scope, offset, message);
  for (const Symbol& symbol : scope.symbols) {
    if (symbol.kind != model::DeclKind::Struct || symbol.state != State::Done) continue;
    model::Struct& s = package.structs[symbol.index];
    if (!s.is_message) continue;
    if (!s.budget_bytes) s.budget_bytes = package.budget_bytes;
    if (s.budget_bytes && s.max_bytes > *s.budget_bytes) {
      error(scope, symbol.name_offset,
            "message " + s.name + " can take up to " + std::to_string(s.max_bytes) + " bytes (MaxBits " +
                std::to_string(s.cost.max) + "), over its packet budget of " +
                std::to_string(*s.budget_bytes) +
                " bytes: shrink its arrays, strings or ranges, or raise the budget");
    }
  }
  order_definitions(scope);
}

// Source order, except that every type comes after the types its fields use (an iterative depth-first
// walk: nesting depth costs no stack).
void Checker::order_definitions(Scope& scope) {
  model::Package& package = *scope.package;
  std::map<const void*, model::DeclRef> local;  // model object -> its declaration
  for (const model::DeclRef& ref : package.declarations) {
    switch (ref.kind) {
      case model::DeclKind::Constant:
        local[&package.constants[ref.index]] = ref;
        break;
      case model::DeclKind::Enum:
        local[&package.enums[ref.index]] = ref;
        break;
      case model::DeclKind::Flags:
        local[&package.flags[ref.index]] = ref;
        break;
      case model::DeclKind::Struct:
        local[&package.structs[ref.index]] = ref;
        break;
    }
  }
  auto uses = [&](model::DeclRef ref) {
    std::vector<model::DeclRef> out;
    if (ref.kind != model::DeclKind::Struct) return out;
    for (const model::Field& field : package.structs[ref.index].fields) {
      for (const void* used :
           {static_cast<const void*>(field.type.enumeration), static_cast<const void*>(field.type.flags),
            static_cast<const void*>(field.type.structure)}) {
        if (auto it = local.find(used); used != nullptr && it != local.end()) out.push_back(it->second);
      }
    }
    return out;
  };
  struct Frame {
    model::DeclRef ref;
    std::vector<model::DeclRef> uses;
    std::size_t next = 0;
  };
  std::set<std::pair<int, std::size_t>> entered;
  auto enter = [&](model::DeclRef ref) {
    return entered.insert({static_cast<int>(ref.kind), ref.index}).second;
  };
  for (const model::DeclRef& root : package.declarations) {
    if (!enter(root)) continue;
    std::vector<Frame> stack;
    stack.push_back(Frame{root, uses(root)});
    while (!stack.empty()) {
      Frame& frame = stack.back();
      if (frame.next == frame.uses.size()) {
        package.definition_order.push_back(frame.ref);
        stack.pop_back();
        continue;
      }
      model::DeclRef next = frame.uses[frame.next++];
      if (enter(next)) stack.push_back(Frame{next, uses(next)});
    }
  }
}

// `package x.y;` becomes namespace x::y, which collides with a declaration `y` of package x (and with
// the names idlc generates in x). Checked in both directions, so the order of the files does not matter.
void Checker::check_nested_package_names(Scope& scope) {
  const model::Package& package = *scope.package;
  auto declares = [](const Scope& owner, const std::string& name) {
    if (owner.by_name.count(name) != 0) return true;
    const auto& generated = model::reserved_package_names();
    return std::find(generated.begin(), generated.end(), name) != generated.end();
  };
  // An enclosing package declares this package's next name part.
  std::string prefix;
  for (std::size_t i = 0; i + 1 < package.name_parts.size(); ++i) {
    prefix += (i ? "." : "") + package.name_parts[i];
    auto it = packages_by_name_.find(prefix);
    if (it == packages_by_name_.end() || it->second == &scope) continue;
    const std::string& inner = package.name_parts[i + 1];
    if (!declares(*it->second, inner)) continue;
    const auto* decl = get_if<ast::PackageDecl>(scope.ast->declarations.front());
    error(scope, (*decl)[i + 1].offset,
          "package " + package.name + " is generated as a namespace inside package " + prefix + " (" +
              it->second->source->path + "), which already has a '" + inner +
              "': rename this package or that declaration");
  }
  // A nested package names one of this package's declarations.
  for (const auto& [name, other] : packages_by_name_) {
    if (other == &scope || name.size() <= package.name.size() + 1 ||
        name.compare(0, package.name.size(), package.name) != 0 || name[package.name.size()] != '.') {
      continue;
    }
    std::string inner = name.substr(package.name.size() + 1);
    inner = inner.substr(0, inner.find('.'));
    auto symbol = scope.by_name.find(inner);
    if (symbol == scope.by_name.end()) {
      if (declares(scope, inner)) {
        const auto* decl = get_if<ast::PackageDecl>(scope.ast->declarations.front());
        error(scope, decl->front().offset,
              "package " + name + " (" + other->source->path + ") is generated as namespace '" + inner +
                  "' inside this package, where idlc generates '" + inner + "' itself: rename that package");
      }
      continue;
    }
    error(scope, symbol->second->name_offset,
          "'" + inner + "' collides with the namespace of package " + name + " (" + other->source->path +
              "), which is generated inside this package: rename the declaration or that package");
  }
}

Scope* Checker::check_file(const LoadedFile& file, const std::vector<Scope*>& imports) {
  Scope& scope = scopes_.emplace_back();
  scope.source = file.source;
  scope.ast = &*file.ast;
  scope.imports = imports;
  model::Package& package = schema_.packages.emplace_back();
  scope.package = &package;
  package.source_path = file.source->path;
  package.file_stem = std::filesystem::path(file.source->path).stem().string();
  for (const Scope* imported : imports) package.imports.push_back(imported->package);
  const bool package_ok = check_package_decl(scope);
  // One generated header per file, named after the file's stem: two stems alike would overwrite.
  if (auto [it, inserted] = files_by_stem_.emplace(package.file_stem, &scope); !inserted) {
    const auto& declarations = scope.ast->declarations;
    std::uint32_t at = declarations.empty() ? 0 : next_token_offset(scope.source->text, 0);
    error(scope, at,
          "this file and " + it->second->source->path + " both generate the header '" + package.file_stem +
              ".hpp' (the file name without .net): rename one of the files");
  }
  if (!package_ok) {
    // Without a package nothing else can be named reliably; other errors wait for the fix.
    if (package.name.empty()) return &scope;
  }
  const std::size_t errors_before = diagnostics_.error_count();
  declare(scope);
  check_nested_package_names(scope);
  resolve_structs_in_dependency_order(scope);
  for (Symbol& symbol : scope.symbols) resolve(symbol, nullptr, 0);
  finish_package(scope);
  // The fingerprint reads the whole model, which is complete only when the file checked clean.
  if (diagnostics_.error_count() == errors_before) {
    package.protocol_id = fingerprint(package, false);
    package.protocol_id_with_checks = fingerprint(package, true);
  }
  return &scope;
}

}  // namespace detail

std::unique_ptr<model::Schema> compile(const std::vector<std::string>& root_paths, FileSystem& file_system,
                                       Diagnostics& diagnostics, const LoadOptions& options) {
  Program program = load_program(root_paths, file_system, diagnostics, options);
  auto schema = std::make_unique<model::Schema>();
  detail::Checker checker(diagnostics, *schema);
  std::vector<detail::Scope*> scopes(program.files.size(), nullptr);
  for (std::size_t index : program.order) {
    const LoadedFile& file = program.files[index];
    // A file is checked only when it and everything it imports loaded and parsed cleanly: otherwise
    // its unknown names would only repeat the errors already reported.
    if (!file.ast || !file.imports_ok) continue;
    std::vector<detail::Scope*> imports;
    for (std::size_t i : file.imports) imports.push_back(scopes[i]);
    scopes[index] = checker.check_file(file, imports);
  }
  for (std::size_t index : program.roots) {
    if (scopes[index] != nullptr) schema->roots.push_back(scopes[index]->package);
  }
  if (diagnostics.error_count() != 0) return nullptr;
  return schema;
}

std::unique_ptr<model::Schema> compile_source(const std::string& path, const std::string& text,
                                              Diagnostics& diagnostics,
                                              const std::map<std::string, std::string>& imports) {
  MemoryFileSystem file_system;
  for (const auto& [name, contents] : imports) file_system.add(name, contents);
  file_system.add(path, text);
  return compile({path}, file_system, diagnostics);
}

}  // namespace idlc
