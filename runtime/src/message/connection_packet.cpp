// The yojimbo 1.0 connection packet: writer, reader and the bit costs the channels plan with.
#include "bitwire/message/connection_packet.hpp"

#include <algorithm>

#include "bitwire/message/delta_baselines.hpp"
#include "bitwire/serialize/serialize.hpp"

namespace bitwire {

int PacketLayout::type_bits() const {
  return bits_required(0u, static_cast<uint32_t>(factory.type_count() - 1));
}

int PacketLayout::packet_header_bits() const {
  return bits_required(0u, static_cast<uint32_t>(channel_count()));
}

int PacketLayout::entry_header_bits() const {
  const int index_bits = channel_count() > 1 ? bits_required(0u, static_cast<uint32_t>(channel_count() - 1)) : 0;
  return index_bits + 1;
}

int relative_id_bits(uint16_t previous, uint16_t current) {
  const uint32_t lifted = current + (previous > current ? 65536u : 0u);
  const uint32_t d = lifted - previous;
  if (d == 1) return 1;
  if (d <= 6) return 2 + 3;
  if (d <= 23) return 3 + 5;
  if (d <= 280) return 4 + 9;
  if (d <= 4377) return 5 + 13;
  if (d <= 69914) return 6 + 17;
  return 6 + 32;
}

const char* to_string(ConnectionPacketError error) {
  switch (error) {
    case ConnectionPacketError::kNone:
      return "none";
    case ConnectionPacketError::kReadFailed:
      return "packet bits unreadable";
    case ConnectionPacketError::kTooManyEntries:
      return "more channel entries than channels";
    case ConnectionPacketError::kChannelIndexOutOfRange:
      return "channel index out of range";
    case ConnectionPacketError::kChannelOrder:
      return "channel entries not in ascending order";
    case ConnectionPacketError::kMessageCountOutOfRange:
      return "message count out of range";
    case ConnectionPacketError::kMessageTypeOutOfRange:
      return "message type out of range";
    case ConnectionPacketError::kMessageBodyInvalid:
      return "message body failed to read";
    case ConnectionPacketError::kMessageIdInvalid:
      return "reliable message ids not ascending within the receive window";
    case ConnectionPacketError::kBlockMessageInline:
      return "block message sent inline on a reliable channel";
    case ConnectionPacketError::kBlockSizeOutOfRange:
      return "block size out of range";
    case ConnectionPacketError::kBlocksDisabled:
      return "block on a channel with blocks disabled";
    case ConnectionPacketError::kFragmentOnUnreliable:
      return "block fragment on an unreliable channel";
    case ConnectionPacketError::kFragmentCountOutOfRange:
      return "fragment count out of range";
    case ConnectionPacketError::kFragmentIdOutOfRange:
      return "fragment id out of range";
    case ConnectionPacketError::kFragmentSizeOutOfRange:
      return "fragment size out of range";
    case ConnectionPacketError::kFragmentNotBlockType:
      return "fragment 0 names a message type without a block";
    case ConnectionPacketError::kPoolExhausted:
      return "message pool exhausted";
    case ConnectionPacketError::kDeltaNoBaseline:
      return "delta against a baseline the receiver does not hold";
  }
  return "unknown packet error";
}

// ---- Writing ----

namespace {

void write_type(WriteStream& stream, const PacketLayout& layout, MessageHandle& message) {
  if (layout.factory.type_count() > 1) {
    uint32_t type = message.type();
    serialize_int(stream, type, 0u, static_cast<uint32_t>(layout.factory.type_count() - 1));
  }
}

void write_body(WriteStream& stream, MessageHandle& message) {
  const bool ok = message.info().write(message.data(), stream);
  BITWIRE_ASSERT(ok);
  (void)ok;
}

void write_messages(WriteStream& stream, const PacketLayout& layout, const ChannelConfig& channel,
                    std::span<const OutgoingMessage> messages, DeltaBaselines* delta) {
  bool has_messages = !messages.empty();
  serialize_bool(stream, has_messages);
  if (!has_messages) return;
  auto count = static_cast<uint32_t>(messages.size());
  serialize_int(stream, count, 1u, static_cast<uint32_t>(channel.max_messages_per_packet));
  if (channel.type == ChannelType::kReliableOrdered) {
    uint16_t first = messages[0].id;
    serialize_bits(stream, first, 16);
    for (size_t i = 1; i < messages.size(); ++i) {
      const uint16_t previous = messages[i - 1].id;
      const uint16_t current = messages[i].id;
      uint32_t lifted = current + (previous > current ? 65536u : 0u);
      serialize_int_relative(stream, previous, lifted);
    }
    for (const OutgoingMessage& m : messages) {
      write_type(stream, layout, *m.message);
      write_body(stream, *m.message);
    }
  } else {
    for (const OutgoingMessage& m : messages) {
      write_type(stream, layout, *m.message);
      if (delta != nullptr && delta->handles(m.message->info())) {
        delta->write(stream, *m.message);
      } else {
        write_body(stream, *m.message);
      }
      if (m.message->info().has_block) {
        const std::span<const std::byte> block = m.message->block();
        BITWIRE_ASSERT(!block.empty());
        auto size = static_cast<uint32_t>(block.size());
        serialize_int(stream, size, 1u, static_cast<uint32_t>(channel.max_block_size));
        stream.write_align();
        stream.write_bytes(block.data(), block.size());
      }
    }
  }
}

void write_fragment(WriteStream& stream, const PacketLayout& layout, const ChannelConfig& channel,
                    const OutgoingFragment& fragment) {
  uint16_t id = fragment.message_id;
  serialize_bits(stream, id, 16);
  const int max_fragments = channel.max_fragments_per_block();
  auto count = static_cast<uint32_t>(fragment.fragment_count);
  if (max_fragments > 1) serialize_int(stream, count, 1u, static_cast<uint32_t>(max_fragments));
  auto fragment_id = static_cast<uint32_t>(fragment.fragment_id);
  if (count > 1) serialize_int(stream, fragment_id, 0u, count - 1);
  auto size = static_cast<uint32_t>(fragment.data.size());
  serialize_int(stream, size, 1u, static_cast<uint32_t>(channel.block_fragment_size));
  stream.write_align();
  stream.write_bytes(fragment.data.data(), fragment.data.size());
  if (fragment_id == 0) {
    BITWIRE_ASSERT(fragment.message != nullptr);
    write_type(stream, layout, *fragment.message);
    write_body(stream, *fragment.message);
  }
}

}  // namespace

size_t write_connection_packet(const PacketLayout& layout, std::span<const OutgoingEntry> entries,
                               std::span<std::byte> out, DeltaBaselines* delta) {
  WriteStream stream(out);
  const auto channels = static_cast<uint32_t>(layout.channel_count());
  auto count = static_cast<uint32_t>(entries.size());
  serialize_int(stream, count, 0u, channels);
  for (const OutgoingEntry& entry : entries) {
    if (channels > 1) {
      auto index = static_cast<uint32_t>(entry.channel);
      serialize_int(stream, index, 0u, channels - 1);
    }
    bool block = entry.block;
    serialize_bool(stream, block);
    const ChannelConfig& channel = layout.channels[static_cast<size_t>(entry.channel)];
    if (!block) {
      write_messages(stream, layout, channel, entry.messages, delta);
    } else {
      write_fragment(stream, layout, channel, entry.fragment);
    }
  }
  stream.flush();
  return stream.bytes_processed();
}

// ---- Reading ----

size_t IncomingPacket::memory_required(std::span<const ChannelConfig> channels) {
  size_t messages = 0;
  size_t fragment_bytes = 0;
  for (const ChannelConfig& c : channels) {
    messages += static_cast<size_t>(c.max_messages_per_packet);
    if (c.type == ChannelType::kReliableOrdered && !c.disable_blocks) {
      fragment_bytes += static_cast<size_t>(c.block_fragment_size);
    }
  }
  return channels.size() * (sizeof(Entry) + sizeof(size_t)) + messages * sizeof(Message) + fragment_bytes;
}

IncomingPacket::IncomingPacket(const PacketLayout& layout) {
  const auto channels = static_cast<size_t>(layout.channel_count());
  size_t messages = 0;
  size_t fragment_bytes = 0;
  fragment_offset_.reset(new size_t[channels]);
  for (size_t i = 0; i < channels; ++i) {
    const ChannelConfig& c = layout.channels[i];
    messages += static_cast<size_t>(c.max_messages_per_packet);
    fragment_offset_[i] = fragment_bytes;
    if (c.type == ChannelType::kReliableOrdered && !c.disable_blocks) {
      fragment_bytes += static_cast<size_t>(c.block_fragment_size);
    }
  }
  entries_.reset(new Entry[channels]);
  messages_.reset(new Message[messages]);
  fragment_bytes_.reset(new std::byte[fragment_bytes == 0 ? 1 : fragment_bytes]);
  memory_bytes_ = memory_required(layout.channels);
}

void IncomingPacket::clear() {
  for (int i = 0; i < message_count_; ++i) messages_[i].message.reset();
  for (int i = 0; i < entry_count_; ++i) entries_[i].fragment.message.reset();
  entry_count_ = 0;
  message_count_ = 0;
}

namespace {

// Reads a ranged field; a value out of range becomes `range_error`, anything else kReadFailed.
ConnectionPacketError read_int(ReadStream& stream, uint32_t& value, uint32_t min, uint32_t max,
                               ConnectionPacketError range_error) {
  if (serialize_int(stream, value, min, max)) return ConnectionPacketError::kNone;
  return stream.error() == ReadError::kValueOutOfRange ? range_error : ConnectionPacketError::kReadFailed;
}

struct Reader {
  const PacketLayout& layout;
  MessagePool& pool;
  ReadStream& stream;

