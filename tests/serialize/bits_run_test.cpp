// ReadRun and WriteRun, the bit stream's runs of fixed-width fields (one bounds check for a run read, fields
// assembled in registers for a run written), against field-by-field reads and writes of the same widths
// from every start bit, on spans that end or begin at an inaccessible page (tests/support/guarded_pages.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bitwire/serialize/bits.hpp"
#include "bitwire/serialize/read_run.hpp"
#include "bitwire/serialize/stream.hpp"
#include "bitwire/serialize/write_run.hpp"
#include "support/guarded_pages.hpp"
#include "support/seed.hpp"

namespace bitwire::test {
namespace {

// ---- ReadRun: a run of fixed-width fields read from one bounds check ----

// Field widths (each in [1, 64]) that add up to `total`, drawn from `state`.
std::vector<int> run_widths(size_t total, uint64_t& state) {
  std::vector<int> widths;
  for (size_t left = total; left > 0;) {
    const int bits = static_cast<int>(std::min<size_t>(1 + splitmix64(state) % 64, left));
    widths.push_back(bits);
    left -= static_cast<size_t>(bits);
  }
  return widths;
}

// From every start bit of `span`: a ReadRun<kBits> loads exactly when the run lies inside the span (a span
// under 8 bytes included); then every field equals what a field-by-field read returns and
// finish() leaves the cursor where that read does. When it does not load, nothing is consumed.
// With `fixed`, every start reads those widths (they add up to kBits) instead of random ones.
template <size_t kBits>
void check_run_everywhere(std::span<const std::byte> span, uint64_t& state,
                          const std::vector<int>* fixed = nullptr) {
  for (size_t start = 0; start <= span.size() * 8; ++start) {
    const std::vector<int> widths = fixed != nullptr ? *fixed : run_widths(kBits, state);
    ReadStream stream(span);
    ReadStream reference(span);
    uint64_t skipped = 0;
    for (size_t left = start; left > 0;) {
      const int bits = static_cast<int>(std::min<size_t>(64, left));
      ASSERT_TRUE(stream.read_bits(skipped, bits));
      ASSERT_TRUE(reference.read_bits(skipped, bits));
      left -= static_cast<size_t>(bits);
    }
    ReadRun<kBits> run(stream);
    const bool fits = start + kBits <= span.size() * 8;
    ASSERT_EQ(run.load(), fits) << "start " << start;
    if (!fits) {
      EXPECT_EQ(stream.bits_processed(), start);
      EXPECT_FALSE(stream.failed());
      continue;
    }
    for (const int bits : widths) {
      uint64_t got = ~uint64_t{0};
      uint64_t want = 0;
      ASSERT_EQ(run.bits_processed(), reference.bits_processed());
      ASSERT_TRUE(run.read_bits(got, bits));
      ASSERT_TRUE(reference.read_bits(want, bits));
      ASSERT_EQ(got, want) << "start " << start << ", " << bits << " bits at " << reference.bits_processed() - bits;
    }
    ASSERT_TRUE(run.finish());
    EXPECT_EQ(stream.bits_processed(), start + kBits);
    EXPECT_FALSE(stream.failed());
  }
}

template <size_t... kRuns>
void check_runs(std::span<const std::byte> span, uint64_t& state) {
  (check_run_everywhere<kRuns>(span, state), ...);
}

TEST(ReadRun, MatchesFieldByFieldReadsFromEveryStartBitAgainstInaccessiblePages) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0010);
  uint64_t state = seed;
  GuardedPages pages(64);
  ASSERT_TRUE(pages.ok());
  // Run lengths around the 56-bit chunk boundaries and the generated code's 448-bit limit.
  for (size_t size = 0; size <= 64; size += (size < 20 ? 1 : 11)) {
    SCOPED_TRACE("span of " + std::to_string(size) + " bytes");
    for (const std::span<std::byte> span : {pages.at_end(size), pages.at_start(size)}) {
      for (std::byte& b : span) b = static_cast<std::byte>(splitmix64(state));
      ASSERT_NO_FATAL_FAILURE((check_runs<1, 7, 56, 57, 64, 110, 112, 113, 249, 448>(span, state)));
    }
  }
}

