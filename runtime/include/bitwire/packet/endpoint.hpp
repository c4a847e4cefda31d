// Endpoint: one side of one connection at the packet layer. It tells the game which of its packets arrived
// (acks), splits large packets into fragments and puts them back together, and measures the link (RTT,
// jitter, loss, bandwidth). It does not resend anything: what to do about a lost packet is the caller's call.
//
// Usage (one Endpoint per connection per side; time is always passed in, never read from a clock):
//
//   bitwire::EndpointConfig config;                     // every field has a default; see below
//   config.protocol_id = kMyProtocolId;                 // envelope on by default
//   bitwire::EndpointCallbacks callbacks;
//   callbacks.context = &my_game;
//   callbacks.transmit = [](void* ctx, uint16_t sequence, std::span<const std::byte> datagram) {
//     /* socket.send(to, datagram), or link.send(...) */ };
//   callbacks.process = [](void* ctx, uint16_t sequence, std::span<const std::byte> payload) -> bool {
//     return /* parsed the payload OK; false refuses it: it is then neither acked nor counted received */; };
//     // (a genuine payload that cannot be taken *now*: call endpoint.defer_packet() before returning false)
//   callbacks.on_ack = [](void* ctx, uint16_t sequence) { /* optional: packet `sequence` arrived */ };
//   bitwire::Endpoint endpoint(config, callbacks, now);
//
//   each tick:
//     endpoint.update(now);                                  // sets the time every send/receive uses
//     for each datagram from the socket: endpoint.receive_packet(datagram, arrival_time);
//                                            // arrival_time: when the transport got it (or leave it out)
//     for (uint16_t acked : endpoint.acks()) { ... }         // or use callbacks.on_ack
//     endpoint.clear_acks();
//     endpoint.send_packet(payload);                         // header + fragmentation + transmit
//     congestion.update(now, endpoint.rtt_ms(), endpoint.packet_loss_percent());
//
// Contracts:
// - Wire: reliable 1.0 (wire-format.md section 2; docs/packets.md has every byte), optionally inside the
//   integrity envelope (envelope.hpp): [crc32 LE][packet]. With the envelope (by default) packets also
//   carry the ack delay extension (PacketHeader), which makes RTT samples exact; with the envelope off
//   the bytes are raw reliable 1.0.
// - Memory: every buffer is sized from the config and allocated in the constructor; send_packet,
//   receive_packet, update, reset and the getters never allocate, whatever a peer sends.
// - Untrusted input: receive_packet() accepts any bytes. A bad datagram is dropped with a ReceiveResult that
//   says why, one counter incremented and a debug-level log line; it never asserts, throws or crashes.
// - A payload above max_packet_size is refused by send_packet (false, packets_too_large_to_send, an
//   error log line).
// - Construction never aborts and never clamps silently. A config that fails check() (the limits are in
//   kEndpointConfigLimits and docs/packets.md), or a null transmit or process callback, leaves the endpoint
//   failed: ok() is false and error_reason() says which field or callback, its value and the legal
//   range. A failed endpoint allocates only a minimal placeholder, never calls a callback, and refuses
//   every call: send_packet returns false, receive_packet returns kEndpointFailed, update does nothing;
//   each refusal counts in calls_refused. The state is sticky: build a new endpoint with a good config.
// - Time: update(now) ignores a non-finite time or one beyond +-kMaxTimeSeconds (time_invalid) and treats
//   a step back as no time passing (time_backwards); see monotonic_time.hpp. The constructor's `now` is
//   taken the same way (0 when invalid).
// - The config's name is copied (at most kEndpointNameBytes - 1 bytes, truncated beyond); the caller's
//   string need not outlive the constructor.
// - A moved-from Endpoint may only be destroyed or assigned to.
// - Callbacks are plain function pointers plus a context pointer; they run synchronously inside
//   send_packet / receive_packet. The bytes they are given are valid only during the call. process and
//   on_ack may call send_packet; no callback may call receive_packet or reset on the same endpoint.
// - Acks: each sent packet that the peer reports received is acked exactly once (until its sequence
//   comes round again 65536 packets later), and only packets this endpoint actually sent are ever acked.
// - Windows (docs/packets.md section 2.1): no single datagram moves a window far. A packet more than
//   max_sequence_jump after the newest received (after 65535 on a fresh or reset endpoint) is refused
//   (kTooFarAhead), a fragment more than min(max_sequence_jump, fragment_reassembly_buffer_size / 2)
//   after it too (kFragmentTooFarAhead). sequence_resync_packets out-of-range sequences in increasing
//   order, with nothing in range between them, resynchronize the receive side: a genuine peer that
//   jumped loses at most sequence_resync_packets - 1 packets, and so does the genuine peer per forged
//   burst. A fragment that disagrees with its packet's stored fragments drops that one reassembly
//   (kFragmentConflict) and nothing else.
// - Not authentication: the envelope's crc32 can be forged from one observed datagram, acks can be
//   spoofed, and a packet replayed once the received window has moved on is delivered. The secure
//   transport defends against those (docs/packets.md section 9).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "bitwire/core/config_table.hpp"
#include "bitwire/core/datagram.hpp"
#include "bitwire/packet/envelope.hpp"
#include "bitwire/core/monotonic_time.hpp"
#include "bitwire/packet/sequence.hpp"

