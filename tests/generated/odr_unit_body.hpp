// Included once by each ODR unit, after the generated headers (see odr_unit.hpp). `Unit` makes the two
// instantiations distinct functions, so each unit keeps its own copy of this code.
#pragma once

#include <tuple>

#include "bitwire/serialize/serialize.hpp"
#include "odr_unit.hpp"
#include "values.hpp"

namespace odr {

// Every message of `Types` (a std::tuple of one package's messages), written with the package's
// serialize_message for a known type and read back as a message of any type through the package's factory.
template <typename Types, typename Write, typename Read>
void exercise(bitwire::test::gen::Draws& draws, UnitReport& report, const bitwire::MessageFactory& factory,
              Write write, Read read) {
  bitwire::MessagePool pool(factory, bitwire::MessagePoolConfig{4, 0, 1});
  [&]<size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          using T = std::tuple_element_t<I, Types>;
          T value = bitwire::test::gen::draw<T>(draws);
          std::vector<std::byte> buffer(T::MaxBytes + 16);
          bitwire::WriteStream stream(buffer);
          write(stream, value);
          stream.flush();
          buffer.resize(stream.bytes_processed());
          report.bytes.insert(report.bytes.end(), buffer.begin(), buffer.end());
          report.text += to_string(value) + "\n";
          bitwire::MessageHandle back;
          bitwire::ReadStream in(buffer);
          if (read(in, pool, back) && back.type() == I && *back.template as<T>() == value) ++report.messages_read;
        }(),
        ...);
  }
  (std::make_index_sequence<std::tuple_size_v<Types>>{});
}

template <int Unit>
UnitReport run_unit(uint64_t seed) {
  UnitReport report;
  bitwire::test::gen::Draws draws(seed);
  using GameTypes = std::tuple<game::PlayerInput, game::Snapshot, game::Events, game::ScoreUpdate, game::Chat,
                               game::LevelLoad>;
  static_assert(std::tuple_size_v<GameTypes> == game::kMessageTypeCount);
  exercise<GameTypes>(
      draws, report, game::message_factory(),
      [](bitwire::WriteStream& s, auto& m) { game::serialize_message(s, m); },
      [](bitwire::ReadStream& s, bitwire::MessagePool& p, bitwire::MessageHandle& m) {
        return game::serialize_message(s, p, m);
      });
  namespace dc = demo::constructs;
  using ConstructsTypes = std::tuple<dc::Conditions, dc::Directives, dc::Ping, dc::Everything>;
  static_assert(std::tuple_size_v<ConstructsTypes> == dc::kMessageTypeCount);
  exercise<ConstructsTypes>(
      draws, report, dc::message_factory(),
      [](bitwire::WriteStream& s, auto& m) { dc::serialize_message(s, m); },
      [](bitwire::ReadStream& s, bitwire::MessagePool& p, bitwire::MessageHandle& m) {
        return dc::serialize_message(s, p, m);
      });
  report.game_protocol_id = &game::ProtocolId;
  report.constructs_protocol_id = &demo::constructs::ProtocolId;
  report.common_protocol_id = &common::ProtocolId;
  report.snapshot_max_bits = &game::Snapshot::MaxBits;
  report.game_factory = &game::message_factory();
  return report;
}

}  // namespace odr
