// BitWriter and BitReader against a bit-by-bit reference packer (bit k of the stream is bit k%8 of byte
// k/8): every split of a field across the 64-bit word boundary, 64-bit writes at every scratch offset,
// flush idempotence, byte blocks at every byte offset within a word, and the memory each side may touch.
// The reader is run on spans in the middle of canary-filled arrays, on exactly sized heap blocks (the
// sanitizer build sees any over-read) and on spans that end or begin at an inaccessible page (any build
// faults on a stray load). ReadRun and WriteRun, the runs of fixed-width fields: bits_run_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bitwire/serialize/bits.hpp"
#include "bitwire/serialize/read_run.hpp"
#include "bitwire/serialize/stream.hpp"
#include "bitwire/serialize/write_run.hpp"
#include "support/guarded_pages.hpp"
#include "support/seed.hpp"

namespace bitwire::test {
namespace {

constexpr std::byte kCanary{0xA5};

// One step of a bit stream: a field of 1..64 bits, an aligned byte block, or padding to a byte boundary.
struct Op {
  enum Kind { kBits, kBytes, kAlign } kind = kBits;
  uint64_t value = 0;
  int bits = 0;
  std::vector<uint8_t> block;
};
Op bits_op(uint64_t value, int bits) {
  return Op{Op::kBits, bits == 64 ? value : value & low_mask(bits), bits, {}};
}
Op bytes_op(std::vector<uint8_t> block) {
  return Op{Op::kBytes, 0, 0, std::move(block)};
}
Op align_op() {
  return Op{Op::kAlign, 0, 0, {}};
}

// The packing rule, one bit at a time.
class Reference {
 public:
  void run(const std::vector<Op>& ops) {
    for (const Op& op : ops) {
      if (op.kind == Op::kBits) {
        for (int k = 0; k < op.bits; ++k) put_bit((op.value >> k) & 1);
      } else if (op.kind == Op::kAlign) {
        while (bits_ % 8 != 0) put_bit(0);
      } else {
        EXPECT_EQ(bits_ % 8, 0u);
        for (const uint8_t b : op.block) {
          for (int k = 0; k < 8; ++k) put_bit((b >> k) & 1);
        }
      }
    }
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  size_t bits() const { return bits_; }

 private:
  void put_bit(uint64_t bit) {
    if (bits_ % 8 == 0) bytes_.push_back(0);
    bytes_.back() = static_cast<uint8_t>(bytes_.back() | (bit << (bits_ % 8)));
    ++bits_;
  }
  std::vector<uint8_t> bytes_;
  size_t bits_ = 0;
};

std::vector<uint8_t> to_vector(std::span<const std::byte> bytes) {
  std::vector<uint8_t> out(bytes.size());
  if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

void write_ops(BitWriter& writer, const std::vector<Op>& ops) {
  for (const Op& op : ops) {
    if (op.kind == Op::kBits) {
      writer.write_bits(op.value, op.bits);
    } else if (op.kind == Op::kAlign) {
      writer.write_align();
    } else {
      writer.write_bytes(reinterpret_cast<const std::byte*>(op.block.data()), op.block.size());
    }
  }
}

// Writes `ops` into a canary-filled buffer (`slack` bytes more than the stream needs) and checks the bytes
// against the reference and that nothing past them was touched.
void expect_written(const std::vector<Op>& ops, size_t slack = 16) {
  Reference reference;
  reference.run(ops);
  std::vector<std::byte> buffer(reference.bytes().size() + slack, kCanary);
  BitWriter writer(buffer);
  write_ops(writer, ops);
  writer.flush();
  ASSERT_EQ(writer.bits_written(), reference.bits());
  ASSERT_EQ(writer.bytes_written(), reference.bytes().size());
  EXPECT_EQ(to_vector(std::span(buffer).first(reference.bytes().size())), reference.bytes());
  for (size_t i = reference.bytes().size(); i < buffer.size(); ++i) {
    ASSERT_EQ(buffer[i], kCanary) << "byte " << i << " past the stream was written";
  }
}

// Reads `ops` back from `bytes` and checks every value, the position, and the end of the span.
void expect_read(std::span<const std::byte> bytes, const std::vector<Op>& ops) {
  BitReader reader(bytes);
  ASSERT_EQ(reader.total_bits(), bytes.size() * 8);
  size_t position = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    SCOPED_TRACE("op " + std::to_string(i) + " at bit " + std::to_string(position));
    ASSERT_EQ(reader.bits_read(), position);
    if (op.kind == Op::kBits) {
      ASSERT_TRUE(reader.can_read(static_cast<size_t>(op.bits)));
      ASSERT_EQ(reader.read_bits(op.bits), op.value);
      position += static_cast<size_t>(op.bits);
    } else if (op.kind == Op::kAlign) {
      const int padding = reader.align_bits();
      if (padding != 0) {
        ASSERT_EQ(reader.read_bits(padding), 0u);
      }
      position += static_cast<size_t>(padding);
    } else {
      ASSERT_EQ(reader.align_bits(), 0);
      ASSERT_TRUE(reader.can_read(op.block.size() * 8));
      std::vector<std::byte> out(op.block.size() + 1, kCanary);
      reader.read_bytes(out.data(), op.block.size());
      EXPECT_EQ(to_vector(std::span(out).first(op.block.size())), op.block);
      EXPECT_EQ(out.back(), kCanary);
      position += op.block.size() * 8;
    }
  }
  EXPECT_EQ(reader.bits_read(), position);
  EXPECT_EQ(reader.bits_remaining(), bytes.size() * 8 - position);
  EXPECT_TRUE(reader.can_read(reader.bits_remaining()));
  EXPECT_FALSE(reader.can_read(reader.bits_remaining() + 1));
}

void expect_round_trip(const std::vector<Op>& ops) {
  expect_written(ops);
  Reference reference;
  reference.run(ops);
  const std::vector<uint8_t>& bytes = reference.bytes();
  const std::unique_ptr<std::byte[]> exact(new std::byte[bytes.size()]);
  if (!bytes.empty()) std::memcpy(exact.get(), bytes.data(), bytes.size());
  expect_read({exact.get(), bytes.size()}, ops);
}

// ---- the writer and reader against the reference ----

TEST(BitStream, EverySplitAcrossTheWordBoundary) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0001);
  uint64_t state = seed;
  // A field of `first` bits leaves the scratch at that offset; the next field of `second` bits crosses
  // (or meets) the 64-bit boundary at every possible split; a third field follows in the next word.
  for (int first = 1; first <= 64; ++first) {
    for (int second = 1; second <= 64; ++second) {
      SCOPED_TRACE(std::to_string(first) + " then " + std::to_string(second) + " bits");
      const std::vector<Op> ops = {bits_op(splitmix64(state), first), bits_op(splitmix64(state), second),
                                   bits_op(splitmix64(state), 1 + static_cast<int>(splitmix64(state) % 64))};
      ASSERT_NO_FATAL_FAILURE(expect_round_trip(ops));
    }
  }
}

TEST(BitStream, SixtyFourBitWritesAtEveryScratchOffset) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0002);
  uint64_t state = seed;
  const uint64_t patterns[] = {~uint64_t{0}, 0x8000'0000'0000'0001, 0x0123'4567'89AB'CDEF, 0};
  for (int offset = 0; offset < 64; ++offset) {
    for (const uint64_t pattern : patterns) {
      SCOPED_TRACE("offset " + std::to_string(offset));
      std::vector<Op> ops;
      if (offset != 0) ops.push_back(bits_op(splitmix64(state), offset));
      ops.push_back(bits_op(pattern, 64));
      ops.push_back(bits_op(splitmix64(state), 64));
      ops.push_back(bits_op(pattern, 64));
      ASSERT_NO_FATAL_FAILURE(expect_round_trip(ops));
    }
    // The same offset in the second word, reached one bit at a time.
    std::vector<Op> ops;
    for (int k = 0; k < 64 + offset; ++k) ops.push_back(bits_op(splitmix64(state), 1));
    ops.push_back(bits_op(~uint64_t{0}, 64));
    ops.push_back(bits_op(splitmix64(state), 3));
    ASSERT_NO_FATAL_FAILURE(expect_round_trip(ops));
  }
}

