// Golden vectors for the corpus messages of mas-bandwidth/schema translated field for field into
// bench/generated/corpus/: RealPacket (realworld.net) and the examples messages (examples.net; with
// RigidBody of examples/Types.schema, FixedProbe, DegenerateProbe, UnsignedProbe, WideProbe and
// LudicrousState of examples128/Ludicrous.schema).
// Each vector is the byte string schema's own generated C++ (its checked-in
// generated/bench/cpp/RealWorldWire.h and generated/cpp/*Wire.h, with mas-bandwidth/serialize)
// writes for the same instance; bench/RESULTS.md says how they were taken (for Ludicrous.schema's three,
// the section comment below). The test needs nothing of
// schema's: idlc's code must write exactly these bytes, read them back, write them again unchanged, and
// refuse them cut short.
#include <gtest/gtest.h>

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "bitwire/serialize/serialize.hpp"
#include "corpus_golden.hpp"
#include "realworld.hpp"
#include "examples.hpp"
#include "examples_instances.hpp"
#include "realworld_instances.hpp"

namespace {

// RealPacket{}: the declared gates (f012, f050 true; f043, f074 false), every other field at its default:
// schema's pinned 1629-bit all-defaults wire.
constexpr std::string_view kDefaultHex =
    "774a0c00000000000000202798010000407a0100000000000000000000005800000000000400000000a0020000120010"
    "1a000000000000000000000000000000000000000000000000000000dc01400000000000000000000000006000000000"
    "0000000000a06e0000000000000000000000000080720000000023ed01000000000000000000000000d0020000000000"
    "00000000000000800c00000000004000000000000000000000000000000000000000006c050000000000000000000000"
    "000000000000483100000000";

// real_packet_min(): every gate true, every field at its minimum.
constexpr std::string_view kMinHex =
    "0000e0fffffffffffffd1f00000000000000fcfffffd030000000000000000ffff7fff00fcfffffb0700000000000000"
    "c0fffffffffffffbffffffdf3f000000fefffffe010000fcfffffd030000000000000000000000f8fffff70f00000000"
    "00000000000000000000c0ffffbf7f000000000000ffffffffffffefff000001fefffffe0100f8fffffbffffffffffff"
    "7fff07000000000000000000001000000000000000000000000200000000000000000000000000000000000000000000"
    "00c0fffffffffffffb3f00000000000000000000000000000000000000000000000000";

// real_packet_max(): every gate true, every field at its maximum.
constexpr std::string_view kMaxHex =
    "ee94f8fffffffffffffd4f4e30833829b9f4fefffffdfdffffffffffffffb3ffff7f7ffffffffffb3b58050000a47f24"
    "f4fffffffffffffbdfffffdf1f00d488fffffffefefffffffffffd01b8ff87fffffffffffffffff7fffff7d7bc2d16dd"
    "fffbffff0140ddffffffffffffbfbfffff480970d2ffffffffffffef7f00c0cbfffffffe8cb5fffffffbfbffffffffff"
    "7ffffb477bffffffffffffffff6f250f000832f4ff2f7d8813ffffffffffffffff53338bffe3ffffffffffffbf80ffff"
    "fff1fffffffffffffb1f5bffffffffffffadffffffffffffffffff000052fcffffff03";

// real_packet_mid(): every gate true, every field at a fixed value inside its range.
constexpr std::string_view kPatternHex =
    "6d76050000000090eb1368cd6a51021a664c0200dc0aa3824fe92f37efc63b008002c3a906004c19b622010000ccfff1"
    "1c00000000f2a334100090e030c7a52b00801e8797c4be0100710ee310d23c94f27f8ae6cbffff0f00343c7cd273f1ab"
    "ed97732c54d5aab670c45d009007e2cf8f28a54a8c00000000e470e7405515cb00c058885d850100e52106000000207f"
    "66074a097378384f0aa31dffff5f48318ef30481c6cd1f34659e68492b61a502693d7d0e9c8b429146d177bb780e6576"
    "a710000000807c4f3dd0c08c9403f545254dabd089079f319c133de338d8f6d0fd8100";

using corpus_golden::from_hex;
using corpus_golden::Vector;

// Test: test_instance(0) defaults, (1) largest values, (2) a fixed pattern.
constexpr Vector kTest[] = {
    {6,
        "000000000000"},
    {6,
        "ffffe8a38f3e"},
    {6,
        "341201d0773e"},
};

// Block: block_instance(0) defaults, (1) largest values, (2) a fixed pattern.
constexpr Vector kBlock[] = {
    {2,
        "0000"},
    {2002,
        "d007030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e"
        "454c535a61686f767d848b9299a0a7aeb5bcc3cad1d8dfe6edf4fb020910171e252c333a41484f565d646b727980878e"
        "959ca3aab1b8bfc6cdd4dbe2e9f0f7fe050c131a21282f363d444b525960676e757c838a91989fa6adb4bbc2c9d0d7de"
        "e5ecf3fa01080f161d242b323940474e555c636a71787f868d949ba2a9b0b7bec5ccd3dae1e8eff6fd040b121920272e"
        "353c434a51585f666d747b828990979ea5acb3bac1c8cfd6dde4ebf2f900070e151c232a31383f464d545b626970777e"
        "858c939aa1a8afb6bdc4cbd2d9e0e7eef5fc030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ce"
        "d5dce3eaf1f8ff060d141b222930373e454c535a61686f767d848b9299a0a7aeb5bcc3cad1d8dfe6edf4fb020910171e"
        "252c333a41484f565d646b727980878e959ca3aab1b8bfc6cdd4dbe2e9f0f7fe050c131a21282f363d444b525960676e"
        "757c838a91989fa6adb4bbc2c9d0d7dee5ecf3fa01080f161d242b323940474e555c636a71787f868d949ba2a9b0b7be"
        "c5ccd3dae1e8eff6fd040b121920272e353c434a51585f666d747b828990979ea5acb3bac1c8cfd6dde4ebf2f900070e"
        "151c232a31383f464d545b626970777e858c939aa1a8afb6bdc4cbd2d9e0e7eef5fc030a11181f262d343b424950575e"
        "656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e454c535a61686f767d848b9299a0a7ae"
        "b5bcc3cad1d8dfe6edf4fb020910171e252c333a41484f565d646b727980878e959ca3aab1b8bfc6cdd4dbe2e9f0f7fe"
        "050c131a21282f363d444b525960676e757c838a91989fa6adb4bbc2c9d0d7dee5ecf3fa01080f161d242b323940474e"
        "555c636a71787f868d949ba2a9b0b7bec5ccd3dae1e8eff6fd040b121920272e353c434a51585f666d747b828990979e"
        "a5acb3bac1c8cfd6dde4ebf2f900070e151c232a31383f464d545b626970777e858c939aa1a8afb6bdc4cbd2d9e0e7ee"
        "f5fc030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e"
        "454c535a61686f767d848b9299a0a7aeb5bcc3cad1d8dfe6edf4fb020910171e252c333a41484f565d646b727980878e"
        "959ca3aab1b8bfc6cdd4dbe2e9f0f7fe050c131a21282f363d444b525960676e757c838a91989fa6adb4bbc2c9d0d7de"
        "e5ecf3fa01080f161d242b323940474e555c636a71787f868d949ba2a9b0b7bec5ccd3dae1e8eff6fd040b121920272e"
        "353c434a51585f666d747b828990979ea5acb3bac1c8cfd6dde4ebf2f900070e151c232a31383f464d545b626970777e"
        "858c939aa1a8afb6bdc4cbd2d9e0e7eef5fc030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ce"
        "d5dce3eaf1f8ff060d141b222930373e454c535a61686f767d848b9299a0a7aeb5bcc3cad1d8dfe6edf4fb020910171e"
        "252c333a41484f565d646b727980878e959ca3aab1b8bfc6cdd4dbe2e9f0f7fe050c131a21282f363d444b525960676e"
        "757c838a91989fa6adb4bbc2c9d0d7dee5ecf3fa01080f161d242b323940474e555c636a71787f868d949ba2a9b0b7be"
        "c5ccd3dae1e8eff6fd040b121920272e353c434a51585f666d747b828990979ea5acb3bac1c8cfd6dde4ebf2f900070e"
        "151c232a31383f464d545b626970777e858c939aa1a8afb6bdc4cbd2d9e0e7eef5fc030a11181f262d343b424950575e"
        "656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e454c535a61686f767d848b9299a0a7ae"
        "b5bcc3cad1d8dfe6edf4fb020910171e252c333a41484f565d646b727980878e959ca3aab1b8bfc6cdd4dbe2e9f0f7fe"
        "050c131a21282f363d444b525960676e757c838a91989fa6adb4bbc2c9d0d7dee5ecf3fa01080f161d242b323940474e"
        "555c636a71787f868d949ba2a9b0b7bec5ccd3dae1e8eff6fd040b121920272e353c434a51585f666d747b828990979e"
        "a5acb3bac1c8cfd6dde4ebf2f900070e151c232a31383f464d545b626970777e858c939aa1a8afb6bdc4cbd2d9e0e7ee"
        "f5fc030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e"
        "454c535a61686f767d848b9299a0a7aeb5bcc3cad1d8dfe6edf4fb020910171e252c333a41484f565d646b727980878e"
        "959ca3aab1b8bfc6cdd4dbe2e9f0f7fe050c131a21282f363d444b525960676e757c838a91989fa6adb4bbc2c9d0d7de"
        "e5ecf3fa01080f161d242b323940474e555c636a71787f868d949ba2a9b0b7bec5ccd3dae1e8eff6fd040b121920272e"
        "353c434a51585f666d747b828990979ea5acb3bac1c8cfd6dde4ebf2f900070e151c232a31383f464d545b626970777e"
        "858c939aa1a8afb6bdc4cbd2d9e0e7eef5fc030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ce"
        "d5dce3eaf1f8ff060d141b222930373e454c535a61686f767d848b9299a0a7aeb5bcc3cad1d8dfe6edf4fb020910171e"
        "252c333a41484f565d646b727980878e959ca3aab1b8bfc6cdd4dbe2e9f0f7fe050c131a21282f363d444b525960676e"
        "757c838a91989fa6adb4bbc2c9d0d7dee5ecf3fa01080f161d242b323940474e555c636a71787f868d949ba2a9b0b7be"
        "c5ccd3dae1e8eff6fd040b121920272e353c434a51585f666d747b828990979ea5ac"},
    {7,
        "0500030a11181f"},
};

// Chat: chat_instance(0) defaults, (1) largest values, (2) a fixed pattern.
constexpr Vector kChat[] = {
    {2,
        "0000"},
    {258,
        "00017a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a"
        "7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a"
        "7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a"
        "7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a"
        "7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a"
        "7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a7a"},
    {19,
        "110068c3a96c6c6f2077c3b6726c6420e29c93"},
};

// Synchronize: synchronize_instance(0) defaults, (1) largest values, (2) a fixed pattern.
constexpr Vector kSynchronize[] = {
    {10,
        "00000000000000000000"},
    {10,
        "ffffffffffffffffffff"},
    {10,
        "efcdab8967452301efbe"},
};

// Timescale: timescale_instance(0) defaults, (1) largest values, (2) a fixed pattern.
constexpr Vector kTimescale[] = {
    {16,
        "00000000000000000000000000000000"},
    {16,
        "ffffffffffffefffffffffffffffffff"},
    {16,
        "000000000000e83f3c00000001000080"},
};

// ProbeHeader: probe_header_instance(0) defaults, (1) largest values, (2) a fixed pattern.
constexpr Vector kProbeHeader[] = {
    {10,
        "ab000000000000000000"},
    {10,
        "ab07ffffffffffffffff"},
    {10,
        "ab05fecaefbeadde0000"},
};

// ProbeBits: probe_bits_instance(0) defaults, (1) largest values, (2) a fixed pattern.
constexpr Vector kProbeBits[] = {
    {26,
        "0000000000000000000000000000000000000000000000000000"},
    {26,
        "ffffffffffffffffffffffffffffffffffffffffffffffffff03"},
    {26,
        "5503000000060000000000000036c0fb2bbf37af269e158d0400"},
};

// RigidBody (examples/Types.schema): rigid_body_instance(0) defaults, (1) extreme and special values,
// (2) schema's bench pin moving, (3) the same at rest.
constexpr Vector kRigidBody[] = {
    {105,
     "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "000000000000000000"},
    {105,
     "ffffffffffffefffffffffffffffef7f0000000000000080000000000000f07f000000000000f0ff0100000000000000"
     "ffffffffffffeffffeffffffffffdffffeffffffffffdfffffffffffffffdfff00000000000000000300000000000000"
     "feffffffffffdfff01"},
    {105,
     "000000000000f83f00000000000004c00000000000000a409a9999999999b93f9a9999999999c93f333333333333d33f"
     "cdccccccccccec3f000000000000488000000000000068800000000000001080010000000000a07f000000000000c07f"
     "000000000000d07f00"},
    {57,
     "000000000000f83f00000000000004c00000000000000a409a9999999999b93f9a9999999999c93f333333333333d33f"
     "cdccccccccccec3f01"},
};

// InputPacket (examples/Types.schema): input_packet_instance(0) defaults, (1) largest counts and values,
// (2) schema's bench pin.
constexpr Vector kInputPacket[] = {
    {19, "00000000000000000000000000000000000000"},
    {355,
     "fffffffffffffffffffffefffffffffffffff0ffffefffffffef0f0000f02f00000000000000e0ffffffefffffffef0f"
     "0000f02f000000000000d0e7ffffffefffffffef0f0000f02f000000000000e0e7ffffffefffffffef0f0000f02f0000"
     "00000000e8e7ffffffefffffffef0f0000f02f000000000000f0e7ffffffefffffffef0f0000f02f000000000000f4e7"
     "ffffffefffffffef0f0000f02f000000000000f8e7ffffffefffffffef0f0000f02f000000000000fce7ffffffefffff"
     "ffef0f0000f02f00000000000000e8ffffffefffffffef0f0000f02f00000000000002e8ffffffefffffffef0f0000f0"
     "2f00000000000004e8ffffffefffffffef0f0000f02f00000000000006e8ffffffefffffffef0f0000f02f0000000000"
     "0008e8ffffffefffffffef0f0000f02f0000000000000ae8ffffffefffffffef0f0000f02f0000000000000ce8ffffff"
     "efffffffef0f0000f02f0000000000000ee81f"},
    {61,
     "070015cd5b07000000000ccd5b07000000000200000000000000000000e0070000000000000020000000d01700000000"
     "00000000000000000000008000"},
};

// ShipCreate (examples/Types.schema): ship_create_instance(0) defaults, (1) largest values and every flag,
// (2) schema's bench pin, (3) smallest values, flags gate closed.
constexpr Vector kShipCreate[] = {
    {27, "000000040000080000100001100001100000080000040000020000"},
    {28, "050000080000100000200002200002200000100000080000fca24f06"},
    {28, "431f000483ff077701100001100001100000080000040000aaba7b03"},
    {27, "000000000000000000000000000000000000000000000000000000"},
};

// ProbeArray (examples/Wire.schema): probe_array_instance (0) defaults, (1) schema's bench pin, (2) largest
// values, Weapon at its headroom's 15.
constexpr Vector kProbeArray[] = {
    {39, "a18c0000000000000000000000000000004219010000000000000000000000000000fcffffff0f"},
    {47, "f1d2f6ffffff6bf6091cc1fdffff63c200540028d21c0000008c01000000000000a00f0000e4000001600000004000"},
    {71,
     "4119ffffffff0000000000000000fffffffffffdfffbfff9fff7fff5fff3fff1ff8332feffffff0100000000000000fe"
     "fffffffffbfff7fff3ffefffebffe7ffe3ff030000003e"},
};

// ProbeReport (examples/Wire.schema): probe_report_instance (0) defaults, (1) largest values, every flag bit.
constexpr Vector kProbeReport[] = {
    {17, "ab00000000000000000000000000000000"},
    {17, "ab07ffffffffffffffffffffffe8a38f3e"},
};

// TestData (examples/Wire.schema): test_data_instance (0) defaults, (1) schema's bench pin, (2) largest
// values and lengths.
constexpr Vector kTestData[] = {
    {70,
     "646464000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010"
     "a5d4e800000000000000000000000000000000000000"},
    {92,
     "00c8f91122330700e0bff64312903e555555555555d53f800080ffffffffffffffffffffffffffffff00000000000000"
     "80010000000000000306090c0f1215181b1e2124272a2d301374686520717569636b2062726f776e20666f78"},
    {341,
     "c8c8faffffffe1ffffffffffffffffffffffffffffffffffffdf3ffa000000000000f07f7fff7fffffffffffffffffff"
     "ffffffffffffffffffffffffff7f00204aa9d101ffffffffffffffffffffffffffffffffffff77777777777777777777"
     "777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777"
     "777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777"
     "777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777"
     "777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777"
     "777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777777"
     "7777777777"},
};

// CompressedProbe (examples/Wire.schema): compressed_probe_instance (0) defaults, (1) maxima, (2) minima, (3)
// between quanta.
constexpr Vector kCompressedProbe[] = {
    {3, "00204e"},
    {3, "e8439c"},
    {3, "000000"},
    {3, "3ad53a"},
};

// Handle (examples/Types.schema): handle_instance (0) defaults, (1) maxima, (2) between.
constexpr Vector kHandle[] = {
    {3, "000000"},
    {3, "0fe73f"},
    {3, "d28416"},
};

// ExpressionProbe (examples/Types.schema): expression_probe_instance (0) defaults, (1) maxima, (2) between.
constexpr Vector kExpressionProbe[] = {
    {2, "0000"},
    {2, "1f80"},
    {2, "913b"},
};

// ExtremeProbe (examples/Types.schema): extreme_probe_instance (0) defaults, (1) ranged minima with the raw
// fields at the other extremes, (2) ranged maxima, (3) between.
constexpr Vector kExtremeProbe[] = {
    {40, "0000000000000080000000000000008000000000000000000000000000000080ffffffffffffffff"},
    {40, "000000000000000000000000000000000000000000000000ffffffffffffff7f0000000000000000"},
    {40, "64000000000000806400000000000080feffffffffffffff0000000000000080ffffffffffffffff"},
    {40, "ffffffffffffff7f0000000000000080ffffffffffffff7f2a000000000000000700000000000000"},
};

// ExtremeRow (examples/Types.schema): extreme_row_instance (0) defaults, (1) ranged minima, (2) ranged maxima
// with the raw fields at the other extremes.
constexpr Vector kExtremeRow[] = {
    {32, "000000000000008000000000000000000000000000000080ffffffffffffffff"},
    {32, "000000000000000000000000000000000000000000000080ffffffffffffffff"},
    {32, "6400000000000080fdffffffffffffffffffffffffffff7f0000000000000000"},
};

// FixedProbe (examples128/Ludicrous.schema): fixed_probe_instance (0) defaults, (1) minima, (2) maxima,
// (3) raw values between that are not whole units. 156 bits.
constexpr Vector kFixedProbe[] = {
    {20, "0000b4000060ea000080841e0000000020000004"},
    {20, "0000000000000000000000000000000000000000"},
    {20, "0000680100c0d4010000093d90d0030040000008"},
    {20, "c7cfb3feffbfd4ffff01000090780400a0000000"},
};

// DegenerateProbe (examples128/Ludicrous.schema): the three locked fields take no bits, only the tail is
// sent; degenerate_probe_instance (0) tail 0, (1) 255, (2) 0x5A.
constexpr Vector kDegenerateProbe[] = {
    {1, "00"},
    {1, "ff"},
    {1, "5a"},
};

// RenderBlock (examples/Render.schema): render_block_instance (0) no sprites, (1) 64 sprites at the extremes,
// (2) three sprites between.
constexpr Vector kRenderBlock[] = {
    {9, "000000000000000000"},
    {1113,
     "ffffffffffffffffc0ffffffffffffffffffffffffffffffff7ffffffffffffffffffffffffffffffffffffdffffffff"
     "fffffffffffffffffffffffff7ffffffffffffffffffffffffffffffffdfffffffffffffffffffffffffffffffff7fff"
     "fffffffffffffffffffffffffffffffffdfffffffffffffffffffffffffffffffff7ffffffffffffffffffffffffffff"
     "ffffdfffffffffffffffffffffffffffffffff7ffffffffffffffffffffffffffffffffffffdffffffffffffffffffff"
     "fffffffffffff7ffffffffffffffffffffffffffffffffdfffffffffffffffffffffffffffffffff7fffffffffffffff"
     "fffffffffffffffffffffdfffffffffffffffffffffffffffffffff7ffffffffffffffffffffffffffffffffdfffffff"
     "ffffffffffffffffffffffffff7ffffffffffffffffffffffffffffffffffffdffffffffffffffffffffffffffffffff"
     "f7ffffffffffffffffffffffffffffffffdfffffffffffffffffffffffffffffffff7fffffffffffffffffffffffffff"
     "fffffffffdfffffffffffffffffffffffffffffffff7ffffffffffffffffffffffffffffffffdfffffffffffffffffff"
     "ffffffffffffff7ffffffffffffffffffffffffffffffffffffdfffffffffffffffffffffffffffffffff7ffffffffff"
     "ffffffffffffffffffffffdfffffffffffffffffffffffffffffffff7ffffffffffffffffffffffffffffffffffffdff"
     "fffffffffffffffffffffffffffffff7ffffffffffffffffffffffffffffffffdfffffffffffffffffffffffffffffff"
     "ff7ffffffffffffffffffffffffffffffffffffdfffffffffffffffffffffffffffffffff7ffffffffffffffffffffff"
     "ffffffffffdfffffffffffffffffffffffffffffffff7ffffffffffffffffffffffffffffffffffffdffffffffffffff"
     "fffffffffffffffffff7ffffffffffffffffffffffffffffffffdfffffffffffffffffffffffffffffffff7fffffffff"
     "fffffffffffffffffffffffffffdfffffffffffffffffffffffffffffffff7ffffffffffffffffffffffffffffffffdf"
     "ffffffffffffffffffffffffffffffff7ffffffffffffffffffffffffffffffffffffdffffffffffffffffffffffffff"
     "fffffff7ffffffffffffffffffffffffffffffffdfffffffffffffffffffffffffffffffff7fffffffffffffffffffff"
     "fffffffffffffffdfffffffffffffffffffffffffffffffff7ffffffffffffffffffffffffffffffffdfffffffffffff"
     "ffffffffffffffffffff7ffffffffffffffffffffffffffffffffffffdfffffffffffffffffffffffffffffffff7ffff"
     "ffffffffffffffffffffffffffffdfffffffffffffffffffffffffffffffff7fffffffffffffffffffffffffffffffff"
     "fffdfffffffffffffffffffffffffffffffff7ffffffffffffffffffffffffffffffffdfffffffffffffffffffffffff"
     "ffffffff7ffffffffffffffffffffffffffffffffffffdfffffffffffffffffffffffffffffffff7ffffffffffffffff"
     "ffffffffffffffff5f"},
    {61,
     "030000000300000083f7e6d5c4b3a29100f40100802600000000e09b5713cf8a4602d207000034010000508a6f5e4d3c"
     "2b1a09501f0000380700008012"},
};

using corpus_golden::write;

// Each vector is checked by the shared rule (corpus_golden.hpp): exactly these bytes, read back equal to
// the instance, written again unchanged, refused one byte short.
template <typename T>
void expect_golden(const T& m, std::string_view hex, std::size_t bytes,
                   corpus_golden::ReadBack read_back = corpus_golden::ReadBack::equal) {
  corpus_golden::expect_golden(m, Vector{bytes, hex}, read_back);
}

TEST(CorpusGolden, RealPacketDefaultIsSchemasPinnedWire) {
  const realworld::RealPacket m;
  expect_golden(m, kDefaultHex, 204);  // 1629 bits
  realworld::RealPacket back;
  const std::vector<std::byte> golden = from_hex(kDefaultHex);
  bitwire::ReadStream in(std::span<const std::byte>(golden.data(), golden.size()));
  ASSERT_TRUE(back.serialize(in));
  EXPECT_EQ(back, m);
}

TEST(CorpusGolden, RealPacketMinimum) { expect_golden(realworld::real_packet_min(), kMinHex, 227); }

TEST(CorpusGolden, RealPacketMaximum) { expect_golden(realworld::real_packet_max(), kMaxHex, 227); }

// The pattern's compressed floats lie between steps: they read back as the nearest step.
TEST(CorpusGolden, RealPacketPattern) {
  expect_golden(realworld::real_packet_mid(), kPatternHex, 227, corpus_golden::ReadBack::rewrites_same);
}

TEST(CorpusGolden, Test) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::test_instance(which), kTest[which].hex, kTest[which].bytes);
  }
}

