#include "bitwire/packet/detail/ack_delay_report.hpp"

namespace bitwire {

namespace {

// Seed of the generator that picks which received packet is timed. Any value works; a fixed one keeps
// runs reproducible.
constexpr uint64_t kReportSeed = 0x41636b44656c6179ull;

}  // namespace

void AckDelayReport::reset() {
  has_report_ = false;
  sequence_ = 0;
  arrival_ = 0.0;
  candidates_ = 0;
  random_.reseed(kReportSeed);
}

void AckDelayReport::offer(uint16_t sequence, double arrival) {
  ++candidates_;
  if (candidates_ == 1 || random_.next() % candidates_ == 0) {
    has_report_ = true;
    sequence_ = sequence;
    arrival_ = arrival;
  }
}

void AckDelayReport::take(PacketHeader& header, double now) {
  if (!has_report_) return;
  const uint16_t offset = static_cast<uint16_t>(header.ack - sequence_);
  const int code = ack_delay_code((now - arrival_) * 1000.0);
  if (offset <= 255 && code >= 0) {
    header.has_ack_delay = true;
    header.ack_delay_offset = static_cast<uint8_t>(offset);
    header.ack_delay = static_cast<uint8_t>(code);
  }
  has_report_ = false;
  candidates_ = 0;
}

}  // namespace bitwire
