// CRC-32 (IEEE, reflected). Three implementations of the same function:
// - byte-wise table lookup: the reference;
// - slice-by-8: table[k][b] is the CRC contribution of byte b followed by k zero bytes, so eight input bytes
//   fold into the running value with eight independent lookups instead of eight dependent ones;
// - carry-less multiplication folding (x86-64, chosen at run time): with PCLMULQDQ, 64-byte steps over four
//   128-bit accumulators; with AVX-512 + VPCLMULQDQ, 256-byte steps over four 512-bit accumulators.
//
// Folding, in short: a 128-bit block B standing L bits before the end of the message contributes
// B(x) * x^L mod P to the CRC. Splitting B = H * x^64 + Lo, the block B' = H * (x^(D+64) mod P) +
// Lo * (x^D mod P) (< 96 bits) standing D bits later contributes the same, so it can be xored into the
// block there. Repeating this reduces the message to one 16-byte block that is CRC-equivalent to
// everything consumed, which the table code then finishes together with the remaining tail bytes; no
// Barrett reduction constants are needed. The fold constants are computed below from the polynomial.
#include "bitwire/core/crc32.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define BITWIRE_CRC32_CLMUL 1
#endif

namespace bitwire {
namespace {

constexpr uint32_t kPolynomial = 0xEDB88320u;  // reflected 0x04C11DB7

using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables make_tables() {
  Tables tables{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t value = b;
    for (int bit = 0; bit < 8; ++bit) value = (value >> 1) ^ ((value & 1u) ? kPolynomial : 0u);
    tables[0][b] = value;
  }
  for (uint32_t b = 0; b < 256; ++b) {
    for (int k = 1; k < 8; ++k) {
      const uint32_t previous = tables[k - 1][b];
      tables[k][b] = (previous >> 8) ^ tables[0][previous & 0xFFu];
    }
  }
  return tables;
}

constexpr Tables kTables = make_tables();

inline uint32_t load_le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

// The register form of the CRC: `value` is the running (pre-inverted) state.
uint32_t update_bytewise(uint32_t value, const uint8_t* p, size_t size) {
  for (size_t i = 0; i < size; ++i) value = (value >> 8) ^ kTables[0][(value ^ p[i]) & 0xFFu];
  return value;
}

uint32_t update_slice8(uint32_t value, const uint8_t* p, size_t size) {
  while (size >= 8) {
    const uint32_t low = load_le32(p) ^ value;
    const uint32_t high = load_le32(p + 4);
    value = kTables[7][low & 0xFFu] ^ kTables[6][(low >> 8) & 0xFFu] ^ kTables[5][(low >> 16) & 0xFFu] ^
            kTables[4][low >> 24] ^ kTables[3][high & 0xFFu] ^ kTables[2][(high >> 8) & 0xFFu] ^
            kTables[1][(high >> 16) & 0xFFu] ^ kTables[0][high >> 24];
    p += 8;
    size -= 8;
  }
  return update_bytewise(value, p, size);
}

#ifdef BITWIRE_CRC32_CLMUL

// x^n mod P (P = x^32 + 0x04C11DB7, normal bit order: bit d = coefficient of x^d).
constexpr uint32_t x_pow_mod(unsigned n) {
  uint64_t value = 1;
  for (unsigned i = 0; i < n; ++i) {
    value <<= 1;
    if (value & (uint64_t{1} << 32)) value ^= 0x104C11DB7ull;
  }
  return static_cast<uint32_t>(value);
}

constexpr uint32_t reflect32(uint32_t v) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
  return r;
}

// A register bit i holds the coefficient of x^(127 - i) of its 128-bit block (the first message bit is
// the highest degree). A carry-less product of a 64-bit half (degree d at bit 63 - d) with a constant
// whose degree d sits at bit 63 - d lands in register form multiplied by x, so the constant for a shift
// by x^s is x^(s - 1) mod P, reflected into the top 32 bits.
constexpr uint64_t fold_constant(unsigned shift) {
  return static_cast<uint64_t>(reflect32(x_pow_mod(shift - 1))) << 32;
}

// Constants moving a block forward by D bits: low half (high degrees) by D + 64, high half by D.
constexpr uint64_t kFold512Low = fold_constant(512 + 64), kFold512High = fold_constant(512);
constexpr uint64_t kFold384Low = fold_constant(384 + 64), kFold384High = fold_constant(384);
constexpr uint64_t kFold256Low = fold_constant(256 + 64), kFold256High = fold_constant(256);
constexpr uint64_t kFold128Low = fold_constant(128 + 64), kFold128High = fold_constant(128);

__attribute__((target("pclmul,sse4.1"))) inline __m128i fold(__m128i block, __m128i constants) {
  return _mm_xor_si128(_mm_clmulepi64_si128(block, constants, 0x00),
                       _mm_clmulepi64_si128(block, constants, 0x11));
}

__attribute__((target("pclmul,sse4.1"))) inline __m128i constants(uint64_t low, uint64_t high) {
  return _mm_set_epi64x(static_cast<long long>(high), static_cast<long long>(low));
}

__attribute__((target("pclmul,sse4.1"))) uint32_t update_clmul(uint32_t value, const uint8_t* p,
                                                               size_t size) {
  // Callers guarantee size >= 64.
  __m128i a0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  __m128i a1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
  __m128i a2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 32));
  __m128i a3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 48));
  a0 = _mm_xor_si128(a0,
                     _mm_cvtsi32_si128(static_cast<int>(value)));  // the running state enters the first bits
  p += 64;
  size -= 64;
  const __m128i k512 = constants(kFold512Low, kFold512High);
  while (size >= 64) {
    a0 = _mm_xor_si128(fold(a0, k512), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    a1 = _mm_xor_si128(fold(a1, k512), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16)));
    a2 = _mm_xor_si128(fold(a2, k512), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 32)));
    a3 = _mm_xor_si128(fold(a3, k512), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 48)));
    p += 64;
    size -= 64;
  }
  __m128i acc = _mm_xor_si128(_mm_xor_si128(fold(a0, constants(kFold384Low, kFold384High)),
                                            fold(a1, constants(kFold256Low, kFold256High))),
                              _mm_xor_si128(fold(a2, constants(kFold128Low, kFold128High)), a3));
  const __m128i k128 = constants(kFold128Low, kFold128High);
  while (size >= 16) {
    acc = _mm_xor_si128(fold(acc, k128), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    p += 16;
    size -= 16;
  }
  alignas(16) uint8_t block[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(block), acc);
  // `block` now stands for every byte consumed, with the state already folded in: finish from state 0.
  return update_slice8(update_slice8(0, block, sizeof block), p, size);
}