TEST(CorpusGolden, Block) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::block_instance(which), kBlock[which].hex, kBlock[which].bytes);
  }
}

TEST(CorpusGolden, Chat) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::chat_instance(which), kChat[which].hex, kChat[which].bytes);
  }
}

TEST(CorpusGolden, Synchronize) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::synchronize_instance(which), kSynchronize[which].hex, kSynchronize[which].bytes);
  }
}

TEST(CorpusGolden, Timescale) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::timescale_instance(which), kTimescale[which].hex, kTimescale[which].bytes);
  }
}

TEST(CorpusGolden, ProbeHeader) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::probe_header_instance(which), kProbeHeader[which].hex, kProbeHeader[which].bytes);
  }
}

TEST(CorpusGolden, ProbeBits) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::probe_bits_instance(which), kProbeBits[which].hex, kProbeBits[which].bytes);
  }
}

TEST(CorpusGolden, RigidBody) {
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::rigid_body_instance(which), kRigidBody[which].hex, kRigidBody[which].bytes);
  }
}

// At rest, a read resets both velocities to their defaults (schema's reader zeroes them) whatever the
// object held before.
TEST(CorpusGolden, RigidBodyAtRestReadResetsVelocities) {
  const std::vector<std::byte> golden = from_hex(kRigidBody[3].hex);
  examples::RigidBody back = examples::rigid_body_instance(1);
  bitwire::ReadStream in(std::span<const std::byte>(golden.data(), golden.size()));
  ASSERT_TRUE(back.serialize(in));
  EXPECT_EQ(back, examples::rigid_body_instance(3));
}

