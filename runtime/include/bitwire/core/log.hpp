// Logging: a global level that can change at run time and a replaceable sink.
//
// Contracts:
// - BITWIRE_LOG(level, fmt, ...) costs one relaxed atomic load and a compare when `level` is off: the
//   arguments are not evaluated and nothing is formatted.
// - When on, the message is formatted with vsnprintf into a fixed stack buffer (kLogLineBytes; longer
//   lines are truncated) and handed to the sink; nothing allocates, so it is safe on the packet path.
// - The default sink writes "bitwire: <level>: <message>\n" to stderr. set_log_sink replaces it; pass
//   nullptr to restore the default. The level may be changed from any thread; replace the sink before
//   other threads log.
// - The default level is kError: misuse only. The connection lines (connects, denials, refused requests,
//   timeouts, disconnects, protocol errors in netcode::Client/Server and bitwire::Client/Server) are kInfo
//   and kWarning, so they are off until a game raises the level. Each names the connection (client index
//   or slot, client id, address) and the reason.
// - The sink is called with the log's mutex held. A line logged on that thread from inside the sink (by the
//   sink or by bitwire code it calls) is dropped and counted (log_lines_reentrant()), never a deadlock;
//   set_log_sink, set_log_rate_limit and log_lines_suppressed may be called from the sink.
// - Rate limit: at most `burst` lines at once and `lines_per_second` on average reach the sink per level
//   (a token bucket per level on the steady clock; default 20 lines a second, bursts of 100), so a flood of
//   hostile packets cannot flood the log, nor keep an error line out of it. Lines over the limit are counted,
//   not formatted; the next line that passes is preceded by one saying how many were suppressed. Emission is
//   serialized by a mutex (no allocation).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace bitwire {

enum class LogLevel : int {
  kNone = 0,   // nothing is logged
  kError = 1,  // something is broken (a misuse, an invariant)
  kWarning = 2,
  kInfo = 3,   // state changes worth knowing about
  kDebug = 4,  // per-packet detail: every dropped packet and why
};

inline constexpr size_t kLogLineBytes = 512;

const char* to_string(LogLevel level);

// The sink receives the level and the formatted, NUL-terminated message (no trailing newline).
using LogSink = void (*)(void* context, LogLevel level, const char* message);

void set_log_sink(LogSink sink, void* context = nullptr);

// lines_per_second <= 0: no limit. Resets the buckets to full and the suppressed count to zero. A NaN rate
// is refused (false; the limit in force stays).
bool set_log_rate_limit(double lines_per_second, int burst);
// Lines dropped by the rate limit since the last set_log_rate_limit.
uint64_t log_lines_suppressed();
// Lines logged from inside the sink (on its thread) and dropped, since the program started.
uint64_t log_lines_reentrant();

namespace detail {
inline std::atomic<int> log_level{static_cast<int>(LogLevel::kError)};
}  // namespace detail

inline void set_log_level(LogLevel level) {
  detail::log_level.store(static_cast<int>(level), std::memory_order_relaxed);
}
inline LogLevel log_level() {
  return static_cast<LogLevel>(detail::log_level.load(std::memory_order_relaxed));
}
inline bool log_enabled(LogLevel level) {
  return static_cast<int>(level) <= detail::log_level.load(std::memory_order_relaxed) &&
         level != LogLevel::kNone;
}

// Formats and emits unconditionally (callers normally go through BITWIRE_LOG).
void log_write(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));

}  // namespace bitwire

#define BITWIRE_LOG(level, ...)                                                  \
  do {                                                                           \
    if (::bitwire::log_enabled(level)) ::bitwire::log_write(level, __VA_ARGS__); \
  } while (0)
