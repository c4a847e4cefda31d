#include "plot.hpp"
#include "run.hpp"

namespace demo {

bool write_plot_files(const Options& options, const std::vector<RunPhase>& phases,
                      const std::vector<RunSample>& samples, std::string& error) {
  if (options.csv_path.empty() && options.svg_path.empty()) return true;
  PlotData data;
  data.title = "bitwire demo: " + std::to_string(options.clients) + " clients, seed " + std::to_string(options.seed) +
               (options.scenario ? ", scenario" : "");
  data.connections = options.clients;
  data.duration_s = options.duration_s;
  for (const RunSample& s : samples) {
    Sample sample;
    sample.time_s = s.time_s;
    sample.connection = s.client;
    sample.rtt_ms = s.view.rtt_ms;
    sample.jitter_ms = s.view.jitter_ms;
    sample.loss_percent = s.view.loss_percent;
    sample.up_kbps = s.view.up_kbps;
    sample.down_kbps = s.view.down_kbps;
    sample.messages_sent = s.view.messages_sent;
    sample.messages_received = s.view.messages_received;
    sample.messages_resent = s.view.messages_resent;
    sample.block_percent = s.view.block_percent;
    sample.congestion = s.view.connected ? (s.view.congestion_good ? "good" : "bad") : "connecting";
    data.samples.push_back(sample);
  }
  for (const RunPhase& p : phases) {
    data.phases.push_back(Phase{p.start_s, p.end_s, p.label, p.conditions.latency_ms, p.conditions.jitter_ms,
                                p.conditions.loss_percent});
  }
  if (!options.csv_path.empty() && !write_csv(options.csv_path, data, error)) return false;
  if (!options.svg_path.empty() && !write_svg(options.svg_path, data, error)) return false;
  return true;
}

}  // namespace demo