// Fields that straddle two 56-bit chunks are read straight from the span (one load at the field's first
// byte, and the byte after it for a field of more than 50 bits that does not start on a byte boundary of
// the stream): runs of whole 64-bit fields (RigidBody's doubles), wide fields on byte boundaries of the run
// right up to its last byte, and narrow ones at odd offsets, from every start bit, against spans that end
// (and begin) at an inaccessible page, so a byte read past the run faults.
TEST(ReadRun, WideFieldsReadFromTheSpanMatchFieldByFieldReadsAgainstInaccessiblePages) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0011);
  uint64_t state = seed;
  GuardedPages pages(64);
  ASSERT_TRUE(pages.ok());
  const std::vector<int> doubles7(7, 64);
  const std::vector<int> doubles6(6, 64);
  const std::vector<int> wide_then_narrow = {8, 64, 57, 51, 50, 3, 50, 49, 64, 56};  // 452 bits
  const std::vector<int> narrow_then_wide = {1, 64, 7, 58, 50, 52};                  // 232 bits
  const std::vector<int> one_bit_tail = {64, 64, 1};                                 // 129 bits
  for (size_t size = 0; size <= 64; size += (size < 20 ? 1 : 11)) {
    SCOPED_TRACE("span of " + std::to_string(size) + " bytes");
    for (const std::span<std::byte> span : {pages.at_end(size), pages.at_start(size)}) {
      for (std::byte& b : span) b = static_cast<std::byte>(splitmix64(state));
      ASSERT_NO_FATAL_FAILURE(check_run_everywhere<448>(span, state, &doubles7));
      ASSERT_NO_FATAL_FAILURE(check_run_everywhere<384>(span, state, &doubles6));
      ASSERT_NO_FATAL_FAILURE(check_run_everywhere<452>(span, state, &wide_then_narrow));
      ASSERT_NO_FATAL_FAILURE(check_run_everywhere<232>(span, state, &narrow_then_wide));
      ASSERT_NO_FATAL_FAILURE(check_run_everywhere<129>(span, state, &one_bit_tail));
    }
  }
}

// ---- Short spans: the whole message under 8 bytes, and the last bytes of longer ones ----

// Bit `k` of the stream over `bytes`, by the wire's definition (bit k mod 8 of byte k / 8): the reference
// the short-span loads are checked against, sharing no code with them.
uint64_t wire_bits(std::span<const std::byte> bytes, size_t first, int count) {
  uint64_t value = 0;
  for (int i = 0; i < count; ++i) {
    const size_t k = first + static_cast<size_t>(i);
    value |= uint64_t{(std::to_integer<unsigned>(bytes[k / 8]) >> (k % 8)) & 1u} << i;
  }
  return value;
}

// detail::load_le_short over a span of `count` bytes (two overlapping loads, or one byte): the span's bytes
// as a little-endian word, nothing above them, for every lower bound the caller may state.
template <size_t kMinCount>
void check_short_load(std::span<const std::byte> span) {
  if (span.size() < kMinCount) return;
  const uint64_t want = wire_bits(span, 0, static_cast<int>(span.size() * 8));
  EXPECT_EQ(detail::load_le_short<kMinCount>(span.data(), span.size()), want)
      << span.size() << " bytes, at least " << kMinCount;
}

TEST(LoadLeShort, GivesTheSpansBytesAndTouchesNoOther) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0012);
  uint64_t state = seed;
  GuardedPages pages(64);
  ASSERT_TRUE(pages.ok());
  for (size_t size = 1; size <= 7; ++size) {
    // A heap block of exactly the span's size (ASan and UBSan builds see any byte past it) and spans
    // against an inaccessible page on either side (a fault in any build).
    auto heap = std::make_unique<std::byte[]>(size);
    for (const std::span<std::byte> span :
         {std::span<std::byte>(heap.get(), size), pages.at_end(size), pages.at_start(size)}) {
      for (std::byte& b : span) b = static_cast<std::byte>(splitmix64(state) | 0x80);  // no zero byte
      check_short_load<1>(span);
      check_short_load<2>(span);
      check_short_load<3>(span);
      check_short_load<4>(span);
      check_short_load<7>(span);
    }
  }
}

