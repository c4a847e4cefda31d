// Every figure the docs quote that the code can compute, computed here and compared with the text: a
// memory figure, a size, a limit or a derived bound that drifts from the code fails with the figure the
// code gives. Each check names the doc and the words right before the figure; the doc's text is
// compared with runs of whitespace (line breaks included) read as one space. Every figure checked is
// also printed, so that a figure changed by a merge can be copied into the doc from one run:
//   build/release/tests/docs_figures_test
// Figures from a program's run (the demo's memory line, hello_session's output) are checked by the tests
// that run those programs (tests/demo/demo_test.cpp, tests/docs/walkthrough_run_test.cpp); measured
// figures (timings, RTT under a simulated network) are not figures the code computes.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "../../generated/game.hpp"  // checked in, pinned to idlc's output by the generated/ golden check
#include "bitwire/core/datagram.hpp"
#include "bitwire/message/block.hpp"
#include "bitwire/message/channel.hpp"
#include "bitwire/message/chunk.hpp"
#include "bitwire/message/connection.hpp"
#include "bitwire/netcode/packet.hpp"
#include "bitwire/netcode/token.hpp"
#include "bitwire/packet/detail/ack_tracker.hpp"
#include "bitwire/packet/detail/loss_window.hpp"
#include "bitwire/packet/detail/receive_window.hpp"
#include "bitwire/packet/detail/rtt_estimator.hpp"
#include "bitwire/packet/detail/send_window.hpp"
#include "bitwire/packet/endpoint.hpp"
#include "bitwire/packet/envelope.hpp"
#include "bitwire/packet/reassembler.hpp"
#include "bitwire/serialize/bits.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "bitwire/sim/simulator.hpp"
#include "bitwire/stack/server.hpp"
#include "bitwire/stack/stack_config.hpp"
#include "bitwire/transport/transport.hpp"
#include "support/endpoint_harness.hpp"
#include "support/test_messages.hpp"

namespace bitwire {
namespace {

std::string read_source(const std::string& relative) {
  std::ifstream in(std::string(BITWIRE_SOURCE_DIR) + "/" + relative, std::ios::binary);
  EXPECT_TRUE(in) << relative << " cannot be read";
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs of whitespace as one space: a figure's words may be wrapped anywhere in the Markdown.
std::string squeeze(const std::string& text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  if (space && !out.empty()) out += ' ';  // words that end in a space: the figure follows it
  return out;
}

std::string with_commas(uint64_t value) {
  std::string digits = std::to_string(value);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3)
    digits.insert(static_cast<size_t>(at), ",");
  return digits;
}

// Checks that `doc` has `words` followed by `expected` (written with or without thousands commas), and
// prints the figure. `how`: where the figure comes from.
void expect_figure(const char* doc, const std::string& words, uint64_t expected, const char* how) {
  std::printf("%-22s %-60s %s  (%s)\n", doc, ("\"" + squeeze(words) + "\"").c_str(),
              with_commas(expected).c_str(), how);
  const std::string text = squeeze(read_source(doc));
  const std::string anchor = squeeze(words);
  const size_t at = text.find(anchor);
  ASSERT_NE(at, std::string::npos) << doc << " no longer has the words \"" << anchor
                                   << "\"; the figure after them is " << with_commas(expected) << " (" << how
                                   << ")";
  size_t end = at + anchor.size();
  std::string digits;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) ||
                               (text[end] == ',' && end + 1 < text.size() &&
                                std::isdigit(static_cast<unsigned char>(text[end + 1]))))) {
    if (text[end] != ',') digits += text[end];
    ++end;
  }
  const std::string quoted = text.substr(at + anchor.size(), end - at - anchor.size());
  EXPECT_EQ(digits, std::to_string(expected))
      << doc << " says \"" << anchor << quoted << "\"; the code gives " << with_commas(expected) << " ("
      << how << ")";
}

// ---- docs/packets.md ----------------------------------------------------------------------------------

TEST(DocsFigures, PacketsHeaderSizes) {
  const char* doc = "docs/packets.md";
  expect_figure(doc, "Regular packet: header (", kMinPacketHeaderBytes, "kMinPacketHeaderBytes");
  expect_figure(doc, "Regular packet: header (4 to ", kMaxPacketHeaderBytes, "kMaxPacketHeaderBytes");
  expect_figure(doc, "with `h` the largest header: ", kMaxPacketHeaderBytes, "kMaxPacketHeaderBytes");
  expect_figure(doc, "with `h` the largest header: 9, or ", kMaxPacketHeaderBytes + kAckDelayBytes,
                "kMaxPacketHeaderBytes + kAckDelayBytes");
}

