// The tables of names a schema may not declare because the headers generated code includes already use
// them (idlc/src/frontend/reserved_macros.inc, reserved_globals.inc) are regenerated here from the compilers and
// compared, so they cannot go stale when a runtime header or a generated #include changes:
//   macros:  $CXX -std=gnu++20 -dM -E -Iruntime/include probe.cpp   (also -std=c++20, and with clang++)
//   globals: clang++ -std=gnu++20 -fsyntax-only -Xclang -ast-dump -Iruntime/include probe.cpp
// where probe.cpp includes every header a file in generated/ includes. A failure lists the missing names:
// add them to the table (one quoted name per line).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "frontend/names.hpp"

namespace {

namespace fs = std::filesystem;

// Hand-written matching: std::regex trips g++ 12's -Wmaybe-uninitialized in the sanitizer build.
bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string identifier_at(const std::string& text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size() && is_identifier_char(text[end])) ++end;
  if (end == at || (text[at] >= '0' && text[at] <= '9')) return {};
  return text.substr(at, end - at);
}

std::string run_command(const std::string& command, int& status) {
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    status = -1;
    return output;
  }
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  status = ::pclose(pipe);
  return output;
}

// A file that includes every header the shipped generated headers include (other generated headers
// excepted).
fs::path write_probe() {
  std::set<std::string> includes;
  const std::string directive = "#include ";
  for (const auto& entry : fs::directory_iterator(IDLC_GENERATED_DIR)) {
    if (entry.path().extension() != ".hpp") continue;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind(directive, 0) != 0 || line.size() <= directive.size() + 1) continue;
      const char open = line[directive.size()];
      const std::size_t close = line.find(open == '<' ? '>' : '"', directive.size() + 1);
      if ((open != '<' && open != '"') || close == std::string::npos) continue;
      const std::string header = line.substr(directive.size() + 1, close - directive.size() - 1);
      if (open == '<') {
        includes.insert("<" + header + ">");
      } else if (header.rfind("bitwire/", 0) == 0) {
        includes.insert("\"" + header + "\"");
      }
    }
  }
  fs::path probe = fs::temp_directory_path() / ("idlc_reserved_probe_" + std::to_string(::getpid()) + ".cpp");
  std::ofstream out(probe);
  for (const std::string& header : includes) out << "#include " << header << "\n";
  return probe;
}

bool reserved_anyway(const std::string& name) {
  return name.empty() || name[0] == '_' || name.find("__") != std::string::npos;
}

// Macro names the compiler defines after the probe's includes.
std::set<std::string> defined_macros(const std::string& compiler, const std::string& standard) {
  fs::path probe = write_probe();
  int status = 0;
  std::string output = run_command("'" + compiler + "' -std=" + standard + " -dM -E -I'" +
                                       std::string(IDLC_RUNTIME_INCLUDE) + "' '" + probe.string() + "'",
                                   status);
  fs::remove(probe);
  EXPECT_EQ(status, 0) << compiler;
  std::set<std::string> names;
  std::istringstream lines(output);
  std::string line;
  const std::string directive = "#define ";
  while (std::getline(lines, line)) {
    if (line.rfind(directive, 0) != 0) continue;
    std::string name = identifier_at(line, directive.size());
    if (!reserved_anyway(name)) names.insert(name);
  }
  return names;
}

std::string missing_macros(const std::set<std::string>& names) {
  std::string missing;
  for (const std::string& name : names) {
    if (!idlc::is_reserved_macro(name)) missing += "\"" + name + "\",\n";
  }
  return missing;
}

