// Loading a schema program: the root files, every file they import (relative to the importing file),
// each parsed once. Import cycles, missing files, and over-deep import chains are errors reported at
// the import that causes them. File access goes through FileSystem so tests and the fuzzer can run
// from memory.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ast.hpp"
#include "frontend/diagnostics.hpp"

namespace idlc {

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  // Reads a whole file. On failure returns false and sets `error` to the reason.
  virtual bool read(const std::string& path, std::string& contents, std::string& error) = 0;
  // A key that is equal for two paths naming the same file.
  virtual std::string identity(const std::string& path) = 0;
  // True when `path` names a file that read() could open.
  virtual bool exists(const std::string& path) = 0;
  // The names (without directory) of the .net files in directory `dir`, at most kMaxListedFiles, for "did
  // you mean" suggestions; none when the directory cannot be listed.
  virtual std::vector<std::string> net_files_in(const std::string& dir) = 0;
  static constexpr std::size_t kMaxListedFiles = 4096;
};

class DiskFileSystem final : public FileSystem {
 public:
  bool read(const std::string& path, std::string& contents, std::string& error) override;
  std::string identity(const std::string& path) override;
  bool exists(const std::string& path) override;
  std::vector<std::string> net_files_in(const std::string& dir) override;
};

class MemoryFileSystem final : public FileSystem {
 public:
  void add(const std::string& path, std::string contents);
  bool read(const std::string& path, std::string& contents, std::string& error) override;
  std::string identity(const std::string& path) override;
  bool exists(const std::string& path) override;
  std::vector<std::string> net_files_in(const std::string& dir) override;

 private:
  std::map<std::string, std::string> files_;  // keyed by normalized path
};

// Where imports may come from. An import is resolved against the importing file's directory, then
// each include path in order; the file it names must lie inside the directory of a root file or an
// include path (after symbolic links are resolved), unless `allow_outside`. So a schema cannot make
// idlc read, and quote in a diagnostic, a file elsewhere on the machine.
struct LoadOptions {
  std::vector<std::string> include_paths;  // -I DIR, in order
  bool allow_outside = false;              // --allow-import-outside
};

inline constexpr std::size_t kMaxImportDepth = 64;
inline constexpr std::size_t kMaxFiles = 1024;

struct LoadedFile {
  const SourceFile* source = nullptr;
  std::optional<ast::File> ast;      // nullopt: the file did not parse
  std::vector<std::size_t> imports;  // indices into Program::files, in import order
  bool imports_ok = true;            // every import resolved, parsed and is itself importable
  bool is_root = false;
};

struct Program {
  std::vector<LoadedFile> files;   // in order of first reference
  std::vector<std::size_t> order;  // every file after the files it imports
  std::vector<std::size_t> roots;  // the root files, in the order given (duplicates removed)
};

// Loads `root_paths` and everything they import. Errors go to `diagnostics`; files that failed to
// load are absent from Program::files (their importers have imports_ok == false).
Program load_program(const std::vector<std::string>& root_paths, FileSystem& file_system,
                     Diagnostics& diagnostics, const LoadOptions& options = {});

// Why a schema file name cannot be compiled (it must fit in the #include of its generated header),
// or an empty string.
std::string file_name_problem(const std::string& path);

// Decodes a string literal's raw text (quotes included): escapes \\ \" \n \t \r \0 and \xHH. On failure
// returns nullopt and sets `error_at` (offset within `raw`) and `error`.
std::optional<std::string> decode_string_literal(const std::string& raw, std::size_t& error_at,
                                                 std::string& error);

}  // namespace idlc
