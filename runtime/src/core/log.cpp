#include "bitwire/core/log.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <mutex>

namespace bitwire {
namespace {

void default_sink(void*, LogLevel level, const char* message) {
  std::fprintf(stderr, "bitwire: %s: %s\n", to_string(level), message);
}

// Everything below is guarded by g_mutex, the sink and its context included (replacing the sink while
// another thread logs must not pair the new sink with the old context).
std::mutex g_mutex;
LogSink g_sink = &default_sink;
void* g_sink_context = nullptr;

// The rate limit: one token bucket per level, so a flood of lower-level lines never keeps an error line
// from the sink.
constexpr int kLevels = 5;  // indexed by LogLevel
double g_rate = 20.0;       // lines per second and level; <= 0: unlimited
double g_burst = 100.0;
double g_tokens[kLevels] = {100.0, 100.0, 100.0, 100.0, 100.0};
double g_last[kLevels] = {-1.0, -1.0, -1.0, -1.0, -1.0};  // steady seconds of the last refill; < 0: not yet
uint64_t g_suppressed_total = 0;
uint64_t g_suppressed_pending = 0;  // not yet reported

// True on the thread that is inside the sink (holding g_mutex): a line it logs is dropped and counted, and
// the log's functions it calls do not take the mutex again.
thread_local bool t_in_sink = false;
std::atomic<uint64_t> g_reentrant{0};

// g_mutex, unless this thread already holds it (it is inside the sink).
class LogLock {
 public:
  LogLock() {
    if (!t_in_sink) lock_ = std::unique_lock<std::mutex>(g_mutex);
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

double steady_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// True when a line of `level` may be emitted now; takes a token from that level's bucket.
bool take_token(LogLevel level) {
  if (g_rate <= 0.0) return true;
  const int i = std::clamp(static_cast<int>(level), 0, kLevels - 1);
  const double now = steady_now();
  if (g_last[i] >= 0.0 && now > g_last[i])
    g_tokens[i] = std::min(g_burst, g_tokens[i] + (now - g_last[i]) * g_rate);
  g_last[i] = now;
  if (g_tokens[i] < 1.0) return false;
  g_tokens[i] -= 1.0;
  return true;
}

void emit(LogLevel level, const char* line) {
  t_in_sink = true;
  g_sink(g_sink_context, level, line);
  t_in_sink = false;
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
  const LogLock lock;
  g_sink = sink != nullptr ? sink : &default_sink;
  g_sink_context = sink != nullptr ? context : nullptr;
}

bool set_log_rate_limit(double lines_per_second, int burst) {
  if (std::isnan(lines_per_second)) return false;
  const LogLock lock;
  g_rate = lines_per_second;
  g_burst = std::max(1.0, static_cast<double>(burst));
  for (int i = 0; i < kLevels; ++i) {
    g_tokens[i] = g_burst;
    g_last[i] = -1.0;
  }
  g_suppressed_total = g_suppressed_pending = 0;
  return true;
}

uint64_t log_lines_suppressed() {
  const LogLock lock;
  return g_suppressed_total;
}

uint64_t log_lines_reentrant() {
  return g_reentrant.load(std::memory_order_relaxed);
}

void log_write(LogLevel level, const char* format, ...) {
  if (t_in_sink) {
    g_reentrant.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const std::lock_guard<std::mutex> lock(g_mutex);
  if (!take_token(level)) {
    ++g_suppressed_total;
    ++g_suppressed_pending;
    return;
  }
  char line[kLogLineBytes];
  if (g_suppressed_pending > 0) {
    std::snprintf(line, sizeof line, "%llu log lines suppressed by the rate limit",
                  static_cast<unsigned long long>(g_suppressed_pending));
    g_suppressed_pending = 0;
    emit(LogLevel::kWarning, line);
  }
  va_list args;
  va_start(args, format);
  const int written = std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  if (written < 0) line[0] = '\0';
  emit(level, line);
}

}  // namespace bitwire
