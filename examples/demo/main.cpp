// The bitwire demo: a small game session over loopback UDP under a simulated bad network, with live
// statistics and checks of everything that arrived. See --help, README.md ("The demo") and session.hpp.
// Run it with `cmake/quickstart.sh demo`.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bitwire/core/monotonic_time.hpp"
#include "options.hpp"
#include "plot.hpp"
#include "run.hpp"
#include "session.hpp"
#include "status.hpp"

namespace demo {
namespace {

// Longest the run goes on after --duration for reliable messages and blocks still in flight.
constexpr double kDrainSeconds = 5.0;
// Estimators need this long after a change of conditions before their averages are compared with them.
constexpr double kSettleSeconds = 1.5;

// Averages of a client's estimates over the settled part of one phase.
struct PhaseTotals {
  double rtt_sum = 0.0;
  double loss_sum = 0.0;
  int count = 0;
  int loss_count = 0;
  int connected_ticks = 0;  // ticks connected in the phase: about the client packets its loss judged
};

struct Check {
  bool ok = true;
  std::string text;
};

std::string phase_at(const std::vector<RunPhase>& phases, double t, size_t& index) {
  while (index + 1 < phases.size() && t >= phases[index].end_s) ++index;
  return phases[index].label;
}

// The clock: steady_clock through MonotonicTime, or with --fast a fixed step per tick.
class Clock {
 public:
  explicit Clock(bool simulated) : simulated_(simulated), origin_(std::chrono::steady_clock::now()) {}
  // Waits (unless simulated) until tick `k` is due; returns the time since the start in seconds.
  double at_tick(uint64_t k, double rate_hz) {
    const double due = static_cast<double>(k) / rate_hz;
    if (simulated_) return due;
    const auto target = origin_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(due));
    std::this_thread::sleep_until(target);
    time_.advance(std::chrono::duration<double>(std::chrono::steady_clock::now() - origin_).count());
    return time_.now();
  }

