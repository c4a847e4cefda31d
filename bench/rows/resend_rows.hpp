// Resend timing, block tails and the packet build with nothing due, measured over the simulator (a Link
// between two Connections ticked at 60 Hz, send_packets() every tick) or on one Connection alone. Shared by
// resend_bench (each measurement on its own, the full grids) and stack_bench's `table` mode (the rows
// in one run). Simulated time for the first two: their figures do not depend on the machine's load.
#pragma once

#include <cstdint>

namespace bitwire::bench {

// One 100-byte reliable message every 6 ticks (10 a second) for 60 s from A to B, `seeds` seeds, at `loss`
// percent both ways and `rtt_ms` (half each way). rtt_factor < 0: the config's resend timing; 0: the
// yojimbo-style fixed message_resend_time (0.1 s); > 0: message_resend_rtt_factor.
struct MessageResendRow {
  double sends_per_delivered = 0.0;
  double bytes_per_delivered = 0.0;  // a copy costs its 100 bytes and a 16-bit id
  double p50_ms = 0.0;
  double p99_ms = 0.0;
  double max_ms = 0.0;
  uint64_t delivered = 0;
};
MessageResendRow measure_message_resends(double loss_percent, double rtt_ms, double rtt_factor, int seeds);

// One 256 KiB block message at 10% loss both ways, RTT 100 ms, the default channel, once per seed 1..seeds:
// time to delivery / (size / block budget / (1 - loss)). ok = false (with the seed) when a block was missing
// or corrupt.
struct BlockTailRow {
  bool ok = false;
  int failed_seed = 0;
  double mean = 0.0;
  double p50 = 0.0;
  double p90 = 0.0;
  double max = 0.0;
  int over_1_25 = 0;
  double fragments_per_block = 0.0;
};
BlockTailRow measure_block_tail(int seeds);

// A packet build with nothing due: receive window `window`, `queued` 1-byte messages queued, the whole
// window sent once at time 0 and never acked, then `repeats` builds. walk = the channel's last walk length
// (entries visited by the last build: what makes it flat or not); ns_per_build = wall time per build.
struct NothingDueRow {
  bool ok = false;
  int walk = 0;
  double ns_per_build = 0.0;
  uint64_t bytes = 0;  // what the builds wrote (0: nothing was due)
};
NothingDueRow measure_nothing_due(int window, int queued, int repeats);

}  // namespace bitwire::bench
