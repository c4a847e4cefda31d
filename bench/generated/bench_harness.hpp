// The timing loops shared by the generated-code benchmarks. A Codec is a type with
//   using Message = ...;
//   template <typename Stream> static bool serialize(Stream&, Message&);
// Each loop handles one message per iteration, cycling through a set of distinct values (so nothing is
// constant-folded and branches see realistic patterns), and reports
//   bytes      - mean encoded size of one message (wire bytes; the counter is a plain average),
//   bytes_per_second - wire bytes produced or consumed.
// One iteration is one call of a never-inlined function that does the whole job as an application would
// (make the stream, serialize, flush): every codec is then compiled in the same context, so a difference
// between two codecs is a difference between their serialize code, not between how the compiler happened
// to inline each into the timing loop.
// Before timing, `encode_all` has checked that every value reads back equal; a read loop marks the run
// with an error if its last read failed or differs. Nothing is ever asserted about time.
#pragma once

#include <benchmark/benchmark.h>

#include <bit>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "bitwire/serialize/serialize.hpp"

namespace bench_harness {

// One buffer per message, holding exactly its encoded bytes.
using Encoded = std::vector<std::vector<std::byte>>;

template <typename Codec>
size_t encode(typename Codec::Message& message, std::vector<std::byte>& out) {
  out.assign(Codec::Message::MaxBytes + 8, std::byte{0});
  bitwire::WriteStream stream(out);
  Codec::serialize(stream, message);
  stream.flush();
  out.resize(stream.bytes_processed());
  return out.size();
}

// Encodes every message with `Codec` and reads each back with it; an empty string means all round-tripped.
template <typename Codec>
std::string encode_all(std::vector<typename Codec::Message>& messages, Encoded& encoded) {
  encoded.assign(messages.size(), {});
  for (size_t i = 0; i < messages.size(); ++i) {
    encode<Codec>(messages[i], encoded[i]);
    typename Codec::Message back{};
    bitwire::ReadStream stream{std::span<const std::byte>(encoded[i])};
    if (!Codec::serialize(stream, back)) return "message " + std::to_string(i) + " failed to read back";
    if (!(back == messages[i])) return "message " + std::to_string(i) + " read back different";
  }
  return {};
}

inline double mean_size(const Encoded& encoded) {
  size_t total = 0;
  for (const auto& bytes : encoded) total += bytes.size();
  return static_cast<double>(total) / static_cast<double>(encoded.size());
}

// The loops cycle through the first 2^k values of a set (all of them for the power-of-two sets used
// here), so the index is a mask rather than a division. Sets are never empty.
inline size_t index_mask(size_t size) {
  return std::bit_floor(size) - 1;
}

template <typename Codec>
[[gnu::noinline]] size_t write_one(std::span<std::byte> buffer, typename Codec::Message& message) {
  bitwire::WriteStream stream(buffer);
  Codec::serialize(stream, message);
  stream.flush();
  return stream.bytes_processed();
}

template <typename Codec>
[[gnu::noinline]] bool read_one(std::span<const std::byte> bytes, typename Codec::Message& message) {
  bitwire::ReadStream stream(bytes);
  return Codec::serialize(stream, message);
}

template <typename Codec>
[[gnu::noinline]] size_t measure_one(typename Codec::Message& message) {
  bitwire::MeasureStream stream;
  Codec::serialize(stream, message);
  return stream.bits_processed();
}

template <typename Codec>
void write_loop(benchmark::State& state, std::vector<typename Codec::Message>& messages) {
  Encoded encoded;
  if (const std::string error = encode_all<Codec>(messages, encoded); !error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  std::vector<std::byte> buffer(Codec::Message::MaxBytes + 8);
  benchmark::DoNotOptimize(buffer.data());
  const size_t mask = index_mask(messages.size());
  size_t i = 0;
  size_t bytes = 0;
  for (auto _ : state) {
    bytes += write_one<Codec>(buffer, messages[i++ & mask]);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["bytes"] = mean_size(encoded);
}

template <typename Codec>
void read_loop(benchmark::State& state, std::vector<typename Codec::Message>& messages) {
  Encoded encoded;
  if (const std::string error = encode_all<Codec>(messages, encoded); !error.empty()) {
    state.SkipWithError(error.c_str());
    return;
  }
  const size_t mask = index_mask(messages.size());
  typename Codec::Message out{};
  benchmark::DoNotOptimize(&out);
  size_t i = 0;
  size_t bytes = 0;
  bool ok = true;
  for (auto _ : state) {
    const std::vector<std::byte>& input = encoded[i++ & mask];
    ok = read_one<Codec>(input, out);
    bytes += input.size();
    benchmark::DoNotOptimize(ok);
    benchmark::ClobberMemory();
  }
  if (!ok || !(out == messages[(i - 1) & mask])) state.SkipWithError("the last read failed or differs");
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["bytes"] = mean_size(encoded);
}

template <typename Codec>
void measure_loop(benchmark::State& state, std::vector<typename Codec::Message>& messages) {
  const size_t mask = index_mask(messages.size());
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(measure_one<Codec>(messages[i++ & mask]));
  }
}

// Generated code: the message's own serialize.
template <typename M>
struct Generated {
  using Message = M;
  template <typename Stream>
  static bool serialize(Stream& stream, Message& message) {
    return message.serialize(stream);
  }
};

}  // namespace bench_harness
