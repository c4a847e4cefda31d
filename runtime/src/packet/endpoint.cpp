// Endpoint: construction, reset, memory accounting and the public API. The state and the other paths
// are in endpoint_internal.hpp, endpoint_send.cpp, endpoint_receive.cpp, endpoint_fragment.cpp and
// endpoint_acks.cpp.
#include "bitwire/packet/endpoint.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include "bitwire/core/log.hpp"
#include "endpoint_internal.hpp"

namespace bitwire {

using namespace endpoint_detail;

ReassemblerConfig endpoint_reassembler_config(const EndpointConfig& c) {
  return ReassemblerConfig{c.fragment_reassembly_buffer_size, c.reassembly_slots, c.max_fragments,
                           c.fragment_size};
}

// ---- State -------------------------------------------------------------------------------------------

Endpoint::State::State(const EndpointConfig& c, const EndpointCallbacks& cb, double now)
    : config(c),
      callbacks(cb),
      envelope(c.protocol_id),
      time(now),
      previous_time(now),
      sent(static_cast<size_t>(c.sent_packets_buffer_size)),
      received(c.received_packets_buffer_size, c.max_sequence_jump, c.sequence_resync_packets),
      acks(static_cast<size_t>(c.ack_buffer_size)),
      rtt(static_cast<size_t>(c.rtt_history_size), c.rtt_smoothing_factor, c.jitter_smoothing_factor),
      ack_wait(0, c.rtt_smoothing_factor, c.jitter_smoothing_factor),
      loss(static_cast<size_t>(c.packet_loss_window)),
      sent_meter(c.bandwidth_sample_interval, c.bandwidth_smoothing_factor, now),
      received_meter(c.bandwidth_sample_interval, c.bandwidth_smoothing_factor, now),
      acked_meter(c.bandwidth_sample_interval, c.bandwidth_smoothing_factor, now),
      reassembly(endpoint_reassembler_config(c)) {
  // Truncated at a byte boundary; a cut UTF-8 sequence in a log label is harmless.
  std::strncpy(name, c.name != nullptr ? c.name : "endpoint", kEndpointNameBytes - 1);
  config.name = name;
  envelope_bytes = c.envelope ? Envelope::kBytes : 0;
  // Half the reassembly window may lie ahead of the newest received packet, so a fragment can never
  // push the window past packets the peer is still completing; never more than max_sequence_jump.
  const unsigned window = std::bit_ceil(static_cast<unsigned>(c.fragment_reassembly_buffer_size));
  fragment_margin = std::clamp(static_cast<int>(window / 2), 1, c.max_sequence_jump);
  ack_delay_on = ack_delay_enabled(c);
  max_header = header_capacity(c);
  const size_t regular = max_header + static_cast<size_t>(c.fragment_above);
  const size_t fragment = kFragmentHeaderBytes + max_header + static_cast<size_t>(c.fragment_size);
  transmit_capacity = envelope_bytes + std::max(regular, fragment);
  transmit.reset(new std::byte[transmit_capacity]);
  max_datagram = envelope_bytes + std::max(max_header + static_cast<size_t>(c.max_packet_size), fragment);
  reset();
}

size_t Endpoint::State::memory_required(const EndpointConfig& c) {
  // Keep in step with the constructor: every allocation it makes is counted here.
  const size_t envelope = c.envelope ? Envelope::kBytes : 0;
  const size_t header = header_capacity(c);
  const size_t regular = header + static_cast<size_t>(c.fragment_above);
  const size_t fragment = kFragmentHeaderBytes + header + static_cast<size_t>(c.fragment_size);
  return sizeof(State) + SendWindow::memory_required(static_cast<size_t>(c.sent_packets_buffer_size)) +
         ReceiveWindow::memory_required(c.received_packets_buffer_size) +
         Reassembler::memory_required(endpoint_reassembler_config(c)) + envelope +
         std::max(regular, fragment) + AckTracker::memory_required(static_cast<size_t>(c.ack_buffer_size)) +
         RttEstimator::memory_required(static_cast<size_t>(c.rtt_history_size)) +
         LossWindow::memory_required(static_cast<size_t>(c.packet_loss_window));
}

void Endpoint::State::reset() {
  sent.reset();
  received.reset();
  report.reset();
  reassembly.reset();
  acks.reset();
  peer_sent_ack_delay = false;
  rtt.reset();
  ack_wait.reset();
  loss.reset();
  sent_meter.reset(time);
  received_meter.reset(time);
  acked_meter.reset(time);
  counters = EndpointCounters{};
}

void Endpoint::State::update_statistics() {
  judge_old_packets();
  sent_meter.update(time);
  received_meter.update(time);
  acked_meter.update(time);
}

// ---- Endpoint -----------------------------------------------------------------------------------------

namespace {

// What a failed endpoint allocates: the smallest legal config.
EndpointConfig placeholder_config(const EndpointConfig& refused) {
  EndpointConfig c;
  c.name = refused.name;
  c.max_packet_size = 1;
  c.fragment_above = 0;
  c.fragment_size = 1;
  c.max_fragments = 1;
  c.sent_packets_buffer_size = 2;
  c.received_packets_buffer_size = 1;
  c.fragment_reassembly_buffer_size = 1;
  c.reassembly_slots = 1;
  c.ack_buffer_size = 1;
  c.rtt_history_size = 1;
  c.packet_loss_window = 1;
  c.envelope = false;
  return c;
}

const char* callbacks_problem(const EndpointCallbacks& callbacks) {
  if (callbacks.transmit == nullptr) return "EndpointCallbacks.transmit is null: packets could not be sent";
  if (callbacks.process == nullptr)
    return "EndpointCallbacks.process is null: packets could not be delivered";
  return nullptr;
}

}  // namespace

size_t detail::endpoint_memory_bytes(const EndpointConfig& config) {
  return Endpoint::State::memory_required(config);
}

Endpoint::Endpoint(const EndpointConfig& config, const EndpointCallbacks& callbacks, double now) {
  ConfigCheck problem = config.check();
  if (problem) problem = ConfigCheck::failure(callbacks_problem(callbacks));
  const MonotonicTime start(now);
  if (problem) {
    state_.reset(new State(config, callbacks, start.now()));
  } else {
    state_.reset(new State(placeholder_config(config), callbacks, start.now()));
    State& s = *state_;
    s.failed = true;
    keep_config_reason(s.error_reason, problem);
    BITWIRE_LOG(LogLevel::kError, "[%s] endpoint not created: %s", s.name, s.error_reason);
  }
  if (!valid_time(now)) ++state_->counters.time_invalid;
}

Endpoint::~Endpoint() = default;
Endpoint::Endpoint(Endpoint&&) noexcept = default;
Endpoint& Endpoint::operator=(Endpoint&&) noexcept = default;

bool Endpoint::set_callbacks(const EndpointCallbacks& callbacks) {
  if (const char* reason = callbacks_problem(callbacks); reason != nullptr) {
    BITWIRE_LOG(LogLevel::kError, "[%s] set_callbacks refused: %s", state_->name, reason);
    return false;
  }
  state_->callbacks = callbacks;
  return true;
}

bool Endpoint::ok() const {
  return !state_->failed;
}
const char* Endpoint::error_reason() const {
  return state_->failed ? state_->error_reason : nullptr;
}

void Endpoint::update(double now) {
  State& s = *state_;
  if (s.failed) {
    ++s.counters.calls_refused;
    return;
  }
  if (!valid_time(now)) {
    ++s.counters.time_invalid;
    BITWIRE_LOG(LogLevel::kDebug, "[%s] update(%g) ignored: not a valid time", s.name, now);
    return;
  }
  if (now < s.time) {
    ++s.counters.time_backwards;
    now = s.time;
  }
  if (now > s.time) s.previous_time = s.time;
  s.time = now;
  s.update_statistics();
}

bool Endpoint::send_packet(std::span<const std::byte> payload) {
  if (state_->failed) {
    ++state_->counters.calls_refused;
    return false;
  }
  return state_->send(payload);
}

std::span<std::byte> Endpoint::send_room() {
  if (state_->failed) return {};
  return state_->send_room();
}

bool Endpoint::share_send_room(std::span<std::byte> room) {
  State& s = *state_;
  if (room.empty()) {
    s.shared_room = nullptr;
    return true;
  }
  if (room.size() < shared_send_room_bytes()) return false;
  s.shared_room = room.data();
  return true;
}

size_t Endpoint::shared_send_room_bytes() const {
  return state_->max_header + static_cast<size_t>(state_->config.fragment_above);
}

bool Endpoint::send_written(size_t size) {
  if (state_->failed) {
    ++state_->counters.calls_refused;
    return false;
  }
  return state_->send_written(size);
}

ReceiveResult Endpoint::receive_packet(std::span<const std::byte> datagram) {
  return receive_packet(datagram, state_->time);
}

ReceiveResult Endpoint::receive_packet(std::span<const std::byte> datagram, double arrival_time) {
  if (state_->failed) {
    ++state_->counters.calls_refused;
    return ReceiveResult::kEndpointFailed;
  }
  return state_->receive(datagram, arrival_time);
}

void Endpoint::defer_packet() {
  if (!state_->failed) state_->deferred = true;
}

std::span<const uint16_t> Endpoint::acks() const {
  return state_->acks.list();
}
void Endpoint::clear_acks() {
  state_->acks.clear_list();
}

void Endpoint::reset() {
  state_->reset();
}

int Endpoint::packets_in_flight() const {
  return state_->sent.in_flight();
}

uint16_t Endpoint::next_sequence() const {
  return state_->sent.next_sequence();
}
uint16_t Endpoint::receive_restarts() const {
  return state_->received.restarts();
}
PacketHeader Endpoint::current_ack_state() const {
  const State& s = *state_;
  return PacketHeader{s.sent.next_sequence(), s.received.ack(), s.received.ack_bits()};
}

double Endpoint::time() const {
  return state_->time;
}
double Endpoint::rtt_ms() const {
  return state_->rtt.smoothed_ms();
}
uint64_t Endpoint::rtt_samples() const {
  return state_->rtt.samples();
}
double Endpoint::rtt_min_ms() const {
  return state_->rtt.min_ms();
}
double Endpoint::rtt_max_ms() const {
  return state_->rtt.max_ms();
}
double Endpoint::rtt_avg_ms() const {
  return state_->rtt.avg_ms();
}
double Endpoint::jitter_ms() const {
  return state_->rtt.jitter_ms();
}
double Endpoint::packet_loss_percent() const {
  return state_->loss.loss_percent();
}
double Endpoint::sent_kbps() const {
  return state_->sent_meter.kbps();
}
double Endpoint::received_kbps() const {
  return state_->received_meter.kbps();
}
double Endpoint::acked_kbps() const {
  return state_->acked_meter.kbps();
}
const EndpointCounters& Endpoint::counters() const {
  return state_->counters;
}
const EndpointConfig& Endpoint::config() const {
  return state_->config;
}

size_t Endpoint::memory_bytes() const {
  return State::memory_required(state_->config);
}
size_t Endpoint::memory_required(const EndpointConfig& config) {
  return State::memory_required(config.sanitized());
}

}  // namespace bitwire
