// The Protobuf twin of the corpus messages (corpus_bench.proto): copying a corpus struct into its Protobuf
// message (`fill`) and back (`extract`), which is what a game that keeps its state in its own structs pays
// around Protobuf's encode and decode. `extract` copies; it does not check the ranges the .net declares
// (Protobuf has no ranges), except that a byte array or text that would not fit the struct is refused.
// Only for corpus_bench, and only where Protobuf was found.
#pragma once

#include <cstring>
#include <string>
#include <string_view>

#include "corpus.hpp"
#include "corpus_bench.pb.h"
#include "examples.hpp"
#include "realworld.hpp"

namespace corpus_protobuf {

namespace pb = bitwire_corpus;

inline void fill(const corpus::BenchPacket& m, pb::BenchPacket& p) {
  p.set_a(m.a);
  p.set_b(static_cast<uint32_t>(m.b));
  p.set_c(m.c);
  p.set_bits7(m.bits7);
  p.set_bits13(m.bits13);
  p.set_bits23(m.bits23);
  p.set_flag(m.flag);
  p.set_x(m.x);
  p.set_y(m.y);
  p.set_z(m.z);
  p.set_big(m.big);
  p.set_blob(m.blob.data(), m.blob.size());
}

inline bool extract(const pb::BenchPacket& p, corpus::BenchPacket& m) {
  m.a = static_cast<int8_t>(p.a());
  m.b = static_cast<int32_t>(p.b());
  m.c = p.c();
  m.bits7 = p.bits7();
  m.bits13 = p.bits13();
  m.bits23 = p.bits23();
  m.flag = p.flag();
  m.x = p.x();
  m.y = p.y();
  m.z = p.z();
  m.big = p.big();
  if (p.blob().size() != m.blob.size()) return false;
  std::memcpy(m.blob.data(), p.blob().data(), m.blob.size());
  return true;
}

inline void fill(const corpus::BenchInts& m, pb::BenchInts& p) {
  p.set_f0(m.f0);
  p.set_f1(static_cast<uint32_t>(m.f1));
  p.set_f2(m.f2);
  p.set_f3(static_cast<uint32_t>(m.f3));
  p.set_f4(m.f4);
  p.set_f5(static_cast<uint32_t>(m.f5));
  p.set_f6(m.f6);
  p.set_f7(static_cast<uint32_t>(m.f7));
  p.set_f8(m.f8);
  p.set_f9(static_cast<uint32_t>(m.f9));
}

inline bool extract(const pb::BenchInts& p, corpus::BenchInts& m) {
  m.f0 = static_cast<int8_t>(p.f0());
  m.f1 = static_cast<int32_t>(p.f1());
  m.f2 = p.f2();
  m.f3 = static_cast<int8_t>(p.f3());
  m.f4 = static_cast<int8_t>(p.f4());
  m.f5 = static_cast<int16_t>(p.f5());
  m.f6 = static_cast<int16_t>(p.f6());
  m.f7 = static_cast<int16_t>(p.f7());
  m.f8 = p.f8();
  m.f9 = static_cast<int8_t>(p.f9());
  return true;
}

inline void fill(const corpus::BenchBits& m, pb::BenchBits& p) {
  p.set_b7(m.b7);
  p.set_b13(m.b13);
  p.set_b23(m.b23);
  p.set_b3(m.b3);
  p.set_b32(m.b32);
  p.set_b11(m.b11);
  p.set_b19(m.b19);
  p.set_b48(m.b48);
}

inline bool extract(const pb::BenchBits& p, corpus::BenchBits& m) {
  m.b7 = p.b7();
  m.b13 = p.b13();
  m.b23 = p.b23();
  m.b3 = p.b3();
  m.b32 = p.b32();
  m.b11 = p.b11();
  m.b19 = p.b19();
  m.b48 = p.b48();
  return true;
}

inline void fill(const corpus::BenchMixed& m, pb::BenchMixed& p) {
  p.set_sequence(static_cast<uint32_t>(m.sequence));
  p.set_ack_bits(m.ack_bits);
  p.set_entity_id(m.entity_id);
  p.set_pos_x(m.pos_x);
  p.set_pos_y(m.pos_y);
  p.set_pos_z(m.pos_z);
  p.set_yaw(m.yaw);
  p.set_moving(m.moving);
  p.set_firing(m.firing);
  p.set_timestamp(m.timestamp);
  p.set_weapon(static_cast<uint32_t>(m.weapon));
}

inline bool extract(const pb::BenchMixed& p, corpus::BenchMixed& m) {
  m.sequence = static_cast<int32_t>(p.sequence());
  m.ack_bits = p.ack_bits();
  m.entity_id = p.entity_id();
  m.pos_x = static_cast<int16_t>(p.pos_x());
  m.pos_y = static_cast<int16_t>(p.pos_y());
  m.pos_z = static_cast<int16_t>(p.pos_z());
  m.yaw = p.yaw();
  m.moving = p.moving();
  m.firing = p.firing();
  m.timestamp = p.timestamp();
  m.weapon = static_cast<int8_t>(p.weapon());
  return true;
}

inline void fill(const examples::Test& m, pb::Test& p) {
  p.set_test_a(m.test_a);
  p.set_test_b(static_cast<uint32_t>(m.test_b));
  p.set_test_c(static_cast<uint32_t>(m.test_c));
  p.set_test_d(static_cast<uint32_t>(m.test_d));
}

inline bool extract(const pb::Test& p, examples::Test& m) {
  m.test_a = static_cast<uint16_t>(p.test_a());
  m.test_b = static_cast<int16_t>(p.test_b());
  m.test_c = static_cast<int16_t>(p.test_c());
  m.test_d = static_cast<int16_t>(p.test_d());
  return true;
}

inline void fill(const examples::Block& m, pb::Block& p) { p.set_data(m.data.data(), m.data.size()); }

inline bool extract(const pb::Block& p, examples::Block& m) {
  const std::string& data = p.data();
  if (!m.data.resize(data.size())) return false;
  std::memcpy(m.data.data(), data.data(), data.size());
  return true;
}

inline void fill(const examples::Chat& m, pb::Chat& p) {
  const std::string_view text = m.text.view();
  p.set_text(text.data(), text.size());
}

inline bool extract(const pb::Chat& p, examples::Chat& m) { return m.text.assign(p.text()); }

inline void fill(const examples::Synchronize& m, pb::Synchronize& p) {
  p.set_sync_frame(m.sync_frame);
  p.set_sync_sequence(m.sync_sequence);
}

inline bool extract(const pb::Synchronize& p, examples::Synchronize& m) {
  m.sync_frame = p.sync_frame();
  m.sync_sequence = static_cast<uint16_t>(p.sync_sequence());
  return true;
}

inline void fill(const examples::Timescale& m, pb::Timescale& p) {
  p.set_scale(m.scale);
  p.set_frame_a(m.frame_a);
  p.set_frame_b(m.frame_b);
}

inline bool extract(const pb::Timescale& p, examples::Timescale& m) {
  m.scale = p.scale();
  m.frame_a = p.frame_a();
  m.frame_b = p.frame_b();
  return true;
}

inline void fill(const examples::ProbeHeader& m, pb::ProbeHeader& p) {
  p.set_version(m.version);
  p.set_probe_id(m.probe_id);
}

inline bool extract(const pb::ProbeHeader& p, examples::ProbeHeader& m) {
  m.version = p.version();
  m.probe_id = p.probe_id();
  return true;
}

inline void fill(const examples::ProbeBits& m, pb::ProbeBits& p) {
  p.set_small(m.small);
  p.set_boundary(m.boundary);
  p.set_wide(m.wide);
  p.set_sensor(m.sensor);
  p.set_nonce(m.nonce);
}

inline bool extract(const pb::ProbeBits& p, examples::ProbeBits& m) {
  m.small = p.small();
  m.boundary = p.boundary();
  m.wide = p.wide();
  m.sensor = p.sensor();
  m.nonce = p.nonce();
  return true;
}

inline void fill(const realworld::RealPacket& m, pb::RealPacket& p) {
  p.set_f001_int(m.f001_int);
  p.set_f002_f64(m.f002_f64);
  p.set_f003_int(m.f003_int);
  p.set_f004_cf32(m.f004_cf32);
  p.set_f005_uint(m.f005_uint);
  p.set_f006_int(m.f006_int);
  p.set_f007_f32(m.f007_f32);
  p.set_f008_u64(m.f008_u64);
  p.set_f009_int(m.f009_int);
  p.set_f010_f32(m.f010_f32);
  p.set_f011_bits(m.f011_bits);
  p.set_f012_bool(m.f012_bool);
  p.set_f013_f32(m.f013_f32);
  p.set_f014_uint(m.f014_uint);
  p.set_f015_int(m.f015_int);
  p.set_f016_fixed(m.f016_fixed);
  p.set_f017_uint(m.f017_uint);
  p.set_f018_int(m.f018_int);
  p.set_f019_f64(m.f019_f64);
  p.set_f020_f32(m.f020_f32);
  p.set_f021_ufixed(m.f021_ufixed);
  p.set_f022_f32(m.f022_f32);
  p.set_f023_bits(m.f023_bits);
  p.set_f024_f32(m.f024_f32);
  p.set_f025_fixed(m.f025_fixed);
  p.set_f026_bits(m.f026_bits);
  p.set_f027_cf32(m.f027_cf32);
  p.set_f028_bits(m.f028_bits);
  p.set_f029_i64(m.f029_i64);
  p.set_f030_f32(m.f030_f32);
  p.set_f031_bits(m.f031_bits);
  p.set_f032_int(m.f032_int);
  p.set_f033_uint(m.f033_uint);
  p.set_f034_uint(m.f034_uint);
  p.set_f035_bits(m.f035_bits);
  p.set_f036_enum(static_cast<uint8_t>(m.f036_enum));
  p.set_f037_bool(m.f037_bool);
  p.set_f038_bool(m.f038_bool);
  p.set_f039_bits(m.f039_bits);
  p.set_f040_fixed(m.f040_fixed);
  p.set_f041_int(m.f041_int);
  p.set_f042_bits(m.f042_bits);
  p.set_f043_bool(m.f043_bool);
  p.set_f044_f32(m.f044_f32);
  p.set_f045_bits(m.f045_bits);
  p.set_f046_uint(m.f046_uint);
  p.set_f047_int(m.f047_int);
  p.set_f048_f64(m.f048_f64);
  p.set_f049_ufixed(m.f049_ufixed);
  p.set_f050_bool(m.f050_bool);
  p.set_f051_bool(m.f051_bool);
  p.set_f052_int(m.f052_int);
  p.set_f053_f32(m.f053_f32);
  p.set_f054_int(m.f054_int);
  p.set_f055_bool(m.f055_bool);
  p.set_f056_int(m.f056_int);
  p.set_f057_int(m.f057_int);
  p.set_f058_f32(m.f058_f32);
  p.set_f059_f64(m.f059_f64);
  p.set_f060_bits(m.f060_bits);
  p.set_f061_cf32(m.f061_cf32);
  p.set_f062_uint(m.f062_uint);
  p.set_f063_i64(m.f063_i64);
  p.set_f064_uint(m.f064_uint);
  p.set_f065_cf32(m.f065_cf32);
  p.set_f066_ufixed(m.f066_ufixed);
  p.set_f067_cf32(m.f067_cf32);
  p.set_f068_cf32(m.f068_cf32);
  p.set_f069_bits(m.f069_bits);
  p.set_f070_uint(m.f070_uint);
  p.set_f071_cf32(m.f071_cf32);
  p.set_f072_cf32(m.f072_cf32);
  p.set_f073_int(m.f073_int);
  p.set_f074_bool(m.f074_bool);
  p.set_f075_u64(m.f075_u64);
  p.set_f076_int(m.f076_int);
  p.set_f077_int(m.f077_int);
  p.set_f078_bits(m.f078_bits);
  p.set_f079_uint(m.f079_uint);
  p.set_f080_bool(m.f080_bool);
  p.set_f081_bits(m.f081_bits);
  p.set_f082_bits(m.f082_bits);
  p.set_f083_enum(static_cast<uint8_t>(m.f083_enum));
  p.set_f084_ufixed(m.f084_ufixed);
  p.set_f085_bits(m.f085_bits);
  p.set_f086_uint(m.f086_uint);
  p.set_f087_f64(m.f087_f64);
  p.set_f088_int(m.f088_int);
  p.set_f089_bits(m.f089_bits);
  p.set_f090_uint(m.f090_uint);
  p.set_f091_flags(static_cast<uint8_t>(m.f091_flags));
  p.set_f092_bool(m.f092_bool);
  p.set_f093_bits(m.f093_bits);
  p.set_f094_bool(m.f094_bool);
  p.set_f095_fixed(m.f095_fixed);
  p.set_f096_bits(m.f096_bits);
  p.set_f097_bits(m.f097_bits);
}

inline bool extract(const pb::RealPacket& p, realworld::RealPacket& m) {
  m.f001_int = p.f001_int();
  m.f002_f64 = p.f002_f64();
  m.f003_int = p.f003_int();
  m.f004_cf32 = p.f004_cf32();
  m.f005_uint = static_cast<std::uint16_t>(p.f005_uint());
  m.f006_int = static_cast<std::int16_t>(p.f006_int());
  m.f007_f32 = p.f007_f32();
  m.f008_u64 = p.f008_u64();
  m.f009_int = static_cast<std::int8_t>(p.f009_int());
  m.f010_f32 = p.f010_f32();
  m.f011_bits = p.f011_bits();
  m.f012_bool = p.f012_bool();
  m.f013_f32 = p.f013_f32();
  m.f014_uint = static_cast<std::uint16_t>(p.f014_uint());
  m.f015_int = static_cast<std::int8_t>(p.f015_int());
  m.f016_fixed = p.f016_fixed();
  m.f017_uint = static_cast<std::uint16_t>(p.f017_uint());
  m.f018_int = static_cast<std::int16_t>(p.f018_int());
  m.f019_f64 = p.f019_f64();
  m.f020_f32 = p.f020_f32();
  m.f021_ufixed = p.f021_ufixed();
  m.f022_f32 = p.f022_f32();
  m.f023_bits = p.f023_bits();
  m.f024_f32 = p.f024_f32();
  m.f025_fixed = static_cast<std::int16_t>(p.f025_fixed());
  m.f026_bits = p.f026_bits();
  m.f027_cf32 = p.f027_cf32();
  m.f028_bits = p.f028_bits();
  m.f029_i64 = p.f029_i64();
  m.f030_f32 = p.f030_f32();
  m.f031_bits = p.f031_bits();
  m.f032_int = static_cast<std::int8_t>(p.f032_int());
  m.f033_uint = p.f033_uint();
  m.f034_uint = static_cast<std::uint16_t>(p.f034_uint());
  m.f035_bits = p.f035_bits();
  m.f036_enum = static_cast<realworld::PacketMode>(p.f036_enum());
  m.f037_bool = p.f037_bool();
  m.f038_bool = p.f038_bool();
  m.f039_bits = p.f039_bits();
  m.f040_fixed = static_cast<std::int16_t>(p.f040_fixed());
  m.f041_int = static_cast<std::int8_t>(p.f041_int());
  m.f042_bits = p.f042_bits();
  m.f043_bool = p.f043_bool();
  m.f044_f32 = p.f044_f32();
  m.f045_bits = p.f045_bits();
  m.f046_uint = p.f046_uint();
  m.f047_int = p.f047_int();
  m.f048_f64 = p.f048_f64();
  m.f049_ufixed = static_cast<std::uint16_t>(p.f049_ufixed());
  m.f050_bool = p.f050_bool();
  m.f051_bool = p.f051_bool();
  m.f052_int = static_cast<std::int8_t>(p.f052_int());
  m.f053_f32 = p.f053_f32();
  m.f054_int = static_cast<std::int8_t>(p.f054_int());
  m.f055_bool = p.f055_bool();
  m.f056_int = static_cast<std::int8_t>(p.f056_int());
  m.f057_int = static_cast<std::int8_t>(p.f057_int());
  m.f058_f32 = p.f058_f32();
  m.f059_f64 = p.f059_f64();
  m.f060_bits = p.f060_bits();
  m.f061_cf32 = p.f061_cf32();
  m.f062_uint = static_cast<std::uint16_t>(p.f062_uint());
  m.f063_i64 = p.f063_i64();
  m.f064_uint = static_cast<std::uint16_t>(p.f064_uint());
  m.f065_cf32 = p.f065_cf32();
  m.f066_ufixed = static_cast<std::uint16_t>(p.f066_ufixed());
  m.f067_cf32 = p.f067_cf32();
  m.f068_cf32 = p.f068_cf32();
  m.f069_bits = p.f069_bits();
  m.f070_uint = static_cast<std::uint8_t>(p.f070_uint());
  m.f071_cf32 = p.f071_cf32();
  m.f072_cf32 = p.f072_cf32();
  m.f073_int = static_cast<std::int8_t>(p.f073_int());
  m.f074_bool = p.f074_bool();
  m.f075_u64 = p.f075_u64();
  m.f076_int = static_cast<std::int16_t>(p.f076_int());
  m.f077_int = static_cast<std::int8_t>(p.f077_int());
  m.f078_bits = p.f078_bits();
  m.f079_uint = static_cast<std::uint8_t>(p.f079_uint());
  m.f080_bool = p.f080_bool();
  m.f081_bits = p.f081_bits();
  m.f082_bits = p.f082_bits();
  m.f083_enum = static_cast<realworld::PacketMode>(p.f083_enum());
  m.f084_ufixed = static_cast<std::uint8_t>(p.f084_ufixed());
  m.f085_bits = p.f085_bits();
  m.f086_uint = static_cast<std::uint16_t>(p.f086_uint());
  m.f087_f64 = p.f087_f64();
  m.f088_int = static_cast<std::int16_t>(p.f088_int());
  m.f089_bits = p.f089_bits();
  m.f090_uint = static_cast<std::uint8_t>(p.f090_uint());
  m.f091_flags = static_cast<realworld::PacketFlags>(p.f091_flags());
  m.f092_bool = p.f092_bool();
  m.f093_bits = p.f093_bits();
  m.f094_bool = p.f094_bool();
  m.f095_fixed = p.f095_fixed();
  m.f096_bits = p.f096_bits();
  m.f097_bits = p.f097_bits();
  return true;
}

}  // namespace corpus_protobuf