// From every start bit 0..7 of a span of `span.size()` bytes, a ReadRun<kBits> loads exactly when the run
// fits; its fields, and the same fields read one by one through a ReadStream, equal the wire's bits.
template <size_t kBits>
void check_short_span_run(std::span<const std::byte> span, uint64_t& state) {
  for (size_t start = 0; start < 8; ++start) {
    const std::vector<int> widths = run_widths(kBits, state);
    ReadStream stream(span);
    ReadStream reference(span);
    uint64_t skipped = 0;
    if (start != 0) {
      if (start > span.size() * 8) continue;
      ASSERT_TRUE(stream.read_bits(skipped, static_cast<int>(start)));
      ASSERT_TRUE(reference.read_bits(skipped, static_cast<int>(start)));
    }
    ReadRun<kBits> run(stream);
    const bool fits = start + kBits <= span.size() * 8;
    ASSERT_EQ(run.load(), fits) << "start " << start << ", run of " << kBits;
    if (!fits) {
      EXPECT_EQ(stream.bits_processed(), start);
      EXPECT_FALSE(stream.failed());
      continue;
    }
    size_t at = start;
    for (const int bits : widths) {
      const uint64_t want = wire_bits(span, at, bits);
      uint64_t got = ~uint64_t{0};
      uint64_t one_by_one = ~uint64_t{0};
      ASSERT_TRUE(run.read_bits(got, bits));
      ASSERT_TRUE(reference.read_bits(one_by_one, bits));
      ASSERT_EQ(got, want) << "start " << start << ", run of " << kBits << ", " << bits << " bits at " << at;
      ASSERT_EQ(one_by_one, want) << "start " << start << ", " << bits << " bits at " << at;
      at += static_cast<size_t>(bits);
    }
    ASSERT_TRUE(run.finish());
    EXPECT_EQ(stream.bits_processed(), start + kBits);
    EXPECT_EQ(reference.bits_processed(), start + kBits);
    // One bit past the span is refused by both, without a load.
    if (start + kBits == span.size() * 8) {
      EXPECT_FALSE(stream.read_bits(skipped, 1));
      EXPECT_FALSE(reference.read_bits(skipped, 1));
    }
  }
}

TEST(ReadRun, ShortSpansMatchTheWireFromEveryStartBitInsideAHeapBlockOfTheirSize) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0013);
  uint64_t state = seed;
  GuardedPages pages(64);
  ASSERT_TRUE(pages.ok());
  for (size_t size = 1; size <= 16; ++size) {
    SCOPED_TRACE("span of " + std::to_string(size) + " bytes");
    auto heap = std::make_unique<std::byte[]>(size);
    for (const std::span<std::byte> span :
         {std::span<std::byte>(heap.get(), size), pages.at_end(size), pages.at_start(size)}) {
      for (int round = 0; round < 3; ++round) {
        for (std::byte& b : span) b = static_cast<std::byte>(splitmix64(state));
        // Every run that fits a span under 8 bytes around the 2- and 4-byte load boundaries, and longer
        // runs for the spans of 8 to 16 bytes (one and two chunks).
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<1>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<2>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<8>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<9>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<16>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<17>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<24>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<25>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<32>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<33>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<46>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<49>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<55>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<56>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<57>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<64>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<80>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<113>(span, state)));
        ASSERT_NO_FATAL_FAILURE((check_short_span_run<128>(span, state)));
      }
    }
  }
}

// ---- Runs at a start the compiler knows: exactly the run's bytes ----

// detail::load_le_exact<N>: the N bytes at its pointer as a little-endian word, nothing above them.
template <size_t kCount>
void check_exact_load(std::span<const std::byte> span) {
  ASSERT_EQ(span.size(), kCount);
  EXPECT_EQ(detail::load_le_exact<kCount>(span.data()), wire_bits(span, 0, static_cast<int>(kCount * 8)))
      << kCount << " bytes";
}

template <size_t... kCounts>
void check_exact_loads(GuardedPages& pages, uint64_t& state, std::index_sequence<kCounts...>) {
  (
      [&] {
        constexpr size_t kCount = kCounts + 1;
        auto heap = std::make_unique<std::byte[]>(kCount);
        for (const std::span<std::byte> span :
             {std::span<std::byte>(heap.get(), kCount), pages.at_end(kCount), pages.at_start(kCount)}) {
          for (std::byte& b : span) b = static_cast<std::byte>(splitmix64(state) | 0x80);  // no zero byte
          check_exact_load<kCount>(span);
        }
      }(),
      ...);
}

TEST(LoadLeExact, GivesItsBytesAndTouchesNoOther) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0016);
  uint64_t state = seed;
  GuardedPages pages(64);
  ASSERT_TRUE(pages.ok());
  check_exact_loads(pages, state, std::make_index_sequence<8>{});
}

