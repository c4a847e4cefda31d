// The log sink's rate limit (runtime/include/bitwire/core/log.hpp): a flood reaches the sink as a bounded
// burst, and the next line that passes says how many were suppressed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "bitwire/core/log.hpp"

namespace bitwire {
namespace {

struct Lines {
  std::vector<std::string> lines;
  static void sink(void* context, LogLevel, const char* message) {
    static_cast<Lines*>(context)->lines.emplace_back(message);
  }
};

TEST(Log, RateLimitPassesABurstAndCountsTheRest) {
  Lines captured;
  const LogLevel saved = log_level();
  set_log_sink(&Lines::sink, &captured);
  set_log_level(LogLevel::kInfo);
  set_log_rate_limit(10.0, 5);
  for (int i = 0; i < 100; ++i) BITWIRE_LOG(LogLevel::kWarning, "flood line %d", i);
  ASSERT_EQ(captured.lines.size(), 5u);
  EXPECT_EQ(captured.lines[4], "flood line 4");
  EXPECT_EQ(log_lines_suppressed(), 95u);
  std::this_thread::sleep_for(std::chrono::milliseconds(250));  // 2.5 lines' worth of tokens
  BITWIRE_LOG(LogLevel::kWarning, "after the flood");
  ASSERT_EQ(captured.lines.size(), 7u);
  EXPECT_EQ(captured.lines[5], "95 log lines suppressed by the rate limit");
  EXPECT_EQ(captured.lines[6], "after the flood");
  set_log_rate_limit(0.0, 1);  // unlimited
  for (int i = 0; i < 1000; ++i) BITWIRE_LOG(LogLevel::kWarning, "line %d", i);
  EXPECT_EQ(captured.lines.size(), 1007u);
  set_log_rate_limit(20.0, 100);
  set_log_level(saved);
  set_log_sink(nullptr);
}

TEST(Log, ConnectionLinesAreOffByDefault) {
  EXPECT_EQ(log_level(), LogLevel::kError);
  EXPECT_FALSE(log_enabled(LogLevel::kWarning));
  EXPECT_FALSE(log_enabled(LogLevel::kInfo));
}

// Restores the default sink, level and rate limit when a test ends, whatever it changed.
struct LogDefaults {
  LogLevel saved = log_level();
  ~LogDefaults() {
    set_log_sink(nullptr);
    set_log_level(saved);
    set_log_rate_limit(20.0, 100);
  }
};

// Runs `body` on another thread; a deadlock there fails the test and ends the process (the log's mutex
// stays held, so no later test could log).
void expect_finishes(const std::function<void()>& body) {
  std::promise<void> done;
  std::future<void> finished = done.get_future();
  std::thread([&body, &done] {
    body();
    done.set_value();
  }).detach();
  if (finished.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    ADD_FAILURE() << "deadlocked";
    std::fflush(stdout);
    std::_Exit(1);
  }
}

// A sink that logs (directly, or through bitwire code that logs) re-entered the log on its own thread,
// with the non-recursive mutex held: a deadlock. The nested line is dropped and counted.
TEST(Log, SinkThatLogsDropsTheNestedLine) {
  const LogDefaults defaults;
  struct Nesting {
    std::vector<std::string> lines;
    static void sink(void* context, LogLevel, const char* message) {
      static_cast<Nesting*>(context)->lines.emplace_back(message);
      BITWIRE_LOG(LogLevel::kError, "nested %s", message);
    }
  } nesting;
  set_log_sink(&Nesting::sink, &nesting);
  const uint64_t before = log_lines_reentrant();
  expect_finishes([] {
    BITWIRE_LOG(LogLevel::kError, "outer 1");
    BITWIRE_LOG(LogLevel::kError, "outer 2");
  });
  EXPECT_EQ(nesting.lines, (std::vector<std::string>{"outer 1", "outer 2"}));
  EXPECT_EQ(log_lines_reentrant() - before, 2u);
}

// The sink and the log's functions may be called from a sink (on the thread that holds the log's mutex).
TEST(Log, SinkMayReplaceItselfAndReadTheCounters) {
  const LogDefaults defaults;
  struct Replacing {
    std::vector<std::string> lines;
    static void sink(void* context, LogLevel, const char* message) {
      static_cast<Replacing*>(context)->lines.emplace_back(message);
      (void)log_lines_suppressed();
      set_log_sink(&Lines::sink, &static_cast<Replacing*>(context)->next);
    }
    Lines next;
  } replacing;
  set_log_sink(&Replacing::sink, &replacing);
  expect_finishes([] {
    BITWIRE_LOG(LogLevel::kError, "first");
    BITWIRE_LOG(LogLevel::kError, "second");
  });
  EXPECT_EQ(replacing.lines, std::vector<std::string>{"first"});
  EXPECT_EQ(replacing.next.lines, std::vector<std::string>{"second"});
}

// A flood of kInfo lines spends the rate limit; an error line still reaches the sink at once.
TEST(Log, ErrorLinesPassAFloodOfLowerLevelLines) {
  const LogDefaults defaults;
  Lines captured;
  set_log_sink(&Lines::sink, &captured);
  set_log_level(LogLevel::kInfo);
  set_log_rate_limit(1.0, 5);
  for (int i = 0; i < 1000; ++i) BITWIRE_LOG(LogLevel::kInfo, "flood line %d", i);
  BITWIRE_LOG(LogLevel::kError, "the error");
  ASSERT_FALSE(captured.lines.empty());
  EXPECT_EQ(captured.lines.back(), "the error");
  EXPECT_GE(log_lines_suppressed(), 995u);
}

// A NaN rate is refused and the limit in force stays: it used to refill the bucket at every line.
TEST(Log, NanRateIsRefused) {
  const LogDefaults defaults;
  Lines captured;
  set_log_sink(&Lines::sink, &captured);
  EXPECT_TRUE(set_log_rate_limit(1.0, 2));
  EXPECT_FALSE(set_log_rate_limit(std::numeric_limits<double>::quiet_NaN(), 2));
  for (int i = 0; i < 100; ++i) {
    BITWIRE_LOG(LogLevel::kError, "line %d", i);
    std::this_thread::sleep_for(std::chrono::microseconds(10));
  }
  EXPECT_LE(captured.lines.size(), 3u) << "2 at once, 1 a second";
}

}  // namespace
}  // namespace bitwire