TEST(DocsFigures, PacketsDatagramBounds) {
  const char* doc = "docs/packets.md";
  const size_t largest_header = kMaxPacketHeaderBytes + kAckDelayBytes;
  expect_figure(doc, "- `fragment_size` <= ",
                kMaxUdpPayloadBytes - Envelope::kBytes - kFragmentHeaderBytes - largest_header,
                "UDP payload - envelope - fragment header - largest header");
  expect_figure(doc, "and `fragment_above` <= ", kMaxUdpPayloadBytes - Envelope::kBytes - largest_header,
                "UDP payload - envelope - largest header");
  expect_figure(doc, "a fragment (envelope ", Envelope::kBytes, "Envelope::kBytes");
  expect_figure(doc, "a fragment (envelope 4 + fragment header ", kFragmentHeaderBytes,
                "kFragmentHeaderBytes");
  expect_figure(doc, "+ fragment header 5 + embedded header ", largest_header, "the largest header");
  expect_figure(doc, "must each fit one UDP datagram, ", kMaxUdpPayloadBytes, "kMaxUdpPayloadBytes");
  expect_figure(doc, "The name is copied (up to ", kEndpointNameBytes - 1, "kEndpointNameBytes - 1");
}

EndpointConfig with_slots(int slots) {
  EndpointConfig config;
  config.reassembly_slots = slots;
  return config;
}

TEST(DocsFigures, PacketsMemorySection) {
  const char* doc = "docs/packets.md";
  const EndpointConfig defaults;

  const auto before = test::counting_allocations;
  {
    const auto peer = test::Peer::make(defaults);
    const auto after = test::counting_allocations;
    // The Peer itself is one allocation; the rest is the endpoint's.
    expect_figure(doc, "Everything is allocated in the constructor (", after.count - before.count - 1,
                  "allocations counted while an Endpoint is built");
  }

  const size_t total = Endpoint::memory_required(defaults);
  expect_figure(doc, "at defaults: **", total, "Endpoint::memory_required(EndpointConfig{})");

  const size_t one_slot = Endpoint::memory_required(with_slots(1));
  const size_t per_slot = Endpoint::memory_required(with_slots(2)) - one_slot;
  const size_t slots = static_cast<size_t>(defaults.reassembly_slots);
  const size_t packet =
      static_cast<size_t>(defaults.max_fragments) * static_cast<size_t>(defaults.fragment_size);
  const std::string slot_words = "of which the " + std::to_string(slots) + " reassembly slots are ";
  expect_figure(doc, slot_words, slots * per_slot, "reassembly_slots x the memory of one more slot");
  expect_figure(doc, std::to_string(slots) + " x (", packet, "max_fragments x fragment_size");
  expect_figure(doc, with_commas(packet) + " bytes of packet + ", per_slot - packet - sizeof(uint16_t),
                "one slot less its packet and its free-stack entry");
  expect_figure(doc, "with `reassembly_slots = 1`: ", one_slot, "Endpoint::memory_required, 1 slot");

  const size_t sent = SendWindow::memory_required(static_cast<size_t>(defaults.sent_packets_buffer_size));
  const size_t sent_capacity = std::bit_ceil(static_cast<size_t>(defaults.sent_packets_buffer_size));
  expect_figure(doc, "The rest: sent window ", sent_capacity, "sent_packets_buffer_size, rounded up");
  expect_figure(doc, "The rest: sent window " + std::to_string(sent_capacity) + " x ", sent / sent_capacity,
                "tag + SendWindow::Record");
  const size_t received = ReceiveWindow::memory_required(defaults.received_packets_buffer_size);
  const size_t received_capacity = std::bit_ceil(static_cast<size_t>(defaults.received_packets_buffer_size));
  expect_figure(doc, "(tag + record), received window ", received_capacity,
                "received_packets_buffer_size, rounded up");
  expect_figure(doc, "(tag + record), received window " + std::to_string(received_capacity) + " x ",
                received / received_capacity, "tag + the received entry");
  const ReassemblerConfig reassembly = endpoint_reassembler_config(defaults);
  ReassemblerConfig one_reassembly_slot = reassembly;
  one_reassembly_slot.slots = 1;
  const size_t reassembler_base = Reassembler::memory_required(one_reassembly_slot) - per_slot;
  const size_t window = std::bit_ceil(static_cast<size_t>(defaults.fragment_reassembly_buffer_size));
  ASSERT_EQ(reassembler_base % window, 0u);
  expect_figure(doc, "reassembly index ", window, "fragment_reassembly_buffer_size, rounded up");
  expect_figure(doc, "reassembly index " + std::to_string(window) + " x ", reassembler_base / window,
                "the reassembler less its slots, per sequence");
  const size_t acks = AckTracker::memory_required(static_cast<size_t>(defaults.ack_buffer_size));
  expect_figure(doc, "x 6, acks ", acks, "ack_buffer_size x 2");
  const size_t rtt = RttEstimator::memory_required(static_cast<size_t>(defaults.rtt_history_size));
  expect_figure(doc, "RTT history ", rtt, "rtt_history_size floats");
  const size_t loss = LossWindow::memory_required(static_cast<size_t>(defaults.packet_loss_window));
  expect_figure(doc, "loss ring ", loss, "packet_loss_window bytes");
  const size_t header = kMaxPacketHeaderBytes + kAckDelayBytes;
  const size_t transmit = Envelope::kBytes + std::max(header + static_cast<size_t>(defaults.fragment_above),
                                                      kFragmentHeaderBytes + header +
                                                          static_cast<size_t>(defaults.fragment_size));
  expect_figure(doc, "transmit buffer ", transmit,
                "envelope + fragment header + largest header + fragment_size");
  const size_t listed = slots * per_slot + sent + received + reassembler_base + acks + rtt + loss + transmit;
  ASSERT_LT(listed, total);
  expect_figure(doc, "the endpoint's own state (the remaining ", total - listed, "what the list leaves");

  EndpointConfig former = defaults;
  former.reassembly_slots = 8;
  former.fragment_reassembly_buffer_size = 64;
  expect_figure(doc, "The former defaults, 8 slots and a 64-sequence reassembly window, take ",
                Endpoint::memory_required(former), "Endpoint::memory_required with those two fields");
}