// A run of one chunk at a constant bit of a fresh stream (kStart bits read first, in constant widths), as
// in a generated reader's first run: with optimization the compilers see the start as a constant and
// ReadRun::load() loads exactly the run's bytes (a constant count) with no test of the span's size. Over
// spans of exactly the bytes the run reaches, and longer ones, against an inaccessible page on either side
// (a byte loaded past the run faults): the fields equal the wire's bits, the cursor ends after the run, and
// a span without the run's last byte refuses the run without consuming anything.
template <size_t kStart, size_t kBits>
void check_constant_start_run(GuardedPages& pages, uint64_t& state) {
  constexpr size_t kBytes = (kStart + kBits + 7) / 8;
  for (const size_t size : {kBytes, kBytes + 1, kBytes + 9}) {
    for (const std::span<std::byte> span : {pages.at_end(size), pages.at_start(size)}) {
      for (std::byte& b : span) b = static_cast<std::byte>(splitmix64(state));
      const std::vector<int> widths = run_widths(kBits, state);
      ReadStream stream(span);
      uint64_t skipped = 0;
      if constexpr (kStart != 0) {
        ASSERT_TRUE(stream.read_bits(skipped, static_cast<int>(kStart)));
      }
      ReadRun<kBits> run(stream);
      ASSERT_TRUE(run.load()) << "start " << kStart << ", run of " << kBits << ", span of " << size;
      size_t at = kStart;
      for (const int bits : widths) {
        uint64_t got = ~uint64_t{0};
        ASSERT_TRUE(run.read_bits(got, bits));
        ASSERT_EQ(got, wire_bits(span, at, bits))
            << "start " << kStart << ", run of " << kBits << ", " << bits << " bits at " << at;
        at += static_cast<size_t>(bits);
      }
      ASSERT_TRUE(run.finish());
      EXPECT_EQ(stream.bits_processed(), kStart + kBits);
      EXPECT_FALSE(stream.failed());
    }
  }
  // A span without the run's last byte refuses the run.
  {
    const std::span<std::byte> span = pages.at_end(kBytes - 1);
    ReadStream stream(span);
    uint64_t skipped = 0;
    if constexpr (kStart != 0) {
      if (kStart > span.size() * 8) return;
      ASSERT_TRUE(stream.read_bits(skipped, static_cast<int>(kStart)));
    }
    ReadRun<kBits> run(stream);
    EXPECT_FALSE(run.load());
    EXPECT_EQ(stream.bits_processed(), kStart);
    EXPECT_FALSE(stream.failed());
  }
}

template <size_t kStart, size_t... kBits>
void check_constant_start_runs(GuardedPages& pages, uint64_t& state) {
  (check_constant_start_run<kStart, kBits>(pages, state), ...);
}

