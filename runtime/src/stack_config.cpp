// StackConfig: one table of limits (config_limits.hpp) drives check() and sanitized(); the nested configs
// are rules whose repair is their own sanitized().
#include <algorithm>

#include "bitwire/stack_config.hpp"
#include "config_limits.hpp"

namespace bitwire {

namespace {

// The largest datagram the endpoint sends: a whole packet up to fragment_above bytes behind a header of at
// most kMaxPacketHeaderBytes, or a fragment (its 5-byte header, a packet header, fragment_size bytes).
bool endpoint_fits_netcode(const StackConfig& c) {
  const EndpointConfig e = c.connection.endpoint.sanitized();
  const size_t whole =
      kMaxPacketHeaderBytes + static_cast<size_t>(std::min(e.fragment_above, e.max_packet_size));
  const size_t fragment = kFragmentHeaderBytes + kMaxPacketHeaderBytes + static_cast<size_t>(e.fragment_size);
  return whole <= netcode::kMaxPayloadBytes && fragment <= netcode::kMaxPayloadBytes;
}

void fit_endpoint_to_netcode(StackConfig& c) {
  EndpointConfig& e = c.connection.endpoint;
  constexpr int kRoom =
      static_cast<int>(netcode::kMaxPayloadBytes - kFragmentHeaderBytes - kMaxPacketHeaderBytes);
  e.fragment_size = std::min(e.fragment_size, kRoom);
  e.fragment_above = std::min(e.fragment_above, kRoom);
  e = e.sanitized();  // max_packet_size must still fit max_fragments * fragment_size
}

netcode::ServerConfig stacked_server(const StackConfig& c) {
  netcode::ServerConfig server = c.server;
  server.max_clients = c.max_clients;
  return server;
}

constexpr detail::IntLimit<StackConfig> kIntLimits[] = {
    {&StackConfig::max_clients, 1, 4096, "max_clients must be in [1, 4096]"},
    {&StackConfig::event_queue_size, 0, 1 << 20, "event_queue_size must be in [0, 2^20]"},
};

constexpr detail::CrossRule<StackConfig> kRules[] = {
    {[](const StackConfig& c) { return c.connection.check() == nullptr; },
     [](StackConfig& c) { c.connection = c.connection.sanitized(); },
     "connection config invalid (see connection.check())"},
    {[](const StackConfig& c) { return stacked_server(c).check() == nullptr; },
     [](StackConfig& c) { c.server = stacked_server(c).sanitized(); },
     "server netcode config invalid (see server.check())"},
    {[](const StackConfig& c) { return c.client.check() == nullptr; },
     [](StackConfig& c) { c.client = c.client.sanitized(); },
     "client netcode config invalid (see client.check())"},
    {endpoint_fits_netcode, fit_endpoint_to_netcode,
     "connection.endpoint fragment_above and fragment_size must fit netcode's 1200-byte payload "
     "(fragment_size <= 1186, fragment_above <= 1191)"},
};

constexpr detail::ConfigLimits<StackConfig> kLimits{kIntLimits, {}, kRules};

}  // namespace

const char* StackConfig::check() const {
  // The nested configs report their own first problem, which says more than the rule's summary.
  if (const char* problem = detail::ConfigLimits<StackConfig>{kIntLimits, {}, {}}.check(*this))
    return problem;
  if (const char* problem = connection.check()) return problem;
  if (const char* problem = stacked_server(*this).check()) return problem;
  if (const char* problem = client.check()) return problem;
  return kLimits.check(*this);
}

StackConfig StackConfig::sanitized() const {
  StackConfig c = kLimits.sanitized(*this);
  c.server.max_clients = c.max_clients;
  c.connection.protocol_id = c.protocol_id;
  c.connection.endpoint.envelope = false;
  return c;
}

uint64_t stack_protocol_id(const MessageFactory& factory, const StackConfig& config) {
  const StackConfig c = config.sanitized();
  return Connection::protocol_id(factory, c.connection);
}

}  // namespace bitwire