TEST(ReservedNames, EveryMacroOfTheGeneratedIncludesIsInTheTable) {
  for (const char* standard : {"gnu++20", "c++20"}) {
    std::set<std::string> names = defined_macros(IDLC_TEST_CXX, standard);
    // The probe must have seen the headers: these come from <cerrno>, <cstdint>, <cmath>, <cinttypes>.
    for (const char* known : {"EINVAL", "SIZE_MAX", "INT32_MAX", "NAN", "PRIu64", "EXIT_SUCCESS"}) {
      EXPECT_EQ(names.count(known), 1u) << known << " not defined: the probe did not include the headers";
    }
    EXPECT_EQ(missing_macros(names), "") << "add these to idlc/src/frontend/reserved_macros.inc (" << standard << ")";
  }
  if (std::string(IDLC_TEST_CLANGXX).empty()) return;  // the other compiler is checked where it is installed
  EXPECT_EQ(missing_macros(defined_macros(IDLC_TEST_CLANGXX, "gnu++20")), "")
      << "add these to idlc/src/frontend/reserved_macros.inc (clang++)";
}

TEST(ReservedNames, GnuModePlatformMacrosAreInTheTable) {
  // -std=gnu++20 is CMake's default for CXX_STANDARD 20 without CXX_EXTENSIONS OFF.
  for (const char* name : {"linux", "unix", "i386"}) EXPECT_TRUE(idlc::is_reserved_macro(name)) << name;
}

// Global-namespace names declared after the probe's includes, from clang's AST dump: top-level
// declarations and those directly inside a top-level `extern "C"` block.
std::set<std::string> global_names(const std::string& clang) {
  fs::path probe = write_probe();
  int status = 0;
  std::string output =
      run_command("'" + clang + "' -std=gnu++20 -fsyntax-only -Xclang -ast-dump -I'" +
                      std::string(IDLC_RUNTIME_INCLUDE) + "' '" + probe.string() + "' 2>/dev/null",
                  status);
  fs::remove(probe);
  EXPECT_EQ(status, 0);
  std::set<std::string> names;
  std::istringstream lines(output);
  std::string line;
  const std::set<std::string> kinds = {"FunctionDecl", "VarDecl",  "TypedefDecl",   "CXXRecordDecl",
                                       "RecordDecl",   "EnumDecl", "TypeAliasDecl", "NamespaceDecl"};
  auto is_branch = [](const std::string& text, std::size_t at) {
    return text.size() > at + 1 && (text[at] == '|' || text[at] == '`') && text[at + 1] == '-';
  };
  bool in_extern_c = false;
  while (std::getline(lines, line)) {
    std::string kind;
    if (is_branch(line, 0)) {
      kind = identifier_at(line, 2);
      in_extern_c = kind == "LinkageSpecDecl";
    } else if (in_extern_c && line.size() > 2 && (line[0] == '|' || line[0] == ' ') && line[1] == ' ' &&
               is_branch(line, 2)) {
      kind = identifier_at(line, 4);
    } else {
      continue;
    }
    if (kinds.count(kind) == 0 || line.find(" implicit ") != std::string::npos) continue;
    // The name is the last word before the type in quotes, after dropping `definition` and `prev 0x...`.
    std::istringstream words(line.substr(0, line.find('\'')));
    std::string word;
    std::string last;
    bool skip_next = false;
    while (words >> word) {
      if (skip_next) {
        skip_next = false;
      } else if (word == "prev") {
        skip_next = true;
      } else if (word != "definition") {
        last = word;
      }
    }
    if (identifier_at(last, 0) == last && !reserved_anyway(last)) names.insert(last);
  }
  return names;
}

TEST(ReservedNames, EveryGlobalOfTheGeneratedIncludesIsInTheTable) {
  // The C library names a package was seen to collide with.
  for (const char* name : {"size_t", "exit", "printf", "FILE", "tm"}) {
    EXPECT_TRUE(idlc::is_reserved_global(name)) << name;
  }
  if (std::string(IDLC_TEST_CLANGXX).empty()) return;  // the AST dump needs clang++
  std::set<std::string> names = global_names(IDLC_TEST_CLANGXX);
  EXPECT_GT(names.size(), 500u) << "the AST dump was not read";
  std::string missing;
  for (const std::string& name : names) {
    if (!idlc::is_reserved_global(name)) missing += "\"" + name + "\",\n";
  }
  EXPECT_EQ(missing, "") << "add these to idlc/src/frontend/reserved_globals.inc";
}

}  // namespace