TEST(BitStream, KnownBytes) {
  // Independent of the reference: 1, 101, 1010 pack to 0xAB; a 64-bit value after one bit shifts across.
  std::array<std::byte, 16> buffer{};
  BitWriter writer(buffer);
  writer.write_bits(1, 1);
  writer.write_bits(5, 3);
  writer.write_bits(10, 4);
  writer.write_bits(1, 1);
  writer.write_bits(0x8000'0000'0000'0001, 64);
  writer.flush();
  EXPECT_EQ(writer.bits_written(), 73u);
  EXPECT_EQ(writer.bytes_written(), 10u);
  const std::vector<uint8_t> expected = {0xAB, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x01};
  EXPECT_EQ(to_vector(std::span(buffer).first(10)), expected);
}

TEST(BitStream, FlushIsIdempotentAndWritingContinuesAfterIt) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0003);
  uint64_t state = seed;
  for (int prefix = 0; prefix <= 140; ++prefix) {
    SCOPED_TRACE("flush after " + std::to_string(prefix) + " bits");
    std::vector<Op> head;
    for (int left = prefix; left > 0;) {
      const int bits = std::min(left, 1 + static_cast<int>(splitmix64(state) % 64));
      head.push_back(bits_op(splitmix64(state), bits));
      left -= bits;
    }
    const std::vector<Op> tail = {bits_op(splitmix64(state), 13), bits_op(splitmix64(state), 64),
                                  bits_op(splitmix64(state), 7)};

    std::vector<std::byte> buffer(64, kCanary);
    BitWriter writer(buffer);
    write_ops(writer, head);
    writer.flush();
    const std::vector<uint8_t> once = to_vector(buffer);
    const size_t bits = writer.bits_written();
    writer.flush();
    writer.flush();
    EXPECT_EQ(to_vector(buffer), once) << "a second flush changed the buffer";
    EXPECT_EQ(writer.bits_written(), bits);
    EXPECT_EQ(static_cast<int>(bits), prefix);
    for (size_t i = writer.bytes_written(); i < buffer.size(); ++i) {
      ASSERT_EQ(buffer[i], kCanary) << "flush touched byte " << i;
    }
    // Continuing after a flush gives what a single uninterrupted write gives.
    write_ops(writer, tail);
    writer.flush();
    std::vector<Op> all = head;
    all.insert(all.end(), tail.begin(), tail.end());
    Reference reference;
    reference.run(all);
    EXPECT_EQ(to_vector(std::span(buffer).first(writer.bytes_written())), reference.bytes());
  }
}

