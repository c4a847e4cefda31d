// The size limits of a UDP datagram, which every layer that sizes packets is bounded by.
#pragma once

#include <cstddef>

namespace bitwire {

// The largest UDP payload over IPv4: 65535 (the IPv4 total length field) - 20 (IPv4 header) - 8 (UDP
// header). IPv6 without jumbograms allows 65527; the smaller figure is the one both can carry.
inline constexpr size_t kMaxUdpPayloadBytes = 65507;

}  // namespace bitwire
