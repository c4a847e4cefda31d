// The demo binary (BITWIRE_DEMO_PATH, from CMake) run as a user runs it: short runs on the simulated clock
// (--fast) with fixed seeds, and its command line. What it prints and writes is checked here; the checks
// it makes itself decide its exit code (0 all passed, 1 a check failed, 2 a bad command line).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/xml_check.hpp"

namespace {

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

Result run_demo(const std::string& arguments) {
  Result result;
  const std::string command = std::string("\"") + BITWIRE_DEMO_PATH + "\" " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int count_lines(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  return lines;
}

std::filesystem::path scratch_dir(const char* name) {
  const auto dir = std::filesystem::temp_directory_path() / ("bitwire_demo_test_" + std::to_string(getpid())) / name;
  std::filesystem::create_directories(dir);
  return dir;
}

#ifdef BITWIRE_SANITIZED
constexpr int kClients = 2;
#else
constexpr int kClients = 4;
#endif

TEST(Demo, ShortRunDeliversEverythingAndWritesOneSeriesPerConnection) {
  const auto dir = scratch_dir("short");
  const auto csv = dir / "stats.csv";
  const auto svg = dir / "plot.svg";
  const Result r = run_demo("--fast --duration 3 --seed 7 --clients " + std::to_string(kClients) + " --csv \"" +
                            csv.string() + "\" --svg \"" + svg.string() + "\"");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("every check passed"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("FAIL"), std::string::npos) << r.output;
  // The checks it reports, each passed.
  for (const char* check : {"[ ok ] every client connected", "[ ok ] reliable messages delivered exactly once and in order",
                            "[ ok ] level block", "[ ok ] nothing refused by a peer", "[ ok ] RTT",
                            "[ ok ] packet loss"}) {
    EXPECT_NE(r.output.find(check), std::string::npos) << check << "\n" << r.output;
  }
  // The summary table has one row per client.
  EXPECT_NE(r.output.find("client  rtt ms"), std::string::npos);

  // CSV: a header and one row per connection per second.
  ASSERT_TRUE(std::filesystem::exists(csv));
  EXPECT_EQ(count_lines(read_text(csv)), 1 + 3 * kClients);
  // SVG: one series per connection in each chart, none more.
  ASSERT_TRUE(std::filesystem::exists(svg));
  const bitwire::test::XmlCheck xml = bitwire::test::check_xml(read_text(svg));
  ASSERT_TRUE(xml.ok) << xml.error << " at byte " << xml.offset;
  EXPECT_EQ(xml.root().name, "svg");
  // Every polyline with an id of a chart series: exactly one per chart and connection, each with points.
  std::map<std::string, int> series;
  for (const bitwire::test::XmlElement& e : xml.elements) {
    const std::string* id = e.attribute("id");
    const std::string* points = e.attribute("points");
    if (e.name == "polyline" && id != nullptr && points != nullptr && !points->empty()) ++series[*id];
  }
  for (int c = 0; c < kClients; ++c) {
    for (const char* chart : {"rtt-", "loss-", "up-", "down-"}) {
      EXPECT_EQ(series[std::string(chart) + std::to_string(c)], 1) << chart << c;
    }
  }
  EXPECT_EQ(series.count("rtt-" + std::to_string(kClients)), 0u);
  std::filesystem::remove_all(dir.parent_path());
}

// The README quotes a run of the demo at its defaults (4 clients). Memory is fixed at construction and the
// level block's size is the demo's own, so those figures must be what the demo prints, whatever the run.
TEST(Demo, ReadmeQuotesTheMemoryAndLevelFiguresItPrints) {
  const Result r = run_demo("--fast --duration 1 --seed 1 --clients 4");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string readme = read_text(std::filesystem::path(BITWIRE_SOURCE_DIR) / "README.md");
  const size_t memory = r.output.find("memory: server ");
  ASSERT_NE(memory, std::string::npos) << r.output;
  const std::string memory_line = r.output.substr(memory, r.output.find('\n', memory) - memory);
  std::printf("%s\n", memory_line.c_str());
  EXPECT_NE(readme.find(memory_line + "\n"), std::string::npos)
      << "README.md's demo output should have the line the demo prints:\n"
      << memory_line;
  const size_t level = r.output.find("level block (");
  ASSERT_NE(level, std::string::npos) << r.output;
  const std::string level_words = r.output.substr(level, r.output.find(')', level) + 1 - level);
  const std::string bytes = level_words.substr(13, level_words.find(' ', 13) - 13);
  std::string with_commas = bytes;
  for (int at = static_cast<int>(with_commas.size()) - 3; at > 0; at -= 3)
    with_commas.insert(static_cast<size_t>(at), ",");
  std::printf("%s, %s\n", level_words.c_str(), with_commas.c_str());
  EXPECT_NE(readme.find(level_words), std::string::npos) << "README.md should say " << level_words;
  EXPECT_NE(readme.find("a " + with_commas + "-byte level block"), std::string::npos)
      << "README.md should say a " << with_commas << "-byte level block";
}

TEST(Demo, SameSeedSameChecks) {
  // The simulated network draws from the seed only: two runs agree on what was sent and delivered.
  const std::string args = "--fast --duration 2 --seed 11 --clients 2";
  const Result a = run_demo(args);
  const Result b = run_demo(args);
  ASSERT_EQ(a.exit_code, 0) << a.output;
  ASSERT_EQ(b.exit_code, 0) << b.output;
  const auto line = [](const std::string& text) {
    const size_t at = text.find("reliable messages delivered");
    return text.substr(at, text.find('\n', at) - at);
  };
  EXPECT_EQ(line(a.output), line(b.output));
}

TEST(Demo, ScenarioChangesTheNetworkAndStillDeliversEverything) {
  const Result r = run_demo("--fast --scenario --duration 8 --seed 3 --clients 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("loss burst"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("latency spike"), std::string::npos) << r.output;
}

TEST(Demo, AFailedCheckExitsOne) {
  // 100 kbit/s cannot carry a snapshot every tick and the level block in 2 seconds: the block check fails.
  const Result r = run_demo("--fast --duration 2 --seed 1 --clients 1 --bandwidth 100");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("[FAIL] level block"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("SOME CHECKS FAILED"), std::string::npos) << r.output;
}

TEST(Demo, BadOutputPathIsRefusedBeforeTheRun) {
  // A 30 s run would print its status and checks first; the path is refused before the session starts.
  const Result r = run_demo("--duration 30 --svg /nonexistent-directory-for-bitwire/plot.svg");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("bitwire_demo: --svg: cannot write /nonexistent-directory-for-bitwire/plot.svg"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("checks:"), std::string::npos) << "the run started: " << r.output;
  const Result csv = run_demo("--duration 30 --csv /nonexistent-directory-for-bitwire/stats.csv");
  EXPECT_EQ(csv.exit_code, 2) << csv.output;
  EXPECT_NE(csv.output.find("--csv: cannot write"), std::string::npos) << csv.output;
}

TEST(Demo, ZeroLatencyRunComparesItsRtt) {
  // On a zero-latency link the RTT measures 0 ms: a measurement, so the phase is compared, not "too short".
  const Result r =
      run_demo("--fast --duration 3 --seed 2 --clients 2 --latency 0 --jitter 0 --loss 0 --dup 0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("too short to settle"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[ ok ] RTT: furthest client"), std::string::npos) << r.output;
}

TEST(Demo, RttIsLeftOutBeforeTheFirstSample) {
  // 600 ms round trips: at the first second no RTT has been measured (the handshake alone takes two round
  // trips); the CSV leaves the field empty (the plot leaves the point out) instead of drawing 0 ms.
  const auto dir = scratch_dir("rtt");
  const auto csv = dir / "stats.csv";
  const Result r = run_demo("--fast --duration 4 --seed 1 --clients 1 --latency 300 --jitter 0 --csv \"" +
                            csv.string() + "\"");
  ASSERT_TRUE(std::filesystem::exists(csv)) << r.output;
  std::istringstream lines(read_text(csv));
  std::string line;
  std::getline(lines, line);  // header
  int rows = 0, empty_rtt = 0, measured_rtt = 0;
  while (std::getline(lines, line)) {
    ++rows;
    const size_t first = line.find(',');
    const size_t second = line.find(',', first + 1);
    const size_t third = line.find(',', second + 1);
    const std::string rtt = line.substr(second + 1, third - second - 1);
    if (rows == 1) {
      EXPECT_EQ(rtt, "") << "second 1: no RTT sample yet: " << line;
    }
    (rtt.empty() ? empty_rtt : measured_rtt) += 1;
  }
  EXPECT_EQ(rows, 4);
  EXPECT_GE(empty_rtt, 1);
  EXPECT_GE(measured_rtt, 1) << "an RTT is measured once the first round trip is done";
  std::filesystem::remove_all(dir.parent_path());
}

// The summary table's "down kbps" column, one value per client.
std::vector<double> down_kbps(const std::string& output) {
  std::vector<double> values;
  const size_t header = output.find("client  rtt ms  jitter ms");
  if (header == std::string::npos) return values;
  std::istringstream lines(output.substr(output.find('\n', header) + 1));
  std::string line;
  while (std::getline(lines, line) && !line.empty()) {
    std::istringstream fields(line);
    std::string field;
    for (int column = 0; column < 6 && fields >> field; ++column) {
    }
    values.push_back(std::stod(field));
  }
  return values;
}

// The demo sends its Snapshot as a delta against the newest one the client acked; --whole sends it whole.
// Same seed, same world, same network: the deltas take at most a third of the down rate, headers, inputs'
// acks, events and chat included (docs/delta.md and bench/RESULTS.md quote 30-second runs).
TEST(Demo, DeltaSnapshotsTakeAThirdOfTheDownRateOfWholeOnes) {
  const std::string args = "--fast --duration 10 --seed 1 --clients " + std::to_string(kClients);
  const Result delta = run_demo(args);
  const Result whole = run_demo(args + " --whole");
  ASSERT_EQ(delta.exit_code, 0) << delta.output;
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  EXPECT_NE(whole.output.find("whole snapshots (--whole)"), std::string::npos) << whole.output;
  EXPECT_EQ(delta.output.find("--whole"), std::string::npos) << delta.output;
  for (const Result* r : {&delta, &whole}) {
    EXPECT_NE(r->output.find(
                  "[ ok ] snapshots carried 64 entities, a valid input tick and every field as sent (0 bad)"),
              std::string::npos)
        << r->output;
  }
  const std::vector<double> d = down_kbps(delta.output);
  const std::vector<double> w = down_kbps(whole.output);
  ASSERT_EQ(d.size(), static_cast<size_t>(kClients)) << delta.output;
  ASSERT_EQ(w.size(), static_cast<size_t>(kClients)) << whole.output;
  for (int c = 0; c < kClients; ++c) {
    std::printf("client %d: down %g kbit/s whole, %g as deltas (%.2fx)\n", c, w[c], d[c], w[c] / d[c]);
    EXPECT_GE(w[c], 3.0 * d[c]) << "client " << c;
  }
}

TEST(Demo, HelpDocumentsEveryOptionWithItsDefault) {
  const Result r = run_demo("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--duration S", "--clients N", "--latency MS", "--jitter MS", "--loss PCT",
                             "--dup PCT", "--bandwidth KBPS", "--seed N", "--rate HZ", "--csv FILE",
                             "--svg FILE", "--plot FILE", "--scenario", "--fast", "--whole", "--help"}) {
    EXPECT_NE(r.output.find(option), std::string::npos) << option;
  }
  for (const char* fallback : {"[30]", "[4]", "[100]", "[20]", "[5]", "[1]", "[60]", "[none]"}) {
    EXPECT_NE(r.output.find(fallback), std::string::npos) << fallback;
  }
}

// README.md shows the demo's options as --help prints them: every option line is there word for word.
TEST(Demo, ReadmeQuotesEveryOptionLineOfTheHelp) {
  const Result r = run_demo("--help");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string readme = read_text(std::filesystem::path(BITWIRE_SOURCE_DIR) / "README.md");
  std::istringstream lines(r.output);
  std::string line;
  int options = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("  --", 0) != 0) continue;
    ++options;
    EXPECT_NE(readme.find("\n" + line + "\n"), std::string::npos) << "README.md should have the line:\n"
                                                                  << line;
  }
  EXPECT_GE(options, 16);
}

TEST(Demo, BadOptionsExitTwoWithAMessage) {
  const struct {
    const char* args;
    const char* message;
  } cases[] = {
      {"--bogus", "unknown option '--bogus'"},
      {"--loss 150", "--loss: '150' is not a number from 0 to 90"},
      {"--latency 1500", "--latency: '1500' is not a number from 0 to 1000"},
      {"--loss", "option --loss needs a value"},
      {"--clients 0", "--clients: '0' is not a number from 1 to 64"},
      {"--clients 2.5", "--clients: a whole number"},
      {"--duration abc", "--duration: 'abc'"},
      {"--seed -1", "--seed: '-1' is not an unsigned 64-bit integer"},
      {"--bandwidth 10", "--bandwidth: 0 (no cap) or from 100"},
      {"--svg \"\"", "--svg: the file name is empty"},
  };
  for (const auto& c : cases) {
    const Result r = run_demo(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
}

}  // namespace
