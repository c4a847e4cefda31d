#include "bitwire/core/log.hpp"

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace bitwire {
namespace {

void default_sink(void*, LogLevel level, const char* message) {
  std::fprintf(stderr, "bitwire: %s: %s\n", to_string(level), message);
}

LogSink g_sink = &default_sink;
void* g_sink_context = nullptr;

// The rate limit's token bucket, guarded by g_mutex.
std::mutex g_mutex;
double g_rate = 20.0;  // lines per second; <= 0: unlimited
double g_burst = 100.0;
double g_tokens = 100.0;
double g_last = -1.0;  // steady seconds of the last refill; < 0: not yet
uint64_t g_suppressed_total = 0;
uint64_t g_suppressed_pending = 0;  // not yet reported

double steady_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// True when a line may be emitted now; takes a token.
bool take_token() {
  if (g_rate <= 0.0) return true;
  const double now = steady_now();
  if (g_last >= 0.0 && now > g_last) g_tokens = std::min(g_burst, g_tokens + (now - g_last) * g_rate);
  g_last = now;
  if (g_tokens < 1.0) return false;
  g_tokens -= 1.0;
  return true;
}

}  // namespace

const char* to_string(LogLevel level) {
  switch (level) {
    case LogLevel::kNone:
      return "none";
    case LogLevel::kError:
      return "error";
    case LogLevel::kWarning:
      return "warning";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kDebug:
      return "debug";
  }
  return "?";
}

void set_log_sink(LogSink sink, void* context) {
  g_sink = sink != nullptr ? sink : &default_sink;
  g_sink_context = sink != nullptr ? context : nullptr;
}

void set_log_rate_limit(double lines_per_second, int burst) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  g_rate = lines_per_second;
  g_burst = std::max(1.0, static_cast<double>(burst));
  g_tokens = g_burst;
  g_last = -1.0;
  g_suppressed_total = g_suppressed_pending = 0;
}

uint64_t log_lines_suppressed() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  return g_suppressed_total;
}

void log_write(LogLevel level, const char* format, ...) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (!take_token()) {
    ++g_suppressed_total;
    ++g_suppressed_pending;
    return;
  }
  char line[kLogLineBytes];
  if (g_suppressed_pending > 0) {
    std::snprintf(line, sizeof line, "%llu log lines suppressed by the rate limit",
                  static_cast<unsigned long long>(g_suppressed_pending));
    g_suppressed_pending = 0;
    g_sink(g_sink_context, LogLevel::kWarning, line);
  }
  va_list args;
  va_start(args, format);
  const int written = std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  if (written < 0) line[0] = '\0';
  g_sink(g_sink_context, level, line);
}

}  // namespace bitwire
