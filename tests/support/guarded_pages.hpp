// Test memory whose neighbours fault: GuardedPages puts usable bytes between two inaccessible pages, so a
// stray load or store just outside a span faults in any build (not only under a sanitizer). And splitmix64,
// the small generator the bit stream tests fill their bytes and pick their widths with.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace bitwire::test {

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E37'79B9'7F4A'7C15);
  z = (z ^ (z >> 30)) * 0xBF58'476D'1CE4'E5B9;
  z = (z ^ (z >> 27)) * 0x94D0'49BB'1331'11EB;
  return z ^ (z >> 31);
}

// Usable bytes between two inaccessible pages: a load or store outside them faults in any build.
class GuardedPages {
 public:
  explicit GuardedPages(size_t usable) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    usable_ = (usable + page_ - 1) / page_ * page_;
    if (usable_ == 0) usable_ = page_;
    void* base =
        mmap(nullptr, usable_ + 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return;
    base_ = static_cast<std::byte*>(base);
    mprotect(base_, page_, PROT_NONE);
    mprotect(base_ + page_ + usable_, page_, PROT_NONE);
  }
  ~GuardedPages() {
    if (base_ != nullptr) munmap(base_, usable_ + 2 * page_);
  }
  GuardedPages(const GuardedPages&) = delete;
  GuardedPages& operator=(const GuardedPages&) = delete;

  bool ok() const { return base_ != nullptr; }
  // `size` bytes that end right before the upper guard page.
  std::span<std::byte> at_end(size_t size) { return {base_ + page_ + usable_ - size, size}; }
  // `size` bytes that start right after the lower guard page.
  std::span<std::byte> at_start(size_t size) { return {base_ + page_, size}; }

 private:
  std::byte* base_ = nullptr;
  size_t page_ = 0;
  size_t usable_ = 0;
};

}  // namespace bitwire::test
