// One translation unit that includes every generated header and instantiates everything they define
// (serialize with each stream, formatting, the message factory and serialize_message), compiled by the
// generated_warnings_* tests with -Wall -Wextra -Werror -Wconversion -Wsign-conversion -Wshadow: warnings
// in templates appear only once they are instantiated. Not linked into any program.
#include <cstddef>
#include <string>

#include "common.hpp"
#include "constructs.hpp"
#include "game.hpp"

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

template <typename Message, typename Type, typename Serialize>
std::size_t instantiate_messages(Serialize serialize_message, Type type) {
  Message message;
  std::byte buffer[16384] = {};
  bitwire::WriteStream writer(buffer);
  serialize_message(writer, message);
  bitwire::ReadStream reader(buffer);
  bitwire::MeasureStream measure;
  serialize_message(measure, message);
  return (serialize_message(reader, message) ? 1u : 0u) + measure.bits_processed() + message.index() +
         static_cast<std::size_t>(type);
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
  sum += instantiate_messages<game::Message>(
      [](auto& stream, game::Message& message) { return game::serialize_message(stream, message); },
      game::MessageType::Chat);
  game::Message game_message;
  sum += game::create_message(game::MessageType::Snapshot, game_message) ? 1u : 0u;
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
  sum += instantiate_messages<demo::constructs::Message>(
      [](auto& stream, demo::constructs::Message& message) {
        return demo::constructs::serialize_message(stream, message);
      },
      demo::constructs::MessageType::Ping);
  demo::constructs::Message constructs_message;
  sum += demo::constructs::create_message(demo::constructs::MessageType::Everything, constructs_message) ? 1u
                                                                                                         : 0u;
  sum += static_cast<std::size_t>(game::ProtocolId ^ common::ProtocolId ^ demo::constructs::ProtocolId);
  return sum;
}
