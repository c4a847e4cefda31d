// check_utf8 on chat-sized texts (19..256 bytes, 1,024 different texts in rotation so the branch predictor
// cannot learn one): pure ASCII (most game chat); the random generator's UTF-8 with 2-, 3- and 4-byte
// characters (idlc's bench inputs, e.g. the corpus's Chat: five characters in eight are ASCII, about a third
// of the bytes); and mostly non-ASCII text (CJK-like: nine characters in ten of three bytes, the rest ASCII
// spaces and 2-byte letters). ns per text; bytes per second.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bitwire/core/random.hpp"
#include "bitwire/serialize/random_fill.hpp"
#include "bitwire/serialize/utf8.hpp"

namespace {

enum class Texts { kAscii, kGenerator, kNonAscii };

std::vector<std::string> chat_texts(Texts kind) {
  bitwire::Random rng(7);
  std::vector<std::string> texts;
  while (texts.size() < 1024) {
    std::string text;
    if (kind == Texts::kAscii) {
      const size_t length = 19 + rng.below(238);
      for (size_t k = 0; k < length; ++k) text.push_back(static_cast<char>(32 + rng.below(95)));
    } else if (kind == Texts::kGenerator) {
      bitwire::random_fill_detail::utf8(rng, text, 256);
    } else {
      const size_t length = 19 + rng.below(238);
      while (text.size() + 3 <= length) {
        const uint64_t pick = rng.below(20);
        if (pick == 0) {
          text.push_back(' ');
        } else if (pick == 1) {  // U+0100..U+017F
          const auto code = static_cast<uint32_t>(0x100 + rng.below(0x80));
          text.push_back(static_cast<char>(0xC0 | (code >> 6)));
          text.push_back(static_cast<char>(0x80 | (code & 0x3F)));
        } else {  // U+4E00..U+9FFF
          const auto code = static_cast<uint32_t>(0x4E00 + rng.below(0x5200));
          text.push_back(static_cast<char>(0xE0 | (code >> 12)));
          text.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
          text.push_back(static_cast<char>(0x80 | (code & 0x3F)));
        }
      }
    }
    if (text.size() >= 19) texts.push_back(std::move(text));
  }
  return texts;
}

void check_texts(benchmark::State& state, Texts kind) {
  const std::vector<std::string> texts = chat_texts(kind);
  size_t i = 0, bytes = 0, valid = 0;
  for (auto _ : state) {
    const std::string& text = texts[i++ & 1023];
    bytes += text.size();
    const auto* data = reinterpret_cast<const unsigned char*>(text.data());
    benchmark::DoNotOptimize(data);
    valid += bitwire::check_utf8(data, text.size()) == bitwire::Utf8Status::kValid ? 1 : 0;
  }
  benchmark::DoNotOptimize(valid);
  if (valid != static_cast<size_t>(state.iterations())) state.SkipWithError("a valid text was refused");
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void BM_Utf8Ascii(benchmark::State& state) {
  check_texts(state, Texts::kAscii);
}
void BM_Utf8MostlyAscii(benchmark::State& state) {
  check_texts(state, Texts::kGenerator);
}
void BM_Utf8MostlyNonAscii(benchmark::State& state) {
  check_texts(state, Texts::kNonAscii);
}
BENCHMARK(BM_Utf8Ascii);
BENCHMARK(BM_Utf8MostlyAscii);
BENCHMARK(BM_Utf8MostlyNonAscii);

}  // namespace
