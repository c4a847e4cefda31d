// Messages: the runtime interface a message type plugs into, the per-package factory, and the fixed pool
// messages live in, owned through a move-only handle.
//
// A message type is any default-constructible struct with `template <typename Stream> bool
// serialize(Stream&)` (what idlc generates) and a `static constexpr uint32_t kTypeId`; optionally
// `static constexpr bool kHasBlock = true` for a message that carries a block of bytes. describe_message<T>()
// turns it into a MessageTypeInfo: plain data and function pointers, so channels and connections are
// ordinary (non-template) code and a package of thousands of types costs each file that sends messages
// nothing but one table.
//
//   inline constexpr bitwire::MessageTypeInfo kTypes[] = {
//       bitwire::describe_message<Hello>("Hello"), bitwire::describe_message<Chat>("Chat")};
//   inline constexpr bitwire::MessageFactory kFactory{kTypes};
//
// Contracts:
// - A factory's table is indexed by type id: kTypes[i].type_id == i (check() says which entry is not).
// - MessagePool: a byte budget (MessagePoolConfig::bytes) holding each message at its own type's size (a
//   MessageArena: a few large messages and many small ones share it), at most `capacity` messages alive, and
//   `block_count` block buffers of `max_block_size` bytes (or none of its own on a shared BlockArena), all
//   allocated in the constructor; create() and release never allocate. A message is value-initialised
//   (T()) in its bytes, so nothing of a released message shows in the next. An exhausted pool (no free
//   bytes large enough, or `capacity` messages alive) returns an empty handle and counts it (exhausted());
//   it never grows.
// - The receive reserve (MessagePoolConfig::receive_reserve messages of the factory's largest type) is a
//   region of the budget of its own: create() -- the application's -- never takes it, create_received()
//   -- the packet reader's -- takes it first and the application's room only when it is full. So however
//   greedily the application creates, the reserve is free once what was received there is released;
//   the count is split the same way: the application's room holds at most room_capacity() messages
//   (capacity less receive_reserve, at least min(capacity, 64)), whoever places them there (create(), the
//   packet reader with the reserve full, move_to_application()), so an application holding every handle
//   it can create still leaves one received packet's messages of the count;
//   Connection keeps there only what the application can receive at once and states the rest of the rule
//   (docs/channels.md section 2). move_to_application() moves a message out of it.
// - Received block messages: `block_messages` slots of the largest block type's size, outside the budget
//   and the count (their bytes at most kMaxMessageSlotBytes: check(factory) refuses more),
//   taken first by create_received_block() (a block's fragment 0, which its channel keeps until the block
//   is complete).
// - Received blocks lent by a channel (BlockLender) take no pool buffer: a reliable channel on a pool with
//   buffers of its own hands its reassembly buffer to the delivered message and takes it back when the
//   message is released (block_lent()). The buffers below then hold what the application sends, and what
//   the packet reader receives inline (unreliable channels) or a channel copies on a shared BlockArena.
// - Block buffers are shared by blocks the application attaches (outgoing) and blocks a channel
//   receives. `block_receive_reserve` of them are kept for received blocks: an application request
//   succeeds only while more buffers are free than the reserve still owes (the reserve minus the received
//   blocks alive) plus one per received block waiting for a buffer. So free + received-alive >= reserve
//   always holds: while fewer than `reserve` received blocks are alive a completed block always finds a
//   buffer, and otherwise the next freed buffer goes to the waiting block before any new outgoing one.
//   A received block then waits only for the application (to receive and release blocks), never for the
//   peer, which is what lets two peers that both send greedily keep receiving. Refusals say why
//   (BlockRefusal: kReservedForReceiving vs kNoBuffer).
// - MessageHandle owns one message: move-only, destroys the message and frees its slot (and its block)
//   when it goes out of scope or is reset. Every handle must be gone before its pool is destroyed
//   (asserted in debug builds); the pool's live() count lets tests prove nothing leaked.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <type_traits>

#include "bitwire/core/config.hpp"
#include "bitwire/core/config_table.hpp"
#include "bitwire/message/message_arena.hpp"
#include "bitwire/serialize/stream.hpp"