TEST(BitStream, ByteBlocksAtEveryByteOffsetWithinAWord) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0004);
  uint64_t state = seed;
  // A prefix of whole bytes (made of bit fields, so part of it sits in the scratch word), a block of
  // every length up to three words, then bit fields that must continue right after the block.
  for (int prefix_bytes = 0; prefix_bytes <= 16; ++prefix_bytes) {
    for (size_t count = 0; count <= 24; ++count) {
      SCOPED_TRACE(std::to_string(count) + " bytes after " + std::to_string(prefix_bytes));
      std::vector<Op> ops;
      for (int b = 0; b < prefix_bytes; ++b) ops.push_back(bits_op(splitmix64(state), 8));
      std::vector<uint8_t> block(count);
      for (uint8_t& b : block) b = static_cast<uint8_t>(splitmix64(state));
      ops.push_back(bytes_op(block));
      ops.push_back(bits_op(splitmix64(state), 13));
      ops.push_back(bits_op(splitmix64(state), 64));
      ops.push_back(align_op());
      ops.push_back(bytes_op({0x11, 0x22, 0x33}));
      ops.push_back(bits_op(splitmix64(state), 5));
      ASSERT_NO_FATAL_FAILURE(expect_round_trip(ops));
    }
  }
}

// A byte block's last partial word is already in the buffer when the block ends (the copy stored it), so a
// flush right after a block stores nothing more; bits written after the block are stored, by a flush or as
// a whole word. From every byte offset within a word, blocks of every length up to two words, then a flush,
// then nothing, a few bits, a byte, or enough bits to complete the word and more, then a flush: the bytes
// are the reference's and nothing past them is touched.
TEST(BitStream, AFlushAfterAByteBlockStoresOnlyWhatFollowsIt) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0018);
  uint64_t state = seed;
  for (int prefix_bytes = 0; prefix_bytes <= 9; ++prefix_bytes) {
    for (size_t count = 0; count <= 17; ++count) {
      for (const int after : {0, 3, 8, 61, 64, 70}) {
        SCOPED_TRACE(std::to_string(count) + " bytes after " + std::to_string(prefix_bytes) + ", then " +
                     std::to_string(after) + " bits");
        std::vector<Op> head;
        for (int b = 0; b < prefix_bytes; ++b) head.push_back(bits_op(splitmix64(state), 8));
        std::vector<uint8_t> block(count);
        for (uint8_t& b : block) b = static_cast<uint8_t>(splitmix64(state));
        head.push_back(bytes_op(block));
        std::vector<Op> tail;
        for (int left = after; left > 0;) {
          const int bits = std::min(left, 1 + static_cast<int>(splitmix64(state) % 64));
          tail.push_back(bits_op(splitmix64(state), bits));
          left -= bits;
        }
        std::vector<Op> all = head;
        all.insert(all.end(), tail.begin(), tail.end());
        Reference reference;
        reference.run(all);

        std::vector<std::byte> buffer(reference.bytes().size() + 16, kCanary);
        BitWriter writer(buffer);
        write_ops(writer, head);
        writer.flush();
        write_ops(writer, tail);
        writer.flush();
        ASSERT_EQ(writer.bytes_written(), reference.bytes().size());
        EXPECT_EQ(to_vector(std::span(buffer).first(reference.bytes().size())), reference.bytes());
        for (size_t i = reference.bytes().size(); i < buffer.size(); ++i) {
          ASSERT_EQ(buffer[i], kCanary) << "byte " << i << " past the stream was written";
        }
      }
    }
  }
}

