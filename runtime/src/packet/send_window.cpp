#include "bitwire/packet/detail/send_window.hpp"

#include <algorithm>

namespace bitwire {

SendWindow::SendWindow(size_t capacity) : records_(capacity) {}

void SendWindow::reset() {
  records_.reset();
  sends_ = 0;
  flight_floor_ = 0;
  sequence_ = 0;
  judge_cursor_ = 0;
}

void SendWindow::judge(Record& record, LossWindow& loss) {
  record.judge_index = loss.judge(!record.acked);
  record.judged = true;
  record.judged_lost = !record.acked;
}

void SendWindow::mark_acked(Record& record, LossWindow& loss) {
  record.acked = true;
  if (record.judged_lost) {
    // A late ack: take the packet back out of the lost count while it is still in the window.
    record.judged_lost = false;
    loss.take_back(record.judge_index);
  }
}

SendWindow::Record& SendWindow::begin(double time, LossWindow& loss) {
  // A record the insert would overwrite can no longer be acked: judge it first.
  const uint32_t held = static_cast<uint32_t>(records_.capacity());
  while (static_cast<uint16_t>(sequence_ - judge_cursor_) >= held) {
    if (Record* record = records_.find(judge_cursor_); record != nullptr && !record->judged)
      judge(*record, loss);
    ++judge_cursor_;
  }
  Record* record = records_.insert(sequence_);
  sequence_ = static_cast<uint16_t>(sequence_ + 1);
  record->time = time;
  return *record;
}

void SendWindow::judge_old(double now, double age, LossWindow& loss) {
  while (judge_cursor_ != sequence_) {
    Record* record = records_.find(judge_cursor_);
    if (record != nullptr) {
      if (now - record->time < age) break;
      if (!record->judged) judge(*record, loss);
    }
    ++judge_cursor_;
  }
}

void SendWindow::peer_reported(uint16_t peer_ack) {
  const auto behind = static_cast<uint16_t>(last_sent() - peer_ack);
  if (behind < sends_) {
    const uint64_t ack_index = sends_ - 1 - behind;
    if (ack_index >= 31) flight_floor_ = std::max(flight_floor_, ack_index - 31);
  }
}

void SendWindow::advance_flight_floor() {
  flight_floor_ = std::max(flight_floor_, oldest_recorded());
  while (flight_floor_ < sends_) {
    const auto packet_sequence = static_cast<uint16_t>(sequence_ - (sends_ - flight_floor_));
    const Record* record = records_.find(packet_sequence);
    if (record != nullptr && !record->acked) break;
    ++flight_floor_;
  }
}

int SendWindow::in_flight() const {
  return static_cast<int>(sends_ - std::max(flight_floor_, oldest_recorded()));
}

}  // namespace bitwire
