// The demo's per-second statistics, written as CSV and as an SVG plot.
//
// No dependency beyond the standard library. The SVG is self-contained (attributes only: no scripts, no
// external fonts, images or style sheets) and well-formed XML: every piece of text is escaped, bytes that
// are not valid UTF-8 or not allowed in XML 1.0 are replaced, and no number is ever printed as "nan" or
// "inf" (a sample with a non-finite value is left out of that one series; a non-finite time leaves the
// sample out of the plot).
//
// Contracts:
// - The inputs may hold anything (empty, unsorted, NaN, infinities, huge values, hostile strings); the
//   writers never crash, never print a non-finite number and never let a string break the markup.
// - The SVG has exactly one <polyline> per connection in [0, connections) per series kind, even when a
//   connection has no sample (an empty `points`). Samples of a connection outside that range are left out
//   of the plot (they are still in the CSV). At most kMaxPlotConnections series per kind are drawn.
// - Output is deterministic: the same PlotData gives the same bytes, whatever the locale.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace demo {

// One connection's statistics over one interval (normally one second) of the run.
struct Sample {
  double time_s = 0.0;              // end of the interval, seconds since the run started
  int connection = 0;               // 0-based client index
  double rtt_ms = 0.0;              // smoothed round-trip time
  double jitter_ms = 0.0;           // RTT jitter
  double loss_percent = 0.0;        // packet loss as measured by the endpoint
  double up_kbps = 0.0;             // client -> server, kilobits per second (1 kbit = 1000 bits)
  double down_kbps = 0.0;           // server -> client
  uint64_t messages_sent = 0;       // cumulative, both directions of this connection
  uint64_t messages_received = 0;   // cumulative
  uint64_t messages_resent = 0;     // cumulative
  double block_percent = 0.0;       // level block progress, 0..100
  std::string congestion;           // congestion mode, e.g. "good" or "bad"
};

// A stretch of the run under one set of simulated network conditions. Without --scenario the run is
// one phase; with it, several (e.g. normal, loss burst, latency spike, normal).
struct Phase {
  double start_s = 0.0;
  double end_s = 0.0;
  std::string label;                // e.g. "100 ms +-20 ms, 5% loss, 1% dup"
  double latency_ms = 0.0;          // simulated one-way latency (the RTT chart marks 2x this)
  double jitter_ms = 0.0;
  double loss_percent = 0.0;        // simulated loss per direction (the loss chart marks it)
};

struct PlotData {
  std::string title;                // e.g. "bitwire demo: 4 clients, seed 1"
  int connections = 0;              // series per chart = connections
  double duration_s = 0.0;          // x axis spans [0, duration_s]
  std::vector<Sample> samples;      // any order; the writers sort by (time, connection)
  std::vector<Phase> phases;        // ordered, non-overlapping
};

// The most series of one kind the SVG draws (a larger `connections` is clamped to it).
inline constexpr int kMaxPlotConnections = 1024;

// CSV: one header line, then one row per Sample sorted by (time_s, connection); fields in the order of
// Sample; '.' decimal point whatever the locale. A non-finite number is an empty field; `congestion` is
// quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string csv_text(const PlotData& data);
// SVG: three stacked charts sharing the time axis -- RTT (ms), loss (%), bandwidth (kbps, up and down) --
// one <polyline> per connection per chart (id "rtt-<c>", "loss-<c>", "up-<c>", "down-<c>"), labelled axes
// with units and tick values, a legend, and each phase shaded and labelled with its conditions; the
// simulated reference (2x latency on the RTT chart, the loss percent on the loss chart) is dashed.
std::string svg_text(const PlotData& data);

// Write the texts to a file; false with `error` set (the path and strerror) when it cannot be written.
bool write_csv(const std::string& path, const PlotData& data, std::string& error);
bool write_svg(const std::string& path, const PlotData& data, std::string& error);
// Whether `path` can be written, checked before a run so a bad path is reported at once, not after it: the
// file is opened for appending (its contents untouched) and, when it did not exist, removed again. False
// with `error` set (the path and strerror) when it cannot be opened.
bool check_writable(const std::string& path, std::string& error);

}  // namespace demo