// flush_padded() stores the same bytes as flush(); the rest of the last 8-byte word becomes zero where the
// span holds it, and nothing else past the written bytes is touched: never a byte past the span. Messages of
// 0..200 bits (with and without a byte block, so the block's already-stored tail is covered) into spans
// with 0..16 bytes of room past them, canaries after the span (a message ending with a block stores
// nothing more, as flush()); a second flush_padded changes nothing, and
// writing on after it gives the uninterrupted stream's bytes.
TEST(BitStream, FlushPaddedStoresTheSameBytesAndZeroesOnlyTheLastWordInsideTheSpan) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0031);
  uint64_t state = seed;
  for (int total = 0; total <= 200; ++total) {
    for (const bool with_block : {false, true}) {
      std::vector<Op> head;
      for (int left = total; left > 0;) {
        const int bits = std::min(left, 1 + static_cast<int>(splitmix64(state) % 64));
        head.push_back(bits_op(splitmix64(state), bits));
        left -= bits;
      }
      if (with_block) {
        head.push_back(align_op());
        std::vector<uint8_t> block(splitmix64(state) % 12);
        for (uint8_t& b : block) b = static_cast<uint8_t>(splitmix64(state));
        head.push_back(bytes_op(block));
      }
      // A message that ends with a non-empty block has its last word in the buffer already: nothing to store.
      const bool ends_stored = with_block && !head.back().block.empty();
      const std::vector<Op> tail = {bits_op(splitmix64(state), 13), bits_op(splitmix64(state), 64)};
      Reference reference;
      reference.run(head);
      const size_t bytes = reference.bytes().size();
      for (size_t room = 0; room <= 16; ++room) {
        SCOPED_TRACE(std::to_string(total) + " bits" + (with_block ? " and a block" : "") + ", room " +
                     std::to_string(room));
        std::vector<std::byte> storage(bytes + room + 16, kCanary);
        BitWriter writer{std::span(storage).first(bytes + room)};
        write_ops(writer, head);
        writer.flush_padded();
        ASSERT_EQ(writer.bytes_written(), bytes);
        EXPECT_EQ(to_vector(std::span(storage).first(bytes)), reference.bytes());
        // The last word's end, when the span holds the whole word; else nothing past the bytes.
        const size_t word_end = bytes % 8 == 0 ? bytes : (bytes / 8 + 1) * 8;
        const size_t zeroed_end = !ends_stored && word_end <= bytes + room ? word_end : bytes;
        for (size_t i = bytes; i < storage.size(); ++i) {
          ASSERT_EQ(storage[i], i < zeroed_end ? std::byte{0} : kCanary) << "byte " << i;
        }
        const std::vector<uint8_t> once = to_vector(storage);
        writer.flush_padded();
        ASSERT_EQ(to_vector(storage), once) << "a second flush_padded changed the buffer";
        if (room >= 10) {
          write_ops(writer, tail);
          writer.flush_padded();
          std::vector<Op> all = head;
          all.insert(all.end(), tail.begin(), tail.end());
          Reference whole;
          whole.run(all);
          ASSERT_EQ(writer.bytes_written(), whole.bytes().size());
          EXPECT_EQ(to_vector(std::span(storage).first(whole.bytes().size())), whole.bytes());
          for (size_t i = bytes + room; i < storage.size(); ++i)
            ASSERT_EQ(storage[i], kCanary) << "byte " << i;
        }
      }
    }
  }
}