namespace bitwire {

// What the channels need to know about one message type.
struct MessageTypeInfo {
  const char* name = "";
  uint32_t type_id = 0;    // the type's index in its factory's table (T::kTypeId)
  uint32_t size = 0;       // sizeof(T)
  uint32_t align = 1;      // alignof(T)
  size_t max_bits = 0;     // T::MaxBits when the type declares it (conservative worst case), else 0
  bool has_block = false;  // T::kHasBlock: the message carries a block of bytes
  const void* tag = nullptr;  // identifies T (MessageHandle::as<T>)
  void (*construct)(void* storage) = nullptr;           // placement-new a default T
  void (*destroy)(void* message) = nullptr;             // ~T()
  bool (*write)(void* message, WriteStream& stream) = nullptr;
  bool (*read)(void* message, ReadStream& stream) = nullptr;
  bool (*measure)(void* message, MeasureStream& stream) = nullptr;
  bool (*validate)(void* message, ValidateStream& stream) = nullptr;
  // The delta form (`delta message`: T has serialize_delta and MaxDeltaBits), else all null / 0. A
  // Connection with ConnectionConfig::delta_baselines > 0 sends such a type on an unreliable channel as a
  // delta against a snapshot the peer acked (docs/delta.md).
  size_t max_delta_bits = 0;
  bool (*write_delta)(const void* message, const void* baseline, WriteStream& stream) = nullptr;
  bool (*read_delta)(void* message, const void* baseline, ReadStream& stream) = nullptr;
  void (*copy)(void* to, const void* from) = nullptr;  // *to = *from (a baseline kept)
  // Move-constructs a T at `to` from the T at `from` (which stays to be destroyed); null when T has no
  // nothrow move constructor. MessagePool::move_to_application uses it; a type without it leaves the
  // receive reserve by copy_to_application (its serialize functions) instead.
  void (*relocate)(void* to, void* from) = nullptr;
};

namespace detail {
template <typename T>
inline constexpr char kMessageTag = 0;

template <typename T>
constexpr size_t declared_max_bits() {
  if constexpr (requires { T::MaxBits; }) {
    return static_cast<size_t>(T::MaxBits);
  } else {
    return 0;
  }
}

template <typename T>
concept HasDeltaForm = requires(T& message, const T& baseline, WriteStream& w, ReadStream& r) {
  T::MaxBits;  // both bounds size the connection's scratch buffer
  T::MaxDeltaBits;
  { message.serialize_delta(w, baseline) } -> std::same_as<bool>;
  { message.serialize_delta(r, baseline) } -> std::same_as<bool>;
};

// Fills the delta entry points of `info` when T has the delta form.
template <typename T>
constexpr void describe_delta(MessageTypeInfo& info) {
  if constexpr (HasDeltaForm<T>) {
    info.max_delta_bits = static_cast<size_t>(T::MaxDeltaBits);
    info.write_delta = [](const void* message, const void* baseline, WriteStream& stream) {
      return static_cast<const T*>(message)->serialize_delta(stream, *static_cast<const T*>(baseline));
    };
    info.read_delta = [](void* message, const void* baseline, ReadStream& stream) {
      return static_cast<T*>(message)->serialize_delta(stream, *static_cast<const T*>(baseline));
    };
    info.copy = [](void* to, const void* from) { *static_cast<T*>(to) = *static_cast<const T*>(from); };
  }
}

template <typename T>
constexpr bool declared_has_block() {
  if constexpr (requires { T::kHasBlock; }) {
    return static_cast<bool>(T::kHasBlock);
  } else {
    return false;
  }
}
}  // namespace detail

template <typename T>
concept MessageBody = std::is_default_constructible_v<T> && requires(T& message, WriteStream& w, ReadStream& r,
                                                                     MeasureStream& m, ValidateStream& v) {
  { T::kTypeId } -> std::convertible_to<uint32_t>;
  { message.serialize(w) } -> std::same_as<bool>;
  { message.serialize(r) } -> std::same_as<bool>;
  { message.serialize(m) } -> std::same_as<bool>;
  { message.serialize(v) } -> std::same_as<bool>;
};

// The four stream entry points of one message type, each taking the message as `void*` (a T).
struct MessageSerializers {
  bool (*write)(void* message, WriteStream& stream) = nullptr;
  bool (*read)(void* message, ReadStream& stream) = nullptr;
  bool (*measure)(void* message, MeasureStream& stream) = nullptr;
  bool (*validate)(void* message, ValidateStream& stream) = nullptr;
};

// The descriptor of message type T with serialize entry points defined elsewhere: nothing of T's
// serialize is compiled here. idlc's factory uses it so that the table and the entry points of a large
// package can live in several translation units (the functions must call T's serialize).
template <MessageBody T>
constexpr MessageTypeInfo describe_message(const char* name, const MessageSerializers& serializers) {
  MessageTypeInfo info;
  info.name = name;
  info.type_id = static_cast<uint32_t>(T::kTypeId);
  info.size = sizeof(T);
  info.align = alignof(T);
  info.max_bits = detail::declared_max_bits<T>();
  info.has_block = detail::declared_has_block<T>();
  info.tag = &detail::kMessageTag<T>;
  info.construct = [](void* storage) { ::new (storage) T(); };
  info.destroy = [](void* message) { static_cast<T*>(message)->~T(); };
  // Only a move that cannot throw: a throwing one would leave the new bytes taken and the message in both.
  if constexpr (std::is_nothrow_move_constructible_v<T>) {
    info.relocate = [](void* to, void* from) { ::new (to) T(std::move(*static_cast<T*>(from))); };
  }
  info.write = serializers.write;
  info.read = serializers.read;
  info.measure = serializers.measure;
  info.validate = serializers.validate;
  detail::describe_delta<T>(info);
  return info;
}

// The descriptor of message type T (see the header comment for what T provides), its serialize compiled
// here for the four stream kinds.
template <MessageBody T>
constexpr MessageTypeInfo describe_message(const char* name) {
  return describe_message<T>(
      name, MessageSerializers{
                [](void* message, WriteStream& stream) { return static_cast<T*>(message)->serialize(stream); },
                [](void* message, ReadStream& stream) { return static_cast<T*>(message)->serialize(stream); },
                [](void* message, MeasureStream& stream) { return static_cast<T*>(message)->serialize(stream); },
                [](void* message, ValidateStream& stream) { return static_cast<T*>(message)->serialize(stream); }});
}

// A package's message types, indexed by type id. Cheap to copy (a span over a static table).
class MessageFactory {
 public:
  constexpr MessageFactory() = default;
  constexpr explicit MessageFactory(std::span<const MessageTypeInfo> types) : types_(types) {}