// ---- docs/client-server.md ----------------------------------------------------------------------------

TEST(DocsFigures, ClientServerPayloadBounds) {
  const char* doc = "docs/client-server.md";
  // The largest fragment and whole packet the stack repairs a config to: what one netcode payload holds.
  StackConfig config;
  config.connection.endpoint.fragment_size = 65000;
  config.connection.endpoint.fragment_above = 65000;
  const StackConfig repaired = config.sanitized();
  const size_t header = kMaxPacketHeaderBytes + kAckDelayBytes;
  EXPECT_EQ(static_cast<size_t>(repaired.connection.endpoint.fragment_size),
            netcode::kMaxPayloadBytes - kFragmentHeaderBytes - header);
  EXPECT_EQ(static_cast<size_t>(repaired.connection.endpoint.fragment_above),
            netcode::kMaxPayloadBytes - header);
  expect_figure(doc, "(`fragment_size <= ", static_cast<uint64_t>(repaired.connection.endpoint.fragment_size),
                "StackConfig::sanitized() of a larger fragment_size");
  expect_figure(doc,
                "`fragment_above <= ", static_cast<uint64_t>(repaired.connection.endpoint.fragment_above),
                "StackConfig::sanitized() of a larger fragment_above");
  expect_figure(doc, "a packet header of up to ", kMaxPacketHeaderBytes, "kMaxPacketHeaderBytes");
  config.connection.endpoint.ack_delay = AckDelayMode::kOff;
  const StackConfig repaired_off = config.sanitized();
  expect_figure(doc, "bytes plus the 2-byte ack delay extension; ",
                static_cast<uint64_t>(repaired_off.connection.endpoint.fragment_size),
                "the same with ack_delay = kOff");
  expect_figure(doc, std::to_string(repaired_off.connection.endpoint.fragment_size) + " and ",
                static_cast<uint64_t>(repaired_off.connection.endpoint.fragment_above),
                "the same with ack_delay = kOff");
}