TEST(ReadRun, ARunAtAConstantStartLoadsExactlyItsBytesAgainstInaccessiblePages) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0017);
  uint64_t state = seed;
  GuardedPages pages(64);
  ASSERT_TRUE(pages.ok());
  // Runs whose bytes number 1 to 8 from every bit of the first byte (and one start past it).
  for (int round = 0; round < 8; ++round) {
    ASSERT_NO_FATAL_FAILURE(
        (check_constant_start_runs<0, 1, 8, 9, 16, 17, 24, 25, 32, 33, 40, 41, 48, 49, 56>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((
        check_constant_start_runs<1, 1, 7, 8, 15, 16, 23, 24, 31, 32, 39, 40, 47, 48, 55, 56>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_start_runs<3, 5, 6, 13, 21, 29, 37, 45, 53, 56>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_start_runs<7, 1, 2, 9, 17, 25, 33, 41, 49, 56>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_start_runs<13, 3, 19, 35, 51, 56>(pages, state)));
  }
}

// A run of one chunk at a constant start whose fields' widths are constants too (kWidths, read in order),
// as in a generated reader: with optimization each field is one load of the fewest bytes, 1, 2, 4 or 8,
// that cover it and lie inside the run's bytes (or the field's exact bytes when the run is shorter than
// that). Over spans of exactly the run's bytes, against an inaccessible page on either side (a byte loaded
// outside the run faults): every field equals the wire's bits and the cursor ends after the run.
template <size_t kStart, int... kWidths>
void check_constant_fields_run(GuardedPages& pages, uint64_t& state) {
  constexpr size_t kBits = (static_cast<size_t>(kWidths) + ...);
  constexpr size_t kBytes = (kStart + kBits + 7) / 8;
  for (const std::span<std::byte> span : {pages.at_end(kBytes), pages.at_start(kBytes)}) {
    for (std::byte& b : span) b = static_cast<std::byte>(splitmix64(state));
    ReadStream stream(span);
    uint64_t skipped = 0;
    if constexpr (kStart != 0) {
      ASSERT_TRUE(stream.read_bits(skipped, static_cast<int>(kStart)));
    }
    ReadRun<kBits> run(stream);
    ASSERT_TRUE(run.load()) << "start " << kStart << ", run of " << kBits;
    uint64_t got[sizeof...(kWidths)] = {};
    size_t k = 0;
    bool read = true;
    ((read = read && run.read_bits(got[k++], kWidths)), ...);
    ASSERT_TRUE(read);
    size_t at = kStart;
    k = 0;
    for (const int bits : {kWidths...}) {
      EXPECT_EQ(got[k++], wire_bits(span, at, bits))
          << "start " << kStart << ", " << bits << " bits at " << at;
      at += static_cast<size_t>(bits);
    }
    ASSERT_TRUE(run.finish());
    EXPECT_EQ(stream.bits_processed(), kStart + kBits);
  }
}

TEST(ReadRun, ConstantFieldsOfAConstantStartRunLoadOnlyTheRunsBytesAgainstInaccessiblePages) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0019);
  uint64_t state = seed;
  GuardedPages pages(64);
  ASSERT_TRUE(pages.ok());
  for (int round = 0; round < 8; ++round) {
    // Handle (14 + 8 bits: 3 bytes) and CompressedProbe (10 + 14), whose second fields take a 2-byte load.
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<0, 14, 8>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<0, 10, 14>(pages, state)));
    // Fields whose 2- or 4-byte window would pass the run's last byte: the window ends there instead.
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<0, 24, 24>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<0, 28, 20>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<6, 2, 54>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<0, 9, 7, 1, 3, 4, 8, 2>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<0, 20, 13, 3, 11>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<3, 21, 17, 5>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<5, 30, 18, 3>(pages, state)));
    // Runs of more than one chunk: Timescale (a double and two uint32), fields past a chunk's 56 bits at
    // every bit of a byte, one ending at the run's last byte, and a field over 8 bytes (the chunks' path).
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<0, 64, 32, 32>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<3, 61, 27, 13, 30, 5>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<0, 57, 24, 64, 20>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<5, 7, 60, 9, 3>(pages, state)));
    // Runs shorter than a field's window (3, 5, 6 and 7 bytes read whole): the exact bytes.
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<0, 23>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<0, 36>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<1, 46>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<7, 49>(pages, state)));
    ASSERT_NO_FATAL_FAILURE((check_constant_fields_run<0, 1, 55>(pages, state)));
  }
}

// A run that starts on a byte boundary with an alignment inside: `before` bits, the padding to the next
// byte, `after` bits. From every start bit of `span` it loads exactly when the start is on a byte boundary
// and the whole run fits; then the fields, the padding's refusal (reason, bit, cursor) and the end equal
// what ReadStream's field-by-field reads and read_align give.
template <size_t kBefore, size_t kAfter>
void check_aligned_run_everywhere(std::span<const std::byte> span) {
  constexpr size_t kPadding = (8 - kBefore % 8) % 8;
  constexpr size_t kBits = kBefore + kPadding + kAfter;
  for (size_t start = 0; start <= span.size() * 8; ++start) {
    ReadStream stream(span);
    ReadStream reference(span);
    uint64_t skipped = 0;
    for (size_t left = start; left > 0;) {
      const int bits = static_cast<int>(std::min<size_t>(64, left));
      ASSERT_TRUE(stream.read_bits(skipped, bits));
      ASSERT_TRUE(reference.read_bits(skipped, bits));
      left -= static_cast<size_t>(bits);
    }
    ReadRun<kBits, true> run(stream);
    const bool fits = start % 8 == 0 && start + kBits <= span.size() * 8;
    ASSERT_EQ(run.load(), fits) << "start " << start;
    if (!fits) {
      EXPECT_EQ(stream.bits_processed(), start);
      continue;
    }
    const auto read_both = [&](size_t bits) {
      for (size_t left = bits; left > 0;) {
        const int chunk = static_cast<int>(std::min<size_t>(64, left));
        uint64_t got = ~uint64_t{0};
        uint64_t want = 0;
        ASSERT_TRUE(run.read_bits(got, chunk));
        ASSERT_TRUE(reference.read_bits(want, chunk));
        ASSERT_EQ(got, want) << "start " << start;
        left -= static_cast<size_t>(chunk);
      }
    };
    ASSERT_NO_FATAL_FAILURE(read_both(kBefore));
    const bool run_ok = run.read_align();
    const bool reference_ok = reference.read_align();
    ASSERT_EQ(run_ok, reference_ok) << "start " << start;
    ASSERT_EQ(stream.bits_processed(), reference.bits_processed() - (run_ok ? kPadding + kBefore : 0));
    if (!run_ok) {
      EXPECT_EQ(stream.error(), ReadError::kNonZeroPadding);
      EXPECT_EQ(stream.error(), reference.error());
      EXPECT_EQ(stream.error_bit(), reference.error_bit());
      EXPECT_EQ(stream.bits_processed(), reference.bits_processed());
      continue;
    }
    ASSERT_NO_FATAL_FAILURE(read_both(kAfter));
    ASSERT_TRUE(run.finish());
    EXPECT_EQ(stream.bits_processed(), reference.bits_processed());
    EXPECT_EQ(stream.bits_processed(), start + kBits);
  }
}

