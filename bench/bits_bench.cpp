// Bit-stream throughput: bitwire's WriteStream / ReadStream (through the serialize functions generated
// code calls) next to two naive packers written here, on the same data in the same run, so the ratios
// do not depend on the machine:
//   naive_byte - the classic loop that moves each field one byte-bounded piece at a time;
//   naive_bit  - the one-bit-at-a-time loop.
// Byte blocks are also compared with plain memcpy of the same blocks.
//
// Workloads (2048 fields per iteration, drawn once from a fixed seed): fields of random width 1..32,
// bools, ranged ints (ranges of 1..24 bits at random offsets), 64-bit values, fields of a compile-time
// width, a record of eight compile-time-width fields (what generated code looks like), and 64 KiB of byte
// blocks of 16, 256 or 4096 bytes.
//
// Two alternatives are measured next to the runtime for comparison, neither part of it: proto_counting,
// a reader whose bounds check is one compare against a count of bits left, and bitwire_grouped, runs of
// compile-time-width fields packed into one 64-bit serialize_bits call (the same bits on the wire).
// clock/dependent_add times a chain of dependent adds: one cycle each, so fields can be given in cycles.
//
// Reported per benchmark: time_per_field (CPU time per field; ps/ns in the console, seconds in JSON) and
// bytes_per_second (wire bytes produced or consumed). Readers check what they read (bounds, ranges,
// padding) as the real ones do. A run that reads back wrong values is marked with an error, never timed
// against a threshold. Figures and commands: bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/serialize/serialize.hpp"