// The doc's table: slot, message pool, endpoint, netcode and slots in the 4 GiB cap, per config.
void expect_slot_row(const char* row_words, const StackConfig& config) {
  const char* doc = "docs/client-server.md";
  const MessageFactory factory(test::kAllTypes);
  ASSERT_EQ(config.check(factory).reason(), nullptr) << config.check(factory).reason();
  const StackConfig stacked = config.sanitized(factory);
  // As the server builds a slot: its pool takes block buffers from the server's shared arena if declared.
  BlockArena arena(stack_block_buffers(config, factory),
                   static_cast<size_t>(stacked.connection.message_pool_config(true).max_block_size));
  Connection connection(factory, stacked.connection, {}, 0.0, arena.buffer_count() > 0 ? &arena : nullptr);
  const size_t slot = stack_slot_memory(config, factory);
  const size_t pool = connection.pool().memory_bytes();
  // The endpoint as the Connection builds it (Connection::endpoint_config raises the stack's endpoint config
  // to send a whole connection packet unfragmented), as the slot's total counts it.
  const size_t endpoint = connection.endpoint().memory_bytes();
  const size_t netcode = slot - connection.memory_bytes();
  const size_t shared = stack_block_arena_memory(config, factory);
  ASSERT_EQ(shared, arena.memory_bytes());
  const size_t fit = std::min<size_t>((kMaxStackServerMemoryBytes - shared) / slot, 4096);
  std::string row = std::string(row_words) + " | ";
  expect_figure(doc, row, slot, "stack_slot_memory(config, kAllTypes)");
  row += with_commas(slot) + " | ";
  expect_figure(doc, row, pool, "the Connection's message pool (on the shared arena if declared)");
  row += with_commas(pool) + " | ";
  expect_figure(doc, row, endpoint, "the built Connection's endpoint().memory_bytes()");
  row += with_commas(endpoint) + " | ";
  expect_figure(doc, row, netcode, "the slot less its Connection");
  row += with_commas(netcode) + " | ";
  expect_figure(doc, row, shared, "stack_block_arena_memory(config, kAllTypes): once per server");
  row += with_commas(shared) + " | ";
  expect_figure(doc, row, fit,
                "(kMaxStackServerMemoryBytes - shared buffers) / slot, at most max_clients' 4096");
}

TEST(DocsFigures, ClientServerSlotTable) {
  expect_slot_row(
      "default `StackConfig` (1 reliable channel, 1024-message queues, blocks of 256 KiB; each slot owning "
      "its block buffer)",
      StackConfig{});
  StackConfig shared;
  shared.block_buffers = 0;
  expect_slot_row("the same, the slots sharing a sized arena (`block_buffers = 0`)", shared);
  StackConfig most = shared;
  most.max_clients = 4096;
  expect_slot_row("the same, 4,096 slots sharing it (`block_buffers = 0`, `max_clients = 4096`)", most);
  StackConfig no_blocks;
  no_blocks.connection.channels[0].disable_blocks = true;
  expect_slot_row("the same, blocks disabled", no_blocks);
  StackConfig small;
  small.connection.channels[0].send_queue_size = 256;
  small.connection.channels[0].receive_queue_size = 256;
  small.connection.channels[0].sent_message_ids = 4096;
  small.connection.channels[0].disable_blocks = true;
  small.connection.endpoint.reassembly_slots = 4;
  expect_slot_row("256-message queues, no blocks, 4 reassembly slots", small);
}

