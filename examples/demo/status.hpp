// The demo's text output: the live status view (one line per connection) and the summary table.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "session.hpp"

namespace demo {

// The column names above the status lines, and one status line for connection `client` (sent / recv /
// resent: messages, both ends of the connection, every channel).
std::string status_header();
std::string status_line(int client, const ConnectionView& view);

// Prints the status view. On a terminal it redraws in place: `lines_drawn` is what the previous call
// printed (0 the first time) and comes back as what this one printed.
void print_status(std::FILE* out, bool terminal, double time_s, const std::string& phase,
                  const std::vector<ConnectionView>& views, int& lines_drawn);

// The per-connection summary table at the end of the run.
void print_summary(std::FILE* out, const Session& session);

}  // namespace demo