  ConnectionPacketError read_type(uint32_t& type) {
    type = 0;
    const int types = layout.factory.type_count();
    if (types <= 1) return ConnectionPacketError::kNone;
    return read_int(stream, type, 0u, static_cast<uint32_t>(types - 1),
                    ConnectionPacketError::kMessageTypeOutOfRange);
  }

  // The receive path's create: the pool's receive reserve is for it (MessagePool::create_received); a
  // block's fragment 0 takes a block message slot first (`block`).
  ConnectionPacketError create(uint32_t type, MessageHandle& message, bool block = false) {
    message = block ? pool.create_received_block(type) : pool.create_received(type);
    return message ? ConnectionPacketError::kNone : ConnectionPacketError::kPoolExhausted;
  }

  ConnectionPacketError read_body(MessageHandle& message) {
    if (message.info().read(message.data(), stream)) return ConnectionPacketError::kNone;
    if (!stream.failed()) stream.fail(ReadError::kInvalidData);
    return ConnectionPacketError::kMessageBodyInvalid;
  }

  ConnectionPacketError read_block(const ChannelConfig& channel, MessageHandle& message) {
    if (channel.disable_blocks) return ConnectionPacketError::kBlocksDisabled;
    uint32_t size = 0;
    ConnectionPacketError error = read_int(stream, size, 1u, static_cast<uint32_t>(channel.max_block_size),
                                           ConnectionPacketError::kBlockSizeOutOfRange);
    if (error != ConnectionPacketError::kNone) return error;
    if (!stream.read_align()) return ConnectionPacketError::kReadFailed;
    if (size_t{size} * 8 > stream.bits_remaining()) {
      stream.fail(ReadError::kPastEnd);
      return ConnectionPacketError::kReadFailed;
    }
    const std::span<std::byte> block = message.allocate_received_block(size);
    if (block.empty()) return ConnectionPacketError::kPoolExhausted;
    return stream.read_bytes(block.data(), size) ? ConnectionPacketError::kNone
                                                 : ConnectionPacketError::kReadFailed;
  }
};

}  // namespace

ConnectionPacketError read_connection_packet(const PacketLayout& layout, MessagePool& pool,
                                             std::span<const std::byte> bytes, IncomingPacket& out,
                                             ReadError* stream_error, DeltaBaselines* delta) {
  out.clear();
  ReadStream stream(bytes);
  Reader reader{layout, pool, stream};
  const auto channels = static_cast<uint32_t>(layout.channel_count());

  const auto read_all = [&]() -> ConnectionPacketError {
    uint32_t entry_count = 0;
    ConnectionPacketError error =
        read_int(stream, entry_count, 0u, channels, ConnectionPacketError::kTooManyEntries);
    if (error != ConnectionPacketError::kNone) return error;
    int previous_channel = -1;
    for (uint32_t e = 0; e < entry_count; ++e) {
      uint32_t index = 0;
      if (channels > 1) {
        error = read_int(stream, index, 0u, channels - 1, ConnectionPacketError::kChannelIndexOutOfRange);
        if (error != ConnectionPacketError::kNone) return error;
      }
      if (static_cast<int>(index) <= previous_channel) return ConnectionPacketError::kChannelOrder;
      previous_channel = static_cast<int>(index);
      const ChannelConfig& channel = layout.channels[index];
      IncomingPacket::Entry& entry = out.entries_[out.entry_count_++];
      entry = IncomingPacket::Entry{};
      entry.channel = static_cast<int>(index);
      entry.first_message = out.message_count_;
      if (!serialize_bool(stream, entry.block)) return ConnectionPacketError::kReadFailed;

      if (!entry.block) {
        bool has_messages = false;
        if (!serialize_bool(stream, has_messages)) return ConnectionPacketError::kReadFailed;
        if (!has_messages) continue;
        uint32_t count = 0;
        error = read_int(stream, count, 1u, static_cast<uint32_t>(channel.max_messages_per_packet),
                         ConnectionPacketError::kMessageCountOutOfRange);
        if (error != ConnectionPacketError::kNone) return error;
        IncomingPacket::Message* messages = &out.messages_[out.message_count_];
        if (channel.type == ChannelType::kReliableOrdered) {
          uint16_t id = 0;
          if (!serialize_bits(stream, id, 16)) return ConnectionPacketError::kReadFailed;
          messages[0].id = id;
          // A correct sender (ReliableOrderedChannel::plan; yojimbo's GetMessagesToSend walks
          // min(messageSendQueueSize, messageReceiveQueueSize) ids) writes a packet's ids ascending from
          // its oldest unacked id and never reaches that id + receive_queue_size, a value both ends share
          // as they share max_messages_per_packet (bitwire folds it into its protocol id). So every id lies
          // less than the window past the first: a step back (lifted across the wrap) or a span of the
          // window is refused.
          const auto window = static_cast<uint32_t>(channel.receive_queue_size);
          uint32_t span = 0;  // from the first id; below the window
          for (uint32_t i = 1; i < count; ++i) {
            const uint32_t previous = messages[i - 1].id;
            uint32_t lifted = 0;
            if (!serialize_int_relative(stream, previous, lifted)) return ConnectionPacketError::kReadFailed;
            const uint32_t step = lifted - previous;
            if (step >= window - span) return ConnectionPacketError::kMessageIdInvalid;
            span += step;
            messages[i].id = static_cast<uint16_t>(lifted);
          }
          for (uint32_t i = 0; i < count; ++i) {
            uint32_t type = 0;
            if ((error = reader.read_type(type)) != ConnectionPacketError::kNone) return error;
            if ((error = reader.create(type, messages[i].message)) != ConnectionPacketError::kNone)
              return error;
            ++out.message_count_;
            ++entry.message_count;
            if ((error = reader.read_body(messages[i].message)) != ConnectionPacketError::kNone) return error;
            // A block message travels as fragments on a reliable channel, never inline.
            if (messages[i].message.info().has_block) return ConnectionPacketError::kBlockMessageInline;
          }
        } else {
          for (uint32_t i = 0; i < count; ++i) {
            uint32_t type = 0;
            if ((error = reader.read_type(type)) != ConnectionPacketError::kNone) return error;
            if ((error = reader.create(type, messages[i].message)) != ConnectionPacketError::kNone)
              return error;
            ++out.message_count_;
            ++entry.message_count;
            if (delta != nullptr && delta->handles(messages[i].message.info())) {
              error = delta->read(stream, messages[i].message, messages[i].id);
            } else {
              error = reader.read_body(messages[i].message);
            }
            if (error != ConnectionPacketError::kNone) return error;
            if (messages[i].message.info().has_block) {
              if ((error = reader.read_block(channel, messages[i].message)) != ConnectionPacketError::kNone)
                return error;
            }
          }
        }
        continue;
      }

      // A block fragment.
      if (channel.type != ChannelType::kReliableOrdered) return ConnectionPacketError::kFragmentOnUnreliable;
      if (channel.disable_blocks) return ConnectionPacketError::kBlocksDisabled;
      IncomingPacket::Fragment& fragment = entry.fragment;
      if (!serialize_bits(stream, fragment.message_id, 16)) return ConnectionPacketError::kReadFailed;
      const int max_fragments = channel.max_fragments_per_block();
      uint32_t fragment_count = 1;
      if (max_fragments > 1) {
        error = read_int(stream, fragment_count, 1u, static_cast<uint32_t>(max_fragments),
                         ConnectionPacketError::kFragmentCountOutOfRange);
        if (error != ConnectionPacketError::kNone) return error;
      }
      uint32_t fragment_id = 0;
      if (fragment_count > 1) {
        error = read_int(stream, fragment_id, 0u, fragment_count - 1,
                         ConnectionPacketError::kFragmentIdOutOfRange);
        if (error != ConnectionPacketError::kNone) return error;
      }
      uint32_t size = 0;
      error = read_int(stream, size, 1u, static_cast<uint32_t>(channel.block_fragment_size),
                       ConnectionPacketError::kFragmentSizeOutOfRange);
      if (error != ConnectionPacketError::kNone) return error;
      std::byte* destination = out.fragment_bytes_.get() + out.fragment_offset_[index];
      if (!stream.read_align() || !stream.read_bytes(destination, size))
        return ConnectionPacketError::kReadFailed;
      fragment.fragment_count = static_cast<int>(fragment_count);
      fragment.fragment_id = static_cast<int>(fragment_id);
      fragment.data = std::span<const std::byte>(destination, size);
      if (fragment_id == 0) {
        uint32_t type = 0;
        if ((error = reader.read_type(type)) != ConnectionPacketError::kNone) return error;
        if (!layout.factory.find(type)->has_block) return ConnectionPacketError::kFragmentNotBlockType;
        if ((error = reader.create(type, fragment.message, true)) != ConnectionPacketError::kNone)
          return error;
        if ((error = reader.read_body(fragment.message)) != ConnectionPacketError::kNone) return error;
      }
    }
    return ConnectionPacketError::kNone;
  };

  const ConnectionPacketError error = read_all();
  if (stream_error != nullptr) *stream_error = stream.error();
  if (error != ConnectionPacketError::kNone) out.clear();
  return error;
}

}  // namespace bitwire
