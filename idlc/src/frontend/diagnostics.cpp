#include "frontend/diagnostics.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace idlc {

namespace {

// Source lines wider than this are shown as a window around the caret, so one error in a huge
// single-line file cannot print megabytes.
constexpr std::uint32_t kMaxShownLine = 160;

bool is_control(char c) {
  return static_cast<unsigned char>(c) < 0x20 && c != '\t';
}

}  // namespace

const SourceFile& Diagnostics::add_source(std::string path, std::string text) {
  sources_.push_back(SourceFile{std::move(path), std::move(text)});
  return sources_.back();
}

void Diagnostics::error(const SourceFile& file, std::uint32_t offset, std::uint32_t length,
                        std::string message) {
  ++error_count_;
  if (per_file_[&file] >= kMaxErrorsPerFile) {
    ++dropped_[&file];
    last_dropped_ = true;
    return;
  }
  ++per_file_[&file];
  Diagnostic d;
  d.file = &file;
  d.offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(file.text.size()));
  d.length = std::max<std::uint32_t>(length, 1);
  d.message = std::move(message);
  d.sequence = errors_.size();
  errors_.push_back(std::move(d));
  last_dropped_ = false;
}

void Diagnostics::error(std::string message) {
  ++error_count_;
  Diagnostic d;
  d.message = std::move(message);
  d.sequence = errors_.size();
  errors_.push_back(std::move(d));
  last_dropped_ = false;
}

void Diagnostics::note(const SourceFile& file, std::uint32_t offset, std::uint32_t length,
                       std::string message) {
  if (errors_.empty() || last_dropped_) return;
  Diagnostic n;
  n.severity = Severity::Note;
  n.file = &file;
  n.offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(file.text.size()));
  n.length = std::max<std::uint32_t>(length, 1);
  n.message = std::move(message);
  errors_.back().notes.push_back(std::move(n));
}

void Diagnostics::fix(std::uint32_t offset, std::uint32_t length, std::string replacement) {
  if (last_dropped_ || errors_.empty() || errors_.back().file == nullptr) return;
  errors_.back().fixits.push_back({offset, length, std::move(replacement)});
}

std::size_t Diagnostics::error_count(const SourceFile& file) const {
  std::size_t n = 0;
  if (auto it = per_file_.find(&file); it != per_file_.end()) n += it->second;
  if (auto it = dropped_.find(&file); it != dropped_.end()) n += it->second;
  return n;
}

std::vector<const Diagnostic*> Diagnostics::sorted() const {
  std::map<const SourceFile*, std::size_t> rank;
  for (std::size_t i = 0; i < sources_.size(); ++i) rank[&sources_[i]] = i + 1;
  std::vector<const Diagnostic*> out;
  out.reserve(errors_.size());
  for (const auto& d : errors_) out.push_back(&d);
  std::stable_sort(out.begin(), out.end(), [&](const Diagnostic* a, const Diagnostic* b) {
    std::size_t ra = a->file ? rank[a->file] : 0;
    std::size_t rb = b->file ? rank[b->file] : 0;
    if (ra != rb) return ra < rb;
    if (a->offset != b->offset) return a->offset < b->offset;
    return a->sequence < b->sequence;
  });
  return out;
}

const std::vector<std::uint32_t>& Diagnostics::line_starts(const SourceFile& file) const {
  auto it = line_starts_.find(&file);
  if (it != line_starts_.end()) return it->second;
  std::vector<std::uint32_t> starts{0};
  for (std::uint32_t i = 0; i < file.text.size(); ++i) {
    // A lone CR ends a line too, so an error about one points at the right line.
    if (file.text[i] == '\n' ||
        (file.text[i] == '\r' && (i + 1 == file.text.size() || file.text[i + 1] != '\n'))) {
      starts.push_back(i + 1);
    }
  }
  return line_starts_.emplace(&file, std::move(starts)).first->second;
}

