// Compiling what idlc emits, at test time: schema text -> idlc's library -> headers in a scratch
// directory -> one translation unit that instantiates every struct and message of the root packages ->
// g++ and clang++ at -Wall -Wextra -Werror -Wconversion -Wsign-conversion -Wshadow, with -std=c++20 and
// -std=gnu++20 (what CMake passes by default). Needs idlc_lib, BITWIRE_GXX, BITWIRE_CLANGXX and
// BITWIRE_RUNTIME_INCLUDE.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "check/check.hpp"
#include "frontend/diagnostics.hpp"
#include "backend/cpp/emit_cpp.hpp"
#include "model/model.hpp"

namespace bitwire::test::emit {

namespace fs = std::filesystem;

struct Schema {
  std::string name;  // file name, e.g. "hostile.net"
  std::string text;
};

struct Emitted {
  std::string errors;                // idlc's diagnostics; empty when the schemas were accepted
  std::vector<std::string> headers;  // root headers, in order
  std::string all_text;              // every emitted header, concatenated
};

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// The statements that instantiate everything a package's header defines for one struct.
inline std::string instantiate_struct(const idlc::model::Package& package, const idlc::model::Struct& s) {
  std::string ns;
  for (const std::string& part : package.name_parts) ns += "::" + part;
  return "  sum += instantiate<" + ns + "::" + s.name + ">();\n";
}

// Emits each schema (a root, compiled on its own with the others available as imports) into `dir`
// and writes `dir`/tu.cpp instantiating every struct and every package's serialize_message, and
// including each root's source files (its message factory, however many files idlc spreads it over).
inline Emitted emit_all(const std::vector<Schema>& schemas, const fs::path& dir,
                        const idlc::CppOptions& options = {}) {
  Emitted result;
  fs::create_directories(dir);
  std::map<std::string, std::string> files;
  for (const Schema& schema : schemas) files[schema.name] = schema.text;
  std::string body;
  std::string includes;
  std::string sources;
  for (const Schema& schema : schemas) {
    idlc::Diagnostics diagnostics;
    std::unique_ptr<idlc::model::Schema> model = idlc::compile_source(schema.name, schema.text, diagnostics, files);
    if (!model) {
      result.errors += schema.name + ": " + diagnostics.summary() + "\n";
      continue;
    }
    for (const idlc::model::Package& package : model->packages) {
      const std::string text = idlc::emit_cpp_header(package, options);
      write_text(dir / idlc::cpp_header_name(package), text);
      const std::vector<std::string> names = idlc::cpp_source_names(package, options);
      for (std::size_t i = 0; i < names.size(); ++i) {
        write_text(dir / names[i], idlc::emit_cpp_source(package, options, static_cast<int>(i)));
      }
      result.all_text += text;
    }
    const idlc::model::Package& root = *model->roots.front();
    result.headers.push_back(idlc::cpp_header_name(root));
    for (const std::string& name : idlc::cpp_source_names(root, options))
      sources += "#include \"" + name + "\"\n";
    includes += "#include \"" + idlc::cpp_header_name(root) + "\"\n";
    std::string ns;
    for (const std::string& part : root.name_parts) ns += "::" + part;
    for (const idlc::model::Struct& s : root.structs) body += instantiate_struct(root, s);
    if (!root.messages.empty()) {
      const std::string first = ns + "::" + root.messages.front()->name;
      body += "  sum += instantiate_messages<" + first + ">(" + ns + "::message_factory(), " + ns +
              "::MessageType{},\n      [](auto& s_, " + first + "& m_) { return " + ns +
              "::serialize_message(s_, m_); },\n      [](auto& s_, bitwire::MessagePool& p_, bitwire::MessageHandle& m_) "
              "{ return " + ns + "::serialize_message(s_, p_, m_); });\n";
    }
  }
  std::string tu = R"(#include <cstddef>
#include <string>
#include <vector>

#include "bitwire/message/message.hpp"
)" + includes + R"(
namespace {

template <typename T>
std::size_t instantiate() {
  T value;
  std::vector<std::byte> buffer(T::MaxBytes + 8);
  bitwire::WriteStream writer(buffer);
  value.serialize(writer);
  writer.flush();
  bitwire::ReadStream reader(buffer);
  const bool read = value.serialize(reader);
  bitwire::MeasureStream measure;
  value.serialize(measure);
  return )" + std::string(options.format ? "to_string(value).size() + " : "") +
                   R"(measure.bits_processed() + (read ? 1u : 0u) + (value == T{} ? 1u : 0u);
}

// The package's message layer: the factory table (every message's serialize for every stream kind),
// serialize_message of one known type and of a handle of any type.
template <typename First, typename Type, typename Typed, typename Any>
std::size_t instantiate_messages(const bitwire::MessageFactory& factory, Type type, Typed typed, Any any) {
  First first;
  std::vector<std::byte> buffer(65536);
  bitwire::WriteStream writer(buffer);
  typed(writer, first);
  bitwire::ReadStream reader(buffer);
  const bool typed_read = typed(reader, first);
  bitwire::MessagePool pool(factory, bitwire::MessagePoolConfig{});
  bitwire::MessageHandle message = pool.create(0);
  bitwire::WriteStream any_writer(buffer);
  any(any_writer, pool, message);
  bitwire::MeasureStream measure;
  any(measure, pool, message);
  bitwire::ValidateStream validate;
  any(validate, pool, message);
  bitwire::ReadStream any_reader(buffer);
  return (typed_read ? 1u : 0u) + (any(any_reader, pool, message) ? 1u : 0u) + measure.bits_processed() +
         static_cast<std::size_t>(type) + static_cast<std::size_t>(factory.type_count());
}

}  // namespace

std::size_t emitted_tu() {
  std::size_t sum = 0;
)" + body + R"(  return sum;
}

// The roots' source files: the message factories.
)" + sources;
  write_text(dir / "tu.cpp", tu);
  return result;
}

struct Compiler {
  std::string label;  // "g++ -std=c++20"
  std::string command;
};

inline std::vector<Compiler> compilers() {
  std::vector<Compiler> out;
  for (const std::string& path : {std::string(BITWIRE_GXX), std::string(BITWIRE_CLANGXX)}) {
    if (path.empty() || path.find("NOTFOUND") != std::string::npos) continue;
    for (const char* standard : {"c++20", "gnu++20"}) {
      out.push_back({path + " -std=" + standard, path + " -std=" + standard});
    }
  }
  return out;
}

// Compiles `dir`/tu.cpp with every compiler; returns "" when all succeed without a warning, else the
// failing commands with their output.
inline std::string compile_tu(const fs::path& dir) {
  std::string failures;
  for (const Compiler& compiler : compilers()) {
    const fs::path log = dir / "compile.log";
    const std::string command = compiler.command +
                                " -fsyntax-only -Wall -Wextra -Werror -Wconversion -Wsign-conversion -Wshadow"
                                " -I\"" + dir.string() + "\" -I\"" + BITWIRE_RUNTIME_INCLUDE + "\" \"" +
                                (dir / "tu.cpp").string() + "\" > \"" + log.string() + "\" 2>&1";
    if (std::system(command.c_str()) != 0) {
      failures += compiler.label + " failed:\n" + read_text(log).substr(0, 4000) + "\n";
    }
  }
  return failures;
}

// One directory per test and process, so that concurrent runs (two build trees) never share files.
inline fs::path scratch_dir(const std::string& name) {
  return fs::path(::testing::TempDir()) / ("bitwire_emit_" + std::to_string(::getpid()) + "_" + name);
}

}  // namespace bitwire::test::emit