  int type_count() const { return static_cast<int>(types_.size()); }
  // The descriptor of `type_id`, or nullptr for an id outside the table.
  const MessageTypeInfo* find(uint32_t type_id) const {
    return type_id < types_.size() ? &types_[type_id] : nullptr;
  }
  std::span<const MessageTypeInfo> types() const { return types_; }
  // True when any type carries a block.
  bool any_block_type() const;
  // Passes when the table is usable, else why not (empty, an entry out of place, a missing function).
  ConfigCheck check() const;
  // The largest sizeof / alignof over the table: what a pool slot must hold.
  size_t max_size() const;
  size_t max_align() const;

 private:
  std::span<const MessageTypeInfo> types_;
};

class MessagePool;
class ReliableOrderedChannel;

// Lends received block bytes to a message without copying them into a pool buffer: a reliable channel
// reassembles a block in its own buffer and, on a pool with buffers of its own, hands that buffer to the
// delivered message (MessagePool's contract). The pool calls block_returned() once the message no longer
// holds it (released, reset, or given another block); the lender keeps the bytes untouched until then.
class BlockLender {
 public:
  virtual void block_returned() = 0;

 protected:
  ~BlockLender() = default;
};

// Why a block request was refused.
enum class BlockRefusal : uint8_t {
  kNone,                  // granted
  kEmptyHandle,           // the handle holds no message
  kNotBlockType,          // the message type carries no block
  kSizeOutOfRange,        // size 0 or above the pool's max_block_size
  kNoBuffer,              // every block buffer is in use (queued, in flight, received or held)
  kReservedForReceiving,  // the free buffers are kept for received blocks
                          // (MessagePoolConfig::block_receive_reserve, or received blocks waiting for one)
  kSharedBuffersInUse,    // the pool may take another buffer, but every buffer of its shared BlockArena is in
                          // use
};
const char* to_string(BlockRefusal refusal);

// A block buffer to fill in place, or why there is none.
struct BlockAllocation {
  std::span<std::byte> bytes;
  BlockRefusal refusal = BlockRefusal::kNone;
  explicit operator bool() const { return refusal == BlockRefusal::kNone; }
};

// Owns one message in a MessagePool. Move-only; releases the message (and its block) on destruction.
class MessageHandle {
 public:
  MessageHandle() = default;
  ~MessageHandle() { reset(); }
  MessageHandle(MessageHandle&& other) noexcept : pool_(other.pool_), slot_(other.slot_) { other.pool_ = nullptr; }
  MessageHandle& operator=(MessageHandle&& other) noexcept {
    if (this != &other) {
      reset();
      pool_ = other.pool_;
      slot_ = other.slot_;
      other.pool_ = nullptr;
    }
    return *this;
  }
  MessageHandle(const MessageHandle&) = delete;
  MessageHandle& operator=(const MessageHandle&) = delete;

  explicit operator bool() const { return pool_ != nullptr; }
  // Destroys the message and frees its slot; the handle becomes empty.
  inline void reset();

  // Preconditions for the accessors below: the handle is not empty. (Defined after MessagePool, inline:
  // the channels and the packet paths call them for every message.)
  inline uint32_t type() const;
  inline const MessageTypeInfo& info() const;
  inline void* data();
  inline const void* data() const;
  MessagePool* pool() const { return pool_; }

  // The message as T, or nullptr when it is not a T (or the handle is empty).
  template <typename T>
  T* as() {
    return (pool_ != nullptr && info().tag == &detail::kMessageTag<T>) ? static_cast<T*>(data()) : nullptr;
  }
  template <typename T>
  const T* as() const {
    return (pool_ != nullptr && info().tag == &detail::kMessageTag<T>) ? static_cast<const T*>(data()) : nullptr;
  }