TEST(CorpusGolden, InputPacket) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::input_packet_instance(which), kInputPacket[which].hex, kInputPacket[which].bytes);
  }
}

// A count over MaxInputsPerPacket (17 in the 5 count bits) is refused, as schema's reader refuses it.
TEST(CorpusGolden, InputPacketCountOverTheMaximumIsRefused) {
  std::vector<std::byte> bytes = from_hex(kInputPacket[0].hex);
  // The count is bits 144..148: byte 18, bits 0..4.
  bytes[18] = static_cast<std::byte>(17);
  bytes.resize(bytes.size() + 17 * 21, std::byte{0});
  examples::InputPacket back;
  bitwire::ReadStream in(std::span<const std::byte>(bytes.data(), bytes.size()));
  EXPECT_FALSE(back.serialize(in));
  bytes[18] = static_cast<std::byte>(16);
  examples::InputPacket ok;
  bitwire::ReadStream again(std::span<const std::byte>(bytes.data(), bytes.size()));
  EXPECT_TRUE(ok.serialize(again));
}

TEST(CorpusGolden, ShipCreate) {
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::ship_create_instance(which), kShipCreate[which].hex, kShipCreate[which].bytes);
  }
}

// ShipType takes 3 bits for 6 values and Team 2 bits for 3: the values past them (6, 7; 3) are refused, as
// schema's reader refuses them.
TEST(CorpusGolden, ShipCreateEnumValuesPastTheLastAreRefused) {
  const std::vector<std::byte> golden = from_hex(kShipCreate[0].hex);
  for (const unsigned ship_type : {6u, 7u}) {
    std::vector<std::byte> bytes = golden;
    bytes[0] = static_cast<std::byte>((std::to_integer<unsigned>(bytes[0]) & ~7u) | ship_type);
    examples::ShipCreate back;
    bitwire::ReadStream in(std::span<const std::byte>(bytes.data(), bytes.size()));
    EXPECT_FALSE(back.serialize(in)) << "ship_type " << ship_type;
  }
  // Defaults: team at bits 196..197 (3 + 75 + 48 + 69 + 1 before it): byte 24, bits 4..5.
  std::vector<std::byte> bytes = golden;
  bytes[24] = static_cast<std::byte>(std::to_integer<unsigned>(bytes[24]) | (3u << 4));
  examples::ShipCreate back;
  bitwire::ReadStream in(std::span<const std::byte>(bytes.data(), bytes.size()));
  EXPECT_FALSE(back.serialize(in));
  bytes[24] = static_cast<std::byte>((std::to_integer<unsigned>(golden[24]) & ~(3u << 4)) | (2u << 4));
  examples::ShipCreate blue;
  bitwire::ReadStream again(std::span<const std::byte>(bytes.data(), bytes.size()));
  ASSERT_TRUE(blue.serialize(again));
  EXPECT_EQ(blue.team, examples::Team::Blue);
}