// The field-by-field table of the default slot: every part measured on the Connection as the stack builds
// it, the parts summing to the slot; the Server's own figure per slot from a built Server.
TEST(DocsFigures, ClientServerDefaultSlotFields) {
  const char* doc = "docs/client-server.md";
  const MessageFactory factory(test::kAllTypes);
  const StackConfig config;
  const StackConfig stacked = config.sanitized(factory);
  const Connection connection(factory, stacked.connection, {}, 0.0, nullptr);
  const size_t slot = stack_slot_memory(config, factory);
  const MessagePool& pool = connection.pool();
  const auto& channel = static_cast<const ReliableOrderedChannel&>(connection.channel(0));
  ASSERT_NE(channel.block_receiver(), nullptr);
  ASSERT_NE(channel.block_sender(), nullptr);
  const size_t buffers = static_cast<size_t>(pool.block_count()) * (pool.max_block_size() + sizeof(int32_t));
  const int lenders = Connection::lending_channels(factory, stacked.connection);
  const size_t receiver = sizeof(BlockReceiver) + channel.block_receiver()->memory_bytes();
  const size_t sender = sizeof(BlockSender) + channel.block_sender()->memory_bytes();
  const size_t queues = channel.memory_bytes() - receiver - sender;
  const size_t endpoint = connection.endpoint().memory_bytes();
  const size_t rest = connection.memory_bytes() - pool.memory_bytes() - channel.memory_bytes() - endpoint;
  const size_t netcode = slot - connection.memory_bytes();
  EXPECT_EQ(pool.memory_bytes() - buffers + buffers + receiver + sender + queues + endpoint + rest + netcode,
            slot);
  const std::string pool_row = "| message pool: a budget of " + with_commas(pool.bytes()) + " bytes for " +
                               with_commas(static_cast<uint64_t>(pool.capacity())) + " messages, " +
                               std::to_string(lenders) + " lender, " +
                               std::to_string(pool.block_message_slots()) + " block message slots | ";
  expect_figure(doc, pool_row, pool.memory_bytes() - buffers, "the pool less its block buffers");
  expect_figure(doc, "| message pool: " + std::to_string(pool.block_count()) + " block buffer | ", buffers,
                "block_count x (max_block_size + a 4-byte free-list entry)");
  expect_figure(doc, "| reliable channel: block receiver | ", receiver, "sizeof(BlockReceiver) + its memory");
  expect_figure(doc, "| reliable channel: block sender | ", sender, "sizeof(BlockSender) + its memory");
  expect_figure(doc, "| reliable channel: queues, records, ids | ", queues, "the channel less both");
  expect_figure(doc, "| endpoint (as the Connection builds it) | ", endpoint,
                "the built Connection's endpoint().memory_bytes()");
  // Why the slot table's endpoint column is not Endpoint::memory_required of the stack's config as given.
  const EndpointConfig built = Connection::endpoint_config(stacked.connection).sanitized();
  EXPECT_EQ(Endpoint::memory_required(built), endpoint);
  expect_figure(doc, "send a whole connection packet unfragmented: `fragment_above` ",
                static_cast<uint64_t>(built.fragment_above), "Connection::endpoint_config's fragment_above");
  expect_figure(doc, "not `Endpoint::memory_required` of the stack's config as given (",
                endpoint - Endpoint::memory_required(stacked.connection.endpoint), "the difference");
  expect_figure(doc, "| incoming packet, packet buffer | ", rest, "the Connection less the parts above");
  expect_figure(doc, "| netcode slot | ", netcode, "the slot less its Connection");

  LoopbackNetwork network(16);
  const Address address = Address::ipv4(10, 0, 0, 1, 40000);
  LoopbackTransport transport(network, address);
  const Server server(config, factory, netcode::random_key(), transport, address, 0.0);
  ASSERT_TRUE(server.ok()) << server.error_reason();
  expect_figure(doc, "adds the Slot object (its congestion controller) and two event records: ",
                server.memory_per_slot(), "Server::memory_per_slot()");
}

// A message of 1 MiB with its 16-byte pool header, as the doc's example of pools above the cap describes.
struct Huge {
  static constexpr uint32_t kTypeId = 0;
  uint8_t bytes[(1 << 20) - 16] = {};
  template <typename Stream>
  bool serialize(Stream& stream) {
    return serialize_bits(stream, bytes[0], 8);
  }
};
inline constexpr MessageTypeInfo kHugeTypes[] = {describe_message<Huge>("Huge")};

TEST(DocsFigures, ClientServerHugePoolReason) {
  const MessageFactory factory(kHugeTypes);
  StackConfig config;
  config.max_clients = 8;
  config.connection.message_pool_size = 1024;
  expect_figure("docs/client-server.md", "`StackConfig.max_clients = 8: 8 slots of ",
                stack_slot_memory(config, factory),
                "stack_slot_memory: 1,024 messages of 1 MiB with the pool header");
}

// ---- docs/transport.md (netcode) ----------------------------------------------------------------------

