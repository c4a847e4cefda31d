// MessageFactory checks, MessagePool storage, MessageHandle release and blocks.
#include "bitwire/message/message.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include "bitwire/core/log.hpp"

namespace bitwire {

bool MessageFactory::any_block_type() const {
  return std::any_of(types_.begin(), types_.end(), [](const MessageTypeInfo& t) { return t.has_block; });
}

ConfigCheck MessageFactory::check() const {
  if (types_.empty()) return ConfigCheck::failure("a message factory needs at least one message type");
  if (types_.size() > 65536) return ConfigCheck::failure("a message factory holds at most 65536 types");
  for (size_t i = 0; i < types_.size(); ++i) {
    const MessageTypeInfo& t = types_[i];
    if (t.type_id != i)
      return ConfigCheck::failure("message type table out of order: entry i must have type_id i");
    if (t.construct == nullptr || t.destroy == nullptr || t.write == nullptr || t.read == nullptr ||
        t.measure == nullptr || t.validate == nullptr || t.tag == nullptr) {
      return ConfigCheck::failure("message type entry lacks a function (build it with describe_message<T>)");
    }
    if (t.size == 0 || t.align == 0 || (t.align & (t.align - 1)) != 0) {
      return ConfigCheck::failure("message type entry has a bad size");
    }
  }
  return {};
}

size_t MessageFactory::max_size() const {
  size_t largest = 1;
  for (const MessageTypeInfo& t : types_) largest = std::max<size_t>(largest, t.size);
  return largest;
}

size_t MessageFactory::max_align() const {
  size_t largest = 1;
  for (const MessageTypeInfo& t : types_) largest = std::max<size_t>(largest, t.align);
  return largest;
}

// ---- MessagePool ----

namespace {

// The arena's granule: the factory's largest alignment (what placement-new of any of its types needs; not
// max_align_t, which would pad every message of a factory of 8-aligned types to 16), at least 8.
size_t granule_of(const MessageFactory& factory) {
  return std::max<size_t>(std::bit_ceil(std::max<size_t>(factory.max_align(), 1)), 8);
}

// The smallest and the largest message_bytes over the factory's types.
void message_bytes_range(const MessageFactory& factory, size_t& smallest, size_t& largest) {
  smallest = 0;
  largest = 0;
  for (const MessageTypeInfo& t : factory.types()) {
    const size_t bytes = MessagePool::message_bytes(factory, t);
    smallest = smallest == 0 ? bytes : std::min(smallest, bytes);
    largest = std::max(largest, bytes);
  }
}

// The bytes of one block message slot (the largest block type's message_bytes), 0 without a block type.
size_t block_slot_bytes(const MessageFactory& factory) {
  size_t largest = 0;
  for (const MessageTypeInfo& t : factory.types()) {
    if (t.has_block) largest = std::max(largest, MessagePool::message_bytes(factory, t));
  }
  return largest;
}

// What the derived budget gives the application at least beside a receive reserve that takes the whole
// count (a count given below one received packet's messages): the 64 held messages of
// ConnectionConfig's derived count.
constexpr size_t kApplicationMessages = 64;

// The application's room's share of a count of `count` messages (count >= 0): what the receive reserve's
// messages leave, at least kApplicationMessages of it when the reserve would take the whole count.
size_t room_count(size_t count, int receive_reserve) {
  const size_t reserve = std::min(static_cast<size_t>(std::max(receive_reserve, 0)), count);
  return std::max(count - reserve, std::min(count, kApplicationMessages));
}

// bytes_for() of `c` without its own check: what the derived budget comes to for `capacity`.
size_t derived_bytes(const MessagePoolConfig& c, int capacity, size_t smallest, size_t largest) {
  const size_t count = static_cast<size_t>(std::max(capacity, 1));
  // The reserve's messages at the largest type, and the application's room for the rest of the count
  // (the count holds the received packet's messages already), at least kApplicationMessages of it when the
  // reserve would take the whole count. Never below the reserve and one more message of the largest type.
  const size_t reserve = std::min(static_cast<size_t>(std::max(c.receive_reserve, 0)), count);
  const size_t application = room_count(count, c.receive_reserve);
  const size_t large =
      c.large_messages < 0 ? application : std::min(static_cast<size_t>(c.large_messages), application);
  return std::max({application * smallest + large * (largest - smallest) + reserve * largest,
                   std::min(count * largest, static_cast<size_t>(std::max(c.least_bytes, 0))),
                   (reserve + 1) * largest});
}

// The granules of a message of `info`'s type: `header` (bytes, whole granules) and the type, rounded up to
// whole granules (at most 2^30, past any arena) and to the arena's size classes.
// `granule` is a power of two (granule_of), so the division is a shift.
BITWIRE_FORCE_INLINE uint32_t message_granules(size_t granule, size_t header, const MessageTypeInfo& info) {
  return MessageArena::granules_for(header + info.size, std::countr_zero(granule));
}

// How a pool of `c` (sanitized) for `factory` lays out its budget: the application's room, then (in its
// arena's tail) the receive reserve and the block message slots.
struct Layout {
  size_t granule = 8;
  size_t header = 0;        // bytes from a block's start to its message
  uint32_t block_slot = 0;  // granules of a block message slot (the largest block type's), 0: no block type
  uint32_t reserve = 0;     // granules of the receive reserve
  size_t application = 0;   // bytes of the application's room
  int slots = 0;            // block message slots
  // At most kMaxGranules + the block slots' cap in granules: below 2^32 (slot indexes are uint32_t).
  uint32_t tail() const {
    return static_cast<uint32_t>(size_t{reserve} + static_cast<size_t>(slots) * size_t{block_slot});
  }
};

Layout layout_of(const MessageFactory& factory, const MessagePoolConfig& c, size_t slot_state) {
  Layout l;
  l.granule = granule_of(factory);
  l.header = (MessageArena::kHeaderBytes + slot_state + l.granule - 1) / l.granule * l.granule;
  uint32_t largest = 0;
  for (const MessageTypeInfo& t : factory.types()) {
    largest = std::max(largest, message_granules(l.granule, l.header, t));
    if (t.has_block) l.block_slot = std::max(l.block_slot, message_granules(l.granule, l.header, t));
  }
  const size_t granules = std::min<size_t>(c.bytes_for(factory) / l.granule, MessageArena::kMaxGranules);
  // No more than the count lets be alive at once, and within the budget (check() asks for one more).
  l.reserve = static_cast<uint32_t>(
      std::min<size_t>(static_cast<size_t>(std::min(c.receive_reserve, c.capacity)) * largest, granules));
  l.application = (granules - l.reserve) * l.granule;
  // The slots' bytes within kMaxMessageSlotBytes (check(factory) refuses more, sanitized(factory) lowers
  // block_messages to fit): computed in size_t, since a large block type's slots pass 2^32 granules.
  l.slots =
      l.block_slot > 0
          ? static_cast<int>(std::min<size_t>(static_cast<size_t>(std::max(c.block_messages, 0)),
                                              kMaxMessageSlotBytes / (size_t{l.block_slot} * l.granule)))
          : 0;
  return l;
}

}  // namespace

size_t MessagePool::message_bytes(const MessageFactory& factory, const MessageTypeInfo& info) {
  const size_t granule = granule_of(factory);
  const size_t header = (MessageArena::kHeaderBytes + sizeof(SlotState) + granule - 1) / granule * granule;
  return message_granules(granule, header, info) * granule;
}

size_t MessagePoolConfig::bytes_for(const MessageFactory& factory) const {
  if (bytes > 0) return static_cast<size_t>(bytes);
  size_t smallest = 0;
  size_t largest = 0;
  message_bytes_range(factory, smallest, largest);
  return derived_bytes(*this, capacity, smallest, largest);
}

ConfigCheck MessagePoolConfig::check() const {
  return check_config("MessagePoolConfig", *this, kMessagePoolConfigLimits);
}

ConfigCheck MessagePoolConfig::count_warning() const {
  const MessagePoolConfig c = sanitized();
  const auto least = static_cast<size_t>(c.receive_reserve) + kApplicationMessages;
  if (static_cast<size_t>(c.capacity) >= least) return {};
  // What the room (the pool's room_capacity_) takes beyond the count the reserve's share leaves it.
  const int share = std::min(c.receive_reserve, c.capacity);
  const int taken =
      static_cast<int>(room_count(static_cast<size_t>(c.capacity), c.receive_reserve)) + share - c.capacity;
  char out[kConfigReasonBytes];
  std::snprintf(out, kConfigReasonBytes,
                "MessagePoolConfig.capacity = %d is below the receive reserve and the application's 64 (%d + "
                "64 = %zu): the application's room takes %d of the reserve's share of the count, so packets "
                "may wait on the application's releases",
                c.capacity, c.receive_reserve, least, taken);
  return ConfigCheck::failure(out);
}

MessagePoolConfig MessagePoolConfig::sanitized() const { return sanitize_config(*this, kMessagePoolConfigLimits); }

ConfigCheck MessagePoolConfig::check(const MessageFactory& factory) const {
  if (ConfigCheck own = check(); !own) return own;
  size_t smallest = 0;
  size_t largest = 0;
  message_bytes_range(factory, smallest, largest);
  char out[kConfigReasonBytes];
  if (const size_t least = (static_cast<size_t>(std::min(receive_reserve, capacity)) + 1) * largest;
      bytes > 0 && static_cast<size_t>(bytes) < least) {
    std::snprintf(out, kConfigReasonBytes,
                  "MessagePoolConfig.bytes = %d is below the receive reserve and one more message of the "
                  "factory's largest type (%d + 1 of %zu bytes with the header: %zu)",
                  bytes, std::min(receive_reserve, capacity), largest, least);
    return ConfigCheck::failure(out);
  }
  if (const size_t slot = block_slot_bytes(factory);
      slot > 0 && static_cast<size_t>(block_messages) > kMaxMessageSlotBytes / slot) {
    std::snprintf(
        out, kConfigReasonBytes,
        "MessagePoolConfig.block_messages = %d: slots of %zu bytes (the factory's largest block type "
        "with its header) come to more than the %zu MiB cap (kMaxMessageSlotBytes): at most %zu",
        block_messages, slot, kMaxMessageSlotBytes >> 20, kMaxMessageSlotBytes / slot);
    return ConfigCheck::failure(out);
  }
  if (const size_t budget = bytes_for(factory); budget > kMaxMessageSlotBytes) {
    std::snprintf(out, kConfigReasonBytes,
                  "MessagePoolConfig.capacity = %d: messages of %zu to %zu bytes (the factory's smallest and "
                  "largest with their header) come to %zu bytes, past the %zu MiB cap (kMaxMessageSlotBytes)",
                  capacity, smallest, largest, budget, kMaxMessageSlotBytes >> 20);
    return ConfigCheck::failure(out);
  }
  return {};
}

MessagePoolConfig MessagePoolConfig::sanitized(const MessageFactory& factory) const {
  MessagePoolConfig c = sanitized();
  if (const size_t slot = block_slot_bytes(factory); slot > 0) {
    c.block_messages = static_cast<int>(
        std::min<size_t>(static_cast<size_t>(c.block_messages), kMaxMessageSlotBytes / slot));
  }
  size_t smallest = 0;
  size_t largest = 0;
  message_bytes_range(factory, smallest, largest);
  if (c.bytes > 0) {
    // The receive reserve and one more message of the largest type at least, within the cap.
    const size_t least = (static_cast<size_t>(std::min(c.receive_reserve, c.capacity)) + 1) * largest;
    c.bytes = static_cast<int>(
        std::min<size_t>(std::max<size_t>(static_cast<size_t>(c.bytes), least), kMaxMessageSlotBytes));
    return c;
  }
  // Fewer messages, never smaller ones: the largest capacity whose derived budget fits (it grows with it).
  if (derived_bytes(c, c.capacity, smallest, largest) > kMaxMessageSlotBytes) {
    int low = 1;
    int high = c.capacity;
    while (low < high) {
      const int mid = low + (high - low + 1) / 2;
      if (derived_bytes(c, mid, smallest, largest) <= kMaxMessageSlotBytes) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    c.capacity = low;
  }
  return c;
}

BlockArena::BlockArena(int buffer_count, size_t buffer_size)
    : size_(std::clamp<size_t>(buffer_size, 1, size_t{1} << 30)) {
  count_ = static_cast<int>(std::min<size_t>(static_cast<size_t>(std::clamp(buffer_count, 0, 1 << 16)),
                                             kMaxBlockPoolBytes / size_));
  if (count_ > 0) {
    storage_.reset(new std::byte[size_ * static_cast<size_t>(count_)]);
    free_.reset(new int32_t[static_cast<size_t>(count_)]);
    for (int i = 0; i < count_; ++i) free_[i] = count_ - 1 - i;
  }
  free_count_ = count_;
}

int BlockArena::take() {
  if (free_count_ == 0) {
    ++exhausted_;
    return -1;
  }
  return free_[--free_count_];
}

MessagePool::MessagePool(const MessageFactory& factory, const MessagePoolConfig& config)
    : MessagePool(factory, config, nullptr) {}

MessagePool::MessagePool(const MessageFactory& factory, const MessagePoolConfig& config,
                         BlockArena* shared_blocks)
    : factory_(factory) {
  if (const ConfigCheck problem = factory.check(); !problem) {
    // A refused factory's entries (sizes, functions) cannot be trusted: the pool holds no slot, so
    // create() returns empty handles and no type function is ever called.
    error_reason_ = keep_config_reason(error_reason_text_, problem);
    return;
  }
  // A refused config is flagged, not trusted: every size below comes from the sanitized copy.
  error_reason_ = keep_config_reason(error_reason_text_, config.check(factory));
  const MessagePoolConfig c = config.sanitized(factory);
  capacity_ = c.capacity;
  room_capacity_ = static_cast<int>(room_count(static_cast<size_t>(c.capacity), c.receive_reserve));
  if (log_enabled(LogLevel::kWarning)) {
    if (const ConfigCheck warning = c.count_warning(); !warning) {
      BITWIRE_LOG(LogLevel::kWarning, "message pool: %s", warning.reason());
    }
  }
  const Layout layout = layout_of(factory, c, sizeof(SlotState));
  header_bytes_ = layout.header;
  messages_ = MessageArena(layout.granule, layout.application, layout.tail());
  granule_shift_ = std::countr_zero(messages_.granule());
  receive_ = MessageArena(messages_.at(messages_.granules()), layout.granule, layout.reserve);
  block_slots_base_ = messages_.granules() + layout.reserve;
  block_slot_granules_ = layout.block_slot;
  block_slot_count_ = layout.slots;
  if (block_slot_count_ > 0) {
    free_block_slots_.reset(new uint32_t[static_cast<size_t>(block_slot_count_)]);
    for (int i = 0; i < block_slot_count_; ++i) {
      free_block_slots_[i] = block_slots_base_ + static_cast<uint32_t>(i) * block_slot_granules_;
    }
    free_block_slot_count_ = block_slot_count_;
  }

  block_count_ = c.block_count;
  max_block_size_ = static_cast<size_t>(c.max_block_size);
  if (shared_blocks != nullptr && block_count_ > 0) {
    if (shared_blocks->buffer_size() < max_block_size_) {
      if (error_reason_ == nullptr) {
        error_reason_ = "MessagePool: the shared BlockArena's buffers are smaller than max_block_size";
      }
      block_count_ = 0;
    }
    arena_ = shared_blocks;
    free_block_count_ = 0;  // unused: blocks_free() asks the arena
    block_receive_reserve_ = std::clamp(config.block_receive_reserve, 0, block_count_);
    return;
  }
  if (block_count_ > 0) {
    block_storage_.reset(new std::byte[max_block_size_ * static_cast<size_t>(block_count_)]);
    free_blocks_.reset(new int32_t[static_cast<size_t>(block_count_)]);
    for (int i = 0; i < block_count_; ++i) free_blocks_[i] = block_count_ - 1 - i;
  }
  free_block_count_ = block_count_;
  block_receive_reserve_ = std::clamp(config.block_receive_reserve, 0, block_count_);
}

MessagePool::~MessagePool() {
  // Handles point into this pool: they must all be gone.
  BITWIRE_ASSERT(live_ == 0);
}

size_t MessagePool::memory_required(const MessageFactory& factory, const MessagePoolConfig& config,
                                    bool shared_blocks) {
  const MessagePoolConfig c = config.sanitized(factory);
  const Layout layout = layout_of(factory, c, sizeof(SlotState));
  return MessageArena::memory_required(layout.granule, layout.application, layout.tail()) +
         MessageArena::heads_required(layout.reserve) + static_cast<size_t>(layout.slots) * sizeof(uint32_t) +
         (shared_blocks ? 0
                        : static_cast<size_t>(c.block_count) *
                              (static_cast<size_t>(c.max_block_size) + sizeof(int32_t)));
}

size_t MessagePool::memory_bytes() const {
  return messages_.memory_bytes() + receive_.memory_bytes() +
         static_cast<size_t>(block_slot_count_) * sizeof(uint32_t) + lender_bytes(lender_capacity_) +
         (arena_ != nullptr ? 0 : static_cast<size_t>(block_count_) * (max_block_size_ + sizeof(int32_t)));
}

MessageHandle MessagePool::create(uint32_t type_id) {
  return make(type_id, Use::kApplication);
}

MessageHandle MessagePool::create_received(uint32_t type_id) {
  return make(type_id, Use::kReceived);
}

MessageHandle MessagePool::create_received_block(uint32_t type_id) {
  return make(type_id, Use::kReceivedBlock);
}

MessageHandle MessagePool::make(uint32_t type_id, Use use) {
  const MessageTypeInfo* info = factory_.find(type_id);
  if (info == nullptr) return {};
  uint32_t slot = MessageArena::kNone;
  const uint32_t granules = granules_of(*info);
  // Block message slots are outside the budget and the count; the budget's messages share capacity_, of
  // which the application's room takes at most room_capacity_.
  if (use == Use::kReceivedBlock && free_block_slot_count_ > 0 && info->has_block) {
    slot = free_block_slots_[--free_block_slot_count_];
    ++slot_live_;
  } else if (live_ - slot_live_ < capacity_) {
    if (use != Use::kApplication) {
      // The receive reserve first, the application's room when it is full.
      const uint32_t reserved = receive_.allocate(granules);
      if (reserved != MessageArena::kNone) slot = messages_.granules() + reserved;
    }
    if (slot == MessageArena::kNone && room_live_ < room_capacity_) {
      slot = messages_.allocate(granules);
      if (slot != MessageArena::kNone) ++room_live_;
    }
  }
  if (slot == MessageArena::kNone) {
    ++exhausted_;
    return {};
  }
  ::new (messages_.at(slot) + MessageArena::kHeaderBytes)
      SlotState{-1, 0, static_cast<uint16_t>(type_id), false};
  info->construct(slot_data(slot));
  ++live_;
  return MessageHandle(this, slot);
}

// Inlined into release (every message's last call).
BITWIRE_FORCE_INLINE void MessagePool::free_slot(uint32_t slot) {
  if (slot < messages_.granules()) {
    messages_.free(slot);
    --room_live_;
  } else if (slot < block_slots_base_) {
    receive_.free(slot - messages_.granules());
  } else {
    free_block_slots_[free_block_slot_count_++] = slot;
    --slot_live_;
  }
}

bool MessagePool::move_to_application(MessageHandle& message) {
  BITWIRE_ASSERT(message.pool_ == this);
  const MessageTypeInfo& info = message.info();
  if (info.relocate == nullptr || room_live_ >= room_capacity_) return false;
  // Out of a block message slot the message joins the budget's count.
  if (message.slot_ >= block_slots_base_ && live_ - slot_live_ >= capacity_) return false;
  const uint32_t slot = messages_.allocate(granules_of(info));  // one in, one out: the count is unchanged
  if (slot == MessageArena::kNone) return false;
  ++room_live_;
  const uint32_t old = message.slot_;
  const SlotState& from = state(old);
  ::new (messages_.at(slot) + MessageArena::kHeaderBytes)
      SlotState{from.block, from.block_size, from.type_id, from.block_received};
  info.relocate(slot_data(slot), slot_data(old));
  info.destroy(slot_data(old));
  free_slot(old);
  message.slot_ = slot;
  return true;
}

bool MessagePool::copy_to_application(MessageHandle& message, std::span<std::byte> scratch, size_t bits) {
  BITWIRE_ASSERT(message.pool_ == this);
  const MessageTypeInfo& info = message.info();
  // A write stream never fails: the caller's validated size, a word of slack for alignment, must fit.
  if (bits + 64 > scratch.size() * 8 || room_live_ >= room_capacity_) return false;
  if (message.slot_ >= block_slots_base_ && live_ - slot_live_ >= capacity_) return false;
  const uint32_t slot = messages_.allocate(granules_of(info));
  if (slot == MessageArena::kNone) return false;
  ++room_live_;
  const uint32_t old = message.slot_;
  ::new (messages_.at(slot) + MessageArena::kHeaderBytes) SlotState{-1, 0, state(old).type_id, false};
  info.construct(slot_data(slot));
  WriteStream write(scratch);
  bool copied = info.write(slot_data(old), write);
  if (copied) {
    write.flush();
    ReadStream read(scratch.first(write.bytes_processed()));
    copied = info.read(slot_data(slot), read);
  }
  if (!copied) {
    info.destroy(slot_data(slot));
    free_slot(slot);
    return false;
  }
  // The block (its buffer, its size, who lent it) goes with the message, not with the old bytes.
  SlotState& from = state(old);
  SlotState& to = state(slot);
  to.block = from.block;
  to.block_size = from.block_size;
  to.block_received = from.block_received;
  info.destroy(slot_data(old));
  free_slot(old);
  message.slot_ = slot;
  return true;
}

void MessagePool::release(uint32_t slot) {
  SlotState& state = this->state(slot);
  factory_.types()[state.type_id].destroy(slot_data(slot));
  if (state.block >= 0) free_block(state.block, state.block_received);
  if (state.block <= -2) return_lent(state);
  free_slot(slot);
  --live_;
}

void MessagePool::reserve_lenders(int count) {
  BITWIRE_ASSERT(lenders_ == nullptr && count >= 0);
  if (lenders_ != nullptr || count <= 0) return;
  lenders_.reset(new Lender[static_cast<size_t>(count)]);
  lender_capacity_ = count;
}

size_t MessagePool::lender_bytes(int count) {
  return static_cast<size_t>(std::max(count, 0)) * sizeof(Lender);
}

int MessagePool::add_lender(BlockLender* lender, const std::byte* data) {
  if (lender_count_ == lender_capacity_) return -1;
  lenders_[lender_count_] = Lender{lender, data};
  return lender_count_++;
}

void MessagePool::remove_lender(int lender) {
  if (lender >= 0 && lender < lender_count_) lenders_[lender] = Lender{};
}

void MessagePool::lend_block(MessageHandle& message, int lender, uint32_t size) {
  BITWIRE_ASSERT(message.pool_ == this && lender >= 0 && lender < lender_count_);
  SlotState& state = this->state(message.slot_);
  BITWIRE_ASSERT(state.block == -1);
  state.block = lent_index(lender);
  state.block_size = size;
  state.block_received = false;
}

void MessagePool::attach_received_block(MessageHandle& message, int block, uint32_t size) {
  BITWIRE_ASSERT(message.pool_ == this && block >= 0);
  SlotState& state = this->state(message.slot_);
  BITWIRE_ASSERT(state.block == -1);
  state.block = block;
  state.block_size = size;
  state.block_received = true;
}

void MessagePool::return_lent(SlotState& state) {
  const int lender = lent_index(state.block);  // the encoding is its own inverse
  state.block = -1;
  state.block_size = 0;
  if (lenders_[lender].lender != nullptr) lenders_[lender].lender->block_returned();
}

int MessagePool::blocks_reserved() const {
  // On an arena the waiting received blocks of every pool below its cap are owed the next buffers freed,
  // this pool's among them.
  const int waiting = arena_ != nullptr ? arena_->receive_waiters_ : receive_waiters_;
  return std::max(0, block_receive_reserve_ - blocks_received_live_) + waiting;
}

int MessagePool::take_block(bool received) {
  if (blocks_free() == 0) {
    ++blocks_exhausted_;
    if (arena_ != nullptr && blocks_live_ < block_count_) ++arena_->exhausted_;
    return -1;
  }
  ++blocks_live_;
  if (received) ++blocks_received_live_;
  if (arena_ != nullptr) {
    if (blocks_live_ == block_count_) arena_->receive_waiters_ -= receive_waiters_;  // at its cap now
    return arena_->take();
  }
  return free_blocks_[--free_block_count_];
}

void MessagePool::free_block(int block, bool received) {
  if (arena_ != nullptr) {
    if (blocks_live_ == block_count_) arena_->receive_waiters_ += receive_waiters_;  // below its cap again
    arena_->give(block);
  } else {
    free_blocks_[free_block_count_++] = block;
  }
  --blocks_live_;
  if (received) --blocks_received_live_;
}

// ---- MessageHandle ----

bool MessageHandle::block_lent() const {
  return pool_ != nullptr && pool_->state(slot_).block <= -2;
}

std::span<const std::byte> MessageHandle::block() const {
  if (pool_ == nullptr) return {};
  const auto& state = pool_->state(slot_);
  if (state.block == -1) return {};
  if (state.block <= -2)
    return {pool_->lenders_[MessagePool::lent_index(state.block)].data, state.block_size};
  return {pool_->block_data(state.block), state.block_size};
}

BlockAllocation MessageHandle::take_block(size_t size, bool received, bool zero) {
  if (pool_ == nullptr) return {{}, BlockRefusal::kEmptyHandle};
  if (!info().has_block) return {{}, BlockRefusal::kNotBlockType};
  if (size == 0 || size > pool_->max_block_size_) return {{}, BlockRefusal::kSizeOutOfRange};
  auto& state = pool_->state(slot_);
  // A lent block is kept until a pool buffer is granted, then given back to its channel: a caller that
  // copies from the lent bytes (Connection::send moving them) still reads them, since the channel writes
  // its buffer again only when a later packet's fragments arrive.
  const bool lent = state.block <= -2;
  if (state.block < 0) {
    // The application may take only what the reserve for received blocks leaves free.
    if (!received && pool_->blocks_free() > 0 && !pool_->can_allocate_block()) {
      ++pool_->blocks_reserved_refusals_;
      return {{}, BlockRefusal::kReservedForReceiving};
    }
    const int block = pool_->take_block(received);
    if (block < 0) {
      const bool arena_empty = pool_->arena_ != nullptr && pool_->blocks_live_ < pool_->block_count_;
      return {{}, arena_empty ? BlockRefusal::kSharedBuffersInUse : BlockRefusal::kNoBuffer};
    }
    if (lent) pool_->return_lent(state);
    state.block = block;
    state.block_received = received;
  }
  state.block_size = static_cast<uint32_t>(size);
  const std::span<std::byte> bytes(pool_->block_data(state.block), size);
  // The buffer last held another block (another peer's, on a shared arena or a server slot's pool reused
  // by its next client; or this handle's own): what the caller does not write must not show it.
  if (zero) std::memset(bytes.data(), 0, bytes.size());
  return {bytes, BlockRefusal::kNone};
}

BlockAllocation MessageHandle::try_allocate_block(size_t size) {
  return take_block(size, false, true);
}

std::span<std::byte> MessageHandle::allocate_received_block(size_t size) {
  return take_block(size, true, false).bytes;
}

BlockRefusal MessageHandle::block_refusal(size_t size) const {
  // take_block's refusals, in its order.
  if (pool_ == nullptr) return BlockRefusal::kEmptyHandle;
  if (!info().has_block) return BlockRefusal::kNotBlockType;
  if (size == 0 || size > pool_->max_block_size_) return BlockRefusal::kSizeOutOfRange;
  if (pool_->state(slot_).block >= 0) return BlockRefusal::kNone;  // its own buffer is reused
  if (pool_->blocks_free() > 0 && !pool_->can_allocate_block()) return BlockRefusal::kReservedForReceiving;
  if (pool_->blocks_free() == 0) {
    const bool arena_empty = pool_->arena_ != nullptr && pool_->blocks_live_ < pool_->block_count_;
    return arena_empty ? BlockRefusal::kSharedBuffersInUse : BlockRefusal::kNoBuffer;
  }
  return BlockRefusal::kNone;
}

BlockRefusal MessageHandle::try_attach_block(std::span<const std::byte> bytes) {
  const BlockAllocation destination = take_block(bytes.size(), false, false);
  if (!destination) return destination.refusal;
  std::memcpy(destination.bytes.data(), bytes.data(), bytes.size());
  return BlockRefusal::kNone;
}

const char* to_string(BlockRefusal refusal) {
  switch (refusal) {
    case BlockRefusal::kNone: return "granted";
    case BlockRefusal::kEmptyHandle: return "the handle holds no message";
    case BlockRefusal::kNotBlockType: return "the message type carries no block";
    case BlockRefusal::kSizeOutOfRange: return "block size is 0 or above the pool's max_block_size";
    case BlockRefusal::kNoBuffer: return "every block buffer is in use";
    case BlockRefusal::kSharedBuffersInUse:
      return "every buffer of the shared block arena is in use (StackConfig.block_buffers)";
    case BlockRefusal::kReservedForReceiving:
      return "the free block buffers are reserved for received blocks (block_receive_reserve)";
  }
  return "unknown block refusal";
}

}  // namespace bitwire
