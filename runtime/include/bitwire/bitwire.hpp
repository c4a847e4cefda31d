// bitwire: the one header a game includes.
//
// It brings the game-facing API, layer by layer (docs/layers.md):
//   - stack/      Client and Server over netcode 1.02 slots, StackConfig (what a game configures);
//   - netcode/    connect tokens (a game's backend mints them: generate_connect_token);
//   - message/    Message, MessageFactory, channel and block configs a StackConfig is made of;
//   - transport/  Address, Transport and UdpSocket (a game may pass its own Transport);
//   - sim/        NetworkSimulator (latency/jitter/loss/duplicates on a link) and SimulatedTransport, the
//                 decorator that puts it between a Client or Server and its Transport;
//   - serialize/  the streams and serialize functions idlc's generated code calls;
//   - core/       the monotonic clock, the random generator and CRC32 a game may use for its own checks.
// Lower-level pieces a game builds on directly (the packet Endpoint without channels, the Connection
// without netcode) have their own headers in those folders; what a game never calls lives in detail/ or
// in runtime/src/.
#pragma once

#include "bitwire/core/crc32.hpp"
#include "bitwire/core/monotonic_time.hpp"
#include "bitwire/core/random.hpp"
#include "bitwire/message/message.hpp"
#include "bitwire/netcode/token.hpp"
#include "bitwire/serialize/serialize.hpp"
#include "bitwire/sim/simulated_transport.hpp"
#include "bitwire/sim/simulator.hpp"
#include "bitwire/stack/client.hpp"
#include "bitwire/stack/server.hpp"
#include "bitwire/stack/stack_config.hpp"
#include "bitwire/transport/transport.hpp"
#include "bitwire/transport/udp_socket.hpp"
