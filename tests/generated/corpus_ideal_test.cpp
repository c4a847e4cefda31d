// The hand-written static-layout ideal of bench/generated/corpus_ideal.hpp (corpus_bench's speed limit)
// against idlc's generated code: the same bytes for random valid messages, the same values read back, and
// the same verdict on corrupted, truncated and out-of-range input, so the benchmark compares like with like.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "corpus_ideal.hpp"
#include "corpus_random.hpp"
#include "examples_random.hpp"

namespace {

template <typename M>
std::vector<std::byte> generated_bytes(const M& message) {
  std::vector<std::byte> out(M::MaxBytes + 8);
  bitwire::WriteStream stream{std::span<std::byte>(out)};
  EXPECT_TRUE(message.serialize(stream));
  stream.flush();
  out.resize(stream.bytes_processed());
  return out;
}

template <typename M>
bool generated_read(std::span<const std::byte> bytes, M& out) {
  bitwire::ReadStream stream(bytes);
  return out.serialize(stream);
}

// Random valid messages: the ideal writes idlc's bytes and reads them back to the same message. Then every
// single-bit flip, every random byte pattern and every truncation gets the same verdict from both readers,
// and, where both accept, the same message.
template <typename Ideal>
void check_against_generated(uint64_t seed) {
  using M = typename Ideal::Message;
  bitwire::Random rng(seed);
  for (int round = 0; round < 200; ++round) {
    M message{};
    bitwire::random_fill(rng, message);
    const std::vector<std::byte> expected = generated_bytes(message);
    if constexpr (requires { Ideal::L::kBytes; }) {
      ASSERT_EQ(expected.size(), static_cast<size_t>(Ideal::L::kBytes));
    }

    std::vector<std::byte> written(M::MaxBytes + 8, std::byte{0x5A});
    ASSERT_EQ(Ideal::write(message, written), expected.size());
    for (size_t i = expected.size(); i < written.size(); ++i)
      ASSERT_EQ(written[i], std::byte{0x5A}) << "the ideal wrote past the message at byte " << i;
    written.resize(expected.size());
    ASSERT_EQ(written, expected) << "round " << round;

    M back{};
    ASSERT_TRUE(Ideal::read(expected, back));
    ASSERT_TRUE(back == message);

    std::vector<std::byte> input = expected;
    const size_t bit = static_cast<size_t>(rng.next() % (8 * input.size()));
    input[bit / 8] ^= std::byte{static_cast<unsigned char>(1u << (bit % 8))};
    if (round % 2 == 1) {
      for (auto& b : input) b = static_cast<std::byte>(rng.next());
    }
    M from_ideal{};
    M from_generated{};
    const bool ideal_ok = Ideal::read(input, from_ideal);
    const bool generated_ok = generated_read(input, from_generated);
    ASSERT_EQ(ideal_ok, generated_ok) << "round " << round << ", bit " << bit;
    if (ideal_ok) {
      ASSERT_TRUE(from_ideal == from_generated);
    }

    const size_t cut = static_cast<size_t>(rng.next() % expected.size());
    M truncated{};
    ASSERT_FALSE(Ideal::read(std::span<const std::byte>(expected).first(cut), truncated));
    ASSERT_FALSE(generated_read(std::span<const std::byte>(expected).first(cut), truncated));
  }
}

TEST(CorpusIdeal, BenchPacket) { check_against_generated<corpus_ideal::BenchPacket>(1); }
TEST(CorpusIdeal, BenchInts) { check_against_generated<corpus_ideal::BenchInts>(2); }
TEST(CorpusIdeal, BenchBits) { check_against_generated<corpus_ideal::BenchBits>(3); }
TEST(CorpusIdeal, BenchMixed) { check_against_generated<corpus_ideal::BenchMixed>(4); }
TEST(CorpusIdeal, Test) { check_against_generated<corpus_ideal::Test>(5); }
TEST(CorpusIdeal, Synchronize) { check_against_generated<corpus_ideal::Synchronize>(6); }
TEST(CorpusIdeal, Timescale) { check_against_generated<corpus_ideal::Timescale>(7); }
TEST(CorpusIdeal, ProbeHeader) { check_against_generated<corpus_ideal::ProbeHeader>(8); }
TEST(CorpusIdeal, ProbeBits) { check_against_generated<corpus_ideal::ProbeBits>(9); }
TEST(CorpusIdeal, Block) {
  check_against_generated<corpus_ideal::Block>(10);
}
TEST(CorpusIdeal, Chat) {
  check_against_generated<corpus_ideal::Chat>(11);
}

// The verdicts random corruption rarely reaches on the variable-length messages, each given by both
// readers: a length one above the maximum (with its bytes present), non-zero padding after the length, and
// for Chat a text that is not UTF-8 or holds a NUL.
template <typename Ideal>
void check_refused_by_both(std::vector<std::byte> bytes, const char* what) {
  typename Ideal::Message from_ideal{};
  typename Ideal::Message from_generated{};
  EXPECT_FALSE(Ideal::read(bytes, from_ideal)) << what;
  EXPECT_FALSE(generated_read(bytes, from_generated)) << what;
}

TEST(CorpusIdeal, BlockAndChatRefusalsAgree) {
  for (const int max : {2000, 256}) {
    const bool chat = max == 256;
    std::vector<std::byte> too_long(2 + static_cast<size_t>(max) + 1, std::byte{'a'});
    too_long[0] = static_cast<std::byte>((max + 1) & 0xFF);
    too_long[1] = static_cast<std::byte>((max + 1) >> 8);
    std::vector<std::byte> padding{std::byte{3}, static_cast<std::byte>(chat ? 0x02 : 0x08), std::byte{'a'},
                                   std::byte{'b'}, std::byte{'c'}};
    if (chat) {
      check_refused_by_both<corpus_ideal::Chat>(too_long, "chat: length 257");
      check_refused_by_both<corpus_ideal::Chat>(padding, "chat: padding");
      check_refused_by_both<corpus_ideal::Chat>(
          {std::byte{3}, std::byte{0}, std::byte{'a'}, std::byte{0xFF}, std::byte{'c'}}, "chat: 0xFF");
      check_refused_by_both<corpus_ideal::Chat>(
          {std::byte{3}, std::byte{0}, std::byte{'a'}, std::byte{0}, std::byte{'c'}}, "chat: NUL");
      check_refused_by_both<corpus_ideal::Chat>({std::byte{2}, std::byte{0}, std::byte{0xC3}},
                                                "chat: cut short");
    } else {
      check_refused_by_both<corpus_ideal::Block>(too_long, "block: length 2001");
      check_refused_by_both<corpus_ideal::Block>(padding, "block: padding");
    }
  }
  // Both accept the largest lengths.
  std::vector<std::byte> longest(2 + 256, std::byte{'z'});
  longest[0] = std::byte{0x00};
  longest[1] = std::byte{0x01};
  examples::Chat a{};
  examples::Chat b{};
  EXPECT_TRUE(corpus_ideal::Chat::read(longest, a));
  EXPECT_TRUE(generated_read(longest, b));
  EXPECT_TRUE(a == b);
}

// The constant and the reserved bits of ProbeHeader are refused by both, at each of their bits.
TEST(CorpusIdeal, ProbeHeaderConstantAndReservedRefused) {
  examples::ProbeHeader message{};
  message.version = 5;
  message.probe_id = 0x0123456789ABCDEFull;
  const std::vector<std::byte> good = generated_bytes(message);
  ASSERT_EQ(good[0], std::byte{0xAB});
  for (int bit = 0; bit < 16; ++bit) {
    if (bit >= 8 && bit < 11) continue;  // version
    std::vector<std::byte> bad = good;
    bad[static_cast<size_t>(bit / 8)] ^= std::byte{static_cast<unsigned char>(1u << (bit % 8))};
    examples::ProbeHeader out{};
    EXPECT_FALSE(corpus_ideal::ProbeHeader::read(bad, out)) << "bit " << bit;
    EXPECT_FALSE(generated_read(bad, out)) << "bit " << bit;
  }
}

}  // namespace
