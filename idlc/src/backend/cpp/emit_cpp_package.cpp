// What a package declares once: MessageType, ProtocolId, message names, the message factory the runtime's
// channels and connections take, serialize_message and kMaxMessageBits.
//
// Nothing here instantiates one template over every message of the package, so the output scales to
// thousands of message types: the factory is a table of function pointers indexed by type id, defined in
// the package's source file (the header declares it), names and bit counts are switches, and
// serialize_message is one template per message type plus one that dispatches through the factory's table.
// The table points at one out-of-line function per message and stream kind; with idlc --factory-sources N
// those functions are spread over N files in contiguous shares of the messages, so a parallel build
// compiles them at once and no single file holds the whole package's code (the source files are the only
// ones that instantiate messages' serialize for the factory).
#include "backend/cpp/emit_cpp_emitter.hpp"

namespace idlc::cpp {

void Emitter::message_type_enum() {
  p_.print("// Every message of the package, by type id; on the wire a type takes $bits$ bits.\n",
           {{"bits", std::to_string(package_.message_type_bits)}});
  p_.print("enum class MessageType : $u$ {\n", {{"u", storage_type(package_.message_type_storage)}});
  {
    Indent in(p_);
    for (const model::Struct* message : package_.messages) {
      p_.print("$name$ = $id$,\n", {{"name", message->name}, {"id", std::to_string(message->type_id)}});
    }
  }
  p_.print("};\n\n");
  p_.print("inline constexpr std::uint32_t kMessageTypeCount = $n$;\n", {{"n", std::to_string(package_.messages.size())}});
  p_.print("inline constexpr int kMessageTypeBits = $n$;\n\n", {{"n", std::to_string(package_.message_type_bits)}});
}

void Emitter::package_footer() {
  p_.print("// Fingerprint of the package's wire shape: peers built from different schemas have different ids.\n");
  if (package_.protocol_id_with_checks != package_.protocol_id) {
    // A message reaches a `check`: builds that write the markers have another wire, so another id.
    p_.print("inline constexpr std::uint64_t ProtocolId = bitwire::kSerializeChecks ? $with$ : $without$;\n\n",
             {{"with", hex64(package_.protocol_id_with_checks)}, {"without", hex64(package_.protocol_id)}});
  } else {
    p_.print("inline constexpr std::uint64_t ProtocolId = $id$;\n\n", {{"id", hex64(package_.protocol_id)}});
  }
  if (package_.messages.empty()) return;

  std::vector<std::string> names;
  for (const model::Struct* message : package_.messages) names.push_back(message->name);
  const std::string last = std::to_string(names.size() - 1);

  p_.print("// The message's name, or nullptr for a value outside MessageType.\n");
  p_.print("inline constexpr const char* message_name(MessageType type_) {\n");
  {
    Indent in(p_);
    p_.print("switch (type_) {\n");
    for (const std::string& name : names) p_.print("  case MessageType::$n$: return \"$n$\";\n", {{"n", name}});
    p_.print("}\n");
    p_.print("return nullptr;\n");
  }
  p_.print("}\n\n");

  p_.print("// The largest message, in bits, including its type.\n");
  p_.print("inline constexpr std::size_t kMaxMessageBits = kMessageTypeBits + [] {\n");
  p_.print("  std::size_t largest_ = 0;\n");
  p_.print("  for (std::size_t bits_ : {\n");
  for (std::size_t i = 0; i < names.size(); ++i) {
    p_.print("           $n$::MaxBits$sep$\n", {{"n", names[i]}, {"sep", i + 1 < names.size() ? "," : ""}});
  }
  p_.print("       }) {\n");
  p_.print("    largest_ = bits_ > largest_ ? bits_ : largest_;\n");
  p_.print("  }\n");
  p_.print("  return largest_;\n");
  p_.print("}();\n\n");

  p_.print("// The package's message factory for bitwire::Connection and bitwire::MessagePool: one entry per\n");
  p_.print("// message type, indexed by type id, so dispatch by type is one array index. Defined in $src$, which\n",
           {{"src", comment_text(cpp_source_name(package_))}});
  p_.print("// idlc writes next to this header (with the files of idlc --factory-sources N beside it): those files\n");
  p_.print("// compile every message's serialize for the four stream kinds, so a file that dispatches messages\n");
  p_.print("// costs no more to compile than one that includes this header.\n");
  p_.print("const bitwire::MessageFactory& message_factory();\n\n");

  p_.print("// One message of a known type: its type in $bits$ bits, then its body. A read refuses any other type\n",
           {{"bits", std::to_string(package_.message_type_bits)}});
  p_.print("// (kInvalidEnum, where the type starts); read a message of any type with the handle overload.\n");
  p_.print("template <typename Stream_, typename Message_>\n");
  p_.print("  requires std::is_same_v<decltype(Message_::kType), const MessageType>\n");
  p_.print("bool serialize_message(Stream_& stream_, Message_& message_) {\n");
  {
    Indent in(p_);
    p_.print("std::uint32_t type_ = Message_::kTypeId;\n");
    p_.print("BITWIRE_TRY(bitwire::serialize_int(stream_, type_, 0u, $last$u));\n", {{"last", last}});
    p_.print("if constexpr (Stream_::kIsReading) {\n");
    p_.print("  if (type_ != Message_::kTypeId) {\n");
    p_.print("    return stream_.fail_at(bitwire::ReadError::kInvalidEnum, stream_.bits_processed() - static_cast<std::size_t>(kMessageTypeBits));\n");
    p_.print("  }\n");
    p_.print("}\n");
    p_.print("return message_.serialize(stream_);\n");
  }
  p_.print("}\n\n");

  p_.print("// A message of any type, held by a handle of a MessagePool built on message_factory(): its type in\n");
  p_.print("// $bits$ bits, then its body through the factory's table. Writing, measuring and validating need a\n",
           {{"bits", std::to_string(package_.message_type_bits)}});
  p_.print("// non-empty handle and leave `pool_` alone; a read replaces `message_` with a new message from\n");
  p_.print("// `pool_` and refuses a type the pool cannot create (kInvalidData: unknown type or pool exhausted);\n");
  p_.print("// a refused body leaves `message_` empty.\n");
  p_.print("template <typename Stream_>\n");
  p_.print("bool serialize_message(Stream_& stream_, bitwire::MessagePool& pool_, bitwire::MessageHandle& message_) {\n");
  {
    Indent in(p_);
    p_.print("std::uint32_t type_ = 0;\n");
    p_.print("if constexpr (!Stream_::kIsReading) type_ = message_.type();\n");
    p_.print("BITWIRE_TRY(bitwire::serialize_int(stream_, type_, 0u, $last$u));\n", {{"last", last}});
    p_.print("if constexpr (Stream_::kIsReading) {\n");
    p_.print("  message_ = pool_.create(type_);\n");
    p_.print("  if (!message_) {\n");
    p_.print("    return stream_.fail_at(bitwire::ReadError::kInvalidData, stream_.bits_processed() - static_cast<std::size_t>(kMessageTypeBits));\n");
    p_.print("  }\n");
    p_.print("  if (!bitwire::serialize_message_body(stream_, message_)) {\n");
    p_.print("    message_ = bitwire::MessageHandle();  // a refused read leaves no half-read message behind\n");
    p_.print("    return false;\n");
    p_.print("  }\n");
    p_.print("  return true;\n");
    p_.print("} else {\n");
    p_.print("  (void)pool_;\n");
    p_.print("  return bitwire::serialize_message_body(stream_, message_);\n");
    p_.print("}\n");
  }
  p_.print("}\n\n");
}

namespace {

// The stream kinds of the factory's entry points: name prefix and runtime stream type.
struct EntryKind {
  const char* prefix;
  const char* stream;
};
constexpr EntryKind kEntryKinds[] = {{"write", "bitwire::WriteStream"},
                                     {"read", "bitwire::ReadStream"},
                                     {"measure", "bitwire::MeasureStream"},
                                     {"validate", "bitwire::ValidateStream"}};

}  // namespace

std::string Emitter::run_source(int index) {
  const int files = factory_source_count(package_, options_);
  const auto [first, last] = factory_share(package_.messages.size(), files, index);
  p_.print("// Generated by idlc from $file$.net. Do not edit: change the schema and run idlc again.\n",
           {{"file", comment_text(package_.file_stem)}});
  if (package_.messages.empty()) {
    p_.print("// The package declares no messages: no message factory, nothing to compile.\n");
    return p_.str();
  }
  if (first == last) {
    p_.print("// One of the $n$ source files of the package's message factory (idlc --factory-sources $n$); the\n",
             {{"n", std::to_string(files)}});
    p_.print("// package's $m$ messages fill fewer (at least $k$ per file), so this one is empty.\n",
             {{"m", std::to_string(package_.messages.size())}, {"k", std::to_string(kMinMessagesPerFactorySource)}});
    return p_.str();
  }
  const std::string range = package_.messages[first]->name + " to " + package_.messages[last - 1]->name;
  p_.print("//\n");
  if (index == 0) {
    p_.print("// The message factory of the package: message_factory(), the table of every message's entry points\n");
    p_.print("// for the four stream kinds (write, read, measure, validate), and the entry points of messages\n");
    p_.print("// $r$, each one function with the message's serialize inlined into it.\n", {{"r", range}});
  } else {
    p_.print("// Part of the message factory of the package (the table is in $src$): the entry points for the four\n",
             {{"src", comment_text(cpp_source_name(package_))}});
    p_.print("// stream kinds (write, read, measure, validate) of messages $r$, each one function with the\n",
             {{"r", range}});
    p_.print("// message's serialize inlined into it.\n");
  }
  if (files > 1) {
    if (options_.factory_sources == kFactorySourcesAuto) {
      p_.print(
          "// The factory is spread over $n$ files (idlc's choice for $m$ messages: one file per $k$); "
          "compile every\n",
          {{"n", std::to_string(files)},
           {"m", std::to_string(package_.messages.size())},
           {"k", std::to_string(kMinMessagesPerFactorySource)}});
      p_.print("// one into the program\n");
    } else {
      p_.print(
          "// The factory is spread over $n$ files (idlc --factory-sources $n$); compile every one into the "
          "program\n",
          {{"n", std::to_string(files)}});
    }
    p_.print("// (idlc_generate does): $list$.\n", {{"list", comment_text(join(cpp_source_names(package_, options_), ", "))}});
  } else {
    p_.print("// Compile it into the program (idlc_generate does).\n");
  }
  p_.print("// Build with the BITWIRE_SERIALIZE_CHECKS setting of the files that use the header.\n");
  p_.print("#include \"$h$\"\n\n", {{"h", cpp_header_name(package_)}});
  open_namespace();
  // Declared before they are defined, so the file compiles under -Wmissing-declarations too.
  const std::size_t declared_first = index == 0 ? 0 : first;
  const std::size_t declared_last = index == 0 ? package_.messages.size() : last;
  for (std::size_t i = declared_first; i < declared_last; ++i) {
    for (const EntryKind& kind : kEntryKinds) {
      p_.print("bool $p$_$n$_(void* message_, $s$& stream_);\n",
               {{"p", kind.prefix}, {"n", package_.messages[i]->name}, {"s", kind.stream}});
    }
  }
  p_.print("\n");
  // One out-of-line function per message and stream kind, the message's serialize (forced inline) in it:
  // what the channels call through the table.
  for (std::size_t i = first; i < last; ++i) {
    for (const EntryKind& kind : kEntryKinds) {
      p_.print("bool $p$_$n$_(void* message_, $s$& stream_) {\n", {{"p", kind.prefix}, {"n", package_.messages[i]->name}, {"s", kind.stream}});
      p_.print("  return static_cast<$n$*>(message_)->serialize(stream_);\n", {{"n", package_.messages[i]->name}});
      p_.print("}\n");
    }
  }
  p_.print("\n");
  if (index == 0) factory_definition();
  close_namespace();
  return p_.str();
}

void Emitter::factory_definition() {
  p_.print("const bitwire::MessageFactory& message_factory() {\n");
  {
    Indent in(p_);
    p_.print("static constexpr bitwire::MessageTypeInfo types_[] = {\n");
    for (const model::Struct* message : package_.messages) {
      p_.print("    bitwire::describe_message<$n$>(\"$n$\", {write_$n$_, read_$n$_, measure_$n$_, validate_$n$_}),\n",
               {{"n", message->name}});
    }
    p_.print("};\n");
    p_.print("static constexpr bitwire::MessageFactory factory_{types_};\n");
    p_.print("return factory_;\n");
  }
  p_.print("}\n\n");
}

}  // namespace idlc::cpp
