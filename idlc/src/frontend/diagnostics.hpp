// Error reporting for idlc: `file:line:col: error: message`, the source line, and a caret under the
// token. Positions are byte offsets; line and column (both 1-based, column counted in bytes) are
// computed only when a diagnostic is formatted. Printing sorts errors into source order per file
// (files in the order they were registered), so passes may report in any order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace idlc {

struct SourceFile {
  std::string path;  // as shown in diagnostics
  std::string text;
};

struct LineColumn {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
};

enum class Severity { Error, Note };

// A replacement an editor can apply: `length` bytes at `offset` become `replacement`. Attached to a
// "did you mean" error; printed only with set_parseable_fixits(true), in clang's
// -fdiagnostics-parseable-fixits form: fix-it:"path":{line:col-line:col}:"replacement" (end exclusive).
struct FixIt {
  std::uint32_t offset = 0;
  std::uint32_t length = 0;
  std::string replacement;
};

struct Diagnostic {
  Severity severity = Severity::Error;
  const SourceFile* file = nullptr;  // null: not tied to a file (e.g. a command-line problem)
  std::uint32_t offset = 0;
  std::uint32_t length = 1;  // bytes to underline, at least 1
  std::string message;
  std::vector<Diagnostic> notes;  // printed after the error: "note: previous declaration here"
  std::vector<FixIt> fixits;      // what "did you mean" means, in the error's file
  std::size_t sequence = 0;       // order of reporting, breaks ties between equal offsets
};

class Diagnostics {
 public:
  // No file gets more errors than this (a guard against pathological input); the rest are counted.
  static constexpr std::size_t kMaxErrorsPerFile = 200;

  // Registers a source file; the returned reference stays valid for the life of this object.
  const SourceFile& add_source(std::string path, std::string text);

  void error(const SourceFile& file, std::uint32_t offset, std::uint32_t length, std::string message);
  void error(std::string message);
  // Attaches a note to the error reported last (ignored when that error was dropped).
  void note(const SourceFile& file, std::uint32_t offset, std::uint32_t length, std::string message);
  // Attaches a fix-it to the error reported last (ignored when that error was dropped).
  void fix(std::uint32_t offset, std::uint32_t length, std::string replacement);
  // Print each error's fix-its after it (machine-readable lines; off by default).
  void set_parseable_fixits(bool on) { parseable_fixits_ = on; }

  std::size_t error_count() const { return error_count_; }
  std::size_t error_count(const SourceFile& file) const;

  // Every kept error in print order.
  std::vector<const Diagnostic*> sorted() const;

  LineColumn line_column(const SourceFile& file, std::uint32_t offset) const;
  // `path:line:col: error: message` plus the source line and the caret line, and the notes.
  std::string format(const Diagnostic& diagnostic) const;
  // `line:col: message` of every error in print order, one per line (for tests).
  std::string summary() const;
  void print(std::ostream& out) const;

 private:
  const std::vector<std::uint32_t>& line_starts(const SourceFile& file) const;
  void format_one(const Diagnostic& d, const char* label, std::string& out) const;

  std::deque<SourceFile> sources_;
  std::vector<Diagnostic> errors_;
  std::map<const SourceFile*, std::size_t> per_file_;
  std::map<const SourceFile*, std::size_t> dropped_;
  std::size_t error_count_ = 0;
  bool last_dropped_ = false;
  bool parseable_fixits_ = false;
  mutable std::map<const SourceFile*, std::vector<std::uint32_t>> line_starts_;
};

}  // namespace idlc
