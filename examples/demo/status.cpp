#include "status.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>

namespace demo {
namespace {

std::string progress_bar(double percent, int width) {
  const int filled = std::clamp(static_cast<int>(percent / 100.0 * width + 0.5), 0, width);
  return "[" + std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(width - filled), '-') + "]";
}

// Columns of the terminal on `out`, or 0 when unknown.
size_t terminal_width(std::FILE* out) {
  winsize size{};
  if (ioctl(fileno(out), TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

}  // namespace

std::string status_header() {
  return "  client  rtt ms  jitter  loss %  up kbps  down kbps  level              congestion    sent    recv  resent";
}

// The RTT in a 6-wide column: "-" before the first sample.
std::string rtt_text(double rtt_ms) {
  char text[32];
  if (std::isfinite(rtt_ms)) {
    std::snprintf(text, sizeof text, "%6.1f", rtt_ms);
  } else {
    std::snprintf(text, sizeof text, "%6s", "-");
  }
  return text;
}

std::string status_line(int client, const ConnectionView& v) {
  char line[256];
  if (!v.connected) {
    std::snprintf(line, sizeof line, "  %6d   connecting...", client);
    return line;
  }
  std::snprintf(line, sizeof line,
                "  %6d  %s  %6.1f  %6.1f  %7.0f  %9.0f  %s %3.0f%%  %-10s  %6" PRIu64 "  %6" PRIu64
                "  %6" PRIu64,
                client, rtt_text(v.rtt_ms).c_str(), v.jitter_ms, v.loss_percent, v.up_kbps, v.down_kbps,
                progress_bar(v.block_percent, 10).c_str(), v.block_percent,
                v.congestion_good ? "good" : "bad", v.messages_sent, v.messages_received, v.messages_resent);
  return line;
}

void print_status(std::FILE* out, bool terminal, double time_s, const std::string& phase,
                  const std::vector<ConnectionView>& views, int& lines_drawn) {
  if (terminal && lines_drawn > 0) std::fprintf(out, "\x1b[%dA", lines_drawn);  // back to the view's top
  const char* clear = terminal ? "\x1b[2K" : "";
  // A line wider than the terminal would wrap and break the redraw: on a terminal, cut lines to its width.
  const size_t width = terminal ? terminal_width(out) : 0;
  auto put = [&](std::string line) {
    if (width > 1 && line.size() >= width) line.resize(width - 1);
    std::fprintf(out, "%s%s\n", clear, line.c_str());
  };
  char title[256];
  std::snprintf(title, sizeof title, "t = %5.1f s  network: %s", time_s, phase.c_str());
  put(title);
  put(status_header());
  for (size_t c = 0; c < views.size(); ++c) put(status_line(static_cast<int>(c), views[c]));
  lines_drawn = static_cast<int>(views.size()) + 2;
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
                 "%6d  %s  %9.1f  %6.1f  %7.0f  %9.0f  %9" PRIu64 "  %4" PRIu64 "  %6" PRIu64
                 "  %5u / %-5u  %6u / %-6u  %6" PRIu64 "  %9" PRIu64 "  %s\n",
                 c, rtt_text(v.rtt_ms).c_str(), v.jitter_ms, v.loss_percent, v.up_kbps, v.down_kbps,
                 v.messages_sent, v.messages_received, v.messages_resent, t.up_received, t.up_sent,
                 t.down_received, t.down_sent, t.inputs_received, t.snapshots_received, level);
  }
  // What the simulated network did, over every link and both directions: the truth the estimates above
  // are compared with.
  uint64_t sent = 0, lost = 0, duplicated = 0, queue_full = 0, dropped = 0;
  for (int c = 0; c < session.clients(); ++c) {
    for (const bitwire::NetworkSimulator* sim : {&session.link(c).outgoing(), &session.link(c).incoming()}) {
      sent += sim->stats().sent;
      lost += sim->stats().lost + sim->stats().burst_lost;
      duplicated += sim->stats().duplicated;
      queue_full += sim->stats().queue_full;
      dropped += sim->stats().overflow + sim->stats().too_large;
    }
    dropped += session.link(c).stats().ring_dropped + session.link(c).stats().too_large;
  }
  std::fprintf(out,
               "\nsimulated network, all links both ways: %" PRIu64 " packets, %" PRIu64 " lost (%.1f%%), %" PRIu64
               " duplicated, %" PRIu64 " dropped by the bandwidth queue, %" PRIu64 " by full buffers\n",
               sent, lost, sent == 0 ? 0.0 : 100.0 * static_cast<double>(lost) / static_cast<double>(sent), duplicated,
               queue_full, dropped);
}

}  // namespace demo
