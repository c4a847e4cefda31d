#include "options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string_view>

namespace demo {
namespace {

// Reads a whole decimal number from `text` (no trailing characters, finite) within [low, high].
bool parse_double(std::string_view text, double low, double high, double& out) {
  if (text.empty() || text.size() > 64) return false;
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(value) || value < low || value > high) return false;
  out = value;
  return true;
}

bool parse_u64(std::string_view text, uint64_t& out) {
  const auto result = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && result.ec == std::errc() && result.ptr == text.data() + text.size();
}

std::string range_text(double low, double high, const char* unit) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "a number from %g to %g%s%s", low, high, unit[0] ? " " : "", unit);
  return buffer;
}

}  // namespace

std::string help_text() {
  const Options d;
  char buffer[4096];
  std::snprintf(
      buffer, sizeof buffer,
      "bitwire_demo: a game session over loopback UDP through a simulated bad network.\n"
      "One bitwire::Server and N bitwire::Clients connect with netcode connect tokens and exchange the\n"
      "messages of schemas/game.net: inputs up and 64-entity snapshots down (unreliable), events and\n"
      "chat both ways (reliable-ordered), and a 256 KiB level block at connect. At the end it checks\n"
      "what arrived and exits 0 when every check passed, 1 otherwise (2: a bad command line).\n"
      "\n"
      "Options (default in brackets):\n"
      "  --duration S      run length in seconds, 1 to 3600 [%g]\n"
      "  --clients N       clients, 1 to 64 [%d]\n"
      "  --latency MS      one-way latency per direction, 0 to 1000 ms [%g]\n"
      "  --jitter MS       +- latency variation per packet, 0 to 250 ms [%g]\n"
      "  --loss PCT        packet loss per direction, 0 to 90 %% [%g]\n"
      "  --dup PCT         packets duplicated, 0 to 90 %% [%g]\n"
      "  --bandwidth KBPS  link cap per direction and client in kbit/s, 0 = none, else 100 to 1000000 "
      "[none]\n"
      "  --seed N          seed of the simulated network, the level bytes and the game traffic [%llu]\n"
      "  --rate HZ         ticks per second (update, input, snapshot, packets), 10 to 240 [%g]\n"
      "  --csv FILE        write per-second statistics per connection as CSV [off]\n"
      "  --svg FILE        write them as an SVG plot (RTT, loss, bandwidth over time) [off]\n"
      "  --plot FILE       the same as --svg\n"
      "  --scenario        change the network mid-run: normal, loss burst, latency spike, normal [off]\n"
      "  --fast            simulated clock: run as fast as the CPU allows (same traffic, no waiting) [off]\n"
      "  --whole           send every snapshot whole, not as a delta against an acked one [off]\n"
      "  --help            this text\n",
      d.duration_s, d.clients, d.latency_ms, d.jitter_ms, d.loss_percent, d.dup_percent,
      static_cast<unsigned long long>(d.seed), d.rate_hz);
  return buffer;
}

ParseResult parse_options(int argc, char** argv, Options& options, std::string& error) {
  struct NumberOption {
    const char* name;
    double* target;
    double low;
    double high;
    const char* unit;
  };
  double clients = options.clients;
  const NumberOption numbers[] = {
      {"--duration", &options.duration_s, 1.0, 3600.0, "seconds"},
      {"--clients", &clients, 1.0, 64.0, ""},
      // The connection bounds its packets in flight by its 256 ack records, so any latency moves data;
      // beyond 1 s each way (a 4 s round trip is near 256 packets at 60 Hz) the endpoint's loss estimate,
      // which judges a packet lost when its record is about to be overwritten, reads high and fails the
      // demo's loss check.
      {"--latency", &options.latency_ms, 0.0, 1000.0, "ms"},
      {"--jitter", &options.jitter_ms, 0.0, 250.0, "ms"},
      {"--loss", &options.loss_percent, 0.0, 90.0, "%"},
      {"--dup", &options.dup_percent, 0.0, 90.0, "%"},
      {"--bandwidth", &options.bandwidth_kbps, 0.0, 1000000.0, "kbit/s"},
      {"--rate", &options.rate_hz, 10.0, 240.0, "Hz"},
  };
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") return ParseResult::kHelp;
    if (arg == "--scenario") {
      options.scenario = true;
      continue;
    }
    if (arg == "--fast") {
      options.fast = true;
      continue;
    }
    if (arg == "--whole") {
      options.whole = true;
      continue;
    }
    const bool takes_value = arg == "--seed" || arg == "--csv" || arg == "--svg" || arg == "--plot" ||
                             std::any_of(std::begin(numbers), std::end(numbers),
                                         [&](const NumberOption& n) { return arg == n.name; });
    if (!takes_value) {
      error = "unknown option '" + std::string(arg) + "' (see --help)";
      return ParseResult::kError;
    }
    if (i + 1 >= argc) {
      error = "option " + std::string(arg) + " needs a value (see --help)";
      return ParseResult::kError;
    }
    const std::string_view value = argv[++i];
    if (arg == "--seed") {
      if (!parse_u64(value, options.seed)) {
        error = "--seed: '" + std::string(value) + "' is not an unsigned 64-bit integer";
        return ParseResult::kError;
      }
      continue;
    }
    if (arg == "--csv" || arg == "--svg" || arg == "--plot") {
      if (value.empty()) {
        error = std::string(arg) + ": the file name is empty";
        return ParseResult::kError;
      }
      (arg == "--csv" ? options.csv_path : options.svg_path) = std::string(value);
      continue;
    }
    for (const NumberOption& n : numbers) {
      if (arg != n.name) continue;
      if (!parse_double(value, n.low, n.high, *n.target)) {
        error = std::string(n.name) + ": '" + std::string(value) + "' is not " + range_text(n.low, n.high, n.unit);
        return ParseResult::kError;
      }
    }
  }
  if (clients != std::floor(clients)) {
    error = "--clients: a whole number from 1 to 64";
    return ParseResult::kError;
  }
  options.clients = static_cast<int>(clients);
  if (options.bandwidth_kbps > 0.0 && options.bandwidth_kbps < 100.0) {
    error = "--bandwidth: 0 (no cap) or from 100 to 1000000 kbit/s (a lower cap cannot carry one snapshot a tick)";
    return ParseResult::kError;
  }
  return ParseResult::kRun;
}

}  // namespace demo
