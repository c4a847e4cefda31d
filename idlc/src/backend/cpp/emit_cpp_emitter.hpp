// The C++ emitter's internals (use emit_cpp.hpp). One Emitter prints one package; its parts live in
// one file per concern:
//   emit_cpp.cpp            the file: prologue, constants, enums, flag sets, the order of definitions
//   emit_cpp_struct.cpp     struct definitions: members, initial values, MaxBits, formatting
//   emit_cpp_serialize.cpp  the serialize function: fields, arrays, optional fields, ifs, directives
//   emit_cpp_delta.cpp      the delta form: serialize_delta against a baseline, MaxDeltaBits
//   emit_cpp_package.cpp    per package: MessageType, serialize_message, ProtocolId; the source files
//                           with the message factory
//
// Compile time scales with the schema, not with its square: generated code never makes an unqualified
// call into an overload set that grows with the package (each type's formatter has its own name, and
// serialize calls runtime templates or a member), and only the emitted source files instantiate the
// messages' serialize for the factory, each for its share of the messages. Nor with the depth or width of
// one struct: past the model's inline budget (model::kMaxInlineWeight) a struct's serialize is called, not
// flattened, and no run is wider than model::kMaxRunMemberBits.
// Every decision (widths, ranges, costs, initial values, resets, how runs split into pieces read with one
// bounds check) comes from the model; this only prints.
//
// Generated names that the schema cannot take: every local, parameter and template parameter of
// generated code ends in '_' (the checker refuses schema names ending in '_'), so no field, type or
// constant of a schema can collide with them.
#pragma once

#include <string>
#include <vector>

#include "backend/cpp/emit_cpp.hpp"
#include "backend/cpp/emit_cpp_text.hpp"
#include "model/model.hpp"
#include "backend/cpp/printer.hpp"

namespace idlc::cpp {

class Emitter {
 public:
  Emitter(const model::Package& package, const CppOptions& options) : package_(package), options_(options) {}

  std::string run();
  std::string run_source(int index);

 private:
  // emit_cpp.cpp
  void prologue();
  void doc(const model::Doc& lines);
  void constant(const model::Constant& c);
  void enumeration(const model::Enum& e);
  void flag_set(const model::Flags& f);
  void open_namespace();
  void close_namespace();

  // emit_cpp_struct.cpp
  std::string qualified(const model::Package* owner, const std::string& name) const;
  std::string constant_or_number(const model::Constant* constant, std::uint64_t value) const;
  std::string element_type(const model::Type& type) const;
  std::string field_type(const model::Field& field) const;
  std::string value_text(const model::Type& type, const model::Value& value) const;
  std::string initial_value(const model::Field& field) const;
  std::string reset_value(const model::Field& field) const;
  std::string wire_text(const model::Type& type) const;
  std::string field_comment(const model::Field& field) const;
  void structure(const model::Struct& s);
  void member(const model::Field& field);
  std::string format_call(const model::Field& field, const std::string& value) const;
  void struct_format_member(const model::Struct& s);
  void package_format();

  // emit_cpp_serialize.cpp
  void serialize_function(const model::Struct& s);
  void element(const model::Type& type, const std::string& ref);
  void field_value(const model::Field& field);
  void reset_field(const model::Field& field);
  std::string condition_text(const model::Struct& s, const model::Condition& c) const;
  void emit_item(const model::Struct& s, const model::Item& item);
  void emit_items(const model::Struct& s, const std::vector<model::Item>& items, const std::vector<model::Run>& runs);
  void emit_run(const model::Struct& s, const std::vector<model::Item>& items, const std::vector<model::RunMember>& members,
                std::uint64_t bits);
  // A piece of a run as the model split it, with its members.
  struct Piece {
    std::vector<model::RunMember> members;
    const model::RunPiece* piece = nullptr;
  };
  void emit_aligned_pair(const model::Struct& s, const std::vector<model::Item>& items, const Piece& first,
                         const Piece& second);
  // What emit_items prints as one: a lone item, a grouped piece, or an aligned pair of pieces (`second`
  // set), covering items [first_item, end_item).
  struct Unit {
    std::size_t first_item = 0;
    std::size_t end_item = 0;
    Piece first;
    Piece second;
  };
  std::vector<Unit> units_of(const std::vector<model::Item>& items, const std::vector<model::Run>& runs);
  void emit_unit(const model::Struct& s, const std::vector<model::Item>& items, const Unit& unit);

  // emit_cpp_delta.cpp
  void delta_function(const model::Struct& s);
  void delta_items(const model::Struct& s, const std::vector<model::Item>& items);
  void delta_field(const model::Field& field);
  void delta_shape(const model::Field& field);
  void delta_scalar(const model::Type& type, const std::string& ref, const std::string& base);
  void delta_change(const model::Type& type, const std::string& ref, const std::string& base);
  void delta_changed_list(const model::Field& field, const std::string& shared,
                          const std::string& shared_max);
  std::string delta_differs(const model::Type& type, const std::string& a, const std::string& b) const;
  std::string delta_condition(const model::Struct& s, const model::Condition& c,
                              const std::string& prefix) const;

  // emit_cpp_package.cpp
  void message_type_enum();
  void package_footer();
  void factory_definition();

  const model::Package& package_;
  CppOptions options_;
  Printer p_;
  // Set (by a ScopedFlag in emit_run) while a WriteRun's own fields are emitted: their scalar fields are
  // passed to the runtime as copies.
  bool copy_run_values_ = false;
};

}  // namespace idlc::cpp