  // The attached block (empty when none).
  std::span<const std::byte> block() const;
  // Copies `bytes` (1..max_block_size) into a block buffer of the pool, replacing any attached block
  // (whose buffer is reused: no new buffer is taken). kNone, or why not: the message type carries no
  // block, the size is out of range, no block buffer is free, or the free ones are reserved for
  // receiving (MessagePool's contract above).
  BlockRefusal try_attach_block(std::span<const std::byte> bytes);
  // What try_attach_block of `size` bytes would answer now, without taking anything or counting a refusal.
  BlockRefusal block_refusal(size_t size) const;
  // A block of `size` bytes to fill in place (the same rules as try_attach_block). The bytes are zeroed
  // first, on every pool and also when the handle's block is reused: a buffer outlives the message (and the
  // client of a server slot) that last held it, so what the caller does not write shows no earlier block.
  BlockAllocation try_allocate_block(size_t size);
  // The same without the reason: false / an empty span on any refusal.
  bool attach_block(std::span<const std::byte> bytes) { return try_attach_block(bytes) == BlockRefusal::kNone; }
  std::span<std::byte> allocate_block(size_t size) { return try_allocate_block(size).bytes; }
  // The receive path's request (channels and the packet reader, for a block that came off the wire): any
  // free buffer, the reserve included; the buffer counts as received until released. Not for application
  // blocks, which would eat the reserve meant for receiving.
  std::span<std::byte> allocate_received_block(size_t size);
  // True when the block was lent by its channel (a received block on a pool with buffers of its own) rather
  // than held in a buffer of the pool: try_attach_block / try_allocate_block then take a pool buffer under
  // the rules above (the lent bytes stay attached when refused) and give the lent one back, and
  // Connection::send moves it into a pool buffer once the send is certain to be accepted (a refused send
  // leaves it lent), so a lent buffer never waits on the peer's acks.
  bool block_lent() const;

 private:
  friend class MessagePool;
  // `zero`: clear the bytes first (a block filled in place).
  BlockAllocation take_block(size_t size, bool received, bool zero);
  MessageHandle(MessagePool* pool, uint32_t slot) : pool_(pool), slot_(slot) {}
  MessagePool* pool_ = nullptr;
  uint32_t slot_ = 0;
};

// The body of the handle's message through its type's table entry (no type id): the one call that
// dispatches a stream over a message of any type in constant time. The handle must not be empty.
template <typename Stream>
bool serialize_message_body(Stream& stream, MessageHandle& message) {
  const MessageTypeInfo& info = message.info();
  if constexpr (std::is_same_v<Stream, WriteStream>) {
    return info.write(message.data(), stream);
  } else if constexpr (std::is_same_v<Stream, ReadStream>) {
    return info.read(message.data(), stream);
  } else if constexpr (std::is_same_v<Stream, MeasureStream>) {
    return info.measure(message.data(), stream);
  } else {
    static_assert(std::is_same_v<Stream, ValidateStream>, "a message table serves the four stream kinds");
    return info.validate(message.data(), stream);
  }
}

// The most memory a pool's block buffers may take (block_count x max_block_size); a config above it is
// refused. 1 GiB: 16 buffers of the largest reliable block (64 MiB).
inline constexpr size_t kMaxBlockPoolBytes = size_t{1} << 30;
// The most memory a pool's messages may take (its byte budget, MessagePoolConfig::bytes, given or derived);
// a config above it is refused for that factory (check(factory)). 1 GiB.
inline constexpr size_t kMaxMessageSlotBytes = size_t{1} << 30;

struct MessagePoolConfig {
  int capacity = 1024;               // messages alive at once in the budget (queued, in flight, received,
                                     // held by the user; block message slots aside), of which the
                                     // application's room takes at most capacity - receive_reserve (>= 64)
  int block_count = 0;               // block buffers (one per message carrying a block); 0 = no blocks
  int max_block_size = 256 * 1024;   // bytes per block buffer
  int block_receive_reserve = 0;     // block buffers only received blocks may take (0..block_count)
  int bytes = 0;                     // the messages' byte budget (each message takes its type's size plus its
                                     // header, MessagePool::message_bytes); 0 = derived (bytes_for)
  int receive_reserve = 0;           // messages of the largest type (at most capacity): a region of the
                                     // budget only the receive path creates in (a Connection: one received
                                     // packet of every channel's most messages)
  int block_messages = 0;            // slots for received block messages outside the budget
  int large_messages = -1;           // with bytes 0: the derived budget holds `capacity` messages of the
                                     // smallest type and this many of the largest; -1 = capacity of them
  int least_bytes = 0;               // with bytes 0: the derived budget is at least this, but never more
                                     // than capacity messages of the largest type