TEST(BitStream, AlignPadsWithZerosToTheNextByte) {
  for (int offset = 0; offset < 72; ++offset) {
    SCOPED_TRACE("offset " + std::to_string(offset));
    std::vector<Op> ops;
    for (int k = 0; k < offset; ++k) ops.push_back(bits_op(1, 1));
    ops.push_back(align_op());
    ops.push_back(bits_op(0xFF, 8));
    ASSERT_NO_FATAL_FAILURE(expect_round_trip(ops));
    std::array<std::byte, 16> buffer{};
    BitWriter writer(buffer);
    write_ops(writer, ops);
    EXPECT_EQ(writer.bits_written(), (static_cast<size_t>(offset) + 7) / 8 * 8 + 8);
  }
}

TEST(BitStream, RandomSequences) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0005);
  uint64_t state = seed;
#if BITWIRE_SANITIZED
  const int kRounds = 300;
#else
  const int kRounds = 3000;
#endif
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::vector<Op> ops;
    const int length = 1 + static_cast<int>(splitmix64(state) % 40);
    for (int i = 0; i < length; ++i) {
      const uint64_t pick = splitmix64(state) % 10;
      if (pick < 7) {
        ops.push_back(bits_op(splitmix64(state), 1 + static_cast<int>(splitmix64(state) % 64)));
      } else if (pick < 8) {
        ops.push_back(align_op());
      } else {
        ops.push_back(align_op());
        std::vector<uint8_t> block(splitmix64(state) % 20);
        for (uint8_t& b : block) b = static_cast<uint8_t>(splitmix64(state));
        ops.push_back(bytes_op(std::move(block)));
      }
    }
    ASSERT_NO_FATAL_FAILURE(expect_round_trip(ops));
  }
}

// ---- the reader's bounds ----

