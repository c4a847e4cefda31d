// docs/walkthrough.md shows how a run of examples/hello_session ends; this test runs the program
// (BITWIRE_HELLO_SESSION_PATH, from CMake) and holds the doc to it. Every line of the doc's output block
// must be a line of the program's output once every number is masked (RTT, rates and counts differ from
// run to run); a line that quotes bytes (memory, fixed at construction) must match exactly; and the RTT
// must be below one tick at 60 Hz, as the doc explains (the ack delay extension subtracts the hold).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// The line with every number (digits, optionally a '.' and more digits) replaced by '#'. Scanned by hand:
// g++ 12's <regex> trips -Wmaybe-uninitialized inside libstdc++ in the sanitizer build.
std::string masked(const std::string& line) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::string out;
  size_t i = 0;
  while (i < line.size()) {
    if (!digit(line[i])) {
      out += line[i++];
      continue;
    }
    while (i < line.size() && digit(line[i])) ++i;
    if (i + 1 < line.size() && line[i] == '.' && digit(line[i + 1])) {
      ++i;
      while (i < line.size() && digit(line[i])) ++i;
    }
    out += '#';
  }
  return out;
}

struct ProgramRun {
  int exit_code = -1;
  std::string output;
};

ProgramRun run_hello_session() {
  ProgramRun run;
  FILE* pipe = popen((std::string("\"") + BITWIRE_HELLO_SESSION_PATH + "\" 2>&1").c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) run.output.append(buffer, n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// The ```text block after the doc's "A run (...) ends like this:".
std::vector<std::string> doc_output_block() {
  std::ifstream in(std::string(BITWIRE_SOURCE_DIR) + "/docs/walkthrough.md", std::ios::binary);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t intro = doc.find("`./build/release/examples/hello_session`) ends like this:");
  if (intro == std::string::npos) return {};
  const size_t open = doc.find("```text\n", intro);
  if (open == std::string::npos) return {};
  const size_t body = open + 8;
  const size_t close = doc.find("\n```", body);
  if (close == std::string::npos) return {};
  return lines_of(doc.substr(body, close - body));
}

TEST(WalkthroughRun, OutputMatchesTheDoc) {
  const std::vector<std::string> quoted = doc_output_block();
  ASSERT_GE(quoted.size(), 3u) << "docs/walkthrough.md has no output block after \"ends like this:\"";
  const ProgramRun run = run_hello_session();
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::vector<std::string> printed = lines_of(run.output);
  for (const std::string& line : quoted) {
    const bool exact = line.find("bytes") != std::string::npos;
    std::string same_words;
    bool found = false;
    for (const std::string& out : printed) {
      if (masked(out) != masked(line)) continue;
      same_words = out;
      if (!exact || out == line) found = true;
    }
    EXPECT_TRUE(found) << "docs/walkthrough.md quotes\n  " << line << "\nthe program printed\n  "
                       << (same_words.empty() ? std::string("(no line with those words)") : same_words)
                       << "\nwhole output:\n"
                       << run.output;
  }
  // The RTT the doc explains: below one tick.
  const std::string rtt_lead = "client: rtt ";
  const size_t rtt_at = run.output.find(rtt_lead);
  ASSERT_NE(rtt_at, std::string::npos) << run.output;
  const size_t rtt_end = run.output.find(" ms", rtt_at);
  ASSERT_NE(rtt_end, std::string::npos) << run.output;
  const std::string rtt = run.output.substr(rtt_at + rtt_lead.size(), rtt_end - rtt_at - rtt_lead.size());
  ASSERT_FALSE(rtt.empty()) << run.output;
  ASSERT_EQ(rtt.find_first_not_of("0123456789."), std::string::npos) << run.output;
  EXPECT_LT(std::stod(rtt), 1000.0 / 60.0)
      << "an RTT of one tick or more: the ack hold is not subtracted";
  std::printf("%s", run.output.substr(run.output.find("client: rtt")).c_str());
}

}  // namespace
