// The inlining contract, checked on machine code: loops shaped like a benchmark's timed loops (write,
// read, measure and validate a run of messages through fresh streams, rotating output buffers), compiled
// by no_call.cmake with each compiler at -O2 and -O3; the disassembly of every function below must hold
// no call and no jump to another function. A generated serialize, a nested struct's serialize or a bit
// primitive left out of line, a libc memcpy for a reader's tail or a writer's flush, all show up here.
//
// Only fixed-width and counted shapes: strings and byte blocks of run-time length copy with memcpy by
// design. Not a GoogleTest program: it is compiled, never linked or run.
#include <cstddef>
#include <span>

#include "corpus.hpp"
#include "game.hpp"

namespace {

template <typename Message>
size_t write_run(Message* messages, size_t count, std::byte (*buffers)[2048]) {
  size_t total = 0;
  for (size_t i = 0; i < count; ++i) {
    bitwire::WriteStream stream(std::span<std::byte>(buffers[i & 7], 2048));
    messages[i].serialize(stream);
    stream.flush();
    total += stream.bytes_processed();
  }
  return total;
}

template <typename Message>
size_t read_run(Message* messages, size_t count, const std::byte* const* inputs, const size_t* sizes) {
  size_t good = 0;
  for (size_t i = 0; i < count; ++i) {
    bitwire::ReadStream stream(std::span<const std::byte>(inputs[i], sizes[i]));
    good += messages[i].serialize(stream) ? 1u : 0u;
  }
  return good;
}

template <typename Message>
size_t measure_run(Message* messages, size_t count) {
  size_t bits = 0;
  for (size_t i = 0; i < count; ++i) {
    bitwire::MeasureStream stream;
    messages[i].serialize(stream);
    bits += stream.bits_processed();
  }
  return bits;
}

template <typename Message>
size_t validate_run(Message* messages, size_t count) {
  size_t good = 0;
  for (size_t i = 0; i < count; ++i) {
    bitwire::ValidateStream stream;
    good += messages[i].serialize(stream) ? 1u : 0u;
  }
  return good;
}

}  // namespace

#define BITWIRE_NO_CALL_LOOPS(name, type)                                                              \
  extern "C" size_t no_call_write_##name(type* m, size_t n, std::byte (*b)[2048]) {                   \
    return write_run(m, n, b);                                                                        \
  }                                                                                                   \
  extern "C" size_t no_call_read_##name(type* m, size_t n, const std::byte* const* in, const size_t* s) { \
    return read_run(m, n, in, s);                                                                     \
  }                                                                                                   \
  extern "C" size_t no_call_measure_##name(type* m, size_t n) { return measure_run(m, n); }           \
  extern "C" size_t no_call_validate_##name(type* m, size_t n) { return validate_run(m, n); }

BITWIRE_NO_CALL_LOOPS(player_input, game::PlayerInput)
BITWIRE_NO_CALL_LOOPS(snapshot, game::Snapshot)
BITWIRE_NO_CALL_LOOPS(bench_packet, corpus::BenchPacket)
BITWIRE_NO_CALL_LOOPS(bench_ints, corpus::BenchInts)
BITWIRE_NO_CALL_LOOPS(bench_bits, corpus::BenchBits)
BITWIRE_NO_CALL_LOOPS(bench_mixed, corpus::BenchMixed)
