// The demo's command line: every option, its default and its range, parsed strictly (a bad option or value
// is a readable error, never a guess).
#pragma once

#include <cstdint>
#include <string>

namespace demo {

struct Options {
  double duration_s = 30.0;   // run length (simulated seconds with --fast)
  int clients = 4;            // clients connected to the one server
  double latency_ms = 100.0;  // simulated one-way latency, each direction
  double jitter_ms = 20.0;    // +- variation of each packet's latency
  double loss_percent = 5.0;  // packets lost, each direction
  double dup_percent = 1.0;   // packets delivered twice
  double bandwidth_kbps = 0.0;  // link cap per direction and client; 0 = none
  uint64_t seed = 1;          // simulator streams, level bytes, game traffic
  double rate_hz = 60.0;      // ticks per second: updates, inputs, snapshots, packets
  std::string csv_path;       // per-second statistics as CSV (empty: none)
  std::string svg_path;       // per-second statistics as an SVG plot (empty: none)
  bool scenario = false;      // the network changes mid-run
  bool fast = false;          // a simulated clock: run as fast as the CPU allows, same results
  bool whole = false;         // every snapshot whole (no delta form), the baseline for the deltas
};

enum class ParseResult { kRun, kHelp, kError };

// Parses argv into `options`. kError sets `error` to a message naming the option and the accepted values.
ParseResult parse_options(int argc, char** argv, Options& options, std::string& error);

// The --help text: every option with its default.
std::string help_text();

}  // namespace demo
