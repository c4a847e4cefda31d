// check_utf8 on chat-sized texts (19..256 bytes, 1,024 different texts in rotation so the branch predictor
// cannot learn one): pure ASCII (most game chat) and the random generator's mostly-ASCII UTF-8 with 2-, 3-
// and 4-byte characters (idlc's bench inputs, e.g. the corpus's Chat). ns per text; bytes per second.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bitwire/random.hpp"
#include "bitwire/random_fill.hpp"
#include "bitwire/utf8.hpp"

namespace {

std::vector<std::string> chat_texts(bool ascii) {
  bitwire::Random rng(7);
  std::vector<std::string> texts;
  while (texts.size() < 1024) {
    std::string text;
    if (ascii) {
      const size_t length = 19 + rng.below(238);
      for (size_t k = 0; k < length; ++k) text.push_back(static_cast<char>(32 + rng.below(95)));
    } else {
      bitwire::random_fill_detail::utf8(rng, text, 256);
    }
    if (text.size() >= 19) texts.push_back(std::move(text));
  }
  return texts;
}

void check_texts(benchmark::State& state, bool ascii) {
  const std::vector<std::string> texts = chat_texts(ascii);
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
  check_texts(state, true);
}
void BM_Utf8MostlyAscii(benchmark::State& state) {
  check_texts(state, false);
}
BENCHMARK(BM_Utf8Ascii);
BENCHMARK(BM_Utf8MostlyAscii);

}  // namespace
