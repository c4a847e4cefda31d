// Reliable resend timing and block transfer tails over the simulator (a Link between two Connections, both
// ticked at 60 Hz with send_packets() every tick). Simulated time only: no CPU figures here, so the results
// do not depend on the machine's load. Three modes:
//
//   resend_bench messages [fixed|F] sends per delivered reliable message and latency, at 5% and 25% loss both
//                                  ways and RTT 50-300 ms (half each way): A sends one 100-byte reliable
//                                  message every 6 ticks (10 a second) for 60 s, 4 seeds a cell.
//                                  `fixed` runs the yojimbo-style fixed 0.1 s resend time instead; a
//                                  number F sets message_resend_rtt_factor (default: the config's).
//   resend_bench block [seeds]     one 256 KiB block message at 10% loss both ways, RTT 100 ms, default
//                                  channel (budget 262,144 bytes/s): time / (size / budget / (1 - loss)),
//                                  mean, p90 and max over `seeds` seeds (default 200).
//   resend_bench nothingdue W Q K  a packet build with nothing due, receive window W, Q messages queued,
//                                  repeated K times; run under callgrind with K and 0 and divide the
//                                  difference by K for the instructions of one build.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bitwire/message/connection.hpp"
#include "rows/resend_rows.hpp"

namespace {

using namespace bitwire;

int run_messages(double factor) {
  const ChannelConfig defaults;
  const bool fixed = factor == 0.0;
  std::printf("resend: %s (message_resend_time %.3f s, rtt factor %.2f, jitter factor %.1f)\n",
              fixed ? "fixed" : "from the RTT", defaults.message_resend_time,
              factor >= 0.0 ? factor : defaults.message_resend_rtt_factor,
              defaults.message_resend_jitter_factor);
  std::printf(
      "| loss | RTT | sends per delivered | bytes per delivered (100-byte message) | latency p50 | p99 | max "
      "|\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const double loss : {5.0, 25.0}) {
    for (const double rtt : {50.0, 100.0, 200.0, 300.0}) {
      const bench::MessageResendRow row = bench::measure_message_resends(loss, rtt, factor, 4);
      std::printf("| %.0f%% | %.0f ms | %.3f | %.0f | %.0f ms | %.0f ms | %.0f ms |\n", loss, rtt,
                  row.sends_per_delivered, row.bytes_per_delivered, row.p50_ms, row.p99_ms, row.max_ms);
    }
  }
  return 0;
}

int run_block(int seeds) {
  const bench::BlockTailRow row = bench::measure_block_tail(seeds);
  if (!row.ok) {
    std::printf("seed %d: block refused, missing or corrupt\n", row.failed_seed);
    return 1;
  }
  std::printf(
      "256 KiB block, 10%% loss both ways, RTT 100 ms, %d seeds: time / (size / budget / (1 - loss)) "
      "mean %.3f, p50 %.3f, p90 %.3f, max %.3f, %d over 1.25; fragments sent per block %.1f\n",
      seeds, row.mean, row.p50, row.p90, row.max, row.over_1_25, row.fragments_per_block);
  return 0;
}

int run_nothing_due(int window, int queued, int repeats) {
  const bench::NothingDueRow row = bench::measure_nothing_due(window, queued, repeats);
  if (!row.ok) {
    std::printf("a send was refused while queuing %d messages\n", queued);
    return 1;
  }
  std::printf("window %d, queued %d, %d builds with nothing due: %llu bytes, last walk %d\n", window, queued,
              repeats, static_cast<unsigned long long>(row.bytes), row.walk);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "messages";
  if (mode == "messages") {
    const std::string arg = argc > 2 ? argv[2] : "";
    return run_messages(arg.empty() ? -1.0 : arg == "fixed" ? 0.0 : std::atof(arg.c_str()));
  }
  if (mode == "block") return run_block(argc > 2 ? std::atoi(argv[2]) : 200);
  if (mode == "nothingdue" && argc > 4)
    return run_nothing_due(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
  std::printf("usage: resend_bench messages [fixed|F] | block [seeds] | nothingdue W Q K\n");
  return 2;
}