  // Passes when every field is within kMessagePoolConfigLimits (the block buffers within
  // kMaxBlockPoolBytes), else the reason (held in the ConfigCheck; see config_table.hpp).
  ConfigCheck check() const;
  // check(), the budget for `factory` within kMaxMessageSlotBytes, the block message slots' bytes within
  // it too, and a given budget holding the receive reserve and one more message of the largest type.
  ConfigCheck check(const MessageFactory& factory) const;
  // A warning, not a refusal (check() passes and the pool runs): fails when capacity is below
  // receive_reserve + 64. The application's room then takes 64 of the count all the same, part of the
  // reserve's share, so while the application holds them the packet reader has fewer than one received
  // packet's messages and refuses packets that bring more (packets_pool_exhausted) until it releases. The
  // pool logs it at LogLevel::kWarning when built; the reason names both numbers.
  ConfigCheck count_warning() const;
  // This config with every field clamped into range (block_count lowered to the block memory cap).
  MessagePoolConfig sanitized() const;
  // sanitized(), block_messages lowered until the slots' bytes fit kMaxMessageSlotBytes, capacity lowered
  // until the derived budget for `factory` fits it, and a
  // given budget raised to hold the receive reserve and one message of the largest type.
  MessagePoolConfig sanitized(const MessageFactory& factory) const;
  // The byte budget of this config for `factory` (its fields in range): `bytes`, or when 0 the largest of
  // application x the smallest type's message_bytes + large x (the largest's - the smallest's) + reserve x
  // the largest's, min(least_bytes, capacity x the largest's), and (reserve + 1) x the largest's, where
  // reserve is receive_reserve at most capacity, application the rest of the count (at least
  // min(capacity, 64)), and large large_messages (-1: all of them) at most application.
  size_t bytes_for(const MessageFactory& factory) const;
};

// The limits of MessagePoolConfig. max_block_size comes before block_count, and block_count before
// block_receive_reserve: each bound is computed from the field before it.
inline constexpr auto kMessagePoolConfigLimits = config_table(
    Field<MessagePoolConfig, int>{
        .name = "capacity", .member = &MessagePoolConfig::capacity, .min = 1, .max = 1 << 24},
    Field<MessagePoolConfig, int>{.name = "max_block_size",
                                  .member = &MessagePoolConfig::max_block_size,
                                  .min = 1,
                                  .max = 1 << 30,
                                  .unit = "bytes"},
    Field<MessagePoolConfig, int>{.name = "block_count",
                                  .member = &MessagePoolConfig::block_count,
                                  .min = 0,
                                  .max = 1 << 16,
                                  .upper =
                                      [](const MessagePoolConfig& c) {
                                        return static_cast<int>(
                                            kMaxBlockPoolBytes /
                                            static_cast<size_t>(std::max(c.max_block_size, 1)));
                                      },
                                  .upper_text = "1 GiB / max_block_size"},
    Field<MessagePoolConfig, int>{.name = "block_receive_reserve",
                                  .member = &MessagePoolConfig::block_receive_reserve,
                                  .min = 0,
                                  .max = 1 << 16,
                                  .upper = [](const MessagePoolConfig& c) { return c.block_count; },
                                  .upper_text = "block_count"},
    Field<MessagePoolConfig, int>{.name = "bytes",
                                  .member = &MessagePoolConfig::bytes,
                                  .min = 0,
                                  .max = static_cast<int>(kMaxMessageSlotBytes),
                                  .unit = "bytes"},
    Field<MessagePoolConfig, int>{
        .name = "large_messages", .member = &MessagePoolConfig::large_messages, .min = -1, .max = 1 << 24},
    Field<MessagePoolConfig, int>{.name = "least_bytes",
                                  .member = &MessagePoolConfig::least_bytes,
                                  .min = 0,
                                  .max = static_cast<int>(kMaxMessageSlotBytes),
                                  .unit = "bytes"},
    Field<MessagePoolConfig, int>{
        .name = "receive_reserve", .member = &MessagePoolConfig::receive_reserve, .min = 0, .max = 1 << 20},
    Field<MessagePoolConfig, int>{
        .name = "block_messages", .member = &MessagePoolConfig::block_messages, .min = 0, .max = 1 << 10});

// Block buffers shared by many MessagePools (a server's slots): `buffer_count` buffers of `buffer_size`
// bytes, allocated in the constructor, never grown. A pool built on an arena allocates no block buffer of
// its own: it takes one from the arena when a block needs it (at most its config's block_count at once)
// and gives it back on release, so a server's block memory is what the game declares for the blocks in
// flight at once across all its peers, not block_count x every slot. When the arena is empty an
// application request is refused (BlockRefusal::kSharedBuffersInUse) and a received block waits in its
// channel (its next block's packets dropped unacked so the peer resends, as for a full pool). The hand-off
// of MessagePool's contract holds across the arena: while received blocks of any of its pools wait, an
// application request of any pool succeeds only while more buffers are free than blocks wait
// (kReservedForReceiving otherwise), so the next buffer freed goes to a waiting received block, which its
// channel takes at its next update, receive() or packet. No byte of one peer's block reaches another: a
// block filled in place is zeroed first (MessageHandle::try_allocate_block). Not thread-safe (one server
// thread); not movable (pools point to it); every pool on it must be destroyed first.
class BlockArena {
 public:
  // Counts outside [0, 1 << 16], sizes outside [1, 1 GiB] or a total above kMaxBlockPoolBytes are clamped.
  BlockArena(int buffer_count, size_t buffer_size);
  BlockArena(const BlockArena&) = delete;
  BlockArena& operator=(const BlockArena&) = delete;