TEST(BitReaderBounds, PositionAndRemaining) {
  const std::array<std::byte, 3> bytes{std::byte{0xFF}, std::byte{0x00}, std::byte{0x81}};
  BitReader reader(bytes);
  EXPECT_EQ(reader.total_bits(), 24u);
  EXPECT_TRUE(reader.can_read(24));
  EXPECT_FALSE(reader.can_read(25));
  EXPECT_EQ(reader.read_bits(3), 7u);
  EXPECT_EQ(reader.align_bits(), 5);
  EXPECT_EQ(reader.bits_remaining(), 21u);
  EXPECT_FALSE(reader.can_read(22));
  EXPECT_EQ(reader.read_bits(21), 0x10201Fu);  // 11111 from byte 0, byte 1, then 0x81 << 13
  EXPECT_EQ(reader.bits_remaining(), 0u);
  EXPECT_TRUE(reader.can_read(0));
  EXPECT_FALSE(reader.can_read(1));
}

TEST(BitReaderBounds, PoisonStopsEveryLaterRead) {
  const std::array<std::byte, 16> bytes{};
  BitReader reader(bytes);
  reader.read_bits(5);
  reader.poison();
  EXPECT_EQ(reader.bits_read(), 5u);
  EXPECT_EQ(reader.bits_remaining(), 0u);
  EXPECT_FALSE(reader.can_read(1));
  EXPECT_TRUE(reader.can_read(0));
}

TEST(BitReaderBounds, EmptySpan) {
  BitReader reader(std::span<const std::byte>{});
  EXPECT_EQ(reader.total_bits(), 0u);
  EXPECT_FALSE(reader.can_read(1));
  reader.read_bytes(nullptr, 0);
  EXPECT_EQ(reader.bits_read(), 0u);
}

// Reads every bit of `bytes` in a mix of widths, and every aligned tail with read_bytes, comparing with
// the bytes themselves.
void read_everything(std::span<const std::byte> bytes, uint64_t& state) {
  const std::vector<uint8_t> expected = to_vector(bytes);
  // Bit fields until the end, in random widths, then the failure to read one more bit.
  {
    BitReader reader(bytes);
    size_t position = 0;
    while (reader.bits_remaining() != 0) {
      const int bits =
          static_cast<int>(std::min<size_t>(1 + splitmix64(state) % 64, reader.bits_remaining()));
      ASSERT_TRUE(reader.can_read(static_cast<size_t>(bits)));
      const uint64_t value = reader.read_bits(bits);
      for (int k = 0; k < bits; ++k) {
        const size_t bit = position + static_cast<size_t>(k);
        ASSERT_EQ((value >> k) & 1, (expected[bit / 8] >> (bit % 8)) & 1u) << "bit " << bit;
      }
      position += static_cast<size_t>(bits);
    }
    EXPECT_EQ(position, bytes.size() * 8);
    EXPECT_FALSE(reader.can_read(1));
  }
  // A block from every byte offset to the end, after reaching that offset with bit fields.
  for (size_t start = 0; start <= bytes.size(); ++start) {
    BitReader reader(bytes);
    for (size_t left = start * 8; left > 0;) {
      const int bits = static_cast<int>(std::min<size_t>(1 + splitmix64(state) % 64, left));
      reader.read_bits(bits);
      left -= static_cast<size_t>(bits);
    }
    std::vector<std::byte> out(bytes.size() - start);
    reader.read_bytes(out.data(), out.size());
    EXPECT_EQ(to_vector(out),
              std::vector<uint8_t>(expected.begin() + static_cast<std::ptrdiff_t>(start), expected.end()));
    EXPECT_EQ(reader.bits_remaining(), 0u);
  }
}

