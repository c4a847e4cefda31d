// One translation unit that includes every generated header and instantiates everything they define
// (serialize with each stream, formatting, the message factory and serialize_message), compiled by the
// generated_warnings_* tests with -Wall -Wextra -Werror -Wconversion -Wsign-conversion -Wshadow: warnings
// in templates appear only once they are instantiated. Not linked into any program.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common.hpp"
#include "constructs.hpp"
#include "game.hpp"
#include "lang.hpp"
#include "types.hpp"

namespace {

template <typename T>
std::size_t instantiate(T& value) {
  std::byte buffer[T::MaxBytes + 8] = {};
  bitwire::WriteStream writer(buffer);
  value.serialize(writer);
  writer.flush();
  bitwire::ReadStream reader(buffer);
  const bool read = value.serialize(reader);
  bitwire::MeasureStream measure;
  value.serialize(measure);
  return to_string(value).size() + measure.bits_processed() + (read ? 1u : 0u) + (value == T{} ? 1u : 0u);
}

// The package's message layer: the factory table (every message's serialize for every stream kind),
// serialize_message of one known type and of a handle of any type.
template <typename Message, typename Type, typename Typed, typename Any>
std::size_t instantiate_messages(const bitwire::MessageFactory& factory, Type type, Typed typed, Any any) {
  Message message;
  std::byte buffer[16384] = {};
  bitwire::WriteStream writer(buffer);
  typed(writer, message);
  bitwire::ReadStream reader(buffer);
  const bool typed_read = typed(reader, message);
  bitwire::MessagePool pool(factory, bitwire::MessagePoolConfig{});
  bitwire::MessageHandle handle = pool.create(static_cast<std::uint32_t>(type));
  bitwire::WriteStream any_writer(buffer);
  any(any_writer, pool, handle);
  bitwire::MeasureStream measure;
  any(measure, pool, handle);
  bitwire::ValidateStream validate;
  any(validate, pool, handle);
  bitwire::ReadStream any_reader(buffer);
  return (typed_read ? 1u : 0u) + (any(any_reader, pool, handle) ? 1u : 0u) + measure.bits_processed() +
         static_cast<std::size_t>(type) + static_cast<std::size_t>(factory.type_count());
}

}  // namespace

std::size_t bitwire_generated_warnings_tu() {
  std::size_t sum = 0;
  common::Position position;
  common::Velocity velocity;
  common::Orientation orientation;
  sum += instantiate(position) + instantiate(velocity) + instantiate(orientation);

  game::EntityState entity;
  game::GameEvent event;
  game::PlayerInput input;
  game::Snapshot snapshot;
  game::Events events;
  game::ScoreUpdate scores;
  game::Chat chat;
  game::LevelLoad level;
  sum += instantiate(entity) + instantiate(event) + instantiate(input) + instantiate(snapshot) +
         instantiate(events) + instantiate(scores) + instantiate(chat) + instantiate(level);
  sum += instantiate_messages<game::Chat>(
      game::message_factory(), game::MessageType::Chat,
      [](auto& stream, game::Chat& message) { return game::serialize_message(stream, message); },
      [](auto& stream, bitwire::MessagePool& pool, bitwire::MessageHandle& message) {
        return game::serialize_message(stream, pool, message);
      });
  sum += std::string(game::message_name(game::MessageType::LevelLoad)).size() + game::kMaxMessageBits;
  sum += static_cast<std::size_t>(
      game::has_flag(game::InputButtons::Jump | game::InputButtons::Fire, game::InputButtons::Fire));

  demo::constructs::Scalars scalars;
  demo::constructs::Shapes shapes;
  demo::constructs::Conditions conditions;
  demo::constructs::Directives directives;
  demo::constructs::Ping ping;
  demo::constructs::Everything everything;
  sum += instantiate(scalars) + instantiate(shapes) + instantiate(conditions) + instantiate(directives) +
         instantiate(ping) + instantiate(everything);
  sum += instantiate_messages<demo::constructs::Ping>(
      demo::constructs::message_factory(), demo::constructs::MessageType::Ping,
      [](auto& stream, demo::constructs::Ping& message) { return demo::constructs::serialize_message(stream, message); },
      [](auto& stream, bitwire::MessagePool& pool, bitwire::MessageHandle& message) {
        return demo::constructs::serialize_message(stream, pool, message);
      });
  demo::types::Wide wide;
  demo::types::Blocks blocks;
  demo::types::Loadout loadout;
  sum += instantiate(wide) + instantiate(blocks) + instantiate(loadout);
  sum += instantiate_messages<demo::types::Loadout>(
      demo::types::message_factory(), demo::types::MessageType::Loadout,
      [](auto& stream, demo::types::Loadout& message) { return demo::types::serialize_message(stream, message); },
      [](auto& stream, bitwire::MessagePool& pool, bitwire::MessageHandle& message) {
        return demo::types::serialize_message(stream, pool, message);
      });
  // tests/generated/lang/lang.net: block messages, wire constants, reserved bits, keyword-named names.
  lang::LevelData level_data;
  lang::Ready ready;
  lang::Header header;
  lang::budget keyword_named;
  lang::reserved keyword_struct;
  sum += instantiate(level_data) + instantiate(ready) + instantiate(header) + instantiate(keyword_named) +
         instantiate(keyword_struct);
  sum += instantiate_messages<lang::budget>(
      lang::message_factory(), lang::MessageType::budget,
      [](auto& stream, lang::budget& message) { return lang::serialize_message(stream, message); },
      [](auto& stream, bitwire::MessagePool& pool, bitwire::MessageHandle& message) {
        return lang::serialize_message(stream, pool, message);
      });
  sum += static_cast<std::size_t>(game::ProtocolId ^ common::ProtocolId ^ demo::constructs::ProtocolId ^
                                  lang::ProtocolId ^ demo::types::ProtocolId);
  return sum;
}