  int buffer_count() const { return count_; }
  size_t buffer_size() const { return size_; }
  int buffers_free() const { return free_count_; }
  uint64_t exhausted() const { return exhausted_; }  // requests refused because every buffer was in use
  // Received blocks of its pools below their cap waiting for a buffer now (each is owed one of the next
  // freed).
  int receive_waiters() const { return receive_waiters_; }
  size_t memory_bytes() const { return memory_required(count_, size_); }
  static size_t memory_required(int buffer_count, size_t buffer_size) {
    return static_cast<size_t>(buffer_count) * (buffer_size + sizeof(int32_t));
  }

 private:
  friend class MessagePool;
  friend class MessageHandle;
  int take();
  void give(int buffer) { free_[static_cast<size_t>(free_count_++)] = buffer; }
  std::byte* buffer(int index) const { return storage_.get() + static_cast<size_t>(index) * size_; }

  int count_ = 0;
  size_t size_ = 0;
  std::unique_ptr<std::byte[]> storage_;
  std::unique_ptr<int32_t[]> free_;
  int free_count_ = 0;
  uint64_t exhausted_ = 0;
  int receive_waiters_ = 0;
};

// Fixed storage for messages of one factory. Not thread-safe; not movable (handles point to it).
class MessagePool {
 public:
  // A config that fails config.check(factory) is flagged (ok() false, error_reason() says why) and its
  // sanitized(factory) copy is used: the pool never allocates past its caps. A factory that fails check()
  // is flagged the same way and the pool holds no slot (create() returns empty handles).
  MessagePool(const MessageFactory& factory, const MessagePoolConfig& config);
  // The same with its block buffers taken from `shared_blocks` (nullptr: its own), whose buffer_size must
  // be at least the config's max_block_size (else the pool is flagged and holds no block buffer): the pool
  // holds at most config.block_count of them at once and allocates none itself.
  MessagePool(const MessageFactory& factory, const MessagePoolConfig& config, BlockArena* shared_blocks);
  ~MessagePool();
  MessagePool(const MessagePool&) = delete;
  MessagePool& operator=(const MessagePool&) = delete;

  // A default-constructed message of `type_id`, or an empty handle when the id is unknown or the pool is
  // exhausted (counted in exhausted()); the application's: the receive reserve is not its.
  MessageHandle create(uint32_t type_id);
  // The receive path's create (the packet reader): in the receive reserve, or when it is full the
  // application's room.
  MessageHandle create_received(uint32_t type_id);
  // A received block message (a block's fragment 0): a block message slot when one is free, else as
  // create_received().
  MessageHandle create_received_block(uint32_t type_id);
  template <typename T>
  MessageHandle create() {
    return create(static_cast<uint32_t>(T::kTypeId));
  }

