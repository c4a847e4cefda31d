// Property tests for the serialize primitives: random scripts of operations (every primitive, nested
// objects included) are written after a random prefix of 0..63 bits, measured, compared bit for bit with
// an independent reference encoder built from the wire rules, and read back.
//
// Properties checked for every script:
// - the bits written equal the reference encoding (prefix included), the final byte is zero-padded, and
//   the writer touches no byte past bytes_processed();
// - measure is exactly "widths + 7 per aligning operation", hence never below the bits written;
// - every value reads back bit-exactly (floats as bit patterns, compressed floats as the writer's own
//   quantization), at the same bit position after each operation as the writer was, and the reader ends
//   exactly where the writer did, with only zero bits left before the end of the buffer;
// - at every start offset 0..63 the bits after the prefix depend only on the offset modulo 8.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "support/seed.hpp"
#include "support/serialize_script.hpp"
#include "support/utf8_reference.hpp"

namespace bitwire::test {
namespace {

#if defined(BITWIRE_SANITIZED)
constexpr int kWorkScale = 2;
#else
constexpr int kWorkScale = 1;
#endif

constexpr unsigned char kSentinel = 0xA5;

struct ScriptRun {
  bool ok = false;
  std::vector<bool> op_bits;  // the bits the operations wrote, after the prefix
};

// Writes `script` after a prefix of `prefix_bits` bits, checks the bytes, the measure and the read-back.
ScriptRun run_script(const Script& script, int prefix_bits, uint64_t prefix_value, Random& rng) {
  ScriptRun run;
  const std::string context =
      "prefix " + std::to_string(prefix_bits) + " bits, script:" + describe_script(script);

  Script measured_script = script;
  MeasureStream measure;
  for (Op& op : measured_script) serialize_op(measure, op);
  const size_t measured = measure.bits_processed();
  if (measure.bytes_processed() != (measured + 7) / 8) {
    ADD_FAILURE() << "measure bytes_processed " << measure.bytes_processed() << " for " << measured
                  << " bits";
    return run;
  }

  ReferenceBits ref;
  if (prefix_bits > 0) ref.put(prefix_value, prefix_bits);
  for (const Op& op : script) reference_op(op, ref);
  const size_t op_bits = ref.size() - static_cast<size_t>(prefix_bits);
  int aligns = 0;
  for (const Op& op : script) aligns += align_ops(op);
  // Exact widths plus 7 per aligning operation: the padding actually written is what measure over-counts.
  const size_t expected_measure = op_bits - ref.padding() + 7 * static_cast<size_t>(aligns);
  if (measured != expected_measure || measured < op_bits) {
    ADD_FAILURE() << "measure " << measured << " bits, expected " << expected_measure << " (" << op_bits
                  << " written, " << ref.padding() << " padding, " << aligns << " aligning ops); " << context;
    return run;
  }

  // Exactly the room measure promises at this offset, so any overrun is an ASan report.
  std::vector<std::byte> buffer((static_cast<size_t>(prefix_bits) + measured + 7) / 8, std::byte{kSentinel});
  Script written = script;
  WriteStream writer(buffer);
  if (prefix_bits > 0) writer.write_bits(prefix_value, prefix_bits);
  for (Op& op : written) serialize_op(writer, op);
  writer.flush();
  const size_t total_bits = writer.bits_processed();
  const size_t total_bytes = writer.bytes_processed();
  const std::vector<unsigned char> expected = ref.bytes();
  if (total_bits != ref.size() || total_bytes != expected.size() || total_bytes != (total_bits + 7) / 8 ||
      !std::equal(expected.begin(), expected.end(), reinterpret_cast<const unsigned char*>(buffer.data()))) {
    ADD_FAILURE() << "written " << total_bits << " bits / " << total_bytes
                  << " bytes differ from the reference " << ref.size() << " bits; " << context;
    return run;
  }
  for (size_t i = total_bytes; i < buffer.size(); ++i) {
    if (buffer[i] != std::byte{kSentinel}) {
      ADD_FAILURE() << "writer touched byte " << i << " past bytes_processed " << total_bytes << "; "
                    << context;
      return run;
    }
  }

  Script read = script;
  for (Op& op : read) scramble_op(op, rng);
  ReadStream reader(std::span<const std::byte>(buffer.data(), total_bytes));
  if (prefix_bits > 0) {
    uint64_t prefix_read = 0;
    if (!reader.read_bits(prefix_read, prefix_bits) || prefix_read != prefix_value) {
      ADD_FAILURE() << "prefix did not read back; " << context;
      return run;
    }
  }
  for (size_t i = 0; i < read.size(); ++i) {
    if (!serialize_op(reader, read[i])) {
      ADD_FAILURE() << "read of operation #" << i << " failed: " << to_string(reader.error()) << " at bit "
                    << reader.error_bit() << "; " << context;
      return run;
    }
    std::string why;
    if (!same_op(written[i], read[i], why)) {
      ADD_FAILURE() << "operation #" << i << ": " << why << "; " << context;
      return run;
    }
  }
  if (reader.failed() || reader.bits_processed() != total_bits || reader.bytes_processed() != total_bytes ||
      reader.bits_remaining() != total_bytes * 8 - total_bits) {
    ADD_FAILURE() << "reader ended at bit " << reader.bits_processed() << " (" << reader.bytes_processed()
                  << " bytes), writer at " << total_bits << "; " << context;
    return run;
  }
  // What is left before the end is the zero padding of the final byte; one bit more is past the end.
  const int tail = static_cast<int>(total_bytes * 8 - total_bits);
  uint64_t tail_value = 1;
  if (tail > 0 && (!reader.read_bits(tail_value, tail) || tail_value != 0)) {
    ADD_FAILURE() << "final byte padding is not " << tail << " zero bits; " << context;
    return run;
  }
  uint64_t beyond = 0;
  if (reader.read_bits(beyond, 1) || reader.error() != ReadError::kPastEnd ||
      reader.error_bit() != total_bytes * 8) {
    ADD_FAILURE() << "reading past the end did not fail with kPastEnd at bit " << total_bytes * 8 << "; "
                  << context;
    return run;
  }

  const std::vector<bool> all_bits = [&] {
    std::vector<bool> bits(total_bits);
    for (size_t i = 0; i < total_bits; ++i) bits[i] = ((expected[i / 8] >> (i % 8)) & 1) != 0;
    return bits;
  }();
  run.op_bits.assign(all_bits.begin() + prefix_bits, all_bits.end());
  run.ok = true;
  return run;
}

TEST(SerializeProperty, RandomScriptsRoundTripAtRandomOffsets) {
  BITWIRE_SEEDED_TEST_SEED(0x5e71a112e);
  Random rng(seed);
  const int scripts = 10000 / kWorkScale;
  for (int i = 0; i < scripts; ++i) {
    SCOPED_TRACE("script " + std::to_string(i));
    const Script script = random_script(rng);
    const int prefix_bits = static_cast<int>(rng.below(64));
    const uint64_t prefix_value = prefix_bits == 0 ? 0 : rng.next() & low_mask(prefix_bits);
    if (!run_script(script, prefix_bits, prefix_value, rng).ok) return;
  }
}

// The same script at every start offset: measure always covers it, and the bits after the prefix depend
// only on the offset modulo 8 (alignment), never on where the scratch word boundaries fall.
TEST(SerializeProperty, EveryStartOffsetMeasuresAndRoundTrips) {
  BITWIRE_SEEDED_TEST_SEED(0x0ff5e75);
  Random rng(seed);
  const int scripts = 600 / kWorkScale;
  for (int i = 0; i < scripts; ++i) {
    SCOPED_TRACE("script " + std::to_string(i));
    const Script script = random_script(rng);
    std::vector<bool> by_phase[8];
    for (int offset = 0; offset < 64; ++offset) {
      SCOPED_TRACE("offset " + std::to_string(offset));
      const uint64_t prefix_value = offset == 0 ? 0 : rng.next() & low_mask(offset);
      ScriptRun run = run_script(script, offset, prefix_value, rng);
      if (!run.ok) return;
      if (offset < 8) {
        by_phase[offset] = std::move(run.op_bits);
      } else if (run.op_bits != by_phase[offset % 8]) {
        FAIL() << "bits at offset " << offset << " differ from those at offset " << offset % 8;
      }
    }
  }
}

// The whole-object helpers agree with the streams: write_object gives the reference bytes, measure_bits
// bounds them and read_object reads them back with bits_read at the writer's end.
TEST(SerializeProperty, ObjectHelpersMatchStreams) {
  BITWIRE_SEEDED_TEST_SEED(0x0b1ec75);
  Random rng(seed);
  const int scripts = 1000 / kWorkScale;
  for (int i = 0; i < scripts; ++i) {
    SCOPED_TRACE("script " + std::to_string(i));
    NestedOp::Body body{random_script(rng)};
    ReferenceBits ref;
    for (const Op& op : body.ops) reference_op(op, ref);
    const size_t measured = measure_bits(body);
    ASSERT_GE(measured, ref.size());
    std::vector<std::byte> buffer((measured + 7) / 8);
    const size_t bytes = write_object(std::span<std::byte>(buffer), body);
    const std::vector<unsigned char> expected = ref.bytes();
    ASSERT_EQ(bytes, expected.size());
    ASSERT_TRUE(
        std::equal(expected.begin(), expected.end(), reinterpret_cast<const unsigned char*>(buffer.data())));

    NestedOp::Body read = body;
    for (Op& op : read.ops) scramble_op(op, rng);
    const ReadResult result = read_object(std::span<const std::byte>(buffer.data(), bytes), read);
    ASSERT_TRUE(result) << to_string(result.error) << " at bit " << result.error_bit;
    ASSERT_EQ(result.bits_read, ref.size());
    for (size_t k = 0; k < body.ops.size(); ++k) {
      std::string why;
      ASSERT_TRUE(same_op(body.ops[k], read.ops[k], why)) << "operation #" << k << ": " << why;
    }
  }
}

// ---- UTF-8: the fast validator against a reference decoder ----
//
// The reference (support/utf8_reference.hpp) reports the first problem in byte order, as check_utf8
// promises. check_utf8 (and, where built, its SSE2, SSSE3 and AVX2 block checks on their own, the last two
// where the CPU has them) must agree with it on every input: exhaustively for 1- and 2-byte sequences, over
// the class-boundary bytes for 3- and 4-byte sequences, at every position of a text long enough for the
// vector path, at every truncation point, and on random mutations of valid text.

// Checks `text` with every validator against the reference; returns false (with a message) on a mismatch.
::testing::AssertionResult utf8_agrees(const std::vector<unsigned char>& text) {
  const Utf8Status expected = reference_utf8(text.data(), text.size());
  // An exact-size heap copy, so a load past the end shows under ASan.
  const auto copy = std::make_unique<unsigned char[]>(text.size() + (text.empty() ? 1 : 0));
  std::copy(text.begin(), text.end(), copy.get());
  const Utf8Status got = check_utf8(copy.get(), text.size());
  bool vector_ok = true;
#if BITWIRE_UTF8_SSE2
  if (text.size() >= detail::kUtf8VectorMinimum) {
    vector_ok = detail::utf8_valid_sse2(copy.get(), text.size()) == (expected == Utf8Status::kValid);
  }
#endif
#if BITWIRE_UTF8_SSSE3
  if (text.size() >= detail::kUtf8VectorMinimum && detail::utf8_cpu_has_ssse3()) {
    vector_ok =
        vector_ok && detail::utf8_valid_ssse3(copy.get(), text.size()) == (expected == Utf8Status::kValid);
  }
#endif
#if BITWIRE_UTF8_AVX2
  if (text.size() >= detail::kUtf8Avx2Minimum && detail::utf8_cpu_has_avx2()) {
    vector_ok =
        vector_ok && detail::utf8_valid_avx2(copy.get(), text.size()) == (expected == Utf8Status::kValid);
  }
#endif
  if (got == expected && vector_ok) return ::testing::AssertionSuccess();
  std::string hex;
  for (unsigned char c : text) {
    char digits[4];
    std::snprintf(digits, sizeof digits, "%02x ", c);
    hex += digits;
  }
  return ::testing::AssertionFailure()
         << "reference " << int(expected) << ", check_utf8 " << int(got)
         << (vector_ok ? "" : ", a vector block check disagrees") << " on [" << hex << "]";
}

// `sequence` placed at `offset` in `size` bytes of ASCII filler (offset + sequence size <= size).
std::vector<unsigned char> embed(const std::vector<unsigned char>& sequence, size_t offset, size_t size) {
  std::vector<unsigned char> text(size, 'a');
  std::copy(sequence.begin(), sequence.end(), text.begin() + static_cast<std::ptrdiff_t>(offset));
  return text;
}

TEST(Utf8Property, EveryOneAndTwoByteSequenceAtEveryPlace) {
  for (unsigned first = 0; first < 256; ++first) {
    const std::vector<unsigned char> one{static_cast<unsigned char>(first)};
    ASSERT_TRUE(utf8_agrees(one));
    for (size_t offset = 0; offset < 40; ++offset) ASSERT_TRUE(utf8_agrees(embed(one, offset, 40)));
    for (unsigned second = 0; second < 256; ++second) {
      const std::vector<unsigned char> two{static_cast<unsigned char>(first), static_cast<unsigned char>(second)};
      ASSERT_TRUE(utf8_agrees(two));
      // Rotating through every offset of a 40-byte text (both 16-byte block seams and the end) and a
      // 20-byte one (the overlapping last block).
      const size_t pair = first * 256 + second;
      ASSERT_TRUE(utf8_agrees(embed(two, pair % 39, 40)));
      ASSERT_TRUE(utf8_agrees(embed(two, pair % 19, 20)));
    }
  }
}

// The ASCII prefix the vector check skips through: texts of 19..80 bytes, ASCII but for one sequence (NUL,
// a lone continuation, an overlong or truncated lead, valid 2-, 3- and 4-byte characters) at every place,
// including inside the last, overlapping block; and pure ASCII of every length.
TEST(Utf8Property, LongAsciiTextsWithOneSequenceAtEveryPlace) {
  const std::vector<std::vector<unsigned char>> sequences = {{0x00},
                                                             {0x80},
                                                             {0xBF},
                                                             {0xC0, 0x80},
                                                             {0xC2},
                                                             {0xC2, 0xA9},
                                                             {0xE0, 0x80, 0x80},
                                                             {0xE2, 0x82, 0xAC},
                                                             {0xED, 0xA0, 0x80},
                                                             {0xF0, 0x9F, 0x98, 0x80},
                                                             {0xF4, 0x90, 0x80, 0x80},
                                                             {0xF0, 0x9F},
                                                             {0xFF}};
  for (size_t size = 19; size <= 80; ++size) {
    ASSERT_TRUE(utf8_agrees(std::vector<unsigned char>(size, 'a')));
    for (const auto& sequence : sequences) {
      for (size_t offset = 0; offset + sequence.size() <= size; ++offset) {
        ASSERT_TRUE(utf8_agrees(embed(sequence, offset, size)));
      }
    }
  }
}

TEST(Utf8Property, ThreeAndFourByteSequencesOverEveryByteClassBoundary) {
  // The edges of every range Table 3-7 distinguishes, plus NUL and ASCII.
  const unsigned char boundary[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
                                    0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
  size_t counter = 0;
  for (unsigned char a : boundary) {
    for (unsigned char b : boundary) {
      for (unsigned char c : boundary) {
        const std::vector<unsigned char> three{a, b, c};
        ASSERT_TRUE(utf8_agrees(three));
        ASSERT_TRUE(utf8_agrees(embed(three, counter % 38, 41)));
        ++counter;
        for (unsigned char d : boundary) {
          const std::vector<unsigned char> four{a, b, c, d};
          // Offset 29 ends the text.
          ASSERT_TRUE(utf8_agrees(embed(four, counter % 30, 33)));
          ++counter;
        }
      }
    }
  }
}

TEST(Utf8Property, EveryTruncationPointOfValidText) {
  const uint64_t seed = test_seed(0x75746638);
  SCOPED_TRACE("seed " + std::to_string(seed));
  Random rng(seed);
  for (int round = 0; round < 2000 / kWorkScale; ++round) {
    const std::vector<unsigned char> text = random_valid_utf8(rng, 1 + rng.below(40));
    ASSERT_EQ(reference_utf8(text.data(), text.size()), Utf8Status::kValid);
    for (size_t cut = 0; cut <= text.size(); ++cut) {
      ASSERT_TRUE(utf8_agrees(std::vector<unsigned char>(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(cut))));
    }
  }
}

TEST(Utf8Property, RandomMutationsOfValidText) {
  const uint64_t seed = test_seed(0x6d757461);
  SCOPED_TRACE("seed " + std::to_string(seed));
  Random rng(seed);
  const unsigned char interesting[] = {0x00, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF};
  for (int round = 0; round < 20000 / kWorkScale; ++round) {
    std::vector<unsigned char> text = random_valid_utf8(rng, rng.below(70));
    const uint64_t mutations = rng.below(3);
    for (uint64_t m = 0; m < mutations && !text.empty(); ++m) {
      const size_t at = static_cast<size_t>(rng.below(text.size()));
      if (rng.below(2) == 0) {
        text[at] = interesting[rng.below(sizeof interesting)];
      } else {
        text[at] = static_cast<unsigned char>(rng.below(256));
      }
    }
    ASSERT_TRUE(utf8_agrees(text));
  }
}

}  // namespace
}  // namespace bitwire::test