TEST(CorpusGolden, ProbeArray) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::probe_array_instance(which), kProbeArray[which].hex, kProbeArray[which].bytes);
  }
}

TEST(CorpusGolden, ProbeReport) {
  for (int which = 0; which < 2; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::probe_report_instance(which), kProbeReport[which].hex, kProbeReport[which].bytes);
  }
}

TEST(CorpusGolden, TestData) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::test_data_instance(which), kTestData[which].hex, kTestData[which].bytes);
  }
}

TEST(CorpusGolden, CompressedProbe) {
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(which);
    // Instance 3's values lie between the compressed floats' steps: they read back as the nearest step.
    expect_golden(examples::compressed_probe_instance(which), kCompressedProbe[which].hex,
                  kCompressedProbe[which].bytes,
                  which == 3 ? corpus_golden::ReadBack::rewrites_same : corpus_golden::ReadBack::equal);
  }
}

TEST(CorpusGolden, Handle) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::handle_instance(which), kHandle[which].hex, kHandle[which].bytes);
  }
}

TEST(CorpusGolden, ExpressionProbe) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::expression_probe_instance(which), kExpressionProbe[which].hex,
                  kExpressionProbe[which].bytes);
  }
}

// spin_rate is an 11-bit offset from 1024 whose largest value is 1024 (2048): 1025 is refused, as schema's
// reader refuses it.
TEST(CorpusGolden, ExpressionProbeOffsetPastTheMaximumIsRefused) {
  const std::vector<std::byte> bytes = from_hex("2080");  // hardpoint_index 0, spin_rate offset 1025
  examples::ExpressionProbe back;
  bitwire::ReadStream in(std::span<const std::byte>(bytes.data(), bytes.size()));
  EXPECT_FALSE(back.serialize(in));
  EXPECT_EQ(in.error(), bitwire::ReadError::kValueOutOfRange);
  const std::vector<std::byte> largest = from_hex("0080");  // offset 1024
  examples::ExpressionProbe ok;
  bitwire::ReadStream again(std::span<const std::byte>(largest.data(), largest.size()));
  EXPECT_TRUE(ok.serialize(again));
  EXPECT_EQ(ok.spin_rate, 2048);
}

