#include "frontend/loader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "frontend/lexical.hpp"
#include "frontend/names.hpp"
#include "frontend/parser.hpp"

namespace idlc {

namespace fs = std::filesystem;

bool DiskFileSystem::read(const std::string& path, std::string& contents, std::string& error) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    error = "no such file";
    return false;
  }
  if (!fs::is_regular_file(status)) {
    error = "not a regular file";
    return false;
  }
  auto size = fs::file_size(path, ec);
  if (ec) {
    error = ec.message();
    return false;
  }
  if (size > kMaxSourceBytes) {
    error = "the file is " + std::to_string(size) + " bytes; schema files are limited to " +
            std::to_string(kMaxSourceBytes);
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open the file for reading";
    return false;
  }
  contents.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) {
    error = "read error";
    return false;
  }
  return true;
}

std::string DiskFileSystem::identity(const std::string& path) {
  std::error_code ec;
  // Absolute first: weakly_canonical leaves a relative path to a missing file relative, which no
  // allowed directory then contains.
  fs::path absolute = fs::absolute(path, ec);
  if (ec) absolute = path;
  fs::path canonical = fs::weakly_canonical(absolute, ec);
  if (ec) return fs::path(path).lexically_normal().generic_string();
  return canonical.generic_string();
}

bool DiskFileSystem::exists(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::vector<std::string> DiskFileSystem::net_files_in(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(dir.empty() ? fs::path(".") : fs::path(dir), ec);
  for (std::size_t seen = 0; !ec && it != fs::directory_iterator() && seen < kMaxListedFiles;
       it.increment(ec), ++seen) {
    if (it->path().extension() == ".net") names.push_back(it->path().filename().string());
  }
  return names;
}

std::vector<std::string> MemoryFileSystem::net_files_in(const std::string& dir) {
  std::vector<std::string> names;
  const std::string key = fs::path(dir).lexically_normal().generic_string();
  for (const auto& [path, contents] : files_) {
    const fs::path p(path);
    if (p.parent_path().generic_string() == key && p.extension() == ".net")
      names.push_back(p.filename().string());
    if (names.size() >= kMaxListedFiles) break;
  }
  return names;
}

bool MemoryFileSystem::exists(const std::string& path) {
  return files_.count(identity(path)) != 0;
}

void MemoryFileSystem::add(const std::string& path, std::string contents) {
  files_[identity(path)] = std::move(contents);
}

bool MemoryFileSystem::read(const std::string& path, std::string& contents, std::string& error) {
  auto it = files_.find(identity(path));
  if (it == files_.end()) {
    error = "no such file";
    return false;
  }
  contents = it->second;
  return true;
}

std::string MemoryFileSystem::identity(const std::string& path) {
  return fs::path(path).lexically_normal().generic_string();
}

std::optional<std::string> decode_string_literal(const std::string& raw, std::size_t& error_at,
                                                 std::string& error) {
  std::string out;
  if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"') {
    error_at = 0;
    error = "expected a string literal in double quotes";
    return std::nullopt;
  }
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 1; i + 1 < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i + 2 >= raw.size()) {
      error_at = i;
      error = "a backslash must start an escape: \\\\ \\\" \\n \\t \\r \\0 or \\xHH";
      return std::nullopt;
    }
    char e = raw[++i];
    switch (e) {
      case '\\':
        out += '\\';
        break;
      case '"':
        out += '"';
        break;
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case '0':
        out += '\0';
        break;
      case 'x': {
        int high = i + 1 < raw.size() - 1 ? hex(raw[i + 1]) : -1;
        int low = i + 2 < raw.size() - 1 ? hex(raw[i + 2]) : -1;
        if (high < 0 || low < 0) {
          error_at = i - 1;
          error = "\\x needs two hex digits, e.g. \\x7f";
          return std::nullopt;
        }
        out += static_cast<char>(high * 16 + low);
        i += 2;
        break;
      }
      default:
        error_at = i - 1;
        error = std::string("unknown escape '\\") + e + "': use \\\\ \\\" \\n \\t \\r \\0 or \\xHH";
        return std::nullopt;
    }
  }
  return out;
}

std::string file_name_problem(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  std::string shown;
  char bad = 0;
  for (char c : name) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      static const char kDigits[] = "0123456789ABCDEF";
      shown += std::string("\\x") + kDigits[byte >> 4] + kDigits[byte & 15];
      if (bad == 0) bad = c;
      continue;
    }
    if ((c == '"' || c == '\\' || c == '\'') && bad == 0) bad = c;
    shown += c;
  }
  if (bad == 0) return {};
  std::string what = bad == '"'    ? "'\"'"
                     : bad == '\\' ? "a backslash"
                     : bad == '\'' ? "a quote (')"
                                   : "a control character";
  return "the schema file name '" + shown + "' contains " + what +
         ", which cannot appear in the #include of its generated header: rename the file";
}