// detail::field_window, the arithmetic of ReadRun's constant-field path, on cases derived by hand: a field
// inside a 3-byte run loads its own byte or two; a 3-byte field at the end of a 5-byte run loads the run's
// last 4 bytes (pulled back one byte); a run of 3 bytes cannot hold a 4-byte load, so its 3 bytes are loaded.
static_assert(detail::field_window(0, 24, 16, 8).at == 2 && detail::field_window(0, 24, 16, 8).count == 1 &&
              detail::field_window(0, 24, 16, 8).shift == 0);
static_assert(detail::field_window(0, 24, 12, 12).at == 1 && detail::field_window(0, 24, 12, 12).count == 2 &&
              detail::field_window(0, 24, 12, 12).shift == 4);
static_assert(detail::field_window(0, 40, 20, 20).at == 1 && detail::field_window(0, 40, 20, 20).count == 4 &&
              detail::field_window(0, 40, 20, 20).shift == 12);
static_assert(detail::field_window(3, 21, 2, 17).at == 0 && detail::field_window(3, 21, 2, 17).count == 3 &&
              detail::field_window(3, 21, 2, 17).shift == 5);

// Every case the constant-field path accepts (a field of 1 to 64 bits inside the run, within 8 bytes of its
// first byte), whichever compiler takes the path where: start bits 0 to 23 (each bit of a byte, at three
// byte positions), runs of 1 to 200 bits (a window depends on the run's end only for a field within 8 bytes
// of it, and on the run's length only for runs under 8 bytes), every offset and width. Each window is 1 to 8
// bytes, all of them the run's bytes, and holds the whole field; loaded by the runtime's own load
// (detail::load_le_exact_count, so its 3-, 5-, 6- and 7-byte forms too) from a run of random bytes and
// shifted, it gives the field's bits, checked against a byte-by-byte 16-byte read of them.
TEST(FieldWindow, EveryLoadIsInsideTheRunAndHoldsTheFieldForEveryStartRunOffsetAndWidth) {
  std::array<unsigned char, 64> bytes{};
  uint64_t state = 0x5eed;
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(splitmix64(state));
  // The reference: byte by byte, for the 16-byte read the runtime's loads are checked against.
  const auto load_le = [&](size_t at, size_t count) {
    uint64_t value = 0;
    for (size_t i = 0; i < count; ++i) value |= static_cast<uint64_t>(bytes[at + i]) << (8 * i);
    return value;
  };
  const auto* data = reinterpret_cast<const std::byte*>(bytes.data());
  size_t cases = 0;
  size_t pulled_back = 0;  // windows that start before the field's first byte
  size_t short_runs = 0;   // runs shorter than the window: the field's own bytes
  for (size_t start = 0; start < 24; ++start) {
    for (size_t run_bits = 1; run_bits <= 200; ++run_bits) {
      const size_t run_first = start / 8;
      const size_t run_end = (start + run_bits + 7) / 8;
      for (size_t offset = 0; offset < run_bits; ++offset) {
        for (size_t bits = 1; bits <= 64 && offset + bits <= run_bits; ++bits) {
          const size_t bit = start + offset;
          if (bit % 8 + bits > 64) break;
          const detail::FieldWindow w = detail::field_window(start, run_bits, offset, bits);
          ++cases;
          ASSERT_TRUE(w.count >= 1 && w.count <= 8)
              << start << " " << run_bits << " " << offset << " " << bits;
          ASSERT_GE(w.at, run_first) << start << " " << run_bits << " " << offset << " " << bits;
          ASSERT_LE(w.at + w.count, run_end) << start << " " << run_bits << " " << offset << " " << bits;
          ASSERT_EQ(w.at * 8 + w.shift, bit) << start << " " << run_bits << " " << offset << " " << bits;
          ASSERT_LE(w.shift + bits, 8 * w.count) << start << " " << run_bits << " " << offset << " " << bits;
          const uint64_t mask = low_mask(static_cast<int>(bits));
          const uint64_t got = (detail::load_le_exact_count(data + w.at, w.count) >> w.shift) & mask;
          const size_t first = bit / 8;
          const uint64_t low = load_le(first, 8);
          const uint64_t high = load_le(first + 8, 8);
          const size_t s = bit % 8;
          const uint64_t expected = ((low >> s) | (s == 0 ? 0 : high << (64 - s))) & mask;
          ASSERT_EQ(got, expected) << start << " " << run_bits << " " << offset << " " << bits;
          pulled_back += w.at < first ? 1 : 0;
          short_runs += (w.count == 3 || (w.count > 4 && w.count < 8)) ? 1 : 0;
        }
      }
    }
  }
  // The loops ran, and through both of the window's corrections.
  EXPECT_GT(cases, 10'000'000u);
  EXPECT_GT(pulled_back, 0u);
  EXPECT_GT(short_runs, 0u);
}

