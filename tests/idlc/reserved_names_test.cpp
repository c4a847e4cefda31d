// The tables of names a schema may not declare because the headers generated code includes already use
// them (idlc/src/frontend/reserved_macros.inc, reserved_globals.inc) are regenerated here from the compilers and
// compared, so they cannot go stale when a runtime header or a generated #include changes:
//   macros:  $CXX -std=gnu++20 -dM -E -Iruntime/include probe.cpp   (also -std=c++20, and with clang++)
//   globals: clang++ -std=gnu++20 -fsyntax-only -Xclang -ast-dump -Iruntime/include probe.cpp
// where probe.cpp includes every header a file in generated/ includes. A failure lists the missing names:
// add them to the table (one quoted name per line).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/names.hpp"
#include "model/model.hpp"
#include "support.hpp"

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

// A declaration named like a member idlc generates inside every struct (MaxBits, MaxBytes, kType,
// kHasBlock, ...) would be found as that member wherever a struct uses it: `uint8 a[MaxBits]` became an
// array of the struct's own MaxBits elements while --layout and the ProtocolId said the constant's value.
// Every such name is refused for a constant and for every kind of type, in every place one can appear.
TEST(ReservedNames, NoDeclarationTakesTheNameOfAGeneratedMember) {
  const std::vector<std::string>& members = idlc::model::reserved_member_names();
  ASSERT_NE(std::find(members.begin(), members.end(), "kHasBlock"), members.end());
  // $ is the name; each schema uses it once, in one place a constant or a type can appear in a struct.
  const std::vector<std::string> places = {
      "const $ = 3;\nmessage M { uint8 a[$]; }\n",
      "const $ = 3;\nmessage M { uint8 a[0 .. $]; }\n",
      "const $ = 3;\nmessage M { uint8 a[$ .. 4]; }\n",
      "const $ = 3;\nmessage M { sparse uint8 a[$]; }\n",
      "const $ = 3;\nmessage M { string<$> s; }\n",
      "const $ = 3;\nmessage M { bytes<$> s; }\n",
      "const $ = 3;\nmessage M { bytes[$] s; }\n",
      "const $ = 3;\nmessage M { int<0 .. $> x; }\n",
      "const $ = 3;\nmessage M { uint8 x = $; }\n",
      "const $ = 3;\nmessage M { uint:$ x; }\n",
      "const $ = 3;\nmessage M block { uint8 a[$]; }\n",
      "const $ = 3;\nstruct S { uint8 a[$]; }\nmessage M { S s; }\n",
      "struct $ { bool b; }\nmessage M { $ x; }\n",
      "message $ { bool b; }\nmessage M { $ x; }\n",
      "enum $ { A, B }\nmessage M { $ x; }\n",
      "flags $ { A, B }\nmessage M { $ x; }\n",
  };
  std::size_t cases = 0;
  for (const std::string& name : members) {
    for (const std::string& place : places) {
      std::string text = "package t;\n";
      for (char c : place) text += c == '$' ? name : std::string(1, c);
      auto compiled = idlc::test::compile_text(text);
      EXPECT_EQ(compiled->schema, nullptr) << text;
      EXPECT_NE(
          compiled->errors.find("'" + name + "' is the name of a member idlc generates in every struct"),
          std::string::npos)
          << text << compiled->errors;
      ++cases;
    }
  }
  EXPECT_GE(cases, 11u * places.size());
}

// The members generated next to a field (has_x for an optional x, x_changed for a sparse array, x_count
// for a variable array) hide a declaration of the same name inside the struct: refused, naming both.
TEST(ReservedNames, NoDeclarationTakesTheNameOfAFieldsCompanionMember) {
  struct Case {
    const char* text;
    const char* expect;
  };
  const Case cases[] = {
      {"const has_f = 3;\nmessage M { uint8 f?; uint8 a[has_f]; }\n",
       "3:19: field 'f' is optional, so its struct M has a member 'has_f', which would hide the constant "
       "'has_f' "
       "(line 2) inside the struct: rename one of them"},
      {"const f_changed = 3;\nmessage M { sparse uint8 f[4]; uint8 a[f_changed]; }\n",
       "3:26: field 'f' is a sparse array, so its struct M has a member 'f_changed', which would hide the "
       "constant 'f_changed' (line 2) inside the struct: rename one of them"},
      {"const f_count = 3;\nmessage M { uint8 f[0 .. 4]; uint8 a[f_count]; }\n",
       "3:19: field 'f' is a variable array, so its struct M has a member 'f_count', which would hide the "
       "constant 'f_count' (line 2) inside the struct: rename one of them"},
      {"struct has_f { bool b; }\nmessage M { uint8 f?; has_f x; }\n",
       "3:19: field 'f' is optional, so its struct M has a member 'has_f', which would hide the struct "
       "'has_f' "
       "(line 2) inside the struct: rename one of them"},
      {"enum f_changed { A }\nstruct S { sparse uint8 f[4]; }\n",
       "3:25: field 'f' is a sparse array, so its struct S has a member 'f_changed', which would hide the "
       "enum 'f_changed' (line 2) inside the struct: rename one of them"},
  };
  for (const Case& c : cases) {
    auto compiled = idlc::test::compile_text(std::string("package t;\n") + c.text);
    EXPECT_EQ(compiled->schema, nullptr) << c.text;
    EXPECT_NE(compiled->errors.find(c.expect), std::string::npos) << c.text << compiled->errors;
  }
}

}  // namespace