TEST(CorpusGolden, ExtremeProbe) {
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::extreme_probe_instance(which), kExtremeProbe[which].hex, kExtremeProbe[which].bytes);
  }
}

TEST(CorpusGolden, ExtremeRow) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::extreme_row_instance(which), kExtremeRow[which].hex, kExtremeRow[which].bytes);
  }
}

TEST(CorpusGolden, RenderBlock) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::render_block_instance(which), kRenderBlock[which].hex, kRenderBlock[which].bytes);
  }
}

// The sprite count is 7 bits (bits_required(0, 64)) at bit 64: 65 is refused, as schema's reader refuses it.
TEST(CorpusGolden, RenderBlockCountOverTheMaximumIsRefused) {
  std::vector<std::byte> bytes(9 + 64 * 18, std::byte{0});
  bytes[8] = static_cast<std::byte>(65);
  examples::RenderBlock back;
  bitwire::ReadStream in(std::span<const std::byte>(bytes.data(), bytes.size()));
  EXPECT_FALSE(back.serialize(in));
  EXPECT_EQ(in.error(), bitwire::ReadError::kInvalidCount);
  bytes[8] = static_cast<std::byte>(64);
  examples::RenderBlock ok;
  bitwire::ReadStream again(std::span<const std::byte>(bytes.data(), bytes.size()));
  EXPECT_TRUE(ok.serialize(again));
  EXPECT_EQ(ok.sprites.size(), 64u);
}