namespace bitwire {

// ---- The reliable 1.0 packet header (wire-format.md section 2) ----------------------------------------

inline constexpr size_t kMinPacketHeaderBytes = 4;  // prefix, sequence (2), one-byte ack difference
inline constexpr size_t kMaxPacketHeaderBytes = 9;  // prefix, sequence (2), ack (2), ack_bits (4)
inline constexpr size_t kFragmentHeaderBytes = 5;   // prefix (= 1), sequence (2), id, count - 1
inline constexpr int kMaxFragmentsLimit = 256;      // the count byte stores count - 1
inline constexpr size_t kAckDelayBytes = 2;         // the ack delay extension (not reliable 1.0)

// An endpoint that sends the ack delay extension and has received none from its peer, after this many
// peer packets that acked packets of ours without it, takes the peer to run without the extension (raw
// reliable 1.0, yojimbo, ack_delay = kOff; such a peer may read the extension as payload): it logs one
// warning and takes RTT samples from plain acks until an extension arrives (docs/packets.md section 1.6).
// A genuine peer omits it from such a packet only after losing the packet that carried its report.
inline constexpr int kAckDelayMismatchPackets = 8;

// The acknowledgment state a packet carries. ack_bits bit n set means sequence (ack - n) mod 65536 was
// received (bit 0 is `ack` itself), as reliable 1.0 defines it.
//
// The ack delay extension (bitwire's, docs/packets.md section 1.5; never in raw reliable 1.0): prefix bit 6
// set and two bytes after ack_bits. They name one received packet, (ack - ack_delay_offset) mod 65536,
// and how long it waited at this end before this packet was sent; the peer turns that into an exact RTT
// sample: (arrival of this packet - when it sent the named one) - the delay.
struct PacketHeader {
  uint16_t sequence = 0;
  uint16_t ack = 0;
  uint32_t ack_bits = 0;
  bool has_ack_delay = false;    // the extension is present
  uint8_t ack_delay_offset = 0;  // the packet timed is ack - ack_delay_offset
  uint8_t ack_delay = 0;         // its wait, as a code: ack_delay_ms(ack_delay)
  friend bool operator==(const PacketHeader&, const PacketHeader&) = default;
};

// Ack delay code <-> milliseconds: codes 0..127 are 0..127 ms (1 ms steps), codes 128..255 are
// 128 + 8 * (code - 128) ms, i.e. 128..1144 ms (8 ms steps).
inline constexpr double kMaxAckDelayMs = 1144.0;
double ack_delay_ms(uint8_t code);
// The step of the code's scale at `code` (1 or 8 ms): a decoded delay is within half of it of the truth.
double ack_delay_step_ms(uint8_t code);
// The code nearest to `delay_ms`; -1 when it is negative beyond rounding, NaN, or above what the code
// holds (kMaxAckDelayMs + 4 ms): the extension is then left out and the peer takes no sample.
int ack_delay_code(double delay_ms);

// Writes the one canonical encoding of `header` (4..9 bytes, + kAckDelayBytes with the extension) to
// `out` (room for kMaxPacketHeaderBytes + kAckDelayBytes). Returns the number of bytes written.
size_t write_packet_header(const PacketHeader& header, std::span<std::byte> out);

// Reads a regular packet header from untrusted bytes. Returns the header's size in bytes (4..10), or 0
// when the bytes are shorter than the header they announce, the prefix marks a fragment or sets bit 7 (or
// bit 6 when `ack_delay` is false: the extension is refused unless enabled), or the encoding is not the
// canonical one (an ack_bits byte sent although it is 0xFF, a two-byte ack whose difference fits one
// byte). `reason`, when given, receives a static description.
size_t read_packet_header(std::span<const std::byte> data, PacketHeader& header, const char** reason = nullptr,
                          bool ack_delay = false);

// The fixed part of a fragment (5 bytes): the sequence of the whole packet, this fragment's index, and the
// number of fragments (1..256, stored minus one).
struct FragmentHeader {
  uint16_t sequence = 0;
  uint8_t fragment_id = 0;
  int fragment_count = 1;
  friend bool operator==(const FragmentHeader&, const FragmentHeader&) = default;
};

// Writes the 5-byte fragment header to `out`.
void write_fragment_header(const FragmentHeader& header, std::span<std::byte> out);

// ---- Configuration ------------------------------------------------------------------------------------

// Whether packets carry the ack delay extension (PacketHeader). Both ends must agree, as on the envelope.
enum class AckDelayMode : uint8_t {
  kWithEnvelope,  // on exactly when the envelope is on: raw reliable 1.0 (envelope off) stays byte-exact
  kOn,            // always (e.g. under a transport that replaces the envelope)
  kOff,           // never: RTT samples then include the time each ack waited at the peer
};

// The largest fragment_size: a fragment datagram (envelope, fragment header, embedded packet header, data)
// must fit one UDP datagram.
// The header counted is the largest, with the ack delay extension, whatever the config's ack_delay.
inline constexpr int kMaxFragmentSize = static_cast<int>(kMaxUdpPayloadBytes - Envelope::kBytes -
                                                         kFragmentHeaderBytes - kMaxPacketHeaderBytes -
                                                         kAckDelayBytes);
// The largest fragment_above: a regular packet datagram must fit one UDP datagram.
inline constexpr int kMaxFragmentAbove =
    static_cast<int>(kMaxUdpPayloadBytes - Envelope::kBytes - kMaxPacketHeaderBytes - kAckDelayBytes);
// The most memory one endpoint may allocate (Endpoint::memory_required); a config above it is refused.
// 64 MiB: 64 reassembly slots of 1 MiB packets, or the largest sequence buffers many times over.
inline constexpr size_t kMaxEndpointMemoryBytes = size_t{64} << 20;
// Bytes of the endpoint's copy of its name, terminating zero included.
inline constexpr size_t kEndpointNameBytes = 32;

struct EndpointConfig {
  const char* name = "endpoint";       // label in log lines; copied, truncated to kEndpointNameBytes - 1
  int max_packet_size = 16 * 1024;     // largest payload send_packet accepts / reassembly delivers (bytes)
  int fragment_above = 1024;           // payloads larger than this are sent as fragments (bytes)
  int fragment_size = 1024;            // payload bytes per fragment; all but the last carry exactly this
  int max_fragments = 16;              // fragments per packet, 1..256: exactly the number max_packet_size
                                       // needs, ceil(max_packet_size / fragment_size)
  int sent_packets_buffer_size = 256;  // sent packets remembered for acks/RTT/loss, >= 2 (rounded up to 2^k)
  int received_packets_buffer_size = 256;    // received sequences remembered for duplicate detection (2^k)
  int fragment_reassembly_buffer_size = 256;  // window of packet sequences that may be in reassembly (2^k);
                                              // fragments may run half of it ahead of the newest received
  int reassembly_slots = 32;                  // packets reassembled at once; each slot holds one whole packet
                                              // (max_fragments * fragment_size bytes). When all are busy, the
                                              // reassembly started longest ago is evicted for a new one. 32
                                              // holds 60 Hz of 16 KiB packets under +-200 ms of jitter
                                              // (docs/packets.md); too few slots evict nearly everything.
  int max_sequence_jump = 256;                // a packet more than this many sequences after the newest
                                              // received is refused (packets_too_far_ahead) ...
  int sequence_resync_packets = 3;            // ... unless this many such out-of-range sequences arrive in
                                              // increasing order with nothing in range between them: then
                                              // the receive side resynchronizes to the peer's new sequence
  int ack_buffer_size = 256;                 // capacity of the acks() list between clear_acks() calls
  int rtt_history_size = 256;                // RTT samples kept for min / max / average
  float rtt_smoothing_factor = 0.1f;         // weight of each new RTT sample in the smoothed RTT (0..1]
  float jitter_smoothing_factor = 0.1f;      // weight of each new |sample - smoothed RTT| in jitter (0..1]
  int packet_loss_window = 256;      // loss = lost / judged over this many most recently judged packets
  double packet_loss_min_age = 0.1;  // seconds: a packet is judged (acked or lost) no earlier than this
  double packet_loss_unknown_rtt_age = 1.0;  // seconds: judging age used before any RTT sample exists
  float bandwidth_smoothing_factor = 0.1f;   // weight of each new bandwidth sample (0..1]
  double bandwidth_sample_interval = 0.1;    // seconds between bandwidth samples
  int packet_header_size = 28;               // bytes of IP + UDP header counted per datagram in bandwidth
  bool envelope = true;                      // put [crc32] in front of every datagram and check it on receive
  uint64_t protocol_id = 0;                  // folded into the crc32 (never sent); both ends must agree
  AckDelayMode ack_delay = AckDelayMode::kWithEnvelope;  // the ack delay extension: exact RTT samples