// The same folding with 512-bit registers (four 128-bit lanes per instruction): 256 bytes per step over
// four 512-bit accumulators, reduced to one 128-bit block and finished like update_clmul.
constexpr uint64_t kFold2048Low = fold_constant(2048 + 64), kFold2048High = fold_constant(2048);
constexpr uint64_t kFold1536Low = fold_constant(1536 + 64), kFold1536High = fold_constant(1536);
constexpr uint64_t kFold1024Low = fold_constant(1024 + 64), kFold1024High = fold_constant(1024);

#define BITWIRE_CRC32_WIDE_TARGET __attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.1")))

// (Set element by element: GCC 12 warns about the undefined source inside _mm512_broadcast_i32x4 and
// _mm512_extracti32x4_epi32, so neither is used.)
BITWIRE_CRC32_WIDE_TARGET inline __m512i wide_constants(uint64_t low, uint64_t high) {
  const auto l = static_cast<long long>(low), h = static_cast<long long>(high);
  return _mm512_set_epi64(h, l, h, l, h, l, h, l);
}

BITWIRE_CRC32_WIDE_TARGET inline __m128i lane(__m512i x, int index) {
  switch (index) {
    case 0:
      return _mm512_maskz_extracti32x4_epi32(0xF, x, 0);
    case 1:
      return _mm512_maskz_extracti32x4_epi32(0xF, x, 1);
    case 2:
      return _mm512_maskz_extracti32x4_epi32(0xF, x, 2);
    default:
      return _mm512_maskz_extracti32x4_epi32(0xF, x, 3);
  }
}

// fold(x) xor y, lane by lane.
BITWIRE_CRC32_WIDE_TARGET inline __m512i wide_fold_xor(__m512i x, __m512i constants, __m512i y) {
  return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, constants, 0x00),
                                   _mm512_clmulepi64_epi128(x, constants, 0x11), y, 0x96);
}