TEST(ReadRun, AnAlignmentInsideARunMatchesReadAlignFromEveryStartBit) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0011);
  uint64_t state = seed;
  GuardedPages pages(64);
  ASSERT_TRUE(pages.ok());
  for (size_t size = 0; size <= 40; size += (size < 12 ? 1 : 7)) {
    SCOPED_TRACE("span of " + std::to_string(size) + " bytes");
    for (const std::span<std::byte> span : {pages.at_end(size), pages.at_start(size)}) {
      // Half the spans random (padding mostly non-zero: refused), half with zero padding everywhere
      // except by chance (the top bits of every byte clear: accepted unless a field's bits set them).
      const bool sparse = size % 2 == 0;
      for (std::byte& b : span) b = static_cast<std::byte>(splitmix64(state) & (sparse ? 0x01 : 0xFF));
      ASSERT_NO_FATAL_FAILURE((check_aligned_run_everywhere<1, 8>(span)));
      ASSERT_NO_FATAL_FAILURE((check_aligned_run_everywhere<8, 8>(span)));
      ASSERT_NO_FATAL_FAILURE((check_aligned_run_everywhere<13, 64>(span)));
      ASSERT_NO_FATAL_FAILURE((check_aligned_run_everywhere<57, 136>(span)));
      ASSERT_NO_FATAL_FAILURE((check_aligned_run_everywhere<249, 136>(span)));
    }
  }
}

TEST(ReadRun, AFailedCheckLatchesTheStreamWhereAFieldByFieldReadWould) {
  const std::array<std::byte, 16> bytes{std::byte{0xFF}, std::byte{0x12}, std::byte{0x34}};
  ReadStream stream(bytes);
  ReadRun<24> run(stream);
  ASSERT_TRUE(run.load());
  uint64_t value = 0;
  ASSERT_TRUE(run.read_bits(value, 8));
  EXPECT_EQ(value, 0xFFu);
  // A checked value refused after its 8 bits were read, as serialize_int refuses an offset out of range.
  EXPECT_FALSE(run.fail_at(ReadError::kValueOutOfRange, run.bits_processed() - 8));
  EXPECT_TRUE(stream.failed());
  EXPECT_EQ(stream.error(), ReadError::kValueOutOfRange);
  EXPECT_EQ(stream.error_bit(), 0u);
  EXPECT_EQ(stream.bits_processed(), 8u);
  EXPECT_FALSE(stream.read_bits(value, 1));  // latched
  // A failed stream never loads a run.
  ReadRun<8> after(stream);
  EXPECT_FALSE(after.load());
}

// ---- WriteRun: a run of fixed-width fields assembled in registers, appended a word at a time ----