  // Passes when every field is in range (kEndpointConfigLimits), else the reason for the first
  // that is not: the field, its value and its legal range (held in the ConfigCheck; see config_table.hpp).
  ConfigCheck check() const;
  // This config with every field clamped into its range; check() accepts the result.
  EndpointConfig sanitized() const;
};

namespace detail {
// The bytes an endpoint with exactly this config allocates (no sanitizing; fields assumed in range).
size_t endpoint_memory_bytes(const EndpointConfig& config);
// The most reassembly slots that keep `config` within kMaxEndpointMemoryBytes.
int endpoint_max_reassembly_slots(const EndpointConfig& config);
}  // namespace detail

// The limits of every EndpointConfig field, in the order they are checked (a bound computed from other
// fields reads only fields above it). check() and sanitized() are derived from this table alone.
inline constexpr auto kEndpointConfigLimits = config_table(
    Field<EndpointConfig, int>{.name = "fragment_size",
                               .member = &EndpointConfig::fragment_size,
                               .min = 1,
                               .max = kMaxFragmentSize,
                               .unit = "bytes"},
    Field<EndpointConfig, int>{
        .name = "max_packet_size",
        .member = &EndpointConfig::max_packet_size,
        .min = 1,
        .max = kMaxFragmentsLimit * kMaxFragmentSize,
        .upper = [](const EndpointConfig& c) { return kMaxFragmentsLimit * c.fragment_size; },
        .upper_text = "256 * fragment_size",
        .unit = "bytes"},
    Field<EndpointConfig, int>{.name = "max_fragments",
                               .member = &EndpointConfig::max_fragments,
                               .min = 1,
                               .max = kMaxFragmentsLimit,
                               .lower =
                                   [](const EndpointConfig& c) {
                                     return (c.max_packet_size + c.fragment_size - 1) / c.fragment_size;
                                   },
                               .lower_text = "ceil(max_packet_size / fragment_size)",
                               .upper =
                                   [](const EndpointConfig& c) {
                                     return (c.max_packet_size + c.fragment_size - 1) / c.fragment_size;
                                   },
                               .upper_text = "ceil(max_packet_size / fragment_size)"},
    Field<EndpointConfig, int>{.name = "fragment_above",
                               .member = &EndpointConfig::fragment_above,
                               .min = 0,
                               .max = kMaxFragmentAbove,
                               .upper = [](const EndpointConfig& c) { return c.max_packet_size; },
                               .upper_text = "max_packet_size",
                               .unit = "bytes"},
    Field<EndpointConfig, int>{.name = "sent_packets_buffer_size",
                               .member = &EndpointConfig::sent_packets_buffer_size,
                               .min = 2,
                               .max = 32768,
                               .power_of_two = true},
    Field<EndpointConfig, int>{.name = "received_packets_buffer_size",
                               .member = &EndpointConfig::received_packets_buffer_size,
                               .min = 1,
                               .max = 32768,
                               .power_of_two = true},
    Field<EndpointConfig, int>{.name = "fragment_reassembly_buffer_size",
                               .member = &EndpointConfig::fragment_reassembly_buffer_size,
                               .min = 1,
                               .max = 32768,
                               .power_of_two = true},
    Field<EndpointConfig, int>{
        .name = "max_sequence_jump", .member = &EndpointConfig::max_sequence_jump, .min = 1, .max = 32767},
    Field<EndpointConfig, int>{.name = "sequence_resync_packets",
                               .member = &EndpointConfig::sequence_resync_packets,
                               .min = 1,
                               .max = 64},
    Field<EndpointConfig, int>{
        .name = "ack_buffer_size", .member = &EndpointConfig::ack_buffer_size, .min = 1, .max = 65536},
    Field<EndpointConfig, int>{
        .name = "rtt_history_size", .member = &EndpointConfig::rtt_history_size, .min = 1, .max = 65536},
    Field<EndpointConfig, float>{.name = "rtt_smoothing_factor",
                                 .member = &EndpointConfig::rtt_smoothing_factor,
                                 .min = 0.001f,
                                 .max = 1.0f},
    Field<EndpointConfig, float>{.name = "jitter_smoothing_factor",
                                 .member = &EndpointConfig::jitter_smoothing_factor,
                                 .min = 0.001f,
                                 .max = 1.0f},
    Field<EndpointConfig, int>{
        .name = "packet_loss_window", .member = &EndpointConfig::packet_loss_window, .min = 1, .max = 65536},
    Field<EndpointConfig, double>{.name = "packet_loss_min_age",
                                  .member = &EndpointConfig::packet_loss_min_age,
                                  .min = 0.001,
                                  .max = 60.0,
                                  .unit = "s"},
    Field<EndpointConfig, double>{.name = "packet_loss_unknown_rtt_age",
                                  .member = &EndpointConfig::packet_loss_unknown_rtt_age,
                                  .min = 0.001,
                                  .max = 60.0,
                                  .unit = "s"},
    Field<EndpointConfig, float>{.name = "bandwidth_smoothing_factor",
                                 .member = &EndpointConfig::bandwidth_smoothing_factor,
                                 .min = 0.001f,
                                 .max = 1.0f},
    Field<EndpointConfig, double>{.name = "bandwidth_sample_interval",
                                  .member = &EndpointConfig::bandwidth_sample_interval,
                                  .min = 0.001,
                                  .max = 60.0,
                                  .unit = "s"},
    Field<EndpointConfig, int>{.name = "packet_header_size",
                               .member = &EndpointConfig::packet_header_size,
                               .min = 0,
                               .max = 256,
                               .unit = "bytes"},
    // Before reassembly_slots: the transmit buffer's size (in the memory cap) depends on it.
    Field<EndpointConfig, AckDelayMode>{.name = "ack_delay",
                                        .member = &EndpointConfig::ack_delay,
                                        .min = AckDelayMode::kWithEnvelope,
                                        .max = AckDelayMode::kOff},
    // Last: the memory cap reads every other field.
    Field<EndpointConfig, int>{
        .name = "reassembly_slots",
        .member = &EndpointConfig::reassembly_slots,
        .min = 1,
        .max = 1024,
        .upper = &detail::endpoint_max_reassembly_slots,
        .upper_text = "what keeps memory_required() within kMaxEndpointMemoryBytes (64 MiB)"});

// The Reassembler an Endpoint of `config` builds (window = fragment_reassembly_buffer_size, slots =
// reassembly_slots, max_fragments, fragment_size). For a config that passes check() it passes
// ReassemblerConfig::check() (EndpointConfig's ranges sit inside kReassemblerConfigLimits, and the
// endpoint's 64 MiB cap counts the reassembler's memory). Include reassembler.hpp to call it.
struct ReassemblerConfig;
ReassemblerConfig endpoint_reassembler_config(const EndpointConfig& config);

// ---- Callbacks ----------------------------------------------------------------------------------------

struct EndpointCallbacks {
  void* context = nullptr;  // passed to every callback
  // Required: hands one datagram (envelope + packet or fragment) to the transport.
  void (*transmit)(void* context, uint16_t sequence, std::span<const std::byte> datagram) = nullptr;
  // Required: the payload of a received packet (reassembled if it was fragmented). Return false to refuse
  // it: the packet is then neither acked to the peer nor counted as received, and its acks are ignored
  // (unless the callback called Endpoint::defer_packet(): then its acks are processed).
  bool (*process)(void* context, uint16_t sequence, std::span<const std::byte> payload) = nullptr;
  // Optional: called once for each newly acked sent packet, in the order the acks are processed.
  void (*on_ack)(void* context, uint16_t sequence) = nullptr;
};

// ---- Results and counters -----------------------------------------------------------------------------

// What receive_packet did with a datagram.
enum class ReceiveResult : uint8_t {
  kDelivered,            // payload accepted by the process callback; acks processed
  kFragmentStored,       // a fragment was stored; its packet is not complete yet
  kRefused,              // the process callback refused the payload           (packets_refused)
  kDeferred,             // refused for now: the callback called defer_packet() (packets_deferred)
  kEnvelopeMismatch,     // shorter than the envelope, or its crc32 is wrong    (envelope_failures)
  kTooLarge,             // datagram larger than the largest legal one          (packets_too_large_to_receive)
  kHeaderInvalid,        // truncated / non-canonical / bad prefix header       (packets_invalid)
  kStale,                // sequence too old for the received-packets window    (packets_stale)
  kDuplicate,            // sequence already received                           (packets_duplicate)
  kFragmentInvalid,      // malformed fragment (see docs/packets.md)            (fragments_invalid)
  kFragmentDuplicate,    // fragment already held, or its packet already received (fragments_duplicate)
  kFragmentStale,        // fragment too old for the reassembly window           (fragments_stale)
  kReassembledTooLarge,  // a completed reassembly exceeds max_packet_size (packets_too_large_to_receive)
  kTooFarAhead,          // more than max_sequence_jump after the newest received (packets_too_far_ahead)
  kFragmentTooFarAhead,  // beyond the reassembly margin after the newest received  (fragments_too_far_ahead)
  kFragmentConflict,     // disagrees with its packet's stored fragments; that reassembly is dropped
                         //                                                       (fragments_conflicting)
  kEndpointFailed,       // the endpoint failed at construction and refuses every call   (calls_refused)
};
const char* to_string(ReceiveResult result);

struct EndpointCounters {
  uint64_t packets_sent = 0;                  // send_packet calls that transmitted (a fragmented packet is 1)
  uint64_t packets_received = 0;              // packets accepted by the process callback
  uint64_t packets_acked = 0;                 // sent packets newly acked
  uint64_t packets_stale = 0;                 // dropped: too old to tell from a duplicate
  uint64_t packets_duplicate = 0;             // dropped: already received
  uint64_t packets_invalid = 0;               // dropped: bad regular header (or bad header in a reassembly)
  uint64_t packets_refused = 0;               // refused by the process callback
  uint64_t packets_deferred = 0;              // refused for now (defer_packet): not acked, acks processed
  uint64_t packets_too_large_to_send = 0;     // send_packet payloads above max_packet_size, not sent
                                              // (send_written: sizes above send_room())
  uint64_t packets_too_large_to_receive = 0;  // dropped: datagram or reassembled packet above the maximum
  uint64_t envelope_failures = 0;             // dropped: envelope crc32 mismatch or datagram < 4 bytes
  uint64_t fragments_sent = 0;                // fragment datagrams transmitted
  uint64_t fragments_received = 0;            // fragments stored for reassembly
  uint64_t fragments_invalid = 0;             // dropped: malformed fragment
  uint64_t fragments_duplicate = 0;           // dropped: fragment already held / packet already received
  uint64_t fragments_stale = 0;               // dropped: outside the reassembly window
  uint64_t reassemblies_evicted = 0;          // incomplete packets evicted to make room for newer ones
  uint64_t reassemblies_completed = 0;        // fragmented packets put back together
  uint64_t acks_overflowed = 0;               // acks not listed because acks() was full (on_ack still ran)
  uint64_t acks_ahead = 0;                    // received packets whose ack is newer than anything sent
  uint64_t packets_too_far_ahead = 0;         // dropped: sequence more than max_sequence_jump ahead
  uint64_t fragments_too_far_ahead = 0;       // dropped: fragment beyond the reassembly margin
  uint64_t fragments_conflicting = 0;         // dropped with their reassembly: count or bytes disagree
  uint64_t sequence_resyncs = 0;              // receive side moved to a far-away peer sequence
  uint64_t time_invalid = 0;                  // update() times ignored: non-finite or beyond kMaxTimeSeconds
  uint64_t time_backwards = 0;                // update() times earlier than the current one (time kept)
  uint64_t arrival_times_stale = 0;  // receive_packet arrival times earlier than the previous update() time
                                     // - kArrivalSlackSeconds: read as that bound
  uint64_t calls_refused = 0;        // calls the endpoint cannot serve whatever their arguments: every call
                                     // once it was refused at construction (!ok()), and send_written with
                                     // the envelope on (it has no send room)
  uint64_t ack_delays_unusable = 0;  // ack delay reports that gave no RTT sample: the packet named is not
                                     // in the sent window, or the delay exceeds the time since it was sent
  uint64_t acks_without_ack_delay = 0;  // with the extension on: peer packets that acked packets of ours
                                        // without it while no extension has come from the peer (since
                                        // reset); at kAckDelayMismatchPackets the peer is taken to run
                                        // without it (docs/packets.md section 1.6)
  friend bool operator==(const EndpointCounters&, const EndpointCounters&) = default;
};

// ---- Endpoint -----------------------------------------------------------------------------------------

// How long before the previous update() a datagram passed to receive_packet(datagram, arrival_time) may have
// arrived. A caller that reads its transport after each update() hands over datagrams that arrived since
// the previous read, so after the previous update(); the slack covers a transport clock stepped per tick
// and read a little after the step (docs/transport.md), and a read that left datagrams for the next tick.
inline constexpr double kArrivalSlackSeconds = 0.05;

class Endpoint {
 public:
  Endpoint(const EndpointConfig& config, const EndpointCallbacks& callbacks, double now = 0.0);
  ~Endpoint();

  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;
  Endpoint(Endpoint&&) noexcept;
  Endpoint& operator=(Endpoint&&) noexcept;

