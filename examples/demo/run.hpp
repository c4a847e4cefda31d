// What a run records besides the session's own tallies: the network phases and one sample per connection
// per second, for the checks and for the CSV / SVG files.
#pragma once

#include <string>
#include <vector>

#include "bitwire/sim/simulator.hpp"
#include "options.hpp"
#include "session.hpp"

namespace demo {

struct RunPhase {
  double start_s = 0.0;
  double end_s = 0.0;
  std::string label;                      // e.g. "100 ms +-20 ms, 5% loss, 1% dup"
  bitwire::NetworkConditions conditions;  // both directions of every client's link
};

struct RunSample {
  double time_s = 0.0;  // end of the second, since the run started
  int client = 0;
  ConnectionView view;
};

// The phases of a run: one under the options' conditions, or with --scenario normal, a loss burst, a
// latency spike and normal again.
std::vector<RunPhase> make_phases(const Options& options);

// Writes --csv and --svg when asked. False with `error` when a file cannot be written.
bool write_plot_files(const Options& options, const std::vector<RunPhase>& phases,
                      const std::vector<RunSample>& samples, std::string& error);

}  // namespace demo
