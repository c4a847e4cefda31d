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

}  // namespace corpus_protobuf