namespace {

constexpr size_t kFields = 2048;
constexpr size_t kBlockTotal = 64 * 1024;

struct Workload {
  std::vector<uint32_t> mixed_values;
  std::vector<uint8_t> mixed_widths;  // 1..32
  std::vector<uint8_t> bools;
  std::vector<int32_t> ranged_values;
  std::vector<int32_t> ranged_min;
  std::vector<int32_t> ranged_max;
  std::vector<uint64_t> wide;
  std::vector<uint32_t> random32;  // masked to the width in the compile-time-width runs
  std::vector<std::byte> block_source;
};

const Workload& workload() {
  static const Workload data = [] {
    bitwire::Random rng(0xb175'bec4);
    Workload w;
    for (size_t i = 0; i < kFields; ++i) {
      const auto width = static_cast<uint8_t>(1 + rng.below(32));
      w.mixed_widths.push_back(width);
      w.mixed_values.push_back(static_cast<uint32_t>(rng.next() & bitwire::low_mask(width)));
      w.bools.push_back(static_cast<uint8_t>(rng.below(2)));
      const auto min = static_cast<int32_t>(rng.range(-1'000'000, 1'000'000));
      const int64_t span = int64_t{1} << rng.below(24);
      const auto max =
          static_cast<int32_t>(min + span - 1 + static_cast<int64_t>(rng.below(static_cast<uint64_t>(span))));
      w.ranged_min.push_back(min);
      w.ranged_max.push_back(max);
      w.ranged_values.push_back(static_cast<int32_t>(rng.range(min, max)));
      w.wide.push_back(rng.next());
      w.random32.push_back(static_cast<uint32_t>(rng.next()));
    }
    w.block_source.resize(kBlockTotal);
    for (auto& byte : w.block_source) byte = static_cast<std::byte>(rng.next());
    return w;
  }();
  return data;
}

// ---- the packers, one interface: bits / boolean / ranged / wide / block ----

class BitwireWriter {
 public:
  explicit BitwireWriter(std::span<std::byte> buffer) : stream_(buffer) {}
  void bits(uint32_t value, int count) { bitwire::serialize_bits(stream_, value, count); }
  void bits64(uint64_t value, int count) { bitwire::serialize_bits(stream_, value, count); }
  void boolean(bool value) { bitwire::serialize_bool(stream_, value); }
  void ranged(int32_t value, int32_t min, int32_t max) { bitwire::serialize_int(stream_, value, min, max); }
  void wide(uint64_t value) { bitwire::serialize_uint64(stream_, value); }
  void block(std::byte* data, size_t count) { bitwire::serialize_bytes(stream_, data, count); }
  size_t finish() {
    stream_.flush();
    return stream_.bytes_processed();
  }

 private:
  bitwire::WriteStream stream_;
};

class BitwireReader {
 public:
  explicit BitwireReader(std::span<const std::byte> bytes) : stream_(bytes) {}
  uint32_t bits(int count) {
    uint32_t value = 0;
    bitwire::serialize_bits(stream_, value, count);
    return value;
  }
  uint64_t bits64(int count) {
    uint64_t value = 0;
    bitwire::serialize_bits(stream_, value, count);
    return value;
  }
  bool boolean() {
    bool value = false;
    bitwire::serialize_bool(stream_, value);
    return value;
  }
  int32_t ranged(int32_t min, int32_t max) {
    int32_t value = 0;
    bitwire::serialize_int(stream_, value, min, max);
    return value;
  }
  uint64_t wide() {
    uint64_t value = 0;
    bitwire::serialize_uint64(stream_, value);
    return value;
  }
  void block(std::byte* data, size_t count) { bitwire::serialize_bytes(stream_, data, count); }
  bool ok() const { return !stream_.failed(); }

 private:
  bitwire::ReadStream stream_;
};

// The classic packer: a field goes out in pieces that each end at a byte boundary, one byte per step.
class NaiveByteWriter {
 public:
  explicit NaiveByteWriter(std::span<std::byte> buffer) : data_(reinterpret_cast<uint8_t*>(buffer.data())) {}
  void bits(uint64_t value, int count) {
    while (count > 0) {
      const int offset = static_cast<int>(bit_ % 8);
      const int take = std::min(8 - offset, count);
      const auto piece = static_cast<uint8_t>((value & ((1u << take) - 1)) << offset);
      if (offset == 0) {
        data_[bit_ / 8] = piece;
      } else {
        data_[bit_ / 8] = static_cast<uint8_t>(data_[bit_ / 8] | piece);
      }
      value >>= take;
      count -= take;
      bit_ += static_cast<size_t>(take);
    }
  }
  void boolean(bool value) { bits(value ? 1 : 0, 1); }
  void ranged(int32_t value, int32_t min, int32_t max) {
    const auto range = static_cast<uint32_t>(max) - static_cast<uint32_t>(min);
    bits(static_cast<uint32_t>(value) - static_cast<uint32_t>(min), static_cast<int>(std::bit_width(range)));
  }
  void wide(uint64_t value) { bits(value, 64); }
  void block(const std::byte* data, size_t count) {
    bits(0, static_cast<int>((8 - bit_ % 8) % 8));
    for (size_t i = 0; i < count; ++i) bits(std::to_integer<uint8_t>(data[i]), 8);
  }
  size_t finish() const { return (bit_ + 7) / 8; }

 private:
  uint8_t* data_;
  size_t bit_ = 0;
};

class NaiveByteReader {
 public:
  explicit NaiveByteReader(std::span<const std::byte> bytes)
      : data_(reinterpret_cast<const uint8_t*>(bytes.data())), size_bits_(bytes.size() * 8) {}
  uint64_t bits(int count) {
    if (failed_ || static_cast<size_t>(count) > size_bits_ - bit_) {
      failed_ = true;
      return 0;
    }
    uint64_t value = 0;
    int got = 0;
    while (got < count) {
      const int offset = static_cast<int>(bit_ % 8);
      const int take = std::min(8 - offset, count - got);
      value |= static_cast<uint64_t>((data_[bit_ / 8] >> offset) & ((1u << take) - 1)) << got;
      got += take;
      bit_ += static_cast<size_t>(take);
    }
    return value;
  }
  bool boolean() { return bits(1) != 0; }
  int32_t ranged(int32_t min, int32_t max) {
    const auto range = static_cast<uint32_t>(max) - static_cast<uint32_t>(min);
    const auto offset = static_cast<uint32_t>(bits(static_cast<int>(std::bit_width(range))));
    if (offset > range) failed_ = true;
    return static_cast<int32_t>(static_cast<uint32_t>(min) + offset);
  }
  uint64_t wide() { return bits(64); }
  void block(std::byte* data, size_t count) {
    if (bits(static_cast<int>((8 - bit_ % 8) % 8)) != 0) failed_ = true;
    for (size_t i = 0; i < count; ++i) data[i] = static_cast<std::byte>(bits(8));
  }
  bool ok() const { return !failed_; }

 private:
  const uint8_t* data_;
  size_t size_bits_;
  size_t bit_ = 0;
  bool failed_ = false;
};

// One bit per step.
class NaiveBitWriter {
 public:
  explicit NaiveBitWriter(std::span<std::byte> buffer) : data_(reinterpret_cast<uint8_t*>(buffer.data())) {}
  void bits(uint64_t value, int count) {
    for (int i = 0; i < count; ++i, ++bit_) {
      const auto mask = static_cast<uint8_t>(1u << (bit_ % 8));
      if (((value >> i) & 1) != 0) {
        data_[bit_ / 8] = static_cast<uint8_t>(data_[bit_ / 8] | mask);
      } else {
        data_[bit_ / 8] = static_cast<uint8_t>(data_[bit_ / 8] & ~mask);
      }
    }
  }
  void boolean(bool value) { bits(value ? 1 : 0, 1); }
  void ranged(int32_t value, int32_t min, int32_t max) {
    const auto range = static_cast<uint32_t>(max) - static_cast<uint32_t>(min);
    bits(static_cast<uint32_t>(value) - static_cast<uint32_t>(min), static_cast<int>(std::bit_width(range)));
  }
  void wide(uint64_t value) { bits(value, 64); }
  size_t finish() const { return (bit_ + 7) / 8; }

 private:
  uint8_t* data_;
  size_t bit_ = 0;
};

class NaiveBitReader {
 public:
  explicit NaiveBitReader(std::span<const std::byte> bytes)
      : data_(reinterpret_cast<const uint8_t*>(bytes.data())), size_bits_(bytes.size() * 8) {}
  uint64_t bits(int count) {
    if (failed_ || static_cast<size_t>(count) > size_bits_ - bit_) {
      failed_ = true;
      return 0;
    }
    uint64_t value = 0;
    for (int i = 0; i < count; ++i, ++bit_)
      value |= static_cast<uint64_t>((data_[bit_ / 8] >> (bit_ % 8)) & 1) << i;
    return value;
  }
  bool boolean() { return bits(1) != 0; }
  int32_t ranged(int32_t min, int32_t max) {
    const auto range = static_cast<uint32_t>(max) - static_cast<uint32_t>(min);
    const auto offset = static_cast<uint32_t>(bits(static_cast<int>(std::bit_width(range))));
    if (offset > range) failed_ = true;
    return static_cast<int32_t>(static_cast<uint32_t>(min) + offset);
  }
  uint64_t wide() { return bits(64); }
  bool ok() const { return !failed_; }

 private:
  const uint8_t* data_;
  size_t size_bits_;
  size_t bit_ = 0;
  bool failed_ = false;
};

// The yardstick for byte blocks: one memcpy per block.
class MemcpyWriter {
 public:
  explicit MemcpyWriter(std::span<std::byte> buffer) : data_(buffer.data()) {}
  void block(const std::byte* data, size_t count) {
    std::memcpy(data_ + size_, data, count);
    size_ += count;
  }
  size_t finish() const { return size_; }

 private:
  std::byte* data_;
  size_t size_ = 0;
};

class MemcpyReader {
 public:
  explicit MemcpyReader(std::span<const std::byte> bytes) : data_(bytes.data()), end_(bytes.size()) {}
  void block(std::byte* data, size_t count) {
    if (count > end_ - position_) {
      failed_ = true;
      return;
    }
    std::memcpy(data, data_ + position_, count);
    position_ += count;
  }
  bool ok() const { return !failed_; }

 private:
  const std::byte* data_;
  size_t end_;
  size_t position_ = 0;
  bool failed_ = false;
};

// ---- prototype (not the runtime): a reader whose bounds check is one compare against a bit counter ----
// Same word loads as bitwire::BitReader; instead of recomputing the position from the word index and the
// scratch count for every check, it keeps the bits left and decrements them. Its scratch count stays below
// 64, so a fast-path read shifts once.
class CountingReader {
 public:
  explicit CountingReader(std::span<const std::byte> bytes)
      : data_(bytes.data()), size_(bytes.size()), left_(bytes.size() * 8) {}
  uint64_t bits64(int count) {
    const auto wanted = static_cast<unsigned>(count);
    if (wanted > left_) [[unlikely]] {
      left_ = 0;
      failed_ = true;
      return 0;
    }
    left_ -= wanted;
    if (wanted <= scratch_bits_) {
      const uint64_t value = scratch_ & bitwire::low_mask(count);
      scratch_ >>= wanted;
      scratch_bits_ -= wanted;
      return value;
    }
    const uint64_t word = load_next_word();
    const uint64_t value = (scratch_ | (word << scratch_bits_)) & bitwire::low_mask(count);
    const unsigned taken = wanted - scratch_bits_;
    scratch_ = (word >> 1) >> (taken - 1);
    scratch_bits_ = 64 - taken;
    return value;
  }
  uint32_t bits(int count) { return static_cast<uint32_t>(bits64(count)); }
  bool boolean() { return bits64(1) != 0; }
  int32_t ranged(int32_t min, int32_t max) {
    const auto range = static_cast<uint32_t>(max) - static_cast<uint32_t>(min);
    const int width = bitwire::bits_for_range(uint64_t{range});
    if (width == 0) return min;
    const auto offset = static_cast<uint32_t>(bits64(width));
    if (offset > range) [[unlikely]]
      failed_ = true;
    return static_cast<int32_t>(static_cast<uint32_t>(min) + offset);
  }
  uint64_t wide() { return bits64(64); }
  bool ok() const { return !failed_; }

 private:
  uint64_t load_next_word() {
    const size_t offset = word_index_ * 8;
    ++word_index_;
    if (offset + 8 <= size_) [[likely]] {
      return bitwire::detail::load_le64(data_ + offset);
    }
    return offset < size_ ? bitwire::detail::load_le_partial(data_ + offset, size_ - offset) : 0;
  }

  const std::byte* data_;
  size_t size_;
  size_t left_;
  uint64_t scratch_ = 0;
  unsigned scratch_bits_ = 0;  // < 64
  size_t word_index_ = 0;
  bool failed_ = false;
};

// ---- the workloads: each writes its fields, reads them back summed, and knows the right sum ----

uint64_t sum_of(const auto& values) {
  uint64_t sum = 0;
  for (const auto value : values) sum += static_cast<uint64_t>(value);
  return sum;
}

struct Mixed {
  static constexpr size_t kCount = kFields;
  template <typename W>
  static void write(W& w, const Workload& d) {
    for (size_t i = 0; i < kFields; ++i) w.bits(d.mixed_values[i], d.mixed_widths[i]);
  }
  template <typename R>
  static uint64_t read(R& r, const Workload& d) {
    uint64_t sum = 0;
    for (size_t i = 0; i < kFields; ++i) sum += r.bits(d.mixed_widths[i]);
    return sum;
  }
  static uint64_t expected(const Workload& d) { return sum_of(d.mixed_values); }
};

struct Bools {
  static constexpr size_t kCount = kFields;
  template <typename W>
  static void write(W& w, const Workload& d) {
    for (size_t i = 0; i < kFields; ++i) w.boolean(d.bools[i] != 0);
  }
  template <typename R>
  static uint64_t read(R& r, const Workload&) {
    uint64_t sum = 0;
    for (size_t i = 0; i < kFields; ++i) sum += r.boolean() ? 1 : 0;
    return sum;
  }
  static uint64_t expected(const Workload& d) { return sum_of(d.bools); }
};

struct Ranged {
  static constexpr size_t kCount = kFields;
  template <typename W>
  static void write(W& w, const Workload& d) {
    for (size_t i = 0; i < kFields; ++i) w.ranged(d.ranged_values[i], d.ranged_min[i], d.ranged_max[i]);
  }
  template <typename R>
  static uint64_t read(R& r, const Workload& d) {
    uint64_t sum = 0;
    for (size_t i = 0; i < kFields; ++i)
      sum += static_cast<uint64_t>(r.ranged(d.ranged_min[i], d.ranged_max[i]));
    return sum;
  }
  static uint64_t expected(const Workload& d) { return sum_of(d.ranged_values); }
};

struct Wide {
  static constexpr size_t kCount = kFields;
  template <typename W>
  static void write(W& w, const Workload& d) {
    for (size_t i = 0; i < kFields; ++i) w.wide(d.wide[i]);
  }
  template <typename R>
  static uint64_t read(R& r, const Workload&) {
    uint64_t sum = 0;
    for (size_t i = 0; i < kFields; ++i) sum += r.wide();
    return sum;
  }
  static uint64_t expected(const Workload& d) { return sum_of(d.wide); }
};

// Every field has the width Width, known at compile time (the common case in generated code).
template <int Width>
struct FixedWidth {
  static constexpr size_t kCount = kFields;
  static constexpr uint32_t kMask = static_cast<uint32_t>(bitwire::low_mask(Width));
  template <typename W>
  static void write(W& w, const Workload& d) {
    for (size_t i = 0; i < kFields; ++i) w.bits(d.random32[i] & kMask, Width);
  }
  template <typename R>
  static uint64_t read(R& r, const Workload&) {
    uint64_t sum = 0;
    for (size_t i = 0; i < kFields; ++i) sum += r.bits(Width);
    return sum;
  }
  static uint64_t expected(const Workload& d) {
    uint64_t sum = 0;
    for (size_t i = 0; i < kFields; ++i) sum += d.random32[i] & kMask;
    return sum;
  }
};

// A record of eight fields of widths 1, 3, 5, 7, 10, 12, 16 and 32 (86 bits), as generated code writes it.
struct Record {
  static constexpr size_t kCount = kFields;
  static constexpr int kWidths[8] = {1, 3, 5, 7, 10, 12, 16, 32};
  template <typename W>
  static void write(W& w, const Workload& d) {
    for (size_t i = 0; i < kFields; i += 8) {
      w.bits(d.random32[i + 0] & 0x1u, 1);
      w.bits(d.random32[i + 1] & 0x7u, 3);
      w.bits(d.random32[i + 2] & 0x1Fu, 5);
      w.bits(d.random32[i + 3] & 0x7Fu, 7);
      w.bits(d.random32[i + 4] & 0x3FFu, 10);
      w.bits(d.random32[i + 5] & 0xFFFu, 12);
      w.bits(d.random32[i + 6] & 0xFFFFu, 16);
      w.bits(d.random32[i + 7], 32);
    }
  }
  template <typename R>
  static uint64_t read(R& r, const Workload&) {
    uint64_t sum = 0;
    for (size_t i = 0; i < kFields; i += 8) {
      sum += r.bits(1);
      sum += r.bits(3);
      sum += r.bits(5);
      sum += r.bits(7);
      sum += r.bits(10);
      sum += r.bits(12);
      sum += r.bits(16);
      sum += r.bits(32);
    }
    return sum;
  }
  static uint64_t expected(const Workload& d) {
    uint64_t sum = 0;
    for (size_t i = 0; i < kFields; ++i)
      sum += d.random32[i] & static_cast<uint32_t>(bitwire::low_mask(kWidths[i % 8]));
    return sum;
  }
};

// The same fields as FixedWidth<Width>, but packed 64 / Width at a time into one word with constant
// shifts and sent with one write (read with one read and constant shifts): identical bits on the wire,
// a pattern generated code can use for runs of compile-time-width fields.
template <int Width>
struct GroupedFixedWidth {
  static constexpr size_t kCount = kFields;
  static constexpr int kGroup = 64 / Width;
  static constexpr uint32_t kMask = FixedWidth<Width>::kMask;
  template <typename W>
  static void write(W& w, const Workload& d) {
    size_t i = 0;
    for (; i + kGroup <= kFields; i += kGroup) {
      uint64_t word = 0;
      for (int k = 0; k < kGroup; ++k) word |= uint64_t{d.random32[i + k] & kMask} << (k * Width);
      w.bits64(word, kGroup * Width);
    }
    for (; i < kFields; ++i) w.bits64(d.random32[i] & kMask, Width);
  }
  template <typename R>
  static uint64_t read(R& r, const Workload&) {
    uint64_t sum = 0;
    size_t i = 0;
    for (; i + kGroup <= kFields; i += kGroup) {
      const uint64_t word = r.bits64(kGroup * Width);
      for (int k = 0; k < kGroup; ++k) sum += (word >> (k * Width)) & kMask;
    }
    for (; i < kFields; ++i) sum += r.bits64(Width);
    return sum;
  }
  static uint64_t expected(const Workload& d) { return FixedWidth<Width>::expected(d); }
};

// Record, with its first seven fields (54 bits) packed into one write.
struct GroupedRecord {
  static constexpr size_t kCount = kFields;
  template <typename W>
  static void write(W& w, const Workload& d) {
    for (size_t i = 0; i < kFields; i += 8) {
      const uint64_t word =
          uint64_t{d.random32[i + 0] & 0x1u} | uint64_t{d.random32[i + 1] & 0x7u} << 1 |
          uint64_t{d.random32[i + 2] & 0x1Fu} << 4 | uint64_t{d.random32[i + 3] & 0x7Fu} << 9 |
          uint64_t{d.random32[i + 4] & 0x3FFu} << 16 | uint64_t{d.random32[i + 5] & 0xFFFu} << 26 |
          uint64_t{d.random32[i + 6] & 0xFFFFu} << 38;
      w.bits64(word, 54);
      w.bits64(d.random32[i + 7], 32);
    }
  }
  template <typename R>
  static uint64_t read(R& r, const Workload&) {
    uint64_t sum = 0;
    for (size_t i = 0; i < kFields; i += 8) {
      const uint64_t word = r.bits64(54);
      sum += (word & 0x1u) + ((word >> 1) & 0x7u) + ((word >> 4) & 0x1Fu) + ((word >> 9) & 0x7Fu) +
             ((word >> 16) & 0x3FFu) + ((word >> 26) & 0xFFFu) + ((word >> 38) & 0xFFFFu);
      sum += r.bits64(32);
    }
    return sum;
  }
  static uint64_t expected(const Workload& d) { return Record::expected(d); }
};

void report(benchmark::State& state, size_t fields, size_t bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["time_per_field"] =
      benchmark::Counter(static_cast<double>(fields),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Every field run starts after a prefix of this many bits, a value the compiler cannot see: real streams
// start anywhere, and a known start lets a compiler fold the alignment away (64-bit fields become plain
// stores).
int opaque_prefix_bits() {
  int bits = 3;
  benchmark::DoNotOptimize(bits);
  return bits;
}

template <typename Work, typename Writer>
void BM_Write(benchmark::State& state) {
  const Workload& data = workload();
  std::vector<std::byte> buffer(Work::kCount * 8 + 8);
  const int prefix = opaque_prefix_bits();
  size_t bytes = 0;
  for (auto _ : state) {
    Writer writer(buffer);
    writer.bits(0, prefix);
    Work::write(writer, data);
    bytes = writer.finish();
    benchmark::DoNotOptimize(buffer.data());
    benchmark::ClobberMemory();
  }
  // What was written must read back (checked outside the timing).
  BitwireReader check(std::span<const std::byte>(buffer.data(), bytes));
  const bool prefix_ok = check.bits(prefix) == 0;
  if (!prefix_ok || Work::read(check, data) != Work::expected(data) || !check.ok()) {
    state.SkipWithError("wrong bytes written");
  }
  report(state, Work::kCount, bytes);
}

template <typename Work, typename Reader>
void BM_Read(benchmark::State& state) {
  const Workload& data = workload();
  std::vector<std::byte> buffer(Work::kCount * 8 + 8);
  const int prefix = opaque_prefix_bits();
  BitwireWriter writer(buffer);
  writer.bits(0, prefix);
  Work::write(writer, data);
  const std::span<const std::byte> bytes(buffer.data(), writer.finish());
  uint64_t sum = 0;
  bool ok = true;
  for (auto _ : state) {
    Reader reader(bytes);
    sum = reader.bits(prefix);
    sum += Work::read(reader, data);
    ok = reader.ok();
    benchmark::DoNotOptimize(sum);
  }
  if (sum != Work::expected(data) || !ok) state.SkipWithError("wrong values read");
  report(state, Work::kCount, bytes.size());
}

// 64 KiB as consecutive blocks of state.range(0) bytes; time_per_field is per block.
template <typename Writer>
void BM_WriteBlocks(benchmark::State& state) {
  const auto block = static_cast<size_t>(state.range(0));
  std::vector<std::byte> source = workload().block_source;
  std::vector<std::byte> buffer(kBlockTotal + 8);
  size_t bytes = 0;
  for (auto _ : state) {
    Writer writer(buffer);
    for (size_t offset = 0; offset < kBlockTotal; offset += block)
      writer.block(source.data() + offset, block);
    bytes = writer.finish();
    benchmark::DoNotOptimize(buffer.data());
    benchmark::ClobberMemory();
  }
  if (bytes != kBlockTotal || std::memcmp(buffer.data(), source.data(), kBlockTotal) != 0) {
    state.SkipWithError("wrong bytes written");
  }
  report(state, kBlockTotal / block, kBlockTotal);
}

template <typename Reader>
void BM_ReadBlocks(benchmark::State& state) {
  const auto block = static_cast<size_t>(state.range(0));
  const std::vector<std::byte>& source = workload().block_source;
  std::vector<std::byte> destination(kBlockTotal);
  bool ok = true;
  for (auto _ : state) {
    Reader reader(source);
    for (size_t offset = 0; offset < kBlockTotal; offset += block)
      reader.block(destination.data() + offset, block);
    ok = reader.ok();
    benchmark::DoNotOptimize(destination.data());
    benchmark::ClobberMemory();
  }
  if (!ok || destination != source) state.SkipWithError("wrong bytes read");
  report(state, kBlockTotal / block, kBlockTotal);
}

// The clock, measured: a chain of dependent adds takes one cycle per add, so time_per_field here is the
// cycle time of the core the benchmarks ran on (cycles per field = time_per_field / this).
void BM_ClockDependentAdds(benchmark::State& state) {
  constexpr int kAdds = 4096;
  uint64_t value = 1;
  for (auto _ : state) {
    // Eight adds per loop step, so the loop's own branch never limits the chain. The empty asm makes the
    // compiler keep each sum in a register, so the adds cannot be folded.
    for (int i = 0; i < kAdds; i += 8) {
      value += 3;
      asm volatile("" : "+r"(value));
      value += 3;
      asm volatile("" : "+r"(value));
      value += 3;
      asm volatile("" : "+r"(value));
      value += 3;
      asm volatile("" : "+r"(value));
      value += 3;
      asm volatile("" : "+r"(value));
      value += 3;
      asm volatile("" : "+r"(value));
      value += 3;
      asm volatile("" : "+r"(value));
      value += 3;
      asm volatile("" : "+r"(value));
    }
  }
  benchmark::DoNotOptimize(value);
  report(state, kAdds, 0);
}
BENCHMARK(BM_ClockDependentAdds)->Name("clock/dependent_add");

#define BITWIRE_BENCH_FIELDS(work, label)                                                  \
  BENCHMARK_TEMPLATE(BM_Write, work, BitwireWriter)->Name("write/" label "/bitwire");      \
  BENCHMARK_TEMPLATE(BM_Write, work, NaiveByteWriter)->Name("write/" label "/naive_byte"); \
  BENCHMARK_TEMPLATE(BM_Write, work, NaiveBitWriter)->Name("write/" label "/naive_bit");   \
  BENCHMARK_TEMPLATE(BM_Read, work, BitwireReader)->Name("read/" label "/bitwire");        \
  BENCHMARK_TEMPLATE(BM_Read, work, NaiveByteReader)->Name("read/" label "/naive_byte");   \
  BENCHMARK_TEMPLATE(BM_Read, work, NaiveBitReader)->Name("read/" label "/naive_bit");     \
  BENCHMARK_TEMPLATE(BM_Read, work, CountingReader)->Name("read/" label "/proto_counting")

#define BITWIRE_BENCH_GROUPED(work, label)                                                    \
  BENCHMARK_TEMPLATE(BM_Write, work, BitwireWriter)->Name("write/" label "/bitwire_grouped"); \
  BENCHMARK_TEMPLATE(BM_Read, work, BitwireReader)->Name("read/" label "/bitwire_grouped");   \
  BENCHMARK_TEMPLATE(BM_Read, work, CountingReader)->Name("read/" label "/proto_counting_grouped")

BITWIRE_BENCH_FIELDS(Mixed, "mixed_1_32");
BITWIRE_BENCH_FIELDS(Bools, "bool");
BITWIRE_BENCH_FIELDS(Ranged, "ranged_int");
BITWIRE_BENCH_FIELDS(Wide, "u64");
BITWIRE_BENCH_FIELDS(FixedWidth<5>, "const_width_5");
BITWIRE_BENCH_FIELDS(FixedWidth<13>, "const_width_13");
BITWIRE_BENCH_FIELDS(FixedWidth<32>, "const_width_32");
BITWIRE_BENCH_FIELDS(Record, "const_record_8");
BITWIRE_BENCH_GROUPED(GroupedFixedWidth<5>, "const_width_5");
BITWIRE_BENCH_GROUPED(GroupedFixedWidth<13>, "const_width_13");
BITWIRE_BENCH_GROUPED(GroupedFixedWidth<32>, "const_width_32");
BITWIRE_BENCH_GROUPED(GroupedRecord, "const_record_8");

BENCHMARK_TEMPLATE(BM_WriteBlocks, BitwireWriter)->Name("write/bytes/bitwire")->Arg(16)->Arg(256)->Arg(4096);
BENCHMARK_TEMPLATE(BM_WriteBlocks, MemcpyWriter)->Name("write/bytes/memcpy")->Arg(16)->Arg(256)->Arg(4096);
BENCHMARK_TEMPLATE(BM_WriteBlocks, NaiveByteWriter)
    ->Name("write/bytes/naive_byte")
    ->Arg(16)
    ->Arg(256)
    ->Arg(4096);
BENCHMARK_TEMPLATE(BM_ReadBlocks, BitwireReader)->Name("read/bytes/bitwire")->Arg(16)->Arg(256)->Arg(4096);
BENCHMARK_TEMPLATE(BM_ReadBlocks, MemcpyReader)->Name("read/bytes/memcpy")->Arg(16)->Arg(256)->Arg(4096);
BENCHMARK_TEMPLATE(BM_ReadBlocks, NaiveByteReader)
    ->Name("read/bytes/naive_byte")
    ->Arg(16)
    ->Arg(256)
    ->Arg(4096);

}  // namespace
