// The body both ODR translation units run (odr_unit_a.cpp, odr_unit_b.cpp): every generated header is
// included by each unit, and each instantiates the serialize functions of every message, the formatters
// and the message factories. Linking both into one program fails on any generated definition that is
// not inline; the test then checks that both units agree on every byte and on the addresses of the
// generated constants (one definition each).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace odr {

struct UnitReport {
  std::vector<std::byte> bytes;  // every message of every package, written with serialize_message
  std::string text;              // every message formatted
  size_t messages_read = 0;      // messages read back equal to what was written
  const void* game_protocol_id = nullptr;
  const void* constructs_protocol_id = nullptr;
  const void* common_protocol_id = nullptr;
  const void* snapshot_max_bits = nullptr;
  const void* game_factory = nullptr;  // &game::message_factory(): one table per package per program
};

UnitReport run_unit_a(uint64_t seed);
UnitReport run_unit_b(uint64_t seed);

}  // namespace odr