TEST(CorpusGolden, FixedProbe) {
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::fixed_probe_instance(which), kFixedProbe[which].hex, kFixedProbe[which].bytes);
  }
}

// angle is the first 25 bits, an offset from -180 * 2^16: 360 * 2^16 + 1 is refused, as schema's reader
// refuses it; 360 * 2^16 is +180.
TEST(CorpusGolden, FixedProbeOffsetPastTheMaximumIsRefused) {
  std::vector<std::byte> bytes(20, std::byte{0});
  const uint32_t past = 360u * 65536u + 1u;
  for (int i = 0; i < 4; ++i) bytes[static_cast<size_t>(i)] = static_cast<std::byte>(past >> (8 * i));
  examples::FixedProbe back;
  bitwire::ReadStream in(std::span<const std::byte>(bytes.data(), bytes.size()));
  EXPECT_FALSE(back.serialize(in));
  EXPECT_EQ(in.error(), bitwire::ReadError::kValueOutOfRange);
  bytes[0] = std::byte{0};
  examples::FixedProbe ok;
  bitwire::ReadStream again(std::span<const std::byte>(bytes.data(), bytes.size()));
  EXPECT_TRUE(ok.serialize(again));
  EXPECT_EQ(ok.angle, 180 * 65536);
}

TEST(CorpusGolden, DegenerateProbe) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    const examples::DegenerateProbe m = examples::degenerate_probe_instance(which);
    expect_golden(m, kDegenerateProbe[which].hex, kDegenerateProbe[which].bytes);
    const std::vector<std::byte> golden = from_hex(kDegenerateProbe[which].hex);
    examples::DegenerateProbe back;
    bitwire::ReadStream in(std::span<const std::byte>(golden.data(), golden.size()));
    ASSERT_TRUE(back.serialize(in));
    EXPECT_EQ(back.locked_fixed, -3 * 65536);
    EXPECT_EQ(back.locked_int, 7);
    EXPECT_EQ(back.locked_wide, -12345678901234);
    EXPECT_EQ(back.tail, m.tail);
  }
}

