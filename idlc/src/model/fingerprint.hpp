// The ProtocolId of a package: a 64-bit fingerprint of its wire shape. Two schemas get the same id
// exactly when their canonical wire-shape texts are equal: comments, doc comments, whitespace, default
// values, constant names and declarations no message reaches do not change it; message order, names of
// messages and fields, every type, range, width, length, array shape, condition and directive do.
#pragma once

#include <cstdint>
#include <string>

#include "bitwire/serialize/bits.hpp"
#include "model/model.hpp"

namespace idlc {

// The canonical text the fingerprint hashes (one line per message, struct, enum and flag set). A package
// whose messages reach a delta form (a `delta message`, or a `delta struct` one of them holds) gets a
// "delta format N" line, N = `delta_format` (the runtime's bitwire::kDeltaFormatVersion): two builds with
// different delta encodings then get different ids, while a package without deltas keeps its id. With
// `checks_enabled`, a package whose messages reach a `check` directive gets a final "checks on" line:
// its wire differs when check markers are written.
std::string wire_shape_text(const model::Package& package, bool checks_enabled = false,
                            int delta_format = bitwire::kDeltaFormatVersion);

// FNV-1a 64 of wire_shape_text(package, checks_enabled, delta_format).
std::uint64_t fingerprint(const model::Package& package, bool checks_enabled = false,
                          int delta_format = bitwire::kDeltaFormatVersion);

}  // namespace idlc
