// A small code printer: text with `$name$` substitutions and scoped indentation. A name is looked up in
// the call's variables, then in the printer's bindings (Bind: a value that holds for a stretch of
// printing, such as the stream a run of fields is read from). An unbound `$name$` is a bug in the
// emitter, not in the schema, and stops emission with std::logic_error.
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace idlc {

class Printer {
 public:
  using Vars = std::initializer_list<std::pair<std::string_view, std::string_view>>;

  // Appends `text`, replacing each `$name$` with its value ("$$" is a literal '$'). Lines are indented
  // to the current level; empty lines stay empty.
  void print(std::string_view text, Vars vars = {}) {
    std::string expanded;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '$') {
        expanded += text[i];
        continue;
      }
      const size_t end = text.find('$', i + 1);
      if (end == std::string_view::npos) throw std::logic_error("printer: unterminated $ in template");
      const std::string_view name = text.substr(i + 1, end - i - 1);
      if (name.empty()) {
        expanded += '$';
      } else {
        bool bound = false;
        for (const auto& [key, value] : vars) {
          if (key == name) {
            expanded += value;
            bound = true;
            break;
          }
        }
        for (auto it = bindings_.rbegin(); !bound && it != bindings_.rend(); ++it) {
          if (it->first == name) {
            expanded += it->second;
            bound = true;
          }
        }
        if (!bound) throw std::logic_error("printer: unbound variable $" + std::string(name) + "$");
      }
      i = end;
    }
    for (char c : expanded) {
      if (at_line_start_ && c != '\n') out_.append(static_cast<size_t>(indent_) * 2, ' ');
      out_ += c;
      at_line_start_ = c == '\n';
    }
  }

  void indent() { ++indent_; }
  void outdent() {
    if (indent_ == 0) throw std::logic_error("printer: outdent below zero");
    --indent_;
  }

  const std::string& str() const { return out_; }

  // Bindings nest: the newest binding of a name wins until it is popped.
  void push_binding(std::string name, std::string value) {
    bindings_.emplace_back(std::move(name), std::move(value));
  }
  void pop_binding() {
    if (bindings_.empty()) throw std::logic_error("printer: pop_binding without a binding");
    bindings_.pop_back();
  }

 private:
  std::vector<std::pair<std::string, std::string>> bindings_;
  std::string out_;
  int indent_ = 0;
  bool at_line_start_ = true;
};

// Indents for the life of the object.
class Indent {
 public:
  explicit Indent(Printer& printer) : printer_(printer) { printer_.indent(); }
  ~Indent() { printer_.outdent(); }
  Indent(const Indent&) = delete;
  Indent& operator=(const Indent&) = delete;

 private:
  Printer& printer_;
};

// Binds `$name$` to `value` for the life of the object.
class Bind {
 public:
  Bind(Printer& printer, std::string name, std::string value) : printer_(printer) {
    printer_.push_binding(std::move(name), std::move(value));
  }
  ~Bind() { printer_.pop_binding(); }
  Bind(const Bind&) = delete;
  Bind& operator=(const Bind&) = delete;

 private:
  Printer& printer_;
};

}  // namespace idlc
