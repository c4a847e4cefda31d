#include "bitwire/core/log.hpp"

#include <cstdarg>
#include <cstdio>

namespace bitwire {
namespace {

void default_sink(void*, LogLevel level, const char* message) {
  std::fprintf(stderr, "bitwire: %s: %s\n", to_string(level), message);
}

LogSink g_sink = &default_sink;
void* g_sink_context = nullptr;

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

void log_write(LogLevel level, const char* format, ...) {
  char line[kLogLineBytes];
  va_list args;
  va_start(args, format);
  const int written = std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  if (written < 0) line[0] = '\0';
  g_sink(g_sink_context, level, line);
}

}  // namespace bitwire
