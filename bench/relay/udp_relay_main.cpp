// udp_relay: forwards datagrams between a client and a server on 127.0.0.1 with a one-way latency, jitter and
// loss in each direction (UdpRelay), for a number of seconds or until SIGINT / SIGTERM, then prints what it
// saw per direction.
//
//   udp_relay --listen PORT --server PORT [--rtt MS] [--jitter MS] [--loss PERCENT] [--seed N]
//             [--seconds S] [--marker TEXT]
//
// The client sends to 127.0.0.1:<listen>; the server listens on 127.0.0.1:<server>. --rtt is split evenly
// (latency = rtt / 2 each way), --jitter is +- per datagram, --loss applies to each direction. --marker
// counts occurrences of TEXT in the datagrams seen (copies of messages that carry it in the clear).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "udp_relay.hpp"

namespace {

volatile std::sig_atomic_t stop = 0;
void on_signal(int) {
  stop = 1;
}

int usage() {
  std::fprintf(stderr,
               "usage: udp_relay --listen PORT --server PORT [--rtt MS] [--jitter MS] [--loss PERCENT] "
               "[--seed N] [--seconds S] [--marker TEXT]\n");
  return 2;
}

void print(const char* name, const bitwire::bench::RelayStats& s) {
  std::printf(
      "%s seen %llu bytes %llu dropped %llu forwarded %llu bytes_forwarded %llu markers %llu oversize %llu "
      "overflow %llu send_failures %llu\n",
      name, static_cast<unsigned long long>(s.datagrams_seen), static_cast<unsigned long long>(s.bytes_seen),
      static_cast<unsigned long long>(s.datagrams_dropped),
      static_cast<unsigned long long>(s.datagrams_forwarded),
      static_cast<unsigned long long>(s.bytes_forwarded), static_cast<unsigned long long>(s.markers_seen),
      static_cast<unsigned long long>(s.oversize), static_cast<unsigned long long>(s.overflow),
      static_cast<unsigned long long>(s.send_failures));
}

}  // namespace

int main(int argc, char** argv) {
  bitwire::bench::RelayConfig config;
  long listen = -1;
  long server = -1;
  double seconds = 1e9;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) return usage();
    const std::string flag = argv[i];
    const char* value = argv[i + 1];
    char* end = nullptr;
    if (flag == "--marker") {
      config.marker = value;
      continue;
    }
    const double number = std::strtod(value, &end);
    if (end == value || *end != '\0' || number < 0.0) return usage();
    if (flag == "--listen")
      listen = static_cast<long>(number);
    else if (flag == "--server")
      server = static_cast<long>(number);
    else if (flag == "--rtt")
      config.latency_ms = number / 2.0;
    else if (flag == "--jitter")
      config.jitter_ms = number;
    else if (flag == "--loss")
      config.loss_percent = number;
    else if (flag == "--seed")
      config.seed = static_cast<uint64_t>(number);
    else if (flag == "--seconds")
      seconds = number;
    else
      return usage();
  }
  if (listen < 0 || listen > 65535 || server <= 0 || server > 65535 || config.loss_percent > 100.0)
    return usage();
  bitwire::bench::UdpRelay relay(config);
  if (!relay.open(static_cast<uint16_t>(listen), static_cast<uint16_t>(server))) {
    std::fprintf(stderr, "udp_relay: %s\n", relay.error().c_str());
    return 1;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  for (double left = seconds; left > 0.0 && !stop; left -= 0.05) relay.run_for(left < 0.05 ? left : 0.05);
  std::printf("relay listen %u server %ld rtt %.1f ms jitter %.1f ms loss %.2f%% seed %llu\n",
              static_cast<unsigned>(relay.listen_port()), server, config.latency_ms * 2.0, config.jitter_ms,
              config.loss_percent, static_cast<unsigned long long>(config.seed));
  print("up", relay.stats(bitwire::bench::RelayDirection::kUp));
  print("down", relay.stats(bitwire::bench::RelayDirection::kDown));
  std::printf("foreign %llu\n", static_cast<unsigned long long>(relay.foreign()));
  return 0;
}