namespace {

// True when `path` lies inside directory `dir` (both as FileSystem identities).
bool is_inside(const std::string& path, const std::string& dir) {
  fs::path relative = fs::path(path).lexically_relative(dir);
  return !relative.empty() && *relative.begin() != "..";
}

std::string directory_identity(FileSystem& file_system, const std::string& file) {
  fs::path parent = fs::path(file).parent_path();
  return file_system.identity(parent.empty() ? std::string(".") : parent.string());
}

class Loader {
 public:
  Loader(FileSystem& file_system, Diagnostics& diagnostics, const LoadOptions& options)
      : fs_(file_system), diagnostics_(diagnostics), options_(options) {
    for (const std::string& dir : options.include_paths) allowed_dirs_.push_back(fs_.identity(dir));
  }

  void allow_directory_of(const std::string& root) { allowed_dirs_.push_back(directory_identity(fs_, root)); }

  // Loads `path` (and its imports). `site` is the importing file and the import's offset, or null for
  // a root. Returns the file's index, or nullopt when it could not be loaded or closes a cycle.
  std::optional<std::size_t> load(const std::string& path, const SourceFile* site_file,
                                  std::uint32_t site_offset, std::uint32_t site_length) {
    std::string id = fs_.identity(path);
    if (auto it = by_identity_.find(id); it != by_identity_.end()) {
      std::size_t index = it->second;
      if (loading_[index]) {
        std::string chain;
        bool in_cycle = false;
        for (std::size_t s : stack_) {
          if (s == index) in_cycle = true;
          if (in_cycle) chain += program_.files[s].source->path + " -> ";
        }
        chain += program_.files[index].source->path;
        if (site_file != nullptr) {
          diagnostics_.error(*site_file, site_offset, site_length,
                             "import cycle: " + chain +
                                 "; a file cannot import itself, directly or through "
                                 "other files: move the shared declarations into a file both import");
        }
        return std::nullopt;
      }
      return index;
    }
    auto report = [&](const std::string& message) {
      if (site_file != nullptr) {
        diagnostics_.error(*site_file, site_offset, site_length, message);
      } else {
        diagnostics_.error(message);
      }
    };
    if (stack_.size() >= kMaxImportDepth) {
      report("imports nest deeper than " + std::to_string(kMaxImportDepth) +
             " files: flatten the import chain");
      return std::nullopt;
    }
    if (std::string problem = file_name_problem(path); !problem.empty()) {
      report(problem);
      return std::nullopt;
    }
    if (program_.files.size() >= kMaxFiles) {
      report("a schema program is limited to " + std::to_string(kMaxFiles) + " files");
      return std::nullopt;
    }
    std::string text;
    std::string error;
    if (!fs_.read(path, text, error)) {
      report(site_file != nullptr ? "cannot open imported file '" + path + "': " + error +
                                        "; import paths are relative to the importing file"
                                  : "cannot open '" + path + "': " + error);
      return std::nullopt;
    }
    const SourceFile& source = diagnostics_.add_source(path, std::move(text));
    const std::size_t index = program_.files.size();
    program_.files.push_back(LoadedFile{});
    program_.files[index].source = &source;
    loading_.push_back(true);
    by_identity_.emplace(id, index);

    std::optional<ast::File> tree = parse(source, diagnostics_);
    if (tree) {
      std::map<std::string, std::uint32_t> seen;  // identity -> offset of the first import
      for (const auto& declaration : tree->declarations) {
        const auto* import = std::get_if<ast::ImportDecl>(&declaration.get());
        if (import == nullptr) continue;
        load_import(index, source, *import, seen);
      }
    }
    program_.files[index].ast = std::move(tree);
    loading_[index] = false;
    program_.order.push_back(index);
    return index;
  }

  Program take() { return std::move(program_); }
  Program& program() { return program_; }