  // Replaces the callbacks (e.g. once the owning object has its final address). Returns false and keeps
  // the old ones when transmit or process is null.
  bool set_callbacks(const EndpointCallbacks& callbacks);

  // False when construction refused the config or the callbacks (see the contracts above); sticky.
  bool ok() const;
  // nullptr when ok(), else why construction refused (owned by the endpoint: valid as long as it is).
  const char* error_reason() const;

  // Sets the current time (seconds, any origin) and advances the statistics. A non-finite or out-of-range
  // time is ignored and a step back is no time passing; both are counted (see the contracts above).
  void update(double now);

  // Sends one packet: assigns the next sequence, writes the ack header, records it for acks and RTT, and
  // transmits it whole (payload <= fragment_above) or as ceil(size / fragment_size) fragments. Returns
  // false (and sends nothing, uses no sequence) when size > max_packet_size. A size of 0 is allowed.
  bool send_packet(std::span<const std::byte> payload);
  // The same without the copy: the payload is written first at the start of send_room() (room for
  // fragment_above bytes; empty with the envelope on), then send_written(size) sends the datagram
  // send_packet would have sent for it. The room is valid until the next send on this endpoint. False
  // (nothing sent, no sequence used) when size is above the room or max_packet_size (counted
  // packets_too_large_to_send), or with the envelope on, whatever the size (calls_refused).
  std::span<std::byte> send_room();
  bool send_written(size_t size);
  // A room for send_room()/send_written() shared by endpoints that one thread drives (a server's slots),
  // used instead of this endpoint's own datagram buffer: a walk over many endpoints finds the shared room
  // in the cache, where each endpoint's own buffer is a cold line per 64 bytes of every packet. The room
  // holds a packet only from send_room() to the end of send_written() (the transmit callback included), so
  // nothing of one endpoint's packet is left for another's; send_room() of a sharing endpoint is valid
  // until the next send on any of them. The datagrams are the same bytes. False (and the own buffer kept)
  // when `room` is smaller than shared_send_room_bytes(); an empty span returns to the own buffer. The room
  // must outlive its use; fragments and the envelope still use the own buffer.
  bool share_send_room(std::span<std::byte> room);
  size_t shared_send_room_bytes() const;