TEST(CorpusGolden, HeartbeatIsEmpty) { EXPECT_TRUE(write(examples::Heartbeat{}).empty()); }

// ---- examples128/Ludicrous.schema's 128-bit and unsigned fixed-point messages ----
// Each vector: schema's own struct (generated/cpp/ludicrous/Ludicrous.h at schema ed8aa71) set field by
// field to the values the instance function below names, every field it leaves alone at schema's struct
// default (WideProbe's bias -250 and seed 2^65), written by schema's writer (LudicrousWire.h with
// mas-bandwidth/serialize): no code of idlc's is involved, so a value idlc's code got wrong cannot agree.
// One exception: UnsignedProbe's locked (range 3 .. 3) is set to its one value, 3 << 16, as idlc's default
// is; schema's struct initializer 0 lies outside the range. bench/RESULTS.md (branch h-wide) says so.

// UnsignedProbe: unsigned_probe_instance (0) defaults, (1) minima, (2) maxima (span's raw 2^64 - 2^16),
// (3) between, span 2^63 + 1. 196 bits. (1) writes the bytes of (0) by construction: no field declares a
// default, so each starts at 0, which is also each range's minimum (locked has the one value 3 both ways);
// the vector is kept so that the minima instance stays pinned.
constexpr Vector kUnsignedProbe[] = {
    {25, "00000000000000000000000000000000000000000000000000"},
    {25, "00000000000000000000000000000000000000000000000000"},
    {25, "0000680100feffffffffff010000093d90d00300400000f80f"},
    {25, "39300002000000000000002b9ab70e40c200040080ffffa705"},
};