  const MessageFactory& factory() const { return factory_; }
  int capacity() const { return capacity_; }
  // The application's share of the count (create() and moves into its room stop there): capacity() less
  // the receive reserve's messages, at least min(capacity(), 64).
  int room_capacity() const { return room_capacity_; }
  // The byte budget (whole granules) and what of it is free now.
  size_t bytes() const { return (size_t{messages_.granules()} + receive_.granules()) * messages_.granule(); }
  size_t bytes_free() const {
    return (size_t{messages_.granules_free()} + receive_.granules_free()) * messages_.granule();
  }
  // The receive reserve's bytes (whole granules, part of bytes()) and what of them is free now.
  size_t receive_reserve_bytes() const { return size_t{receive_.granules()} * receive_.granule(); }
  size_t receive_reserve_free() const { return size_t{receive_.granules_free()} * receive_.granule(); }
  // Where a message of this pool sits: the receive reserve, a block message slot, or else the
  // application's room.
  bool in_receive_reserve(const MessageHandle& message) const {
    return message.pool_ == this && message.slot_ >= messages_.granules() &&
           message.slot_ < block_slots_base_;
  }
  bool in_block_slot(const MessageHandle& message) const {
    return message.pool_ == this && message.slot_ >= block_slots_base_;
  }
  // Moves a message of this pool into new bytes of the application's room (as create() takes them) and
  // frees its old ones; the handle, its block and its contents stay. False, and nothing changes, when there
  // is no such room or the type cannot be moved (MessageTypeInfo::relocate). What Connection does with a
  // received message that leaves the receive reserve for longer than the application takes to receive it.
  bool move_to_application(MessageHandle& message);
  // The same for a type without relocate (no nothrow move constructor): a new message in the application's
  // room read back from what the old one writes into `scratch`; the block stays with the handle. `bits` is
  // at most what the message writes (its validated size); false, and nothing changes, when that and a word
  // more do not fit `scratch`, there is no room, or the type's read refuses what its write gave.
  bool copy_to_application(MessageHandle& message, std::span<std::byte> scratch, size_t bits);
  int block_message_slots() const { return block_slot_count_; }
  // The bytes one message of `info`'s type takes in the budget: its header and its type, rounded up to
  // whole granules and to the arena's size classes (MessageArena::class_size). The granule is the
  // factory's largest alignment, at least 8.
  static size_t message_bytes(const MessageFactory& factory, const MessageTypeInfo& info);
  // The application's room, and the receive reserve (its indexes offset by the application room's size).
  const MessageArena& arena() const { return messages_; }
  const MessageArena& receive_arena() const { return receive_; }
  int live() const { return live_; }
  int blocks_live() const { return blocks_live_; }
  int block_count() const { return block_count_; }
  size_t max_block_size() const { return max_block_size_; }
  uint64_t exhausted() const { return exhausted_; }  // create() calls refused for lack of bytes or capacity
  uint64_t blocks_exhausted() const { return blocks_exhausted_; }  // block requests refused for lack of a buffer
  int block_receive_reserve() const { return block_receive_reserve_; }
  int blocks_received_live() const { return blocks_received_live_; }  // buffers holding received blocks
  // Buffers a request may take now: with a shared arena, what the pool's cap and the arena both allow.
  int blocks_free() const {
    return arena_ == nullptr ? free_block_count_
                             : std::min(block_count_ - blocks_live_, arena_->buffers_free());
  }
  const BlockArena* shared_blocks() const { return arena_; }
  // Buffers an application request may not take now: what the reserve still owes + waiting received blocks
  // (on a shared arena, those of every pool on it).
  int blocks_reserved() const;
  // True when an application block request (try_allocate_block) would find a buffer now.
  bool can_allocate_block() const { return blocks_free() > blocks_reserved(); }
  int receive_waiters() const { return receive_waiters_; }  // received blocks waiting for a buffer
  // Application requests refused with kReservedForReceiving (a buffer was free but kept).
  uint64_t blocks_reserved_refusals() const { return blocks_reserved_refusals_; }
  // Bytes allocated at construction (a shared arena's buffers are the arena's, not counted here), the
  // lenders' table included.
  size_t memory_bytes() const;
  // Room for `count` BlockLenders (the reliable channels that lend it received blocks): called once by the
  // owner at construction, before any lender registers (it allocates lender_bytes(count)). Without it no
  // channel can lend, and received blocks are copied into pool buffers.
  void reserve_lenders(int count);
  static size_t lender_bytes(int count);
  // What a pool of `config` (sanitized for `factory`) allocates; `shared_blocks`: on a BlockArena.
  static size_t memory_required(const MessageFactory& factory, const MessagePoolConfig& config,
                                bool shared_blocks = false);
  // False when the config given to the constructor was refused (the sanitized one is in use).
  bool ok() const { return error_reason_ == nullptr; }
  // nullptr when ok(), else why the config was refused (owned by the pool).
  const char* error_reason() const { return error_reason_; }