LineColumn Diagnostics::line_column(const SourceFile& file, std::uint32_t offset) const {
  const auto& starts = line_starts(file);
  auto it = std::upper_bound(starts.begin(), starts.end(), offset);
  auto line = static_cast<std::uint32_t>(it - starts.begin());  // >= 1: starts[0] == 0 <= offset
  return LineColumn{line, offset - starts[line - 1] + 1};
}

void Diagnostics::format_one(const Diagnostic& d, const char* label, std::string& out) const {
  if (d.file == nullptr) {
    out += "idlc: ";
    out += label;
    out += ": ";
    out += d.message;
    out += '\n';
    return;
  }
  const SourceFile& file = *d.file;
  LineColumn lc = line_column(file, d.offset);
  out += file.path + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": " + label + ": " +
         d.message + '\n';

  const auto& starts = line_starts(file);
  std::uint32_t line_begin = starts[lc.line - 1];
  std::uint32_t line_end = line_begin;
  while (line_end < file.text.size() && file.text[line_end] != '\n' && file.text[line_end] != '\r')
    ++line_end;
  if (line_end > line_begin && file.text[line_end - 1] == '\r') --line_end;

  std::uint32_t shown_begin = line_begin;
  std::uint32_t shown_end = line_end;
  if (line_end - line_begin > kMaxShownLine) {
    shown_begin = d.offset > line_begin + kMaxShownLine / 3 ? d.offset - kMaxShownLine / 3 : line_begin;
    shown_end = std::min(line_end, shown_begin + kMaxShownLine);
  }
  std::string source_line;
  std::string caret_line;
  if (shown_begin > line_begin) {
    source_line += "...";
    caret_line += "   ";
  }
  for (std::uint32_t i = shown_begin; i < shown_end; ++i) {
    char c = file.text[i];
    source_line += is_control(c) ? '?' : c;
    if (i < d.offset) caret_line += (c == '\t') ? '\t' : ' ';
  }
  if (shown_end < line_end) source_line += "...";
  std::uint32_t caret_begin = std::max(d.offset, shown_begin);
  std::uint32_t caret_end = std::min<std::uint32_t>(d.offset + d.length, shown_end);
  caret_line += '^';
  for (std::uint32_t i = caret_begin + 1; i < caret_end; ++i) caret_line += '~';
  out += source_line + '\n' + caret_line + '\n';
}

// A string as clang quotes it in a fix-it line: backslash, quote and control bytes escaped.
static std::string fixit_quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\%03o", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string Diagnostics::format(const Diagnostic& d) const {
  std::string out;
  format_one(d, d.severity == Severity::Error ? "error" : "note", out);
  if (parseable_fixits_ && d.file != nullptr) {
    for (const FixIt& f : d.fixits) {
      const LineColumn from = line_column(*d.file, f.offset);
      const LineColumn to = line_column(*d.file, f.offset + f.length);
      out += "fix-it:" + fixit_quoted(d.file->path) + ":{" + std::to_string(from.line) + ":" +
             std::to_string(from.column) + "-" + std::to_string(to.line) + ":" + std::to_string(to.column) +
             "}:" + fixit_quoted(f.replacement) + "\n";
    }
  }
  for (const auto& n : d.notes) format_one(n, "note", out);
  return out;
}

std::string Diagnostics::summary() const {
  std::string out;
  for (const Diagnostic* d : sorted()) {
    if (d->file) {
      LineColumn lc = line_column(*d->file, d->offset);
      out += std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": ";
    }
    out += d->message + '\n';
  }
  return out;
}

void Diagnostics::print(std::ostream& out) const {
  for (const Diagnostic* d : sorted()) out << format(*d);
  for (const auto& [file, count] : dropped_) {
    out << file->path << ": error: " << count << " more error" << (count == 1 ? "" : "s")
        << " not shown (at most " << kMaxErrorsPerFile << " per file)\n";
  }
}

}  // namespace idlc
