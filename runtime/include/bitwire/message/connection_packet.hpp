// The connection packet of yojimbo 1.0 (wire-format.md section 3; docs/channels.md states every bit):
// channel entries carrying messages or one block fragment. This is the codec alone -- no queues, no acks
// -- so that goldens, fuzzing and an independent implementation can check it bit for bit.
//
//   packet:  int(entries, 0, channels), then the entries in ascending channel order
//   entry:   [int(channel, 0, channels - 1) when channels > 1] bool(block)
//            reliable messages:   bool(has) [int(n, 1, max) id0:16 int_relative ids... (type body)*n]
//            unreliable messages: bool(has) [int(n, 1, max) (type body [int(size, 1, maxBlock) bytes])*n]
//            block fragment:      id:16 [int(count, 1, maxFragments)] [int(fid, 0, count-1)]
//                                 int(size, 1, fragmentSize) bytes [fragment 0: type body]
//   type:    int(type, 0, types - 1), absent with one message type
//
// Contracts:
// - write_connection_packet writes exactly that; the caller sizes the buffer with the bit costs below
//   (conservative: measured bodies count 7 bits per alignment).
// - read_connection_packet accepts any bytes. It either reads the whole packet into an IncomingPacket or
//   refuses it with a ConnectionPacketError (and the stream's ReadError); a refused packet leaves nothing
//   behind (every message it created is released). Stricter than the published text in one place: entries
//   must be in strictly ascending channel order (what every writer produces).
// - Reading never allocates: messages come from the given pool's receive side (MessagePool::create_received,
//   the receive reserve included; a block's fragment 0 from create_received_block), exhausted ->
//   kPoolExhausted; fragment bytes land in the IncomingPacket's buffers, sized at its construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "bitwire/message/channel_config.hpp"
#include "bitwire/message/message.hpp"
#include "bitwire/serialize/stream.hpp"

namespace bitwire {

class DeltaBaselines;

// What both ends agree on: the message types and the channel list.
struct PacketLayout {
  MessageFactory factory;
  std::span<const ChannelConfig> channels;

