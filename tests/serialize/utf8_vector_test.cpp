// The UTF-8 checks of runtime/include/bitwire/serialize/utf8.hpp (each vector path and the scalar one), each called
// directly (not only through check_utf8, which picks one), against the reference decoder
// (support/utf8_reference.hpp). A vector check may only confirm valid text: it must say "valid" exactly when
// the reference says kValid (NUL included among the refusals). Every text is an exact-size heap copy, so a
// load past its end shows under ASan (the `sanitize` preset). The AVX2 and SSSE3 checks run only on a CPU
// that has them; elsewhere their tests say so and skip, and the dispatch test still checks the choice.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/serialize/utf8.hpp"
#include "support/seed.hpp"
#include "support/utf8_reference.hpp"

#if BITWIRE_UTF8_AVX2 || BITWIRE_UTF8_SSSE3
#include <cpuid.h>
#endif

namespace bitwire::test {
namespace {

#if defined(BITWIRE_SANITIZED)
constexpr int kWorkScale = 4;
#else
constexpr int kWorkScale = 1;
#endif

struct VectorPath {
  const char* name;
  size_t minimum;  // shortest text the path accepts
  bool (*valid)(const unsigned char*, size_t);
};

bool scalar_valid(const unsigned char* text, size_t size) {
  return detail::check_utf8_scalar(text, size) == Utf8Status::kValid;
}

// The exact scalar check joins them, so a build without vector paths still runs these tests.
std::vector<VectorPath> vector_paths() {
  std::vector<VectorPath> paths;
  paths.push_back({"Scalar", 0, &scalar_valid});
#if BITWIRE_UTF8_SSE2
  paths.push_back({"SSE2", detail::kUtf8VectorMinimum, &detail::utf8_valid_sse2});
#endif
#if BITWIRE_UTF8_SSSE3
  paths.push_back({"SSSE3", detail::kUtf8VectorMinimum, &detail::utf8_valid_ssse3});
#endif
#if BITWIRE_UTF8_AVX2
  paths.push_back({"AVX2", detail::kUtf8Avx2Minimum, &detail::utf8_valid_avx2});
#endif
  return paths;
}

std::string hex(const std::vector<unsigned char>& text) {
  std::string out;
  for (unsigned char c : text) {
    char digits[4];
    std::snprintf(digits, sizeof digits, "%02x ", c);
    out += digits;
  }
  return out;
}

// `path` and check_utf8 against the reference on an exact-size heap copy of `text`.
::testing::AssertionResult agrees(const VectorPath& path, const std::vector<unsigned char>& text) {
  const Utf8Status expected = reference_utf8(text.data(), text.size());
  const auto copy = std::make_unique<unsigned char[]>(text.empty() ? 1 : text.size());
  std::copy(text.begin(), text.end(), copy.get());
  const Utf8Status got = check_utf8(copy.get(), text.size());
  const bool vector_valid =
      text.size() >= path.minimum ? path.valid(copy.get(), text.size()) : expected == Utf8Status::kValid;
  if (got == expected && vector_valid == (expected == Utf8Status::kValid))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << path.name << ": reference " << int(expected) << ", check_utf8 " << int(got) << ", vector check "
         << (vector_valid ? "valid" : "refused") << " on " << text.size() << " bytes [" << hex(text) << "]";
}

class Utf8Vector : public ::testing::TestWithParam<VectorPath> {
 protected:
  void SetUp() override {
#if BITWIRE_UTF8_SSSE3
    if (std::string(GetParam().name) == "SSSE3" && !detail::utf8_cpu_has_ssse3()) {
      GTEST_SKIP() << "this CPU has no SSSE3: the SSSE3 check is not run here (check_utf8 uses SSE2; "
                      "Utf8Dispatch checks that choice)";
    }
#endif
#if BITWIRE_UTF8_AVX2
    if (std::string(GetParam().name) == "AVX2" && !detail::utf8_cpu_has_avx2()) {
      GTEST_SKIP() << "this CPU has no AVX2: the AVX2 check is not run here (check_utf8 uses SSSE3 or SSE2; "
                      "Utf8Dispatch checks that choice)";
    }
#endif
  }
};

// One sequence of each class: valid 1- to 4-byte characters, and each way to break one.
const std::vector<std::vector<unsigned char>>& sequence_classes() {
  static const std::vector<std::vector<unsigned char>> classes = {
      {0x00},                    // NUL
      {0x41},                    // ASCII
      {0x80},                    // lone continuation
      {0xBF, 0x80},              // two lone continuations
      {0xC0, 0x80},              // overlong 2-byte
      {0xC1, 0xBF},              // overlong 2-byte
      {0xC2, 0x80},              // smallest 2-byte
      {0xDF, 0xBF},              // largest 2-byte
      {0xC2},                    // truncated 2-byte
      {0xC2, 0xC2},              // lead after lead
      {0xE0, 0x9F, 0xBF},        // overlong 3-byte
      {0xE0, 0xA0, 0x80},        // smallest 3-byte
      {0xE1, 0x80, 0x41},        // 3-byte without its third byte
      {0xED, 0x9F, 0xBF},        // last before the surrogates
      {0xED, 0xA0, 0x80},        // surrogate
      {0xEF, 0xBF, 0xBF},        // largest 3-byte
      {0xE2, 0x82, 0xAC, 0x80},  // 3-byte then a continuation too many
      {0xE2, 0x82},              // truncated 3-byte
      {0xF0, 0x8F, 0xBF, 0xBF},  // overlong 4-byte
      {0xF0, 0x90, 0x80, 0x80},  // smallest 4-byte
      {0xF3, 0xBF, 0xBF, 0xBF},  // 4-byte
      {0xF4, 0x8F, 0xBF, 0xBF},  // largest code point
      {0xF4, 0x90, 0x80, 0x80},  // above U+10FFFF
      {0xF1, 0x80, 0x80, 0x41},  // 4-byte without its fourth byte
      {0xF0, 0x9F, 0x98},        // truncated 4-byte
      {0xF5, 0x80, 0x80, 0x80},  // lead that never occurs
      {0xF8, 0x88, 0x80, 0x80, 0x80},
      {0xFF}};
  return classes;
}

// Every class at every place of texts of 19..100 bytes (so across the 16-, 32- and 64-byte block seams, the
// 128-bit lane seams, and inside the last, overlapping block), after ASCII or after a leading 2-byte
// character (which makes the vector check start its full check at the first block rather than after an
// ASCII prefix).
TEST_P(Utf8Vector, EverySequenceClassAtEveryPlaceAcrossBlockSeams) {
  for (size_t size = 19; size <= 100; ++size) {
    for (int lead_in = 0; lead_in < 2; ++lead_in) {
      for (const auto& sequence : sequence_classes()) {
        for (size_t offset = lead_in * 2; offset + sequence.size() <= size; ++offset) {
          std::vector<unsigned char> text(size, 'a');
          if (lead_in == 1) {
            text[0] = 0xC3;  // U+00E9
            text[1] = 0xA9;
          }
          std::copy(sequence.begin(), sequence.end(), text.begin() + static_cast<std::ptrdiff_t>(offset));
          ASSERT_TRUE(agrees(GetParam(), text));
        }
      }
    }
  }
}

// Every pair of bytes at the start and straddling each seam of a 64-byte text: the lane seam inside a block
// (16, 48), the block seam (32) and the end, behind a leading 2-byte character.
TEST_P(Utf8Vector, EveryBytePairAtEverySeam) {
  for (size_t offset : {2, 14, 15, 16, 30, 31, 32, 47, 48, 62}) {
    for (unsigned first = 0; first < 256; ++first) {
      for (unsigned second = 0; second < 256; ++second) {
        std::vector<unsigned char> text(64, 'a');
        text[0] = 0xC3;
        text[1] = 0xA9;
        text[offset] = static_cast<unsigned char>(first);
        text[offset + 1] = static_cast<unsigned char>(second);
        ASSERT_TRUE(agrees(GetParam(), text));
      }
    }
  }
}

// Three- and four-byte runs of the bytes at the edges of Table 3-7's ranges, across the block seam.
TEST_P(Utf8Vector, ThreeAndFourByteRunsOfBoundaryBytesAcrossTheBlockSeam) {
  const unsigned char boundary[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF,
                                    0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
                                    0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
  size_t counter = 0;
  for (unsigned char a : boundary) {
    for (unsigned char b : boundary) {
      for (unsigned char c : boundary) {
        for (unsigned char d : boundary) {
          std::vector<unsigned char> text(70, 'a');
          const size_t offset = 28 + counter++ % 8;  // 28..35: the run spans byte 32 or follows it
          text[offset] = a;
          text[offset + 1] = b;
          text[offset + 2] = c;
          text[offset + 3] = d;
          ASSERT_TRUE(agrees(GetParam(), text));
        }
      }
    }
  }
}

// Valid random text cut at every length, so every sequence is truncated at every end position.
TEST_P(Utf8Vector, EveryTruncationOfValidText) {
  BITWIRE_SEEDED_TEST_SEED(0x74727563);
  Random rng(seed);
  for (int round = 0; round < 400 / kWorkScale; ++round) {
    const std::vector<unsigned char> text = random_valid_utf8(rng, 10 + rng.below(40));
    for (size_t cut = 0; cut <= text.size(); ++cut) {
      ASSERT_TRUE(agrees(GetParam(), std::vector<unsigned char>(
                                         text.begin(), text.begin() + static_cast<std::ptrdiff_t>(cut))));
    }
  }
}

TEST_P(Utf8Vector, RandomMutationsOfValidText) {
  BITWIRE_SEEDED_TEST_SEED(0x6d757432);
  Random rng(seed);
  const unsigned char interesting[] = {0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0,
                                       0xC1, 0xC2, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF};
  for (int round = 0; round < 30000 / kWorkScale; ++round) {
    std::vector<unsigned char> text = random_valid_utf8(rng, 9 + rng.below(60));
    const uint64_t mutations = rng.below(3);
    for (uint64_t m = 0; m < mutations; ++m) {
      const size_t at = static_cast<size_t>(rng.below(text.size()));
      text[at] = rng.below(2) == 0 ? interesting[rng.below(sizeof interesting)]
                                   : static_cast<unsigned char>(rng.below(256));
    }
    ASSERT_TRUE(agrees(GetParam(), text));
  }
}

// NUL at every place of ASCII and of non-ASCII text, every length 19..100.
TEST_P(Utf8Vector, NulAtEveryPlace) {
  Random rng(0x6e756c);
  for (size_t size = 19; size <= 100; ++size) {
    std::vector<unsigned char> mixed = random_valid_utf8(rng, size);
    mixed.resize(size, 'a');  // may cut the last character: the reference then reports that, or the NUL first
    for (size_t at = 0; at < size; ++at) {
      std::vector<unsigned char> ascii(size, 'a');
      ascii[at] = 0;
      ASSERT_TRUE(agrees(GetParam(), ascii));
      std::vector<unsigned char> text = mixed;
      text[at] = 0;
      ASSERT_TRUE(agrees(GetParam(), text));
    }
  }
}

// Every length 0..100: ASCII, valid mixed text and mixed text ending in each kind of cut sequence, each
// in a heap block of exactly its size.
TEST_P(Utf8Vector, EveryLengthUpToAHundredInExactSizeBlocks) {
  Random rng(0x6c656e);
  for (size_t size = 0; size <= 100; ++size) {
    ASSERT_TRUE(agrees(GetParam(), std::vector<unsigned char>(size, 'z')));
    for (int round = 0; round < 20; ++round) {
      std::vector<unsigned char> text = random_valid_utf8(rng, size);
      text.resize(size);  // cut wherever `size` falls
      ASSERT_TRUE(agrees(GetParam(), text));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, Utf8Vector, ::testing::ValuesIn(vector_paths()),
                         [](const ::testing::TestParamInfo<VectorPath>& info) {
                           return std::string(info.param.name);
                         });

#if BITWIRE_UTF8_AVX2 && BITWIRE_UTF8_SSSE3
// check_utf8's choice: AVX2 exactly when the CPU reports AVX2 (CPUID leaf 7) and the OS saves the YMM
// registers (OSXSAVE, XCR0 bits 1 and 2); SSSE3 exactly when CPUID leaf 1 reports it. Asked independently
// of __builtin_cpu_supports here.
TEST(Utf8Dispatch, TakesAvx2OrSsse3ExactlyWhenTheCpuAndOsSupportIt) {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  bool avx2 = false, ssse3 = false;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
    ssse3 = (ecx & bit_SSSE3) != 0;
    if ((ecx & bit_OSXSAVE) != 0 && (ecx & bit_AVX) != 0) {
      unsigned xcr0_low = 0, xcr0_high = 0;
      __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
      if ((xcr0_low & 0x6) == 0x6 && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
        avx2 = (ebx & bit_AVX2) != 0;
      }
    }
  }
  std::printf("CPU has AVX2: %s, SSSE3: %s; check_utf8 uses %s for texts of %zu bytes or more, %s from %zu\n",
              avx2 ? "yes" : "no", ssse3 ? "yes" : "no", detail::utf8_cpu_has_avx2() ? "AVX2" : "no AVX2",
              detail::kUtf8Avx2Minimum, detail::utf8_cpu_has_ssse3() ? "SSSE3" : "SSE2",
              detail::kUtf8VectorMinimum);
  EXPECT_EQ(detail::utf8_cpu_has_avx2(), avx2);
  EXPECT_EQ(detail::utf8_cpu_has_ssse3(), ssse3);
  EXPECT_EQ(detail::utf8_cpu_has_avx2(), avx2);  // the cached answers
  EXPECT_EQ(detail::utf8_cpu_has_ssse3(), ssse3);
  // Whichever paths it takes, check_utf8 answers as the reference on both sides of each minimum.
  for (size_t size = detail::kUtf8VectorMinimum - 2; size <= detail::kUtf8Avx2Minimum + 2; ++size) {
    std::vector<unsigned char> text(size, 'a');
    text[size - 3] = 0xE2;
    text[size - 2] = 0x82;
    text[size - 1] = 0xAC;
    EXPECT_EQ(check_utf8(text.data(), size), Utf8Status::kValid);
    text[size - 1] = 0x41;
    EXPECT_EQ(check_utf8(text.data(), size), Utf8Status::kInvalid);
    text[0] = 0;
    EXPECT_EQ(check_utf8(text.data(), size), Utf8Status::kHasNul);
  }
}
#endif

}  // namespace
}  // namespace bitwire::test
