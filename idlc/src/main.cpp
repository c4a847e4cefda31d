// idlc: the .net schema compiler's command line. Exit status: 0 success, 1 schema errors, 2 usage errors,
// 3 an internal error (a bug in idlc: reported as such, never a crash).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "check/check.hpp"
#include "frontend/diagnostics.hpp"
#include "backend/bench/emit_cpp_bench.hpp"
#include "model/layout.hpp"
#include "frontend/loader.hpp"
#include "backend/cpp/output.hpp"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitSchemaError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInternal = 3;

const char kUsage[] =
    "usage: idlc [options] FILE.net...\n"
    "\n"
    "Checks .net schema files and everything they import; with -o, writes one C++ header and its C++\n"
    "source files (NAME.hpp, NAME.cpp: the message factory) per schema file (imports included) into DIR.\n"
    "\n"
    "options:\n"
    "  -o DIR             write the generated C++ headers into DIR\n"
    "  --depfile FILE     with -o: also write a Makefile-style depfile naming every schema read\n"
    "  --random           with -o: also write NAME_random.hpp per schema file: random valid instances of\n"
    "                     every struct (bitwire::random_fill), for property tests and benchmarks\n"
    "  --bench            with -o: --random, and NAME_bench.cpp per schema file named here: a Google\n"
    "                     Benchmark program timing write, read and measure of every message\n"
    "  --no-format        with -o: leave out the formatting code (format_value, to_string of structs)\n"
    "  --factory-sources auto|N\n"
    "                     with -o: spread each package's message factory over source files NAME.cpp and\n"
    "                     NAME_factory_1.cpp ... NAME_factory_<N-1>.cpp; compile every one of them.\n"
    "                     auto (the default): one file per 25 messages (rounded down), at most 16 files,\n"
    "                     so a package of up to 49 messages gets NAME.cpp alone; N (1..64): always exactly\n"
    "                     N files, at least 25 messages a file (a file left without messages is empty),\n"
    "                     for build systems that list them in advance.\n"
    "                     Factory files of an earlier run beyond the count are removed\n"
    "  -I DIR             also look for imported files in DIR (after the importing file's directory)\n"
    "  --allow-import-outside\n"
    "                     let imports name files outside the directories of the given schema files\n"
    "                     and the -I directories (refused by default)\n"
    "  --check            parse and check only; print nothing on success (the default)\n"
    "  --parseable-fixits after an error with a \"did you mean\", print the replacement for editors as\n"
    "                     fix-it:\"FILE\":{LINE:COL-LINE:COL}:\"TEXT\" (clang's format; also accepted as\n"
    "                     -fdiagnostics-parseable-fixits)\n"
    "  --layout[=text]    print every message's wire layout: each field's bit offset range and width,\n"
    "                     and the worst-case total (MaxBits, 7 bits per alignment)\n"
    "  --layout=json      the same as JSON, for tools\n"
    "  --version          print the version\n"
    "  -h, --help         print this help\n"
    "\n"
    "exit status: 0 success, 1 schema errors, 2 usage errors, 3 internal error (a bug in idlc: please\n"
    "report it with the schema)\n";

int usage_error(const std::string& message) {
  std::cerr << "idlc: error: " << message << "\nrun 'idlc --help' for usage\n";
  return kExitUsage;
}

}  // namespace