 private:
  friend class MessageHandle;
  friend class ReliableOrderedChannel;
  struct SlotState {
    int32_t block = -1;  // block buffer index; -1: none; -2 - i: lent by lenders_[i]
    uint32_t block_size = 0;
    uint16_t type_id = 0;         // a factory holds at most 65536 types
    bool block_received = false;  // the buffer was taken for a received block (counts toward the reserve)
  };
  static constexpr int32_t lent_index(int lender) { return -2 - lender; }
  // A channel registers itself as a lender (its index, or -1 when the reserved room is taken) and
  // unregisters before it goes; lend_block attaches `size` bytes of the lender's buffer to `message`.
  int add_lender(BlockLender* lender, const std::byte* data);
  void remove_lender(int lender);
  void lend_block(MessageHandle& message, int lender, uint32_t size);
  // Attaches pool buffer `block` (taken with take_block(true)) holding `size` received bytes to `message`.
  void attach_received_block(MessageHandle& message, int block, uint32_t size);
  // Gives a lent block back to its lender (the slot then holds no block).
  void return_lent(SlotState& state);
  // A channel's completed block starts / stops waiting for a buffer (the hand-off: while one waits, a
  // freed buffer goes to it, not to the application).
  // On an arena, only the waiters of a pool below its cap are owed arena buffers (one at its cap cannot take
  // one, so it must not hold one back from other slots); take_block and free_block move this pool's
  // waiters in and out of the arena's count as the pool reaches and leaves its cap.
  void add_receive_waiter() {
    ++receive_waiters_;
    if (arena_ != nullptr && blocks_live_ < block_count_) ++arena_->receive_waiters_;
  }
  void remove_receive_waiter() {
    BITWIRE_ASSERT(receive_waiters_ > 0);
    --receive_waiters_;
    if (arena_ != nullptr && blocks_live_ < block_count_) --arena_->receive_waiters_;
  }
  void release(uint32_t slot);
  // Gives a message's bytes back to the region they came from.
  void free_slot(uint32_t slot);
  enum class Use : uint8_t { kApplication, kReceived, kReceivedBlock };
  MessageHandle make(uint32_t type_id, Use use);
  // The granules a message of `info` takes (header and type, in whole granules, a class_size value).
  // (The granule is a power of two: the division is a shift.)
  uint32_t granules_of(const MessageTypeInfo& info) const {
    return MessageArena::granules_for(header_bytes_ + info.size, granule_shift_);
  }
  // A message's block in the arena (or a block message slot past it): the arena's 4-byte header, its
  // SlotState, then (at header_bytes_, the two rounded up to a granule) the message. `slot` is the block's
  // granule index.
  SlotState& state(uint32_t slot) const {
    return *std::launder(reinterpret_cast<SlotState*>(messages_.at(slot) + MessageArena::kHeaderBytes));
  }
  void* slot_data(uint32_t slot) const { return messages_.at(slot) + header_bytes_; }
  int take_block(bool received);
  void free_block(int block, bool received);
  std::byte* block_data(int block) const {
    return arena_ != nullptr ? arena_->buffer(block)
                             : block_storage_.get() + static_cast<size_t>(block) * max_block_size_;
  }

  // What every create and release reads comes first: the factory, the counts, the application's arena
  // (its own hot fields first), then the receive reserve's. (Aligning the reserve's arena to a cache line
  // of its own measured slower in wall time, though not under callgrind: bench/RESULTS.md.)
  MessageFactory factory_;
  int capacity_ = 0;
  int live_ = 0;
  // Messages alive in the application's room, and its share of the count: capacity_ less the receive
  // reserve's messages (at least min(capacity_, 64)). Every message placed there -- created, received with
  // the reserve full, or moved there -- counts against it, so with the reserve empty one received packet's
  // messages always fit the count.
  int room_live_ = 0;
  int room_capacity_ = 0;
  int slot_live_ = 0;  // messages in block message slots (outside the budget and the count)
  uint32_t block_slots_base_ = 0;
  size_t header_bytes_ = 0;  // from a block's start to its message: the arena header and SlotState
  int granule_shift_ = 3;    // log2 of the arena's granule
  MessageArena messages_;
  // The receive reserve, over the first granules of messages_'s tail (a slot there is messages_'s granule
  // count + its own index), then the block message slots: block_slot_count_ of block_slot_granules_ each.
  MessageArena receive_;
  char error_reason_text_[kConfigReasonBytes] = {};
  const char* error_reason_ = nullptr;
  uint64_t exhausted_ = 0;
  int block_slot_count_ = 0;
  uint32_t block_slot_granules_ = 0;
  std::unique_ptr<uint32_t[]> free_block_slots_;
  int free_block_slot_count_ = 0;

  int block_count_ = 0;
  size_t max_block_size_ = 0;
  std::unique_ptr<std::byte[]> block_storage_;
  std::unique_ptr<int32_t[]> free_blocks_;
  int free_block_count_ = 0;
  int blocks_live_ = 0;
  uint64_t blocks_exhausted_ = 0;
  int block_receive_reserve_ = 0;
  int blocks_received_live_ = 0;
  int receive_waiters_ = 0;
  uint64_t blocks_reserved_refusals_ = 0;
  BlockArena* arena_ = nullptr;  // where block buffers come from when shared (block_storage_ then empty)
  struct Lender {
    BlockLender* lender = nullptr;
    const std::byte* data = nullptr;
  };
  std::unique_ptr<Lender[]> lenders_;
  int lender_capacity_ = 0;
  int lender_count_ = 0;
};

inline void MessageHandle::reset() {
  if (pool_ != nullptr) {
    pool_->release(slot_);
    pool_ = nullptr;
  }
}

inline uint32_t MessageHandle::type() const {
  return pool_->state(slot_).type_id;
}

inline const MessageTypeInfo& MessageHandle::info() const {
  return pool_->factory_.types()[type()];
}

inline void* MessageHandle::data() {
  return pool_->slot_data(slot_);
}

inline const void* MessageHandle::data() const {
  return pool_->slot_data(slot_);
}

}  // namespace bitwire
