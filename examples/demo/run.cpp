#include "run.hpp"

#include <algorithm>
#include <cstdio>

namespace demo {
namespace {

std::string label_of(const bitwire::NetworkConditions& c) {
  char text[160];
  std::snprintf(text, sizeof text, "%g ms +-%g ms, %g%% loss, %g%% dup", c.latency_ms, c.jitter_ms, c.loss_percent,
                c.duplicate_percent);
  std::string label = text;
  if (c.bandwidth_kbps > 0.0) {
    std::snprintf(text, sizeof text, ", cap %g kbps", c.bandwidth_kbps);
    label += text;
  }
  return label;
}

}  // namespace

std::vector<RunPhase> make_phases(const Options& options) {
  bitwire::NetworkConditions normal;
  normal.latency_ms = options.latency_ms;
  normal.jitter_ms = options.jitter_ms;
  normal.loss_percent = options.loss_percent;
  normal.duplicate_percent = options.dup_percent;
  normal.bandwidth_kbps = options.bandwidth_kbps;
  const double d = options.duration_s;
  if (!options.scenario) return {RunPhase{0.0, d, label_of(normal), normal}};
  // Normal, then a loss burst (bursty losses on top of a higher base rate), then a latency spike, then
  // normal again: the loss and RTT estimates and the congestion mode follow each change.
  bitwire::NetworkConditions burst = normal;
  burst.loss_percent = std::min(90.0, std::max(20.0, 4.0 * normal.loss_percent));
  bitwire::NetworkConditions spike = normal;
  spike.latency_ms = std::min(600.0, normal.latency_ms * 3.0 + 100.0);
  spike.jitter_ms = std::min(250.0, normal.jitter_ms * 2.0);
  std::vector<RunPhase> phases = {
      {0.0, 0.3 * d, label_of(normal), normal},
      {0.3 * d, 0.5 * d, "loss burst: " + label_of(burst), burst},
      {0.5 * d, 0.7 * d, "latency spike: " + label_of(spike), spike},
      {0.7 * d, d, label_of(normal), normal},
  };
  return phases;
}

}  // namespace demo
