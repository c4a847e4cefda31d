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
#pragma once

#include <atomic>
#include <cstddef>

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