 private:
  bool simulated_;
  std::chrono::steady_clock::time_point origin_;
  bitwire::MonotonicTime time_{0.0};
};

int run(const Options& options) {
  // Output files are checked now, so a bad path costs nothing but this message (not the whole run).
  for (const auto& [flag, path] : {std::pair<const char*, const std::string&>{"--csv", options.csv_path},
                                   std::pair<const char*, const std::string&>{"--svg", options.svg_path}}) {
    std::string problem;
    if (!path.empty() && !check_writable(path, problem)) {
      std::fprintf(stderr, "bitwire_demo: %s: cannot write %s (checked before the run)\n", flag,
                   problem.c_str());
      return 2;
    }
  }
  const std::vector<RunPhase> phases = make_phases(options);
  Session session(options);
  const uint64_t unix_start = static_cast<uint64_t>(std::time(nullptr));
  std::string error;
  if (!session.start(0.0, unix_start, error)) {
    std::fprintf(stderr, "bitwire_demo: cannot start: %s\n", error.c_str());
    return 1;
  }
  const bool terminal = isatty(STDOUT_FILENO) != 0;
  std::printf("bitwire demo: 1 server, %d clients on 127.0.0.1, %g Hz, seed %llu%s%s%s\n", options.clients,
              options.rate_hz, static_cast<unsigned long long>(options.seed),
              options.scenario ? ", scenario" : "", options.fast ? ", simulated clock (--fast)" : "",
              options.whole ? ", whole snapshots (--whole)" : "");
  std::printf("memory: server %zu bytes (%d slots), client %zu bytes each\n\n", session.server_memory_bytes(),
              options.clients, session.client_memory_bytes());

  Clock clock(options.fast);
  const int clients = options.clients;
  std::vector<RunSample> samples;
  std::vector<std::vector<PhaseTotals>> totals(phases.size(), std::vector<PhaseTotals>(static_cast<size_t>(clients)));
  std::vector<ConnectionView> views(static_cast<size_t>(clients));
  size_t phase = 0;
  size_t applied_phase = 0;
  session.set_conditions(phases[0].conditions);
  int lines_drawn = 0;
  const double status_every = terminal ? 0.25 : (options.duration_s <= 10.0 ? 1.0 : 5.0);
  double next_status = status_every;
  // Before its first RTT sample the endpoint judges a packet lost after 1 s: with an RTT above that every
  // early packet counts as lost, and the 256-packet loss window needs that long again to forget them.
  const double configured_rtt_s = 2.0 * options.latency_ms / 1000.0;
  const double loss_settle = configured_rtt_s > 0.9 ? kSettleSeconds + configured_rtt_s + 256.0 / options.rate_hz
                                                     : kSettleSeconds;
  double next_sample = 1.0;
  double now = 0.0;
  bool drained = false;
  for (uint64_t k = 1;; ++k) {
    now = clock.at_tick(k, options.rate_hz);
    const bool running = now <= options.duration_s + 1e-9;  // the tick at exactly --duration is the last
    if (!running && (session.settled() || now >= options.duration_s + kDrainSeconds)) {
      drained = session.settled();
      break;
    }
    const std::string label = phase_at(phases, std::min(now, options.duration_s), phase);
    if (phase != applied_phase) {
      session.set_conditions(phases[phase].conditions);
      applied_phase = phase;
    }
    session.tick(now, unix_start + static_cast<uint64_t>(now), running);
    if (!running) continue;
    for (int c = 0; c < clients; ++c) {
      views[static_cast<size_t>(c)] = session.view(c);
      const ConnectionView& v = views[static_cast<size_t>(c)];
      PhaseTotals& t = totals[phase][static_cast<size_t>(c)];
      if (v.connected) ++t.connected_ticks;
      const double rtt_settle = kSettleSeconds + 2.0 * phases[phase].conditions.latency_ms / 1000.0;
      // A measured RTT, whatever its value: a zero-latency link measures 0 ms.
      if (v.connected && std::isfinite(v.rtt_ms) && now >= phases[phase].start_s + rtt_settle) {
        if (now >= phases[phase].start_s + loss_settle) {
          t.loss_sum += v.loss_percent;
          ++t.loss_count;
        }
        t.rtt_sum += v.rtt_ms;
        ++t.count;
      }
    }
    if (now >= next_sample) {
      for (int c = 0; c < clients; ++c) samples.push_back({next_sample, c, views[static_cast<size_t>(c)]});
      next_sample += 1.0;
    }
    if (now >= next_status) {
      print_status(stdout, terminal, now, label, views, lines_drawn);
      if (!terminal) std::printf("\n");
      next_status += status_every;
    }
  }
  print_summary(stdout, session);

  // ---- The checks ----
  std::vector<Check> checks;
  auto add = [&checks](bool ok, std::string text) { checks.push_back({ok, std::move(text)}); };
  int connected = 0, stayed = 0, exact = 0, complete = 0;
  uint64_t up = 0, down = 0, out_of_order = 0, undelivered = 0, refused = 0, invalid = 0, unsent = 0,
           bad_snapshots = 0;
  double slowest_block = 0.0;
  std::string failure;
  for (int c = 0; c < clients; ++c) {
    const ConnectionTally& t = session.tally(c);
    connected += t.connected_once ? 1 : 0;
    stayed += t.connected_once && t.disconnects == 0 ? 1 : 0;
    complete += t.blocks_received == 1 ? 1 : 0;
    exact += t.blocks_received == 1 && t.block_exact ? 1 : 0;
    slowest_block = std::max(slowest_block, t.block_done_s);
    up += t.up_sent;
    down += t.down_sent;
    out_of_order += t.up_out_of_order + t.down_out_of_order;
    undelivered += (t.up_sent - std::min(t.up_sent, t.up_received)) + (t.down_sent - std::min(t.down_sent, t.down_received));
    undelivered += (t.up_received > t.up_sent ? 1 : 0) + (t.down_received > t.down_sent ? 1 : 0);
    refused += t.refused_sends;
    invalid += session.invalid_packets(c);
    unsent += session.payloads_refused(c);
    bad_snapshots += t.snapshots_bad;
    if (failure.empty() && !t.failure.empty()) failure = "client " + std::to_string(c) + ": " + t.failure;
  }
  char text[256];
  std::snprintf(text, sizeof text, "every client connected with its token and stayed connected (%d/%d)", stayed, clients);
  add(connected == clients && stayed == clients, text);
  std::snprintf(text, sizeof text,
                "reliable messages delivered exactly once and in order: %llu up, %llu down "
                "(%llu out of order, %llu missing)%s",
                static_cast<unsigned long long>(up), static_cast<unsigned long long>(down),
                static_cast<unsigned long long>(out_of_order), static_cast<unsigned long long>(undelivered),
                drained ? "" : " -- still in flight after the drain");
  add(out_of_order == 0 && undelivered == 0 && up > 0 && down > 0, text);
  std::snprintf(text, sizeof text, "level block (%zu bytes) complete and byte-exact on %d/%d clients, the last at %.1f s",
                kLevelBytes, exact, clients, slowest_block);
  add(exact == clients && complete == clients, text);
  std::snprintf(text, sizeof text,
                "nothing refused by a peer: %llu invalid packets, %llu refused sends, %llu packets netcode "
                "would not send%s%s",
                static_cast<unsigned long long>(invalid), static_cast<unsigned long long>(refused),
                static_cast<unsigned long long>(unsent), failure.empty() ? "" : "; ", failure.c_str());
  add(invalid == 0 && refused == 0 && unsent == 0 && failure.empty(), text);
  std::snprintf(text, sizeof text,
                "snapshots carried 64 entities, a valid input tick and every field as sent (%llu bad)",
                static_cast<unsigned long long>(bad_snapshots));
  add(bad_snapshots == 0, text);
  // Statistics against the simulated conditions, per phase, over its settled part.
  for (size_t p = 0; p < phases.size(); ++p) {
    const RunPhase& ph = phases[p];
    const double expected_rtt = 2.0 * ph.conditions.latency_ms;
    // Ticks quantize both directions (a packet waits up to a tick to be read and to be answered).
    const double tick_ms = 1000.0 / options.rate_hz;
    // Acks ride the first packet back, so the RTT sample takes the quicker of several jittered delays:
    // the lower bound allows for jitter, the upper one for the ticks and a full bandwidth queue.
    const double rtt_low = 0.8 * std::max(0.0, expected_rtt - ph.conditions.jitter_ms);
    const double queue_ms = ph.conditions.bandwidth_kbps > 0.0
                                ? ph.conditions.queue_bytes * 8.0 / ph.conditions.bandwidth_kbps
                                : 0.0;
    const double rtt_high = expected_rtt + ph.conditions.jitter_ms + 3.0 * tick_ms + 20.0 + 2.0 * queue_ms;
    const double loss = ph.conditions.loss_percent;
    // Three standard deviations of a loss rate measured over the packets of the phase (binomial), and
    // never tighter than 2.5 points or half the simulated rate.
    int judged = 0;
    for (const PhaseTotals& t : totals[p]) judged = judged == 0 ? t.connected_ticks : std::min(judged, t.connected_ticks);
    const double q = loss / 100.0;
    const double sigma = judged > 0 ? 100.0 * std::sqrt(q * (1.0 - q) / judged) : 0.0;
    const double loss_tolerance = std::max({2.5, 0.5 * loss, 3.0 * sigma});
    double rtt_worst = expected_rtt, loss_worst = loss;
    bool rtt_ok = true, loss_ok = true, measured = false, loss_measured = true;
    for (int c = 0; c < clients; ++c) {
      const PhaseTotals& t = totals[p][static_cast<size_t>(c)];
      if (t.count == 0) continue;
      measured = true;
      const double rtt = t.rtt_sum / t.count;
      const double l = t.loss_count > 0 ? t.loss_sum / t.loss_count : loss;
      if (t.loss_count == 0) loss_measured = false;
      if (rtt < rtt_low || rtt > rtt_high) rtt_ok = false;
      if (std::abs(rtt - expected_rtt) >= std::abs(rtt_worst - expected_rtt)) rtt_worst = rtt;
      if (std::abs(l - loss) > loss_tolerance) loss_ok = false;
      if (std::abs(l - loss) >= std::abs(loss_worst - loss)) loss_worst = l;
    }
    const std::string where = phases.size() > 1 ? " in phase \"" + ph.label + "\"" : "";
    if (!measured) {
      add(true, "statistics" + where + ": phase too short to settle, not compared");
      continue;
    }
    std::snprintf(text, sizeof text, "RTT%s: furthest client %.1f ms, simulated 2 x %.0f ms (accepted %.0f..%.0f ms)",
                  where.c_str(), rtt_worst, ph.conditions.latency_ms, rtt_low, rtt_high);
    add(rtt_ok, text);
    // The loss estimate spans the last 256 packets (about 4 s at 60 Hz), so only a phase that starts the
    // run is free of the previous phase's losses; a bandwidth cap adds queue drops of its own.
    if (p == 0 && options.bandwidth_kbps == 0.0 && !loss_measured) {
      add(true, "packet loss" + where + ": the run is too short for the loss window to settle, not compared");
    } else if (p == 0 && options.bandwidth_kbps == 0.0) {
      std::snprintf(text, sizeof text, "packet loss%s: furthest client %.1f%%, simulated %.1f%% (accepted +-%.1f over ~%d packets)",
                    where.c_str(), loss_worst, loss, loss_tolerance, judged);
      add(loss_ok, text);
    }
  }
  bool all_ok = true;
  std::printf("\nchecks:\n");
  for (const Check& check : checks) {
    std::printf("  [%s] %s\n", check.ok ? " ok " : "FAIL", check.text.c_str());
    all_ok = all_ok && check.ok;
  }
  if (!write_plot_files(options, phases, samples, error)) {
    std::fprintf(stderr, "bitwire_demo: %s\n", error.c_str());
    all_ok = false;
  }
  std::printf("\n%s\n", all_ok ? "every check passed" : "SOME CHECKS FAILED");
  return all_ok ? 0 : 1;
}

}  // namespace
}  // namespace demo

int main(int argc, char** argv) {
  demo::Options options;
  std::string error;
  switch (demo::parse_options(argc, argv, options, error)) {
    case demo::ParseResult::kHelp:
      std::fputs(demo::help_text().c_str(), stdout);
      return 0;
    case demo::ParseResult::kError:
      std::fprintf(stderr, "bitwire_demo: %s\n", error.c_str());
      return 2;
    case demo::ParseResult::kRun:
      break;
  }
  return demo::run(options);
}