// From every start bit in [0, 130): the bytes a WriteRun<kBits> writes (followed by a few more bits, to see
// that the stream continues where it should) are exactly those of the same values written field by field,
// and the stream's cursor after finish() is where field-by-field writes leave it.
template <size_t kBits>
void check_write_run_everywhere(uint64_t& state) {
  for (size_t start = 0; start < 130; ++start) {
    const std::vector<int> widths = run_widths(kBits, state);
    std::vector<uint64_t> values;
    for (const int bits : widths) values.push_back(splitmix64(state) & low_mask(bits));
    std::array<std::byte, 128> run_bytes{};
    std::array<std::byte, 128> reference_bytes{};
    WriteStream stream(run_bytes);
    WriteStream reference(reference_bytes);
    for (size_t left = start; left > 0;) {
      const int bits = static_cast<int>(std::min<size_t>(64, left));
      const uint64_t prefix = splitmix64(state) & low_mask(bits);
      stream.write_bits(prefix, bits);
      reference.write_bits(prefix, bits);
      left -= static_cast<size_t>(bits);
    }
    {
      WriteRun<kBits> run(stream);
      for (size_t i = 0; i < widths.size(); ++i) {
        ASSERT_EQ(run.bits_processed(), reference.bits_processed());
        run.write_bits(values[i], widths[i]);
        reference.write_bits(values[i], widths[i]);
      }
      run.finish();
    }
    ASSERT_EQ(stream.bits_processed(), start + kBits);
    ASSERT_EQ(stream.bits_processed(), reference.bits_processed());
    stream.write_bits(0x2D, 6);
    reference.write_bits(0x2D, 6);
    stream.flush();
    reference.flush();
    ASSERT_EQ(stream.bytes_processed(), reference.bytes_processed());
    ASSERT_EQ(std::memcmp(run_bytes.data(), reference_bytes.data(), run_bytes.size()), 0) << "start " << start;
  }
}

TEST(WriteRun, WritesTheBitsOfFieldByFieldWritesFromEveryStartBit) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0011);
  uint64_t state = seed;
  // Run lengths around the 64-bit word boundaries and the generated code's 448-bit group limit.
  for (int round = 0; round < 4; ++round) {
    ASSERT_NO_FATAL_FAILURE(check_write_run_everywhere<1>(state));
    ASSERT_NO_FATAL_FAILURE(check_write_run_everywhere<7>(state));
    ASSERT_NO_FATAL_FAILURE(check_write_run_everywhere<63>(state));
    ASSERT_NO_FATAL_FAILURE(check_write_run_everywhere<64>(state));
    ASSERT_NO_FATAL_FAILURE(check_write_run_everywhere<65>(state));
    ASSERT_NO_FATAL_FAILURE(check_write_run_everywhere<110>(state));
    ASSERT_NO_FATAL_FAILURE(check_write_run_everywhere<128>(state));
    ASSERT_NO_FATAL_FAILURE(check_write_run_everywhere<249>(state));
    ASSERT_NO_FATAL_FAILURE(check_write_run_everywhere<448>(state));
  }
}

// A run that ends exactly at the buffer's last byte: finish() stores only inside the span (the writer's
// whole-word stores and its flush never pass the capacity; ASan checks the heap block is not overrun).
TEST(WriteRun, ARunThatFillsTheBufferStaysInsideIt) {
  for (const size_t size : {1u, 8u, 9u, 14u, 16u, 56u}) {
    auto heap = std::make_unique<std::byte[]>(size);
    WriteStream stream(std::span<std::byte>(heap.get(), size));
    stream.write_bits(1, 1);
    if (size == 1) {
      WriteRun<7> run(stream);
      run.write_bits(0x55, 7);
      run.finish();
    } else if (size == 8) {
      WriteRun<63> run(stream);
      run.write_bits((uint64_t{1} << 63) - 1, 63);
      run.finish();
    } else {
      constexpr size_t kBits = 7;
      for (size_t left = size * 8 - 1; left >= kBits; left -= kBits) {
        WriteRun<kBits> run(stream);
        run.write_bits(0x7F, 7);
        run.finish();
      }
      while (stream.bits_processed() < size * 8) stream.write_bits(1, 1);
    }
    stream.flush();
    EXPECT_EQ(stream.bytes_processed(), size);
    for (size_t i = 0; i < size; ++i) EXPECT_EQ(heap[i], (size == 1 ? std::byte{0xAB} : std::byte{0xFF})) << i;
  }
}

}  // namespace
}  // namespace bitwire::test