 private:
  void load_import(std::size_t index, const SourceFile& source, const ast::ImportDecl& import,
                   std::map<std::string, std::uint32_t>& seen) {
    const std::string& text = source.text;
    std::size_t quote = text.find('"', import.offset);
    auto path_offset = static_cast<std::uint32_t>(quote == std::string::npos ? import.offset : quote);
    auto path_length = static_cast<std::uint32_t>(import.size());
    std::size_t error_at = 0;
    std::string error;
    std::optional<std::string> relative = decode_string_literal(import, error_at, error);
    if (!relative) {
      diagnostics_.error(source, path_offset + static_cast<std::uint32_t>(error_at), 1, error);
      program_.files[index].imports_ok = false;
      return;
    }
    if (relative->empty() || relative->find('\0') != std::string::npos) {
      diagnostics_.error(source, path_offset, path_length,
                         "an import needs a file path, e.g. import \"common.net\";");
      program_.files[index].imports_ok = false;
      return;
    }
    fs::path relative_path(*relative);
    if (relative_path.is_absolute()) {
      diagnostics_.error(source, path_offset, path_length,
                         "import paths are relative to the importing file: write the path from this file's "
                         "directory");
      program_.files[index].imports_ok = false;
      return;
    }
    if (relative_path.extension() != ".net") {
      diagnostics_.error(
          source, path_offset, path_length,
          "an import names a schema file ending in .net, found '" + relative_path.filename().string() + "'");
      program_.files[index].imports_ok = false;
      return;
    }
    // The importing file's directory first, then the include paths.
    std::string resolved =
        (fs::path(source.path).parent_path() / relative_path).lexically_normal().generic_string();
    for (std::size_t i = 0; i < options_.include_paths.size() && !fs_.exists(resolved); ++i) {
      std::string candidate =
          (fs::path(options_.include_paths[i]) / relative_path).lexically_normal().generic_string();
      if (fs_.exists(candidate)) resolved = candidate;
    }
    std::string id = fs_.identity(resolved);
    if (!options_.allow_outside && std::none_of(allowed_dirs_.begin(), allowed_dirs_.end(),
                                                [&](const std::string& dir) { return is_inside(id, dir); })) {
      diagnostics_.error(
          source, path_offset, path_length,
          "'" + *relative +
              "' is outside the directories of the schema files given to idlc and of the include "
              "paths (-I DIR): add its directory with -I, or pass --allow-import-outside");
      program_.files[index].imports_ok = false;
      return;
    }
    if (!fs_.exists(resolved)) {
      // Nothing of that name beside the importer or in an include path: say so, with the nearest name
      // of a .net file there (the directories listed are the allowed ones).
      std::vector<std::string> dirs{
          (fs::path(source.path).parent_path() / relative_path.parent_path()).generic_string()};
      for (const std::string& include : options_.include_paths) {
        dirs.push_back((fs::path(include) / relative_path.parent_path()).generic_string());
      }
      const std::string wanted = relative_path.filename().string();
      std::string best;
      std::size_t best_distance = 3;  // suggest within an edit distance of 2
      for (const std::string& dir : dirs) {
        for (const std::string& name : fs_.net_files_in(dir)) {
          const std::size_t distance = edit_distance(wanted, name, 2);
          if (distance < best_distance) {
            best_distance = distance;
            best = name;
          }
        }
      }
      std::string message = "there is no file '" + *relative + "' beside this file" +
                            (options_.include_paths.empty() ? "" : " or in the -I directories");
      const std::string suggestion = (relative_path.parent_path() / best).generic_string();
      if (!best.empty()) message += ": did you mean '" + suggestion + "'?";
      diagnostics_.error(source, path_offset, path_length, message);
      // The fix-it replaces the whole literal (quotes included), so escapes in it need no mapping.
      if (!best.empty()) diagnostics_.fix(path_offset, path_length, "\"" + suggestion + "\"");
      program_.files[index].imports_ok = false;
      return;
    }
    if (auto it = seen.find(id); it != seen.end()) {
      diagnostics_.error(source, path_offset, path_length,
                         "'" + *relative + "' is already imported by this file: remove this import");
      diagnostics_.note(source, it->second, 1, "first imported here");
      return;
    }
    seen.emplace(id, path_offset);
    stack_.push_back(index);
    std::optional<std::size_t> imported = load(resolved, &source, path_offset, path_length);
    stack_.pop_back();
    LoadedFile& file = program_.files[index];
    if (!imported) {
      file.imports_ok = false;
      return;
    }
    file.imports.push_back(*imported);
    const LoadedFile& dependency = program_.files[*imported];
    if (!dependency.ast || !dependency.imports_ok || loading_[*imported]) file.imports_ok = false;
  }

  FileSystem& fs_;
  Diagnostics& diagnostics_;
  const LoadOptions& options_;
  std::vector<std::string> allowed_dirs_;  // identities of the directories imports may come from
  Program program_;
  std::map<std::string, std::size_t> by_identity_;
  std::vector<bool> loading_;
  std::vector<std::size_t> stack_;
};

}  // namespace

Program load_program(const std::vector<std::string>& root_paths, FileSystem& file_system,
                     Diagnostics& diagnostics, const LoadOptions& options) {
  Loader loader(file_system, diagnostics, options);
  for (const std::string& path : root_paths) loader.allow_directory_of(path);
  for (const std::string& path : root_paths) {
    std::optional<std::size_t> index = loader.load(path, nullptr, 0, 0);
    if (!index) continue;
    Program& program = loader.program();
    if (!program.files[*index].is_root) {
      program.files[*index].is_root = true;
      program.roots.push_back(*index);
    }
  }
  return loader.take();
}

}  // namespace idlc
