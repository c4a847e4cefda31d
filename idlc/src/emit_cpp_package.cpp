// What a package declares once: MessageType, ProtocolId, message names, the Message variant, the
// factory, serialize_message and kMaxMessageBits.
#include "emit_cpp_emitter.hpp"

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
  p_.print("inline constexpr const char* message_name(MessageType type_) {\n");
  {
    Indent in(p_);
    p_.print("switch (type_) {\n");
    for (const std::string& name : names) p_.print("  case MessageType::$n$: return \"$n$\";\n", {{"n", name}});
    p_.print("}\n");
    p_.print("return nullptr;\n");
  }
  p_.print("}\n\n");

  p_.print("// Any message of the package; the alternative's index is its type id.\n");
  p_.print("using Message = std::variant<$list$>;\n\n", {{"list", join(names, ", ")}});

  p_.print("// The factory: makes `message_` a default-constructed message of `type_`. False for an unknown type.\n");
  p_.print("inline bool create_message(MessageType type_, Message& message_) {\n");
  {
    Indent in(p_);
    p_.print("switch (type_) {\n");
    for (const std::string& name : names) {
      p_.print("  case MessageType::$n$: message_.emplace<$n$>(); return true;\n", {{"n", name}});
    }
    p_.print("}\n");
    p_.print("return false;\n");
  }
  p_.print("}\n\n");

  p_.print("// The message's type in $bits$ bits, then its body. A read replaces `message_` with the type it finds.\n",
           {{"bits", std::to_string(package_.message_type_bits)}});
  p_.print("template <typename Stream_>\n");
  p_.print("bool serialize_message(Stream_& stream_, Message& message_) {\n");
  {
    Indent in(p_);
    p_.print("auto type_ = static_cast<std::uint32_t>(message_.index());\n");
    p_.print("BITWIRE_TRY(bitwire::serialize_int(stream_, type_, 0u, $last$u));\n",
             {{"last", std::to_string(names.size() - 1)}});
    p_.print("if constexpr (Stream_::kIsReading) {\n");
    p_.print("  if (message_.index() != type_) create_message(static_cast<MessageType>(type_), message_);\n");
    p_.print("}\n");
    p_.print("return std::visit([&stream_](auto& body_) { return body_.serialize(stream_); }, message_);\n");
  }
  p_.print("}\n\n");

  p_.print("// The largest message, in bits, including its type.\n");
  std::vector<std::string> maxes;
  for (const std::string& name : names) maxes.push_back(name + "::MaxBits");
  p_.print("inline constexpr std::size_t kMaxMessageBits = kMessageTypeBits + [] {\n");
  p_.print("  std::size_t largest_ = 0;\n");
  p_.print("  for (std::size_t bits_ : {$list$}) largest_ = bits_ > largest_ ? bits_ : largest_;\n", {{"list", join(maxes, ", ")}});
  p_.print("  return largest_;\n");
  p_.print("}();\n\n");
}

}  // namespace idlc::cpp