TEST(DocsFigures, TransportNetcodeSizes) {
  const char* doc = "docs/transport.md";
  using namespace netcode;
  expect_figure(doc, "Private connect token, ", kConnectTokenPrivateBytes, "kConnectTokenPrivateBytes");
  expect_figure(doc, "Public connect token, ", kConnectTokenBytes, "kConnectTokenBytes");
  expect_figure(doc, "Challenge token, ", kChallengeTokenBytes, "kChallengeTokenBytes");
  expect_figure(doc, "Connection request (unencrypted, exactly ", kRequestPacketBytes, "kRequestPacketBytes");
  // Replies: prefix, sequence (the server's denied and challenge sequences start at 2^63: 8 bytes), body,
  // MAC.
  expect_figure(doc, "The server answers only connection requests (", kRequestPacketBytes,
                "kRequestPacketBytes");
  expect_figure(doc, "answered with a ", 1 + 8 + kChallengeBodyBytes + kMacBytes, "a challenge packet");
  expect_figure(doc, "challenge or a ", 1 + 8 + kMacBytes, "a denied packet");
  expect_figure(doc, "and responses (at least ", 1 + 1 + kChallengeBodyBytes + kMacBytes,
                "a response with a 1-byte sequence");
  expect_figure(doc, "answered with a 25-byte denied or the ", 1 + 1 + kKeepAliveBodyBytes + kMacBytes,
                "a keep-alive with a 1-byte sequence");
  expect_figure(doc, "denied or the 26..", 1 + 8 + kKeepAliveBodyBytes + kMacBytes,
                "a keep-alive with an 8-byte sequence");
  expect_figure(doc, "| 5 payload | 1..", kMaxPayloadBytes, "kMaxPayloadBytes");
}

// ---- docs/blocks.md, docs/channels.md, docs/simulator.md ----------------------------------------------

TEST(DocsFigures, BlocksMemoryAndBudget) {
  const BlockConfig block;
  expect_figure("docs/blocks.md", "At the defaults and 60 Hz that is ",
                static_cast<uint64_t>(block.bandwidth_bytes_per_second / 60),
                "bandwidth_bytes_per_second / 60");
  expect_figure("docs/blocks.md", "two `uint16_t` links and two bits: ", BlockSender::memory_required(block),
                "BlockSender::memory_required(BlockConfig{})");
  expect_figure("docs/channels.md", "a `BlockSender` (", BlockSender::memory_required(block),
                "BlockSender::memory_required(BlockConfig{})");
  const ChunkReceiver receiver;
  const ChunkSender sender;
  expect_figure("docs/blocks.md", "at the defaults a `ChunkReceiver` holds ", receiver.memory_bytes(),
                "ChunkReceiver{}.memory_bytes()");
  expect_figure("docs/blocks.md", "and a `ChunkSender` ", sender.memory_bytes(),
                "ChunkSender{}.memory_bytes()");
}

TEST(DocsFigures, BlockReceiverAndChunkPacketSizes) {
  const BlockConfig block;
  expect_figure("docs/channels.md", "`BlockReceiver` (256 KiB + ",
                BlockReceiver::memory_required(block) - static_cast<size_t>(block.max_block_size),
                "BlockReceiver::memory_required(BlockConfig{}) less max_block_size");
  const ChunkConfig chunk;
  expect_figure("docs/blocks.md", "`5 + ceil(max_fragments / 8)` bytes (",
                static_cast<uint64_t>(chunk.max_ack_packet_bytes()), "ChunkConfig{}.max_ack_packet_bytes()");
  expect_figure("docs/blocks.md", "at the defaults), smaller than the ",
                kChunkSliceHeaderBytes + static_cast<size_t>(chunk.block.fragment_size),
                "a slice other than the last: header + fragment_size");
  expect_figure("docs/blocks.md", "`config.max_slice_packet_bytes()` (",
                static_cast<uint64_t>(chunk.max_slice_packet_bytes()),
                "ChunkConfig{}.max_slice_packet_bytes()");
}

TEST(DocsFigures, WireFormatBitsRequired) {
  const char* doc = "docs/wire-format.md";
  expect_figure(doc, "[0, 7] takes ", static_cast<uint64_t>(bits_required<int64_t>(0, 7)),
                "bits_required(0, 7)");
  expect_figure(doc, "[0, 8] takes ", static_cast<uint64_t>(bits_required<int64_t>(0, 8)),
                "bits_required(0, 8)");
  EXPECT_EQ(bits_required<int64_t>(5, 5), 0) << "the doc says [5, 5] takes none";
  expect_figure(doc, "[INT64_MIN, INT64_MAX] takes ",
                static_cast<uint64_t>(bits_required<int64_t>(INT64_MIN, INT64_MAX)),
                "bits_required over int64_t");
}