  // Only from inside the process callback, which then returns false: the payload is genuine but cannot be
  // taken now (the receiver is busy: no free slot in a pool or window), so the packet is refused unacked
  // (the peer sends its content again; kDeferred, packets_deferred) while the acks its header carries are
  // processed, and it counts as the newest sequence seen for the forward bound. Acks must always flow:
  // when both ends wait for a resource only an ack of their own packets frees (a message or block buffer
  // held by what they send), refusing the acks with the payload deadlocks two correct peers. A call
  // outside the callback has no effect.
  void defer_packet();

  // Takes one datagram from the transport. Any bytes are safe; see ReceiveResult for what happens.
  ReceiveResult receive_packet(std::span<const std::byte> datagram);
  // The same, for a datagram that reached the host at `arrival_time` (same clock as update()). A game that
  // drains its socket once per tick passes the arrival time its transport recorded, so that the time a
  // datagram waited for the tick is not counted in the RTT (nor in the ack delay this endpoint reports).
  // The time used is bounded to [the previous update() time - kArrivalSlackSeconds, the current time]:
  // a later, NaN or infinite one is read as the current time; an earlier one (stale: an earlier tick's,
  // a reused variable, another clock's) as the lower bound, counted in arrival_times_stale. So one
  // arrival time moves one RTT sample by at most the time between the last two update() calls plus the
  // slack (docs/packets.md section 4).
  ReceiveResult receive_packet(std::span<const std::byte> datagram, double arrival_time);