BITWIRE_CRC32_WIDE_TARGET uint32_t update_wide(uint32_t value, const uint8_t* p, size_t size) {
  // Callers guarantee size >= 256.
  __m512i x0 = _mm512_loadu_si512(p);
  __m512i x1 = _mm512_loadu_si512(p + 64);
  __m512i x2 = _mm512_loadu_si512(p + 128);
  __m512i x3 = _mm512_loadu_si512(p + 192);
  x0 = _mm512_xor_si512(
      x0, _mm512_inserti32x4(_mm512_setzero_si512(), _mm_cvtsi32_si128(static_cast<int>(value)), 0));
  p += 256;
  size -= 256;
  const __m512i k2048 = wide_constants(kFold2048Low, kFold2048High);
  while (size >= 256) {
    x0 = wide_fold_xor(x0, k2048, _mm512_loadu_si512(p));
    x1 = wide_fold_xor(x1, k2048, _mm512_loadu_si512(p + 64));
    x2 = wide_fold_xor(x2, k2048, _mm512_loadu_si512(p + 128));
    x3 = wide_fold_xor(x3, k2048, _mm512_loadu_si512(p + 192));
    p += 256;
    size -= 256;
  }
  x3 = wide_fold_xor(x2, wide_constants(kFold512Low, kFold512High), x3);
  x3 = wide_fold_xor(x1, wide_constants(kFold1024Low, kFold1024High), x3);
  __m512i x = wide_fold_xor(x0, wide_constants(kFold1536Low, kFold1536High), x3);
  const __m512i k512 = wide_constants(kFold512Low, kFold512High);
  while (size >= 64) {
    x = wide_fold_xor(x, k512, _mm512_loadu_si512(p));
    p += 64;
    size -= 64;
  }
  // Lanes 0..2 move forward by 384, 256, 128 bits onto lane 3.
  const __m512i lane_constants =
      _mm512_set_epi64(0, 0, static_cast<long long>(kFold128High), static_cast<long long>(kFold128Low),
                       static_cast<long long>(kFold256High), static_cast<long long>(kFold256Low),
                       static_cast<long long>(kFold384High), static_cast<long long>(kFold384Low));
  const __m512i moved = _mm512_xor_si512(_mm512_clmulepi64_epi128(x, lane_constants, 0x00),
                                         _mm512_clmulepi64_epi128(x, lane_constants, 0x11));
  __m128i acc =
      _mm_xor_si128(_mm_xor_si128(lane(moved, 0), lane(moved, 1)), _mm_xor_si128(lane(moved, 2), lane(x, 3)));
  const __m128i k128 =
      _mm_set_epi64x(static_cast<long long>(kFold128High), static_cast<long long>(kFold128Low));
  while (size >= 16) {
    acc = _mm_xor_si128(
        _mm_xor_si128(_mm_clmulepi64_si128(acc, k128, 0x00), _mm_clmulepi64_si128(acc, k128, 0x11)),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    p += 16;
    size -= 16;
  }
  alignas(16) uint8_t block[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(block), acc);
  return update_slice8(update_slice8(0, block, sizeof block), p, size);
}

bool cpu_has_clmul() {
  static const bool has = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return has;
}

bool cpu_has_wide_clmul() {
  static const bool has =
      cpu_has_clmul() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq");
  return has;
}

#endif

}  // namespace

uint32_t crc32_bytewise(const void* data, size_t size, uint32_t crc) {
  return ~update_bytewise(~crc, static_cast<const uint8_t*>(data), size);
}

uint32_t crc32_slice8(const void* data, size_t size, uint32_t crc) {
  return ~update_slice8(~crc, static_cast<const uint8_t*>(data), size);
}

uint32_t crc32(const void* data, size_t size, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
#ifdef BITWIRE_CRC32_CLMUL
  if (size >= 1024 && cpu_has_wide_clmul()) return ~update_wide(~crc, p, size);
  if (size >= 128 && cpu_has_clmul()) return ~update_clmul(~crc, p, size);
#endif
  return ~update_slice8(~crc, p, size);
}

uint32_t crc32_clmul(const void* data, size_t size, uint32_t crc) {
#ifdef BITWIRE_CRC32_CLMUL
  if (size >= 64 && cpu_has_clmul()) return ~update_clmul(~crc, static_cast<const uint8_t*>(data), size);
#endif
  return crc32_slice8(data, size, crc);
}

uint32_t crc32_wide_clmul(const void* data, size_t size, uint32_t crc) {
#ifdef BITWIRE_CRC32_CLMUL
  if (size >= 256 && cpu_has_wide_clmul()) return ~update_wide(~crc, static_cast<const uint8_t*>(data), size);
#endif
  return crc32_clmul(data, size, crc);
}

}  // namespace bitwire
