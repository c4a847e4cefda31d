// The resolved schema model: what the checker produces and every back end (C++ emitter, --layout,
// fingerprint) reads. Nothing here needs parsing knowledge: names are resolved to objects, constant
// expressions to numbers, every wire width and bit cost is computed. Standard library types only.
//
// Ownership: a Schema owns its Packages; a Package owns its declarations in std::deque containers, so
// pointers between model objects (Type::enumeration, Type::structure, Package::imports, ...) stay valid
// for the life of the Schema. A model is only handed out when checking reported no error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "bitwire/serialize/bits.hpp"

namespace idlc::model {

// Doc comment lines (`/// text`), in order, with the `///` and one following space removed.
using Doc = std::vector<std::string>;

// Wire cost of one element, in bits: the smallest and the largest number of bits any value can take.
// Every alignment-performing operation (align, check, bytes, string) counts 0 bits in `min` and 7 in
// `max`, so `max` is a bound that holds at any starting bit position (the MaxBits contract).
struct BitRange {
  std::uint64_t min = 0;
  std::uint64_t max = 0;
};

// Bits written by the `check` directive after its alignment: one 32-bit marker.
inline constexpr std::uint64_t kCheckMarkerBits = 32;

// A C++ integer type that stores a value: std::int8_t .. std::uint64_t.
struct IntStorage {
  bool is_signed = false;
  int bits = 8;  // 8, 16, 32 or 64
};

struct Package;
struct Enum;
struct Flags;
struct Struct;

// ---------------------------------------------------------------------------------------------------
// Named constants, enums, flag sets

struct Constant {
  std::string name;
  Doc doc;
  std::int64_t value = 0;
  const Package* package = nullptr;
};

// An enum value, exact over [-2^63, 2^64 - 1]: an enum with uint64 storage reaches 2^64 - 1, one with a
// signed storage reaches -2^63, and no value needs more. The checker refuses anything outside.
using EnumValue = __int128;

// The decimal text of an enum value (std::to_string has no 128-bit overload).
inline std::string enum_value_text(EnumValue value) {
  if (value < 0) return "-" + std::to_string(static_cast<std::uint64_t>(-(value + 1)) + 1u);
  return std::to_string(static_cast<std::uint64_t>(value));
}

struct Enumerator {
  std::string name;
  Doc doc;
  EnumValue value = 0;
};

// Wire: `int(value, min, wire_max)` in `bits` = bits_required(min, wire_max) bits. Without headroom a
// read rejects any value that is not one of `items` (holes between explicit values included); with
// headroom it accepts every value of the wire range.
struct Enum {
  std::string name;
  Doc doc;
  const Package* package = nullptr;
  std::vector<Enumerator> items;  // declaration order, values distinct, at least one
  EnumValue min = 0;              // smallest value
  EnumValue max = 0;              // largest value
  // The top of the wire range: `max` unless the enum declares headroom (`enum E max 15 { ... }`), then
  // the declared wire maximum (>= max). Every value in [min, wire_max] is then valid on the wire: a read
  // keeps a value it has no enumerator for (a newer peer's), and the C++ enum holds it.
  EnumValue wire_max = 0;
  bool headroom = false;  // `max K` was declared
  int bits = 0;           // bits_required(min, wire_max)
  IntStorage storage;  // the declared `: uintN` storage, or the smallest type holding min..wire_max
  bool storage_declared = false;
  // True when the values are exactly min, min+1, ..., max (a read needs only the range check).
  bool contiguous = true;
};

struct Flag {
  std::string name;
  Doc doc;
  int bit = 0;  // bit position in the mask: declaration index
};

// Wire: the mask as `bits(mask, bits)`; flag i is bit i (written first). bits == items.size() (1..64).
struct Flags {
  std::string name;
  Doc doc;
  const Package* package = nullptr;
  std::vector<Flag> items;
  int bits = 0;
  IntStorage storage;  // smallest unsigned type with at least `bits` bits
};

// ---------------------------------------------------------------------------------------------------
// Types of fields

enum class TypeKind {
  Bool,             // 1 bit
  Integer,          // see IntegerType
  Float,            // 32 raw IEEE bits
  Double,           // 64 raw IEEE bits
  CompressedFloat,  // see CompressedFloatType
  FixedPoint,       // see FixedPointType
  Int128,           // see Int128Type
  String,           // int(len, 0, max_length) + bytes: UTF-8, no NUL inside
  Bytes,            // int(len, 0, max_length) + bytes: any octets
  ByteBlock,        // exactly max_length bytes, no length: bytes(p, N) = align, then N raw bytes
  Enum,             // see Enum
  Flags,            // see Flags
  Struct,           // a struct or message inlined: its items, nothing of its own
};

// Raw: the low `bits` bits of the two's-complement value (`bits(v, bits)`); reads of a signed field
//   sign-extend from bit `bits - 1`. Any bit pattern is valid. `min`/`max` are not used.
// Ranged: `int(v, min, max)`: v - min in bits_required(min, max) bits; reads reject v - min > max - min.
//   `bits` may be 0 (min == max: nothing is written).
enum class IntEncoding { Raw, Ranged };

// Bounds and defaults of an unsigned storage are kept bit for bit in the std::int64_t members, so the
// full uint64 range is exact: 18446744073709551615 is stored as -1. integer_text() and
// integer_value() read them back; bits_required() of two such members is already exact (it works in
// the unsigned domain).
struct IntegerType {
  IntEncoding encoding = IntEncoding::Raw;
  IntStorage storage;
  int bits = 0;
  std::int64_t min = 0;  // Ranged only (unsigned storage: a std::uint64_t value, bit for bit)
  std::int64_t max = 0;  // Ranged only (unsigned storage: a std::uint64_t value, bit for bit)
};

// The value a stored bound or default stands for, exactly, in 128 bits (unsigned storage: the member's
// bits as std::uint64_t).
inline __int128 integer_value(std::int64_t stored, bool is_unsigned) {
  return is_unsigned ? static_cast<__int128>(static_cast<std::uint64_t>(stored)) : static_cast<__int128>(stored);
}

// The decimal text of a stored bound or default.
inline std::string integer_text(std::int64_t stored, bool is_unsigned) {
  return is_unsigned ? std::to_string(static_cast<std::uint64_t>(stored)) : std::to_string(stored);
}

// Wire (float32 arithmetic throughout, see wire-format.md): delta = max - min,
// values = clamp(delta / resolution, 1, 4294967040), max_int = ceil(values), bits = bits_required(0,
// max_int). Storage is float.
struct CompressedFloatType {
  float min = 0;
  float max = 0;
  float resolution = 0;
  std::uint32_t max_int = 0;
  int bits = 0;
};

// Q format with `fraction_bits` fractional bits: the stored integer is value * 2^fraction_bits.
// Bounds are whole units: raw_min = whole_min << fraction_bits, raw_max = whole_max << fraction_bits.
// Wire: int(raw, raw_min, raw_max) in bits = bits_required(raw_min, raw_max). Storage holds the raw value:
// signed when raw_min < 0, else unsigned (schema's ufixed), in the smallest of 8 .. 64 bits that holds the
// raw range and is wider than fraction_bits (serialize_fixed's contract), or 128 bits (`wide`:
// bitwire::int128_t / uint128_t) when no 64-bit type does.
struct FixedPointType {
  std::int64_t whole_min = 0;
  std::int64_t whole_max = 0;
  int fraction_bits = 0;  // 0..126
  __int128 raw_min = 0;   // exact
  __int128 raw_max = 0;   // exact
  int bits = 0;           // 0..128
  IntStorage storage;     // is_signed iff raw_min < 0 (also when wide); bits only when !wide
  bool wide = false;      // 128-bit storage; its delta form sends a change whole
};

// A 128-bit integer, stored as bitwire::int128_t (int128) or bitwire::uint128_t (uint128).
// Raw (`uint128`, `int128`): all 128 bits, the low 64 first. Ranged (`int128<lo .. hi>`,
// `uint128<lo .. hi>`): int(v, min, max), v - min in bits_required(min, max) bits (0..128), the low bits
// first -- the same bits as a 64-bit ranged integer over the same bounds whenever those fit 64 bits.
// Bounds are exact 128-bit values, within the checker's arithmetic: -2^127 .. 2^127 - 1.
struct Int128Type {
  bool ranged = false;
  __int128 min = 0;  // ranged only
  __int128 max = 0;  // ranged only
  int bits = 128;    // 128 raw; bits_required(min, max) ranged
};

// The decimal text of a 128-bit value (std::to_string has no 128-bit overload).
inline std::string int128_text(__int128 value) {
  // The magnitude in the unsigned domain, so -2^127 has one too.
  auto magnitude = static_cast<unsigned __int128>(value);
  if (value < 0) magnitude = static_cast<unsigned __int128>(0) - magnitude;
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  return value < 0 ? "-" + digits : digits;
}

// One value of a field's element type. Exactly the members named for `kind` are meaningful.
struct Type {
  TypeKind kind = TypeKind::Bool;
  IntegerType integer;                // Integer
  CompressedFloatType compressed;     // CompressedFloat
  FixedPointType fixed;               // FixedPoint
  bool int128_signed = false;         // Int128
  Int128Type int128;                  // Int128
  std::uint32_t max_length = 0;       // String, Bytes: 1..kMaxStringLength / kMaxBytesLength;
                                      // ByteBlock: the exact length, 1..kMaxByteBlockLength
  // String, Bytes, ByteBlock: the constant the length was written as (`string<MaxName>`), or nullptr.
  const Constant* max_length_constant = nullptr;
  int length_bits = 0;                // String, Bytes: bits_required(0, max_length)
  const Enum* enumeration = nullptr;  // Enum
  const Flags* flags = nullptr;       // Flags
  const Struct* structure = nullptr;  // Struct (is_message tells a message used as a field type)
  BitRange cost;                      // one value
};

// ---------------------------------------------------------------------------------------------------
// Fields and struct bodies

enum class Shape {
  Scalar,         // one value
  FixedArray,     // exactly `array_max` elements, no count on the wire
  VariableArray,  // int(count, array_min, array_max) then `count` elements
  SparseArray,    // a fixed array of `array_max` elements of which only the changed ones are sent:
                  // int(changed_count, 0, array_max), then per changed element, ascending: its position
                  // p = index + 1 as int_relative(previous p, p) starting from previous p = 0, then the
                  // element. Storage: the elements plus one "changed" flag per element.
};

// A field's default value: storage only, never on the wire.
struct Value {
  enum class Kind { Bool, Integer, Float, String, Enumerator };
  Kind kind = Kind::Integer;
  bool boolean = false;        // Bool
  std::int64_t integer = 0;    // Integer (integer fields, unsigned storage bit for bit as in IntegerType;
                               // for FixedPoint the raw Q value, unsigned storage bit for bit too)
  __int128 wide = 0;           // Integer of an Int128 field or a wide FixedPoint one: the exact value
  double number = 0;           // Float (float fields: already rounded to float; compressed: in range)
  std::string text;            // String: the decoded bytes (string and bytes fields)
  std::size_t enumerator = 0;  // Enumerator: index into the field type's Enum::items
};

// What a field holds in a new object, and what a read resets it to when the field is not on the wire
// (the untaken side of an `if`). Decided by the model so that every back end starts objects alike and
// every new object is writable (writes assert that values are in range).
struct Initial {
  // The value of each element: the declared default; else, when zero is not a valid value, the
  // implicit one (an enum's first enumerator, the bound of an integer or fixed-point range nearest
  // zero); else nullopt: zero, false, empty (value initialisation).
  std::optional<Value> element;
  std::uint32_t count = 0;  // VariableArray: the elements a new object holds (array_min)
};

struct Field {
  std::string name;
  Doc doc;
  Type type;  // the element type
  Shape shape = Shape::Scalar;
  std::uint32_t array_min = 0;  // VariableArray: smallest count
  std::uint32_t array_max = 0;  // FixedArray / SparseArray: the size; VariableArray: largest count
  // The constants the bounds were written as (`[0 .. MaxPlayers]`), or nullptr for any other expression:
  // back ends print the name, so generated code reads like the schema.
  const Constant* array_min_constant = nullptr;
  const Constant* array_max_constant = nullptr;
  int count_bits = 0;           // VariableArray: bits_required(min, max); SparseArray: bits_required(0, N)
  bool optional = false;        // one presence bit, then the field when present
  // Only on Scalar, non-optional fields of scalar types. Absent: numbers zero, bools false, strings,
  // bytes and arrays empty, optional fields absent, flags empty, enums their first value (items[0]).
  std::optional<Value> default_value;
  Initial initial;                  // from default_value and the type (model_build.cpp)
  BitRange cost;                    // the whole field: presence bit, count, every element
  std::uint32_t source_offset = 0;  // byte offset of the field in its schema file
};

// Constant: `const(value, bits)`: `value` in `bits` raw bits; a read refuses any other value. Reserved:
// `reserved(bits)`: `bits` zero bits; a read refuses a one. Neither is stored in the struct.
enum class ItemKind { Field, Align, Check, If, Constant, Reserved };

// `if (subject)`, `if (!subject)`, `if (subject == Enumerator)`, `if (subject != Enumerator)`.
// `subject` is a Scalar, non-optional bool or enum field that is read before the `if` in every path.
struct Condition {
  enum class Test { IsTrue, IsFalse, Equals, NotEquals };
  std::size_t subject = 0;  // index into Struct::fields
  Test test = Test::IsTrue;
  std::size_t enumerator = 0;  // Equals / NotEquals: index into the subject's Enum::items
};

// A run: consecutive Field, Constant and Reserved items of one item list whose wire widths are all fixed
// at generation time (cost.min == cost.max, so no alignment, no variable count, no variable presence
// inside), so each member starts at a constant bit offset from the start of the run. Every maximal run of
// an item list is listed, single fields included; Align, Check and If items end a run.
struct RunMember {
  std::size_t item = 0;      // index into the item list
  std::uint64_t offset = 0;  // bits from the start of the run
  std::uint64_t bits = 0;    // the field's fixed width
};

// The widest piece of a run that generated code reads with one bounds check: 8 chunks of 56 bits, which
// the compilers keep in registers. A longer run is read as consecutive pieces of at most this many bits.
inline constexpr std::uint64_t kMaxRunPieceBits = 8 * 56;

// How a run is read and written: greedy pieces of at most kMaxRunPieceBits in wire order. The model
// decides this (back ends only print it, `--layout` shows it), so every back end splits runs alike.
struct RunPiece {
  std::size_t first = 0;   // index into Run::members of the piece's first member
  std::size_t count = 0;   // members in the piece, at least one
  std::uint64_t bits = 0;  // their widths' sum
  // Read through one bounds check (a ReadRun) and written through one WriteRun: two or more members, or
  // one field that is several reads on its own (an array, a struct), of a non-zero width. Otherwise each
  // member is serialized on its own.
  bool grouped = false;
  // The piece, the `align` right after it and the next piece of the item list (the first piece of the
  // next run) are read as one (a ReadRun that knows the padding's width when it starts on a byte
  // boundary): both non-empty and together, padding included, at most kMaxRunPieceBits. A piece that
  // is the second of such a pair never starts another.
  bool joins_next = false;
  // joins_next: the bits read as one, this piece, the padding to a byte boundary and the next piece.
  std::uint64_t joined_bits = 0;
};

// What generated code flattens into one function, so that its compile time stays linear in the schema
// (docs/schema-language.md, "Limits"; tests/generated/compile_cost_test.cpp measures it):
// - a field wider than kMaxRunMemberBits is not read through a run of its own (a ReadRun of that width
//   would unroll one load per 56 bits): it is serialized on the stream, an array as a loop;
// - a struct's serialize is forced inline into its callers while its inline weight (Struct::inline_weight)
//   is at most kMaxInlineWeight and its inline depth at most kMaxInlineDepth; past either it is called
//   out of line (Struct::called), and a field of it is never a run member, so each such struct is
//   instantiated once per stream kind instead of once per enclosing run;
// - a serialize function longer than kMaxInlineWeight is printed as parts of about that weight each.
inline constexpr std::uint64_t kMaxRunMemberBits = 4096;
inline constexpr std::uint64_t kMaxInlineWeight = 256;
inline constexpr std::uint32_t kMaxInlineDepth = 8;

struct Run {
  std::vector<RunMember> members;  // in wire order, at least one
  std::uint64_t bits = 0;          // sum of the members' widths
  std::vector<RunPiece> pieces;    // members split for reading (model_build.cpp), in order, covering all
};

// One entry of a struct body in wire order. An If writes nothing itself: exactly one of its sides is
// serialized, and a read leaves every field of the untaken side at its initial value.
struct Item {
  ItemKind kind = ItemKind::Field;
  std::size_t field = 0;         // Field: index into Struct::fields
  Condition condition;           // If
  std::vector<Item> then_items;  // If
  std::vector<Item> else_items;  // If (empty when there is no else)
  // If: the fields a read resets to their initial values before reading the taken side -- every field of
  // both sides, nested ifs included -- on an outermost If only; a nested If resets nothing (the
  // outermost reset covers it). Each field is reset once, so the code is linear in an `else if` chain.
  std::vector<std::size_t> resets;
  std::vector<Run> then_runs;  // If: the runs of then_items
  std::vector<Run> else_runs;  // If: the runs of else_items
  std::uint64_t constant = 0;  // Constant: the value (below 2^bits)
  int bits = 0;                // Constant, Reserved: 1..64
  BitRange cost;  // Align: {0, 7}; Check: {32, 39}; If: {min of sides, max of sides}; Constant, Reserved: bits
  std::uint32_t source_offset = 0;
};

struct Struct {
  std::string name;
  Doc doc;
  const Package* package = nullptr;
  bool is_message = false;
  std::uint32_t type_id = 0;  // messages: declaration order within the package, from 0
  std::vector<Field> fields;  // every field (both sides of every if), declaration order: C++ members
  std::vector<Item> body;     // wire order
  std::vector<Run> runs;      // the runs of `body` (an If's sides hold their own)
  BitRange cost;              // with `check` markers written
  std::uint64_t max_bits_without_checks = 0;  // cost.max when `check` directives write nothing
  std::uint64_t max_bytes = 0;                // (cost.max + 7) / 8
  std::uint64_t storage_bytes = 0;            // sizeof the generated struct on 64-bit ABIs (checker)
  bool has_checks = false;                    // a `check` directive here or in any nested struct
  // Compile cost (see kMaxInlineWeight): the statements serialize prints when flattened into a caller --
  // one per item, plus the weight of each field's struct type that is inlined -- and 1 + the inline
  // depth of the deepest inlined struct type of a field; `called` when either is past its bound.
  // `makes_calls`: a field's struct type is called or makes calls itself (then no field of this struct's
  // type joins a run either).
  std::uint64_t inline_weight = 0;
  std::uint32_t inline_depth = 1;
  bool called = false;
  bool makes_calls = false;
  // Members of struct type, counted through nested structs (an array's element once); checker-bounded.
  std::uint64_t struct_members = 0;
  // Messages declared `message X block { ... }`: the message carries a block of bytes, sent by the
  // channel beside the body (docs/blocks.md), never by serialize. Not inherited by a struct that uses
  // the message as a field type.
  bool has_block = false;
  std::optional<std::uint64_t> budget_bytes;  // messages: own `budget` or the package option
  std::uint32_t source_offset = 0;
  // The delta form (docs/schema-language.md, "Delta messages"): `serialize_delta(stream, baseline)`
  // writes one "changed" bit, then, when changed, the changes against the baseline (`delta_changes`).
  bool delta = false;       // declared `delta message X` / `delta struct X`
  bool delta_form = false;  // serialize_delta is generated: declared, or reached from a struct of the
                            // same package that has it (through field types)
  BitRange delta_changes;   // the changes alone (check markers counted); every struct has it computed
  BitRange delta_cost;      // the delta form: {1, 1 + delta_changes.max}
  std::uint64_t delta_max_bits_without_checks = 0;  // a bound on delta_cost.max when checks write nothing
};

// ---------------------------------------------------------------------------------------------------
// Packages and the schema

enum class DeclKind { Constant, Enum, Flags, Struct };

struct DeclRef {
  DeclKind kind = DeclKind::Constant;
  std::size_t index = 0;  // into the Package container of that kind
};

struct Package {
  std::string name;                     // as written: "game" or "studio.game"
  std::vector<std::string> name_parts;  // {"studio", "game"}: the C++ namespace path
  Doc doc;                              // doc comment on the package line
  std::string source_path;              // the schema file, as named to idlc or resolved from an import
  std::string file_stem;                // file name without directory and extension: "game"
  std::vector<const Package*> imports;  // direct imports, in import order
  std::deque<Constant> constants;       // each container in declaration order
  std::deque<Enum> enums;
  std::deque<Flags> flags;
  std::deque<Struct> structs;         // structs and messages
  std::vector<DeclRef> declarations;  // every declaration in source order
  // Every declaration, ordered so that a type comes after each type its fields use (source order
  // otherwise): the order to emit C++ definitions in.
  std::vector<DeclRef> definition_order;
  std::vector<const Struct*> messages;        // by type id
  int message_type_bits = 0;                  // bits_required(0, messages.size() - 1); 0 for 0 or 1 message
  IntStorage message_type_storage;            // the smallest unsigned type holding every type id
  // Some struct of the package reaches a `check` directive (its own or a nested struct's), so the wire,
  // MaxBits and ProtocolId depend on whether check markers are written: back ends must give the two
  // settings distinct definitions.
  bool depends_on_checks = false;
  std::optional<std::uint64_t> budget_bytes;  // `option budget = N;`
  std::uint64_t protocol_id = 0;              // fingerprint of the wire shape (fingerprint.hpp)
  // The fingerprint when `check` markers are written (BITWIRE_SERIALIZE_CHECKS=1); equal to protocol_id
  // when no message reaches a `check` directive.
  std::uint64_t protocol_id_with_checks = 0;
};

struct Schema {
  std::deque<Package> packages;       // every package after the packages it imports
  std::vector<const Package*> roots;  // the files given to the compiler, in order
};

// ---------------------------------------------------------------------------------------------------
// Limits (the checker enforces them; back ends may rely on them)

inline constexpr std::uint32_t kMaxArraySize = 65535;        // elements of any array
inline constexpr std::uint32_t kMaxStringLength = 65535;     // string<N>
inline constexpr std::uint32_t kMaxBytesLength = 1u << 20;   // bytes<N>
inline constexpr std::uint32_t kMaxByteBlockLength = 65535;  // bytes[N], stored inline in its struct
inline constexpr std::uint64_t kMaxStructBits = 0x7fffffff;  // MaxBits of any struct or message
inline constexpr int kMaxFlags = 64;

// bits_required(min, max) of the wire format: 0 when min == max, else the bit length of max - min. The
// runtime's own definition, so that idlc and generated code cannot disagree.
inline int bits_required(std::int64_t min, std::int64_t max) { return bitwire::bits_required<std::int64_t>(min, max); }
// The same for an enum's range (min <= max, both in [-2^63, 2^64 - 1], so max - min fits 64 bits unsigned):
// identical to the 64-bit form wherever both apply.
inline int enum_bits_required(EnumValue min, EnumValue max) {
  return bitwire::bits_required<std::uint64_t>(0, static_cast<std::uint64_t>(max - min));
}

// The delta form's relative encoding of a numeric value of `type` (Integer, FixedPoint, CompressedFloat):
// the width b of its whole form when b >= bitwire::kDeltaMinRelativeBits, 0 otherwise (a change is then
// sent whole). A relative change is a 2-bit selector and the difference in one of three windows of
// bitwire::delta_window_bits(b, s) bits, or the whole value (bits.hpp, docs/schema-language.md).
inline int delta_relative_bits(const Type& type) {
  int bits = 0;
  switch (type.kind) {
    case TypeKind::Integer:
      bits = type.integer.bits;
      break;
    case TypeKind::FixedPoint:
      if (type.fixed.wide) return 0;  // the windows' arithmetic is 64-bit
      bits = type.fixed.bits;
      break;
    case TypeKind::CompressedFloat:
      bits = type.compressed.bits;
      break;
    default:
      return 0;
  }
  return bits >= bitwire::kDeltaMinRelativeBits ? bits : 0;
}

// Whether a field of `type`, inside the delta form of a struct of `package`, is sent with the nested
// struct's own delta form rather than as a changed bit and the whole value: a struct of the same package
// (which the delta form reaches, so it gets one), or a struct of an imported package that has its delta
// form there (declared `delta struct`, or reached from one in its package: that package's generated code
// has its serialize_delta).
inline bool delta_nested(const Type& type, const Package* package) {
  return type.kind == TypeKind::Struct && (type.structure->package == package || type.structure->delta_form);
}

// Names of the C++ members the emitter may generate next to a field (checked for collisions).
inline std::string presence_member_name(const std::string& field) {
  return "has_" + field;
}
inline std::string count_member_name(const std::string& field) {
  return field + "_count";
}
inline std::string changed_member_name(const std::string& field) {
  return field + "_changed";
}

// Names of the members idlc generates inside every struct or message (kType, kTypeId and kHasBlock in
// messages). No field may take them, and no declaration of the package either: inside a struct the
// unqualified name would find the member, not the declaration.
inline const std::vector<std::string>& reserved_member_names() {
  static const std::vector<std::string> names = {
      "serialize", "MaxBits",   "MaxBytes",        "MaxBitsWithoutChecks", "kTypeId",      "kType",
      "kHasBlock", "kName",     "reset",           "to_string",            "format",       "serialize_delta",
      "MaxDeltaBits", "MaxDeltaBytes"};
  return names;
}

// Names reserved at namespace scope of every generated package (no type or constant may take them).
inline const std::vector<std::string>& reserved_package_names() {
  static const std::vector<std::string> names = {
      "MessageType",       "ProtocolId",     "kProtocolId",    "kMessageTypeBits",
      "kMessageTypeCount", "MessageFactory", "create_message", "serialize_message",
      "message_name",      "Message",        "kMaxMessageBits", "message_factory", "format_value",
      "has_flag",          "bitwire",        "std",             "to_string",
      "format",            "operator"};
  return names;
}

}  // namespace idlc::model