TEST(DocsFigures, SimulatorBookkeepingPerSlot) {
  const NetworkSimulatorConfig config;
  const auto before = test::counting_allocations;
  const NetworkSimulator simulator(config);
  const auto after = test::counting_allocations;
  const size_t capacity = static_cast<size_t>(config.capacity);
  const size_t payload = capacity * static_cast<size_t>(config.mtu);
  const size_t bookkeeping = after.bytes - before.bytes - payload;
  ASSERT_EQ(bookkeeping % capacity, 0u) << bookkeeping;
  expect_figure("docs/simulator.md", "Memory is `capacity * mtu` bytes plus ", bookkeeping / capacity,
                "allocated by NetworkSimulator{} less capacity x mtu, per slot");
}

// ---- docs/schema-language.md --------------------------------------------------------------------------

// The `idlc --layout schemas/game.net` example: its fingerprint and the worst cases of the messages it shows,
// against the checked-in generated/game.hpp.
template <typename Message>
void expect_layout_row(const char* name) {
  const char* doc = "docs/schema-language.md";
  const std::string row = std::string("message ") + name + " (type id ";
  expect_figure(doc, row, Message::kTypeId, "kTypeId in generated/game.hpp");
  const std::string bits = row + std::to_string(Message::kTypeId) + ") MaxBits ";
  expect_figure(doc, bits, Message::MaxBits, "MaxBits in generated/game.hpp");
  expect_figure(doc, bits + std::to_string(Message::MaxBits) + ", MaxBytes ", Message::MaxBytes,
                "MaxBytes in generated/game.hpp");
}

TEST(DocsFigures, SchemaLanguageLayoutExample) {
  const std::string text = squeeze(read_source("docs/schema-language.md"));
  char fingerprint[32];
  std::snprintf(fingerprint, sizeof fingerprint, "0x%016llx",
                static_cast<unsigned long long>(game::ProtocolId));
  std::printf("docs/schema-language.md \"package game (schemas/game.net) ProtocolId \" %s\n", fingerprint);
  EXPECT_NE(text.find(std::string("package game (schemas/game.net) ProtocolId ") + fingerprint),
            std::string::npos)
      << "docs/schema-language.md's --layout example should show ProtocolId " << fingerprint;
  int shown = 0;
  for (const char* name : {"PlayerInput", "Snapshot", "Events", "ScoreUpdate", "Chat", "LevelLoad"}) {
    if (text.find(std::string("message ") + name + " (type id ") != std::string::npos) ++shown;
  }
  EXPECT_GE(shown, 2);
  if (text.find("message PlayerInput (type id ") != std::string::npos)
    expect_layout_row<game::PlayerInput>("PlayerInput");
  if (text.find("message Snapshot (type id ") != std::string::npos)
    expect_layout_row<game::Snapshot>("Snapshot");
  if (text.find("message Events (type id ") != std::string::npos) expect_layout_row<game::Events>("Events");
  if (text.find("message ScoreUpdate (type id ") != std::string::npos)
    expect_layout_row<game::ScoreUpdate>("ScoreUpdate");
  if (text.find("message Chat (type id ") != std::string::npos) expect_layout_row<game::Chat>("Chat");
  if (text.find("message LevelLoad (type id ") != std::string::npos)
    expect_layout_row<game::LevelLoad>("LevelLoad");
}

// The delta encoding's version, where the docs name it.
TEST(DocsFigures, DeltaFormatVersion) {
  expect_figure("docs/schema-language.md", "(`bitwire/serialize/bits.hpp`; now ", kDeltaFormatVersion,
                "kDeltaFormatVersion");
  expect_figure("docs/schema-language.md", "gets a `delta format ", kDeltaFormatVersion,
                "kDeltaFormatVersion");
}

// ---- README.md -------------------------------------------------------------------------------------------

// The README's hand-written message, line for line (the test below requires the README to quote these lines).
// clang-format off
// [readme PlayerInput]
struct PlayerInput {
  uint32_t tick = 0;
  int32_t yaw = 0;       // [0, 1023]: 10 bits
  bool jump = false;