  int channel_count() const { return static_cast<int>(channels.size()); }
  // Bits of a message type field (0 with one type).
  int type_bits() const;
  // Bits of the entry count at the start of a packet.
  int packet_header_bits() const;
  // Bits of an entry's channel index and block flag.
  int entry_header_bits() const;
};

// Bits int_relative spends on ids `previous` -> `current` (sequence-relative: wrap lifted by 65536).
int relative_id_bits(uint16_t previous, uint16_t current);

enum class ConnectionPacketError : uint8_t {
  kNone,
  kReadFailed,               // the bits ran out or a primitive refused them (see the ReadError)
  kTooManyEntries,           // numEntries > numChannels
  kChannelIndexOutOfRange,   // channel index >= numChannels
  kChannelOrder,             // entries not in strictly ascending channel order
  kMessageCountOutOfRange,   // numMessages outside [1, maxMessagesPerPacket]
  kMessageTypeOutOfRange,    // a message type outside the factory
  kMessageBodyInvalid,       // a message body failed to read
  kBlockSizeOutOfRange,      // an unreliable message's block size outside [1, maxBlockSize]
  kMessageIdInvalid,         // reliable ids of a packet not ascending, or spanning receive_queue_size or more
                             // from the first (no correct sender writes them)
  kBlockMessageInline,       // a block message among a reliable channel's messages (it travels as fragments)
  kBlocksDisabled,           // a block fragment (or block message) on a channel with blocks disabled
  kFragmentOnUnreliable,     // a block fragment entry on an unreliable channel
  kFragmentCountOutOfRange,  // numFragments outside [1, maxFragmentsPerBlock]
  kFragmentIdOutOfRange,     // fragmentId >= numFragments
  kFragmentSizeOutOfRange,   // fragmentSize outside [1, blockFragmentSize]
  kFragmentNotBlockType,     // fragment 0's message type is not a block message
  kPoolExhausted,            // no message slot (or block buffer) to read into: not the peer's fault
  kDeltaNoBaseline,          // a delta body names a baseline the receiver does not hold (DeltaBaselines)
};

const char* to_string(ConnectionPacketError error);

// ---- Writing ----

struct OutgoingMessage {
  uint16_t id = 0;                   // reliable channels only
  MessageHandle* message = nullptr;  // its block (unreliable) is written from the handle
};

struct OutgoingFragment {
  uint16_t message_id = 0;
  int fragment_count = 1;
  int fragment_id = 0;
  std::span<const std::byte> data;   // 1..block_fragment_size bytes
  MessageHandle* message = nullptr;  // fragment 0: the block message (type and body are written)
};

struct OutgoingEntry {
  int channel = 0;
  bool block = false;                        // a fragment instead of messages
  std::span<const OutgoingMessage> messages; // when !block; may be empty (hasMessages = 0)
  OutgoingFragment fragment;                 // when block
};

// Writes a connection packet with `entries` (ascending channel order) into `out`; returns the bytes used.
// Precondition: `out` holds it (the caller's bit count says so). With `delta`, the body of a message
// whose type delta->handles() on an unreliable channel is written in the delta form (delta_baselines.hpp).
size_t write_connection_packet(const PacketLayout& layout, std::span<const OutgoingEntry> entries,
                               std::span<std::byte> out, DeltaBaselines* delta = nullptr);

// ---- Reading ----

// One packet's contents, read: fixed storage sized from the layout at construction.
class IncomingPacket {
 public:
  struct Message {
    uint16_t id = 0;
    MessageHandle message;
  };
  struct Fragment {
    uint16_t message_id = 0;
    int fragment_count = 1;
    int fragment_id = 0;
    std::span<const std::byte> data;  // into this packet's fragment buffer of the channel
    MessageHandle message;            // fragment 0: the block message
  };
  struct Entry {
    int channel = 0;
    bool block = false;
    int first_message = 0;  // into messages()
    int message_count = 0;
    Fragment fragment;
  };

  explicit IncomingPacket(const PacketLayout& layout);
  IncomingPacket(const IncomingPacket&) = delete;
  IncomingPacket& operator=(const IncomingPacket&) = delete;

  // Releases every message and empties the packet.
  void clear();

  int entry_count() const { return entry_count_; }
  Entry& entry(int index) { return entries_[index]; }
  Message& message(int index) { return messages_[index]; }
  size_t memory_bytes() const { return memory_bytes_; }
  // What one built for `channels` allocates (memory_bytes()).
  static size_t memory_required(std::span<const ChannelConfig> channels);

 private:
  friend ConnectionPacketError read_connection_packet(const PacketLayout&, MessagePool&,
                                                      std::span<const std::byte>, IncomingPacket&, ReadError*,
                                                      DeltaBaselines*);
  std::unique_ptr<Entry[]> entries_;
  std::unique_ptr<Message[]> messages_;
  std::unique_ptr<std::byte[]> fragment_bytes_;
  std::unique_ptr<size_t[]> fragment_offset_;  // per channel, into fragment_bytes_
  int entry_count_ = 0;
  int message_count_ = 0;
  size_t memory_bytes_ = 0;
};

// Reads a connection packet from untrusted bytes into `out` (cleared first). On failure `out` is empty
// and `stream_error`, when given, receives the stream's reason for kReadFailed / kMessageBodyInvalid.
// With `delta`, the body of a message whose type delta->handles() on an unreliable channel is read in the
// delta form; its snapshot id lands in the Message's `id` (for DeltaBaselines::commit once the packet is
// accepted), and a delta against a baseline not held is kDeltaNoBaseline.
ConnectionPacketError read_connection_packet(const PacketLayout& layout, MessagePool& pool,
                                             std::span<const std::byte> bytes, IncomingPacket& out,
                                             ReadError* stream_error = nullptr,
                                             DeltaBaselines* delta = nullptr);

}  // namespace bitwire
