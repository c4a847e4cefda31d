#include "backend/cpp/output.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "backend/cpp/emit_cpp.hpp"

namespace idlc {
namespace {

bool read_file(const std::filesystem::path& path, std::string& contents) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  contents = text.str();
  return true;
}

// Make syntax: spaces and '#' are escaped with a backslash, '$' doubled.
std::string depfile_escape(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#' || c == '\\') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

}  // namespace

bool write_if_changed(const std::filesystem::path& path, const std::string& contents, std::string& error) {
  std::string existing;
  if (read_file(path, existing) && existing == contents) return true;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  out.close();
  if (!out) {
    error = "cannot write '" + path.string() + "'";
    return false;
  }
  return true;
}

bool write_cpp_headers(const model::Schema& schema, const std::string& out_dir, const std::string& depfile,
                       std::string& error, const CppOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    error = "cannot create output directory '" + out_dir + "': " + ec.message();
    return false;
  }
  // Two schema files whose outputs share a name (a/game.net and b/game.net; game.net and game_factory_1.net
  // with several factory sources) would overwrite each other.
  std::map<std::string, const model::Package*> by_output;
  for (const model::Package& package : schema.packages) {
    std::vector<std::string> names = cpp_source_names(package, options);
    names.insert(names.begin(), cpp_header_name(package));
    for (const std::string& name : names) {
      auto [it, inserted] = by_output.emplace(name, &package);
      if (!inserted) {
        error = "'" + it->second->source_path + "' and '" + package.source_path + "' would both generate '" + name +
                "': rename one of the schema files";
        return false;
      }
    }
  }
  std::vector<std::string> inputs;  // every schema read, imports included
  for (const model::Package& package : schema.packages) {
    const std::filesystem::path path = std::filesystem::path(out_dir) / cpp_header_name(package);
    if (!write_if_changed(path, emit_cpp_header(package, options), error)) return false;
    const std::vector<std::string> sources = cpp_source_names(package, options);
    for (std::size_t i = 0; i < sources.size(); ++i) {
      const std::filesystem::path source = std::filesystem::path(out_dir) / sources[i];
      if (!write_if_changed(source, emit_cpp_source(package, options, static_cast<int>(i)), error)) return false;
    }
    // Factory files of an earlier run with more files (a package that shrank, or a smaller N) would define
    // entry points twice, or of messages that no longer exist, in a build that compiles every such file.
    for (int i = static_cast<int>(sources.size()); i < kMaxFactorySources; ++i) {
      const std::filesystem::path stale =
          std::filesystem::path(out_dir) / (package.file_stem + "_factory_" + std::to_string(i) + ".cpp");
      std::filesystem::remove(stale, ec);
      if (ec) {
        error = "cannot remove '" + stale.string() + "', left from an earlier run: " + ec.message();
        return false;
      }
    }
    inputs.push_back(std::filesystem::absolute(package.source_path, ec).lexically_normal().string());
  }
  if (!depfile.empty()) {
    // The targets are the headers of the files named on the command line, in that order: those are the
    // outputs a build rule declares (Ninja requires the first target to be the rule's first output and
    // every target to be a declared output). Headers of imported packages are written too, but belong to
    // the rule that names their schema; they appear here only through the schemas they come from.
    std::vector<std::string> outputs;
    for (const model::Package* root : schema.roots) {
      const std::filesystem::path path = std::filesystem::path(out_dir) / cpp_header_name(*root);
      const std::string name = std::filesystem::absolute(path, ec).lexically_normal().string();
      if (std::find(outputs.begin(), outputs.end(), name) == outputs.end()) outputs.push_back(name);
    }
    std::string text;
    for (size_t i = 0; i < outputs.size(); ++i) text += (i ? " " : "") + depfile_escape(outputs[i]);
    text += ":";
    for (const std::string& input : inputs) text += " " + depfile_escape(input);
    text += "\n";
    if (!write_if_changed(depfile, text, error)) return false;
  }
  return true;
}

}  // namespace idlc
