// Included once by each ODR unit, after the generated headers (see odr_unit.hpp). `Unit` makes the two
// instantiations distinct functions, so each unit keeps its own copy of this code.
#pragma once

#include <variant>

#include "bitwire/serialize.hpp"
#include "odr_unit.hpp"
#include "values.hpp"

namespace odr {

template <typename Message, typename Write, typename Read>
void exercise(bitwire::test::gen::Draws& draws, UnitReport& report, Write write, Read read) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          using T = std::variant_alternative_t<I, Message>;
          const T value = bitwire::test::gen::draw<T>(draws);
          Message message(value);
          std::vector<std::byte> buffer(T::MaxBytes + 16);
          bitwire::WriteStream stream(buffer);
          write(stream, message);
          stream.flush();
          buffer.resize(stream.bytes_processed());
          report.bytes.insert(report.bytes.end(), buffer.begin(), buffer.end());
          report.text += to_string(value) + "\n";
          Message back;
          bitwire::ReadStream in(buffer);
          if (read(in, back) && back.index() == I && std::get<T>(back) == value) ++report.messages_read;
        }(),
        ...);
  }
  (std::make_index_sequence<std::variant_size_v<Message>>{});
}

template <int Unit>
UnitReport run_unit(uint64_t seed) {
  UnitReport report;
  bitwire::test::gen::Draws draws(seed);
  exercise<game::Message>(
      draws, report, [](bitwire::WriteStream& s, game::Message& m) { game::serialize_message(s, m); },
      [](bitwire::ReadStream& s, game::Message& m) { return game::serialize_message(s, m); });
  exercise<demo::constructs::Message>(
      draws, report,
      [](bitwire::WriteStream& s, demo::constructs::Message& m) {
        demo::constructs::serialize_message(s, m);
      },
      [](bitwire::ReadStream& s, demo::constructs::Message& m) {
        return demo::constructs::serialize_message(s, m);
      });
  report.game_protocol_id = &game::ProtocolId;
  report.constructs_protocol_id = &demo::constructs::ProtocolId;
  report.common_protocol_id = &common::ProtocolId;
  report.snapshot_max_bits = &game::Snapshot::MaxBits;
  return report;
}

}  // namespace odr