TEST(BitReaderBounds, SpanInTheMiddleOfAGuardedArray) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0006);
  uint64_t state = seed;
  // The bytes around the span are all ones: read into a value, any of them would show.
  for (size_t size = 0; size <= 40; ++size) {
    SCOPED_TRACE("span of " + std::to_string(size) + " bytes");
    std::vector<std::byte> storage(64 + size + 64, std::byte{0xFF});
    for (size_t i = 0; i < size; ++i) storage[64 + i] = std::byte{0};  // zeros, so a stray one bit shows
    const std::vector<std::byte> before = storage;
    ASSERT_NO_FATAL_FAILURE(read_everything(std::span(storage).subspan(64, size), state));
    for (size_t i = 0; i < size; ++i) storage[64 + i] = static_cast<std::byte>(splitmix64(state));
    ASSERT_NO_FATAL_FAILURE(read_everything(std::span(storage).subspan(64, size), state));
    for (size_t i = 0; i < 64; ++i) {
      ASSERT_EQ(storage[i], before[i]);
      ASSERT_EQ(storage[64 + size + i], before[64 + size + i]);
    }
  }
}

TEST(BitReaderBounds, ExactlySizedHeapBlocks) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0007);
  uint64_t state = seed;
  // Under ASan a load of one byte past the block is reported.
  for (size_t size = 0; size <= 40; ++size) {
    SCOPED_TRACE("block of " + std::to_string(size) + " bytes");
    const std::unique_ptr<std::byte[]> block(new std::byte[size]);
    for (size_t i = 0; i < size; ++i) block[i] = static_cast<std::byte>(splitmix64(state));
    ASSERT_NO_FATAL_FAILURE(read_everything({block.get(), size}, state));
  }
}

TEST(BitReaderBounds, SpansAgainstInaccessiblePages) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0008);
  uint64_t state = seed;
  GuardedPages pages(64);
  ASSERT_TRUE(pages.ok());
  for (size_t size = 0; size <= 40; ++size) {
    SCOPED_TRACE("span of " + std::to_string(size) + " bytes");
    for (const std::span<std::byte> span : {pages.at_end(size), pages.at_start(size)}) {
      for (std::byte& b : span) b = static_cast<std::byte>(splitmix64(state));
      ASSERT_NO_FATAL_FAILURE(read_everything(span, state));
    }
  }
}

// ---- the writer's bounds ----

TEST(BitWriterBounds, FillsItsSpanExactlyAndNothingBeyond) {
  BITWIRE_SEEDED_TEST_SEED(0xB175'0009);
  uint64_t state = seed;
  GuardedPages pages(64);
  ASSERT_TRUE(pages.ok());
  for (size_t size = 1; size <= 40; ++size) {
    SCOPED_TRACE("span of " + std::to_string(size) + " bytes");
    // Fields of random widths that add up to exactly the span's capacity, with a block in the middle.
    std::vector<Op> ops;
    size_t left = size * 8;
    while (left > 0) {
      if (left % 8 == 0 && left >= 24 && splitmix64(state) % 4 == 0) {
        ops.push_back(bytes_op({0xDE, 0xAD}));
        left -= 16;
        continue;
      }
      const int bits = static_cast<int>(std::min<size_t>(1 + splitmix64(state) % 64, left));
      ops.push_back(bits_op(splitmix64(state), bits));
      left -= static_cast<size_t>(bits);
    }
    Reference reference;
    reference.run(ops);
    ASSERT_EQ(reference.bytes().size(), size);
    // In the middle of a canary array.
    std::vector<std::byte> storage(16 + size + 16, kCanary);
    BitWriter writer{std::span(storage).subspan(16, size)};
    write_ops(writer, ops);
    writer.flush();
    EXPECT_EQ(writer.bits_written(), writer.capacity_bits());
    EXPECT_EQ(to_vector(std::span(storage).subspan(16, size)), reference.bytes());
    for (size_t i = 0; i < 16; ++i) {
      ASSERT_EQ(storage[i], kCanary) << "wrote before the span";
      ASSERT_EQ(storage[16 + size + i], kCanary) << "wrote after the span";
    }
    // Against the guard pages: a store outside faults.
    for (const std::span<std::byte> span : {pages.at_end(size), pages.at_start(size)}) {
      BitWriter guarded(span);
      write_ops(guarded, ops);
      guarded.flush();
      EXPECT_EQ(to_vector(span), reference.bytes());
    }
  }
}

}  // namespace
}  // namespace bitwire::test