  // Newly acked sequences since the last clear_acks(), oldest first (at most ack_buffer_size).
  std::span<const uint16_t> acks() const;
  void clear_acks();

  // Back to the freshly constructed state (sequences, buffers, statistics, counters); keeps the config,
  // callbacks and time. Does not allocate.
  void reset();

  // Sent packets whose ack may still arrive: from the oldest that is neither acked nor more than 31
  // before the newest ack the peer has reported (no later packet of the peer reports it) to the last
  // sent, at most sent_packets_buffer_size (an older record is overwritten: its ack is ignored). A
  // sender that keeps this below the sent buffer, with a margin for the peer's delayed packets, never
  // overwrites the record an ack needs (docs/packets.md section 3.1). A failed endpoint reports 0.
  int packets_in_flight() const;

  // The sequence the next send_packet will use.
  uint16_t next_sequence() const;
  // The ack header the next packet would carry.
  PacketHeader current_ack_state() const;
  // Restarts of the receive side: each resync behind the received window (the peer's sequence went round
  // or it restarted) and each reset(); a forward resync is none. It changes with every restart, before
  // the packet or fragment that caused it is passed on, and never otherwise (not zeroed by reset(),
  // wrapping at 65536): whatever keeps state per peer sequence compares it for inequality to learn that
  // the peer's sequences begin a new stream, whichever sequence it sees next.
  uint16_t receive_restarts() const;