int run(int argc, char** argv) {
  enum class Layout { None, Text, Json };
  Layout layout = Layout::None;
  std::vector<std::string> files;
  std::string out_dir;
  std::string depfile;
  bool random = false;
  bool bench = false;
  bool factory_sources_given = false;
  bool parseable_fixits = false;
  idlc::LoadOptions load_options;
  idlc::CppOptions cpp_options;
  bool options_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (options_done || arg.empty() || arg[0] != '-' || arg == "-") {
      files.push_back(arg);
    } else if (arg == "--") {
      options_done = true;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return kExitOk;
    } else if (arg == "--version") {
      std::cout << "idlc " << IDLC_VERSION << "\n";
      return kExitOk;
    } else if (arg == "--factory-sources") {
      if (i + 1 >= argc) return usage_error("'--factory-sources' needs a value");
      const std::string value = argv[++i];
      factory_sources_given = true;
      if (value == "auto") {
        cpp_options.factory_sources = idlc::kFactorySourcesAuto;
        continue;
      }
      int count = 0;
      const bool digits = !value.empty() && value.size() <= 2 &&
                          value.find_first_not_of("0123456789") == std::string::npos;
      if (digits) count = std::stoi(value);
      if (count < 1 || count > idlc::kMaxFactorySources) {
        return usage_error("'--factory-sources " + value + "': give auto or a number of files from 1 to " +
                           std::to_string(idlc::kMaxFactorySources));
      }
      cpp_options.factory_sources = count;
    } else if (arg == "-o" || arg == "--depfile") {
      if (i + 1 >= argc) return usage_error("'" + arg + "' needs a value");
      (arg == "-o" ? out_dir : depfile) = argv[++i];
    } else if (arg == "-I" || (arg.rfind("-I", 0) == 0 && arg.size() > 2)) {
      if (arg == "-I" && i + 1 >= argc) return usage_error("'-I' needs a directory");
      std::string dir = arg == "-I" ? argv[++i] : arg.substr(2);
      std::error_code ec;
      if (!std::filesystem::is_directory(dir, ec)) return usage_error("'-I " + dir + "': not a directory");
      load_options.include_paths.push_back(dir);
    } else if (arg == "--no-format") {
      cpp_options.format = false;
    } else if (arg == "--parseable-fixits" || arg == "-fdiagnostics-parseable-fixits") {
      parseable_fixits = true;
    } else if (arg == "--allow-import-outside") {
      load_options.allow_outside = true;
    } else if (arg == "--random") {
      random = true;
    } else if (arg == "--bench") {
      random = true;
      bench = true;
    } else if (arg == "--check") {
      // Checking is what every run does; the flag states it explicitly.
    } else if (arg == "--layout" || arg == "--layout=text") {
      layout = Layout::Text;
    } else if (arg == "--layout=json") {
      layout = Layout::Json;
    } else if (arg.rfind("--layout=", 0) == 0) {
      return usage_error("unknown layout format '" + arg.substr(9) + "': use --layout=text or --layout=json");
    } else {
      return usage_error("unknown option '" + arg + "'");
    }
  }
  if (files.empty()) return usage_error("no schema files given");
  if (!depfile.empty() && out_dir.empty()) return usage_error("--depfile needs -o DIR");
  if (factory_sources_given && out_dir.empty()) return usage_error("--factory-sources needs -o DIR");
  if (random && out_dir.empty()) return usage_error(std::string(bench ? "--bench" : "--random") + " needs -o DIR");
  for (const std::string& file : files) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) {
      return usage_error("cannot read '" + file + "': " + (std::filesystem::exists(file, ec) ? "not a regular file"
                                                                                                : "no such file"));
    }
  }

  idlc::Diagnostics diagnostics;
  diagnostics.set_parseable_fixits(parseable_fixits);
  idlc::DiskFileSystem file_system;
  std::unique_ptr<idlc::model::Schema> schema = idlc::compile(files, file_system, diagnostics, load_options);
  if (!schema) {
    diagnostics.print(std::cerr);
    std::size_t errors = diagnostics.error_count();
    std::cerr << "idlc: " << errors << " error" << (errors == 1 ? "" : "s") << "\n";
    return kExitSchemaError;
  }
  if (!out_dir.empty()) {
    std::string error;
    if (!idlc::write_cpp_headers(*schema, out_dir, depfile, error, cpp_options) ||
        (random && !idlc::write_cpp_bench_files(*schema, out_dir, bench, error))) {
      std::cerr << "idlc: error: " << error << "\n";
      return kExitSchemaError;
    }
  }
  if (layout == Layout::Text) {
    bool first = true;
    for (const idlc::model::Package* package : schema->roots) {
      std::cout << (first ? "" : "\n") << idlc::layout_text(*package);
      first = false;
    }
  } else if (layout == Layout::Json) {
    // One array of package objects, whatever the number of files.
    std::cout << "[\n";
    for (std::size_t i = 0; i < schema->roots.size(); ++i) {
      std::cout << idlc::layout_json(*schema->roots[i]) << (i + 1 < schema->roots.size() ? ",\n" : "");
    }
    std::cout << "]\n";
  }
  return kExitOk;
}

int main(int argc, char** argv) {
  // idlc reports every problem with a schema as a diagnostic; an exception escaping to here is a bug in
  // idlc (or memory exhaustion), reported with its own exit status instead of std::terminate.
  try {
    if (const char* crash = std::getenv("IDLC_TEST_INTERNAL_ERROR"); crash != nullptr && *crash != '\0') {
      throw std::runtime_error(std::string("forced by IDLC_TEST_INTERNAL_ERROR=") + crash);
    }
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "idlc: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "idlc: internal error: an unknown exception\n";
  }
  return kExitInternal;
}
