// Fuzz target: untrusted bytes read by a generated delta form (serialize_delta of
// tests/generated/delta/delta.net, generated at build time) against a baseline the reader holds.
//
// Input layout: byte 0 picks the message (even: Scene, odd: Probe); byte 1 seeds the baseline
// (bitwire::random_fill, so every baseline is a valid decoded object); the remaining bytes are the delta.
//
// Checked (any violation aborts, so the fuzzer reports it and the replay test fails):
// - a read never consumes bits beyond the buffer; a failed read names a reason and a bit inside it;
// - reading into a dirty object (another random instance) gives the same verdict, error and bit, and on
//   success the same value: a delta read assigns every member;
// - a successful read is what a whole read of the same object gives (its whole form round-trips to
//   itself), and written again as a delta against the same baseline it reads back equal, consuming
//   exactly the bits written, never more than MaxDeltaBits.
// "Equal" is the same whole-form bytes, not operator==: a raw float or double read off the wire may be a
// NaN, which operator== never finds equal to itself.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "delta.hpp"
#include "delta_random.hpp"

namespace {

[[noreturn]] void fail(const char* what, int line) {
  std::fprintf(stderr, "delta_fuzz: check failed (line %d): %s\n", line, what);
  std::abort();
}

#define FUZZ_CHECK(condition)                     \
  do {                                            \
    if (!(condition)) fail(#condition, __LINE__); \
  } while (0)

// The object's whole form as bytes (writes are trusted: a decoded object always writes).
template <typename T>
std::vector<std::byte> whole_bytes(const T& value) {
  std::vector<std::byte> bytes(T::MaxBytes + 8);
  bitwire::WriteStream write(bytes);
  FUZZ_CHECK(value.serialize(write));
  write.flush();
  bytes.resize(write.bytes_processed());
  return bytes;
}

template <typename T>
bool same(const T& a, const T& b) {
  return whole_bytes(a) == whole_bytes(b);
}

template <typename T>
void run(std::uint8_t seed, std::span<const std::byte> bytes) {
  bitwire::Random rng(seed);
  auto baseline = std::make_unique<T>();
  bitwire::random_fill(rng, *baseline);

  auto clean = std::make_unique<T>();
  bitwire::ReadStream read(bytes);
  const bool ok = clean->serialize_delta(read, *baseline);
  FUZZ_CHECK(read.bits_processed() <= bytes.size() * 8);
  if (!ok) {
    FUZZ_CHECK(read.error() != bitwire::ReadError::kNone);
    FUZZ_CHECK(read.error_bit() <= bytes.size() * 8);
  }

  auto dirty = std::make_unique<T>();
  bitwire::random_fill(rng, *dirty);
  bitwire::ReadStream again(bytes);
  FUZZ_CHECK(dirty->serialize_delta(again, *baseline) == ok);
  FUZZ_CHECK(again.error() == read.error());
  if (!ok) {
    FUZZ_CHECK(again.error_bit() == read.error_bit());
    return;
  }
  FUZZ_CHECK(again.bits_processed() == read.bits_processed());
  FUZZ_CHECK(same(*dirty, *clean));

  // The whole form of what was read reads back to the same object.
  std::vector<std::byte> whole(T::MaxBytes + 8);
  bitwire::WriteStream write_whole(whole);
  FUZZ_CHECK(clean->serialize(write_whole));
  write_whole.flush();
  auto from_whole = std::make_unique<T>();
  bitwire::ReadStream read_whole{std::span<const std::byte>(whole.data(), write_whole.bytes_processed())};
  FUZZ_CHECK(from_whole->serialize(read_whole));
  FUZZ_CHECK(same(*from_whole, *clean));

  // Written again as a delta: within MaxDeltaBits, and read back equal.
  std::vector<std::byte> delta(T::MaxDeltaBytes + 8);
  bitwire::WriteStream write_delta(delta);
  FUZZ_CHECK(clean->serialize_delta(write_delta, *baseline));
  write_delta.flush();
  FUZZ_CHECK(write_delta.bits_processed() <= T::MaxDeltaBits);
  auto back = std::make_unique<T>();
  bitwire::ReadStream read_delta{std::span<const std::byte>(delta.data(), write_delta.bytes_processed())};
  FUZZ_CHECK(back->serialize_delta(read_delta, *baseline));
  FUZZ_CHECK(read_delta.bits_processed() == write_delta.bits_processed());
  FUZZ_CHECK(same(*back, *clean));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data) + 2, size - 2);
  if (data[0] % 2 == 0) {
    run<deltatest::Scene>(data[1], bytes);
  } else {
    run<deltatest::Probe>(data[1], bytes);
  }
  return 0;
}
