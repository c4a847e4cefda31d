#include "status.hpp"

#include <algorithm>
#include <cinttypes>

namespace demo {
namespace {

std::string progress_bar(double percent, int width) {
  const int filled = std::clamp(static_cast<int>(percent / 100.0 * width + 0.5), 0, width);
  return "[" + std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(width - filled), '-') + "]";
}

}  // namespace

std::string status_line(int client, const ConnectionView& v) {
  char line[256];
  if (!v.connected) {
    std::snprintf(line, sizeof line, "client %-2d  connecting...", client);
    return line;
  }
  std::snprintf(line, sizeof line,
                "client %-2d  rtt %6.1f ms  jitter %5.1f ms  loss %5.1f%%  up %6.0f kbps  down %6.0f kbps  "
                "msgs %6" PRIu64 " sent %6" PRIu64 " recv %4" PRIu64 " resent  level %s %3.0f%%  %s",
                client, v.rtt_ms, v.jitter_ms, v.loss_percent, v.up_kbps, v.down_kbps, v.messages_sent,
                v.messages_received, v.messages_resent, progress_bar(v.block_percent, 20).c_str(),
                v.block_percent, v.congestion_good ? "good" : "bad");
  return line;
}

void print_status(std::FILE* out, bool terminal, double time_s, const std::string& phase,
                  const std::vector<ConnectionView>& views, int& lines_drawn) {
  if (terminal && lines_drawn > 0) std::fprintf(out, "\x1b[%dA", lines_drawn);  // back to the view's top
  const char* clear = terminal ? "\x1b[2K" : "";
  std::fprintf(out, "%st = %5.1f s  network: %s\n", clear, time_s, phase.c_str());
  for (size_t c = 0; c < views.size(); ++c) {
    std::fprintf(out, "%s  %s\n", clear, status_line(static_cast<int>(c), views[c]).c_str());
  }
  lines_drawn = static_cast<int>(views.size()) + 1;
  std::fflush(out);
}

void print_summary(std::FILE* out, const Session& session) {
  std::fprintf(out,
               "\nclient  rtt ms  jitter ms  loss %%  up kbps  down kbps  msgs sent  recv  resent  reliable up  "
               "reliable down  inputs  snapshots  level\n");
  for (int c = 0; c < session.clients(); ++c) {
    const ConnectionView v = session.view(c);
    const ConnectionTally& t = session.tally(c);
    char level[32];
    if (t.blocks_received > 0) {
      std::snprintf(level, sizeof level, "%s at %.1f s", t.block_exact ? "exact" : "CORRUPT", t.block_done_s);
    } else {
      std::snprintf(level, sizeof level, "%.0f%%", v.block_percent);
    }
    std::fprintf(out,
                 "%6d  %6.1f  %9.1f  %6.1f  %7.0f  %9.0f  %9" PRIu64 "  %4" PRIu64 "  %6" PRIu64
                 "  %5u / %-5u  %6u / %-6u  %6" PRIu64 "  %9" PRIu64 "  %s\n",
                 c, v.rtt_ms, v.jitter_ms, v.loss_percent, v.up_kbps, v.down_kbps, v.messages_sent,
                 v.messages_received, v.messages_resent, t.up_received, t.up_sent, t.down_received, t.down_sent,
                 t.inputs_received, t.snapshots_received, level);
  }
}

}  // namespace demo
