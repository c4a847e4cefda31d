// The log sink's rate limit (runtime/include/bitwire/core/log.hpp): a flood reaches the sink as a bounded
// burst, and the next line that passes says how many were suppressed.
#include <gtest/gtest.h>

#include <chrono>
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

}  // namespace
}  // namespace bitwire