  // ---- Statistics (feed congestion control with rtt_ms() and packet_loss_percent()) ----
  double time() const;
  // RTT samples: see docs/packets.md section 4 (with the ack delay extension each is exact: the peer's
  // hold time is subtracted). Arrival times are those given to receive_packet (default: time()).
  double rtt_ms() const;      // smoothed RTT (exponential moving average); 0 before the first sample
  double rtt_min_ms() const;  // over the last rtt_history_size samples; 0 when there are none
  double rtt_max_ms() const;
  double rtt_avg_ms() const;
  // RTT samples taken since creation or reset: 0 means rtt_ms() is no measurement yet (it reads 0).
  uint64_t rtt_samples() const;
  double jitter_ms() const;            // smoothed |RTT sample - smoothed RTT|: ~0 on a steady link
  double packet_loss_percent() const;  // lost / judged over the loss window, 0..100
  double sent_kbps() const;            // datagram bytes sent (+ packet_header_size each), smoothed
  double received_kbps() const;        // datagram bytes of accepted packets received, smoothed
  double acked_kbps() const;           // datagram bytes of packets newly acked, smoothed
  const EndpointCounters& counters() const;

  const EndpointConfig& config() const;  // the config in use (a minimal placeholder when !ok())
  // Bytes this endpoint allocated at construction (every buffer; excludes sizeof(Endpoint)).
  size_t memory_bytes() const;
  // What an endpoint with this config allocates, without building one (the sanitized config's figure for
  // a config check() refuses). Never above kMaxEndpointMemoryBytes.
  static size_t memory_required(const EndpointConfig& config);

 private:
  friend size_t detail::endpoint_memory_bytes(const EndpointConfig& config);
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace bitwire