  template <typename Stream> bool serialize(Stream& stream) {
    BITWIRE_TRY(bitwire::serialize_uint32(stream, tick));
    BITWIRE_TRY(bitwire::serialize_int(stream, yaw, 0, 1023));
    BITWIRE_TRY(bitwire::serialize_bool(stream, jump));
    return true;
  }
};
// [end readme PlayerInput]
// clang-format on

std::string trim(const std::string& line) {
  const size_t begin = line.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return line.substr(begin, line.find_last_not_of(" \t\r") - begin + 1);
}

TEST(DocsFigures, ReadmeHandWrittenMessageSize) {
  const std::string self = read_source("tests/docs/docs_figures_test.cpp");
  const size_t begin = self.find("// [readme PlayerInput]\n");
  const size_t end = self.find("// [end readme PlayerInput]");
  ASSERT_TRUE(begin != std::string::npos && end != std::string::npos);
  std::string readme_lines;
  {
    const std::string readme = read_source("README.md");
    size_t at = 0;
    while (at < readme.size()) {
      const size_t next = std::min(readme.find('\n', at), readme.size());
      readme_lines += trim(readme.substr(at, next - at)) + "\n";
      at = next + 1;
    }
  }
  std::string quoted;
  size_t at = begin + std::string("// [readme PlayerInput]\n").size();
  while (at < end) {
    const size_t next = self.find('\n', at);
    quoted += trim(self.substr(at, next - at)) + "\n";
    at = next + 1;
  }
  EXPECT_NE(readme_lines.find(quoted), std::string::npos)
      << "README.md's hand-written message is no longer this test's PlayerInput:\n"
      << quoted;
  PlayerInput input;
  std::array<std::byte, 16> buffer{};
  const size_t size = write_object(buffer, input);
  expect_figure("README.md", "size_t size = bitwire::write_object(buffer, input); // ", size,
                "write_object of the README's PlayerInput (32 + 10 + 1 bits)");
}

// ---- Every doc a source cites exists ------------------------------------------------------------------

// Every doc name `text` cites: "docs/", then letters, digits and _ . -, ending in ".md". Scanned by hand:
// g++ 12's <regex> trips -Wmaybe-uninitialized inside libstdc++ in the sanitizer build.
std::vector<std::string> cited_docs(const std::string& text) {
  const auto name_char = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
  };
  std::vector<std::string> names;
  for (size_t at = text.find("docs/"); at != std::string::npos; at = text.find("docs/", at + 1)) {
    size_t end = at + 5;
    while (end < text.size() && name_char(text[end])) ++end;
    const std::string word = text.substr(at + 5, end - at - 5);
    // The longest run that ends in ".md" (a following '.' ends a sentence, not the name).
    const size_t md = word.rfind(".md");
    if (md == std::string::npos || md == 0) continue;
    names.push_back(word.substr(0, md + 3));
  }
  return names;
}

TEST(DocsFigures, EveryCitedDocExists) {
  std::set<std::string> missing;
  int files = 0;
  for (const char* root :
       {"README.md", "docs", "runtime", "idlc/src", "tests", "examples", "bench", "schemas"}) {
    const std::filesystem::path path = std::filesystem::path(BITWIRE_SOURCE_DIR) / root;
    std::vector<std::filesystem::path> sources;
    if (std::filesystem::is_regular_file(path)) {
      sources.push_back(path);
    } else {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
        if (entry.is_regular_file()) sources.push_back(entry.path());
      }
    }
    for (const auto& source : sources) {
      const std::string ext = source.extension().string();
      if (ext != ".md" && ext != ".hpp" && ext != ".cpp" && ext != ".h" && ext != ".txt" && ext != ".cmake")
        continue;
      ++files;
      std::ifstream in(source, std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      for (const std::string& name : cited_docs(text)) {
        if (!std::filesystem::exists(std::filesystem::path(BITWIRE_SOURCE_DIR) / "docs" / name)) {
          missing.insert(std::filesystem::relative(source, BITWIRE_SOURCE_DIR).string() + " cites docs/" +
                         name);
        }
      }
    }
  }
  EXPECT_GT(files, 100);
  for (const std::string& m : missing) ADD_FAILURE() << m << ", which does not exist";
}

}  // namespace
}  // namespace bitwire
