// Golden vectors for the wire forms of mas-bandwidth/schema's objects, translated field for field into
// bench/generated/corpus/objects.net: each object's XData_Deep and XData_Shallow of examples/Objects.schema
// (Ship, Missile, DynamicProp, Turret) and examples128/Ludicrous.schema (Body, NarrowBody). Each vector is
// the byte string schema's own generated C++ (its checked-in generated/cpp/ObjectsWire.h and
// generated/cpp/ludicrous/LudicrousWire.h, with mas-bandwidth/serialize) writes for the same instance:
// the instance written by idlc's code, read by schema's reader, written again by schema's writer, the same
// bytes; bench/RESULTS.md says how they were taken. The test needs nothing of schema's: idlc's code must
// write exactly these bytes, read them back equal, write them again unchanged, and refuse them cut short.
// Instances (objects_instances.hpp): (0) defaults, (1) every field at its smallest value, (2) at its largest.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "bitwire/serialize/serialize.hpp"
#include "corpus_golden.hpp"
#include "objects.hpp"
#include "objects_instances.hpp"

namespace {

using corpus_golden::expect_golden;
using corpus_golden::from_hex;
using corpus_golden::set_bits;
using corpus_golden::Vector;

constexpr Vector kShipDeep[] = {
    {213,
     "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000"},
    {213,
     "f8ffffffffff7fffffffffffffff7fffffffffffffff7fffffffffffffff7fffffffffffffff7fffffffffffffff7fff"
     "ffffffffffff7fffffffffffffff7fffffffffffffff7fffffffffffffff7fff07fefffffefffffffeffffffffffffdf"
     "ffffffffffffffdfffffffffffffffdffffffffffefffffffefffffffefffffffeffffffffffffdfffffffffffffffdf"
     "ffffffffffffffdfffffffffffffffdfffffffffffffffdfffffffffffffffdffffffffffefffffffefffffffeffffff"
     "fefffffffefffffffe01000080fffffffffffff77f"},
    {213,
     "fdffffffffff7ffffbffffffffff7ffffbffffffffff7ffffbffffffffff7ffffbffffffffff7ffffbffffffffff7fff"
     "fbffffffffff7ffffbffffffffff7ffffbffffffffff7ffffbffffffffff7fff7bfffffffefefffffefeffffffffffdf"
     "fffeffffffffffdffffeffffffffffdffffefffffefefffffefefffffefefffffefeffffffffffdffffeffffffffffdf"
     "fffeffffffffffdffffeffffffffffdffffeffffffffffdffffeffffffffffdffffefffffefefffffefefffffefeffff"
     "fefefffffefefffffefe1fcefffffffffffffff73f"},
};

constexpr Vector kShipShallow[] = {
    {28, "00000004000008000010000110000110000008000004000002000000"},
    {28, "00000000000000000000000000000000000000000000000000000000"},
    {28, "0500000800001000002000022000022000001000000800007cd12703"},
};

constexpr Vector kMissileDeep[] = {
    {89,
     "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "0000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
    {89,
     "fcffffffffffbfffffffffffffffbfffffffffffffffbfffffffffffffffbfffffffffffffffbfffffffffffffffbfff"
     "ffffffffffffbfffffffffffffffbfffffffffffffffbfffffffffffffffbfff030000000000000000"},
    {89,
     "ffffffffffffbffffdffffffffffbffffdffffffffffbffffdffffffffffbffffdffffffffffbffffdffffffffffbfff"
     "fdffffffffffbffffdffffffffffbffffdffffffffffbffffdffffffffffbffff9ffffffffffffff0f"},
};

constexpr Vector kMissileShallow[] = {
    {33, "000000020000040000088000088000080000040000020000010000000000000000"},
    {33, "000000000000000000000000000000000000000000000000000000000000000000"},
    {33, "030000040000080000100001100001100000080000040000faffffffffffffff0f"},
};

constexpr Vector kDynamicPropDeep[] = {
    {89,
     "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "0000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
    {89,
     "f8ffffffffff7fffffffffffffff7fffffffffffffff7fffffffffffffff7fffffffffffffff7fffffffffffffff7fff"
     "ffffffffffff7fffffffffffffff7fffffffffffffff7fffffffffffffff7fff070000000000000000"},
    {89,
     "feffffffffff7ffffbffffffffff7ffffbffffffffff7ffffbffffffffff7ffffbffffffffff7ffffbffffffffff7fff"
     "fbffffffffff7ffffbffffffffff7ffffbffffffffff7ffffbffffffffff7ffffbffffffffffffff17"},
};

constexpr Vector kDynamicPropShallow[] = {
    {33, "000000040000080000100001100001100000080000040000020000000000000000"},
    {33, "000000000000000000000000000000000000000000000000000000000000000000"},
    {33, "060000080000100000200002200002200000100000080000fcffffffffffffff17"},
};

constexpr Vector kTurretDeep[] = {
    {44, "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
    {44, "000000c0fffffffffffffbfffffffffffffffbfffffffffffffffbfffffffffffffffb3f0000000000000000"},
    {44, "0fe7fffffffffffffffffbdffffffffffffffbdffffffffffffffbdffffffffffffffbdfffffffffffffff3f"},
};

constexpr Vector kTurretShallow[] = {
    {18, "000000000001100001100000000000000000"},
    {18, "000000000000000000000000000000000000"},
    {18, "0fe7ff3f0002200002e0ffffffffffffff3f"},
};

constexpr Vector kBodyDeep[] = {
    {42, "0000a0860100801a0600006a18000000100000001000000010000000200000a8610000a0860100801a06"},
    {42, "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
    {42, "0000400d030000350c0000d43000000020000000200000002000000020000050c30000400d030000350c"},
};

constexpr Vector kBodyShallow[] = {
    {42, "0000a0860100801a0600006a18000000100000001000000010000000200000a8610000a0860100801a06"},
    {42, "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
    {42, "0000400d030000350c0000d43000000020000000200000002000000020000050c30000400d030000350c"},
};

constexpr Vector kNarrowBodyDeep[] = {
    {42, "0000a0860100801a0600006a18000000100000001000000010000000200000a8610000a0860100801a06"},
    {42, "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"},
    {42, "0000400d030000350c0000d43000000020000000200000002000000020000050c30000400d030000350c"},
};

constexpr Vector kNarrowBodyShallow[] = {
    {29, "00a08601801a06006a180001100001100000a8610000a0860100801a06"},
    {29, "0000000000000000000000000000000000000000000000000000000000"},
    {29, "00400d0300350c00d430000220000220000050c30000400d030000350c"},
};

// Each form's longest wire equals schema's XData_DeepMaxBits / XData_ShallowMaxBits (its
// generated/cpp/Objects.h and generated/cpp/ludicrous/Ludicrous.h): a bound changed in objects.net that moves
// a field's width fails here, before any vector is compared.
static_assert(objects::ShipDeep::MaxBits == 1703);
static_assert(objects::ShipShallow::MaxBits == 218);
static_assert(objects::MissileDeep::MaxBits == 708);
static_assert(objects::MissileShallow::MaxBits == 260);
static_assert(objects::DynamicPropDeep::MaxBits == 709);
static_assert(objects::DynamicPropShallow::MaxBits == 261);
static_assert(objects::TurretDeep::MaxBits == 350);
static_assert(objects::TurretShallow::MaxBits == 142);
static_assert(objects::BodyDeep::MaxBits == 332);
static_assert(objects::BodyShallow::MaxBits == 332);
static_assert(objects::NarrowBodyDeep::MaxBits == 332);
static_assert(objects::NarrowBodyShallow::MaxBits == 228);

// Every form's three instances against schema's bytes.
template <typename M, std::size_t N>
void expect_all(M (*instance)(int), const Vector (&vectors)[N]) {
  for (std::size_t which = 0; which < N; ++which) {
    SCOPED_TRACE(which);
    expect_golden(instance(static_cast<int>(which)), vectors[which]);
  }
}

TEST(CorpusGolden, ShipDeep) {
  expect_all(objects::ship_deep_instance, kShipDeep);
}
TEST(CorpusGolden, ShipShallow) {
  expect_all(objects::ship_shallow_instance, kShipShallow);
}
TEST(CorpusGolden, MissileDeep) {
  expect_all(objects::missile_deep_instance, kMissileDeep);
}
TEST(CorpusGolden, MissileShallow) {
  expect_all(objects::missile_shallow_instance, kMissileShallow);
}
TEST(CorpusGolden, DynamicPropDeep) {
  expect_all(objects::dynamic_prop_deep_instance, kDynamicPropDeep);
}
TEST(CorpusGolden, DynamicPropShallow) {
  expect_all(objects::dynamic_prop_shallow_instance, kDynamicPropShallow);
}
TEST(CorpusGolden, TurretDeep) {
  expect_all(objects::turret_deep_instance, kTurretDeep);
}
TEST(CorpusGolden, TurretShallow) {
  expect_all(objects::turret_shallow_instance, kTurretShallow);
}
TEST(CorpusGolden, BodyDeep) {
  expect_all(objects::body_instance<objects::BodyDeep>, kBodyDeep);
}
TEST(CorpusGolden, BodyShallow) {
  expect_all(objects::body_instance<objects::BodyShallow>, kBodyShallow);
}
TEST(CorpusGolden, NarrowBodyDeep) {
  expect_all(objects::body_instance<objects::NarrowBodyDeep>, kNarrowBodyDeep);
}
TEST(CorpusGolden, NarrowBodyShallow) {
  expect_all(objects::narrow_body_shallow_instance, kNarrowBodyShallow);
}

// FixedQuat's w defaults to 1.0 (2^30 raw) as schema's does, so the defaults of the Body forms are not zeros.
TEST(CorpusGolden, BodyDefaultsHoldTheIdentityRotation) {
  const objects::BodyDeep m;
  EXPECT_EQ(m.rotation.w, std::int32_t{1} << 30);
  EXPECT_EQ(m.rotation.x, 0);
}

// ShipShallow's health is a 10-bit field at bit 201 whose largest value is 1000 (the projection of
// [0, MaxHealth] at resolution 1): 1001 and 1023 are refused, as schema's reader refuses them; 1000 reads.
TEST(CorpusGolden, ShipShallowHealthPastTheMaximumIsRefused) {
  std::vector<std::byte> bytes = from_hex(kShipShallow[2].hex);
  for (std::uint64_t health : {1001u, 1023u}) {
    SCOPED_TRACE(health);
    set_bits(bytes, 201, 10, health);
    objects::ShipShallow back;
    bitwire::ReadStream in(std::span<const std::byte>(bytes.data(), bytes.size()));
    EXPECT_FALSE(back.serialize(in));
    EXPECT_EQ(in.error(), bitwire::ReadError::kValueOutOfRange);
  }
  set_bits(bytes, 201, 10, 1000);
  objects::ShipShallow ok;
  bitwire::ReadStream again(std::span<const std::byte>(bytes.data(), bytes.size()));
  EXPECT_TRUE(ok.serialize(again));
  EXPECT_EQ(ok.health, 1000);
}

// DynamicPropShallow's prop_type is the first 3 bits, PropType's values 0 .. 6 (None first): 7 is refused,
// as schema's reader refuses it; 6 (DysonPanel) reads.
TEST(CorpusGolden, DynamicPropShallowPropTypePastTheLastIsRefused) {
  std::vector<std::byte> bytes = from_hex(kDynamicPropShallow[0].hex);
  set_bits(bytes, 0, 3, 7);
  objects::DynamicPropShallow back;
  bitwire::ReadStream in(std::span<const std::byte>(bytes.data(), bytes.size()));
  EXPECT_FALSE(back.serialize(in));
  EXPECT_EQ(in.error(), bitwire::ReadError::kInvalidEnum);
  set_bits(bytes, 0, 3, 6);
  objects::DynamicPropShallow ok;
  bitwire::ReadStream again(std::span<const std::byte>(bytes.data(), bytes.size()));
  EXPECT_TRUE(ok.serialize(again));
  EXPECT_EQ(ok.prop_type, objects::PropType::DysonPanel);
}

}  // namespace