// WideProbe: wide_probe_instance (0) defaults (bias -250, seed 2^65), (1) minima (flux -2^100), (2) maxima,
// (3) between. 403 bits.
constexpr Vector kWideProbe[] = {
    {51,
     "0000000000000000000000000000000000f2052a01000000000000000000000040ee020000000000000010000000000000000"
     "0"},
    {51,
     "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "0"},
    {51,
     "ffffffffffffffffffffffffffffffff00e40b5402000000000000000000000080d0ffffffffffffffffffffffffffffffff0"
     "7"},
    {51,
     "1032547698badcfeefcdab8967452301fff1052a1d3fffffffffffffffffffff7fe82b0000000000000000000000000000000"
     "4"},
};

// LudicrousState: ludicrous_state_instance (0) defaults (565 bits), (1) four keys and a target (1205
// bits), (2) one key, no target (693 bits).
constexpr Vector kLudicrousState[] = {
    {71,
     "0000d0020080a9030000127a000000008000001000000000000000000000000000000000807c814a00000000000000000000000"
     "0"
     "90bb0000000000000000040000000000000000"},
    {151,
     "0300a00500005307000024f440420f0000010020840c951da62eb7ff7bf36ae259d148c07f7c814ac7cffffffffffffffffffff"
     "f"
     "1ffa0a00000000000000000000000000000009000000000000000000000000000000f0ffffffffffffffffffffffffffffff0f0"
     "0"
     "000000000000100000000000000010000000000000000000000000000000f000000000000000000000000002000000"},
    {87,
     "0200000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
     "0"
     "000000000000000000000000000000000000a202000000000000000000000000000000"},
};

TEST(CorpusGolden, UnsignedProbe) {
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::unsigned_probe_instance(which), kUnsignedProbe[which].hex,
                  kUnsignedProbe[which].bytes);
  }
  // The largest span reads back whole: no sign extension of uint64's high half.
  const std::vector<std::byte> golden = from_hex(kUnsignedProbe[2].hex);
  examples::UnsignedProbe back;
  bitwire::ReadStream in(std::span<const std::byte>(golden.data(), golden.size()));
  ASSERT_TRUE(back.serialize(in));
  EXPECT_EQ(back.span, 18446744073709486080u);
  EXPECT_EQ(back.locked, 3u * 65536u);
}

// span is 64 bits at bit 25, an offset whose largest value is 2^64 - 2^16: one more is refused, as
// schema's reader refuses it; the largest reads back.
TEST(CorpusGolden, UnsignedProbeSpanPastTheMaximumIsRefused) {
  const std::vector<std::byte> past = from_hex("0000000200feffffffffff0100000000000000000000000000");
  examples::UnsignedProbe back;
  bitwire::ReadStream in(std::span<const std::byte>(past.data(), past.size()));
  EXPECT_FALSE(back.serialize(in));
  EXPECT_EQ(in.error(), bitwire::ReadError::kValueOutOfRange);
  const std::vector<std::byte> largest = from_hex("0000000000feffffffffff0100000000000000000000000000");
  examples::UnsignedProbe ok;
  bitwire::ReadStream again(std::span<const std::byte>(largest.data(), largest.size()));
  EXPECT_TRUE(ok.serialize(again));
  EXPECT_EQ(ok.span, 18446744073709486080u);
}

TEST(CorpusGolden, WideProbe) {
  for (int which = 0; which < 4; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::wide_probe_instance(which), kWideProbe[which].hex, kWideProbe[which].bytes);
  }
  // Values past 64 bits read back exactly: flux -2^100, seed's default 2^65.
  const std::vector<std::byte> minima = from_hex(kWideProbe[1].hex);
  examples::WideProbe low;
  bitwire::ReadStream in(std::span<const std::byte>(minima.data(), minima.size()));
  ASSERT_TRUE(low.serialize(in));
  EXPECT_TRUE(low.flux == -static_cast<bitwire::int128_t>(examples::u128(uint64_t{1} << 36, 0)));
  EXPECT_TRUE(examples::WideProbe{}.seed == examples::u128(2, 0));
  EXPECT_TRUE(examples::WideProbe{}.bias == -250);
}

// flux is 102 bits at bit 162, an offset whose largest value is 2^101 (+2^100): 2^101 + 1 is refused, as
// schema's reader refuses it; 2^101 reads +2^100.
TEST(CorpusGolden, WideProbeFluxPastTheMaximumIsRefused) {
  const std::vector<std::byte> past = from_hex(
      "00000000000000000000000000000000000000000400000000000000000000008000000000000000000000000000000000000"
      "0");
  examples::WideProbe back;
  bitwire::ReadStream in(std::span<const std::byte>(past.data(), past.size()));
  EXPECT_FALSE(back.serialize(in));
  EXPECT_EQ(in.error(), bitwire::ReadError::kValueOutOfRange);
  const std::vector<std::byte> largest = from_hex(
      "00000000000000000000000000000000000000000000000000000000000000008000000000000000000000000000000000000"
      "0");
  examples::WideProbe ok;
  bitwire::ReadStream again(std::span<const std::byte>(largest.data(), largest.size()));
  EXPECT_TRUE(ok.serialize(again));
  EXPECT_TRUE(ok.flux == static_cast<bitwire::int128_t>(examples::u128(uint64_t{1} << 36, 0)));
}

TEST(CorpusGolden, LudicrousState) {
  for (int which = 0; which < 3; ++which) {
    SCOPED_TRACE(which);
    expect_golden(examples::ludicrous_state_instance(which), kLudicrousState[which].hex,
                  kLudicrousState[which].bytes);
  }
  // The untaken side of the `if` reads back as its default, whatever the object held.
  const std::vector<std::byte> golden = from_hex(kLudicrousState[2].hex);
  examples::LudicrousState back = examples::ludicrous_state_instance(1);
  bitwire::ReadStream in(std::span<const std::byte>(golden.data(), golden.size()));
  ASSERT_TRUE(back.serialize(in));
  EXPECT_TRUE(back == examples::ludicrous_state_instance(2));
  EXPECT_TRUE(back.target_id == 0);
}

}  // namespace
