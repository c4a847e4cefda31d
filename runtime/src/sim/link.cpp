#include "bitwire/sim/link.hpp"

#include <span>

namespace bitwire {

LinkConfig LinkConfig::symmetric(const NetworkConditions& conditions, uint64_t seed, int capacity, int mtu) {
  LinkConfig config;
  config.a_to_b.seed = seed;
  config.b_to_a.seed = seed ^ 0x6A09E667F3BCC909ull;  // any fixed, different value
  for (NetworkSimulatorConfig* direction : {&config.a_to_b, &config.b_to_a}) {
    direction->capacity = capacity;
    direction->mtu = mtu;
    direction->conditions = conditions;
  }
  return config;
}

ConfigCheck LinkConfig::check() const {
  if (const ConfigCheck problem = a_to_b.check(); !problem)
    return config_part_check("LinkConfig.a_to_b", problem);
  if (const ConfigCheck problem = b_to_a.check(); !problem)
    return config_part_check("LinkConfig.b_to_a", problem);
  return {};
}

LinkConfig LinkConfig::sanitized() const {
  LinkConfig c;
  c.a_to_b = a_to_b.sanitized();
  c.b_to_a = b_to_a.sanitized();
  return c;
}

Link::Link(const LinkConfig& config) : a_to_b_(config.a_to_b), b_to_a_(config.b_to_a) {
  keep_config_reason(error_reason_, config.check());
  for (int i = 0; i < 2; ++i) {
    ports_[i].link = this;
    ports_[i].side = static_cast<LinkSide>(i);
  }
}

EndpointCallbacks Link::callbacks(LinkSide side, const EndpointCallbacks& user) {
  Port& port = ports_[static_cast<int>(side)];
  port.user = user;
  EndpointCallbacks callbacks;
  callbacks.context = &port;
  callbacks.transmit = &transmit_trampoline;
  callbacks.process = &process_trampoline;
  callbacks.on_ack = user.on_ack != nullptr ? &on_ack_trampoline : nullptr;
  return callbacks;
}

void Link::connect(Endpoint* a, Endpoint* b) {
  endpoints_[0] = a;
  endpoints_[1] = b;
}

bool Link::set_conditions(const NetworkConditions& conditions) {
  if (!conditions.check()) return false;
  a_to_b_.set_conditions(conditions);
  b_to_a_.set_conditions(conditions);
  return true;
}

int Link::update(double now) {
  now_ = now;
  int delivered = 0;
  for (const LinkSide from : {LinkSide::kA, LinkSide::kB}) {
    Endpoint* receiver = endpoints_[from == LinkSide::kA ? 1 : 0];
    delivered += leaving(from).deliver(now, [receiver](std::span<const std::byte> bytes, double arrival) {
      if (receiver != nullptr) receiver->receive_packet(bytes, arrival);
    });
  }
  return delivered;
}

void Link::send(LinkSide from, std::span<const std::byte> datagram) {
  leaving(from).send(now_, datagram);
}

void Link::transmit_trampoline(void* context, uint16_t sequence, std::span<const std::byte> datagram) {
  Port& port = *static_cast<Port*>(context);
  port.link->send(port.side, datagram);
  if (port.user.transmit != nullptr) port.user.transmit(port.user.context, sequence, datagram);
}

bool Link::process_trampoline(void* context, uint16_t sequence, std::span<const std::byte> payload) {
  const Port& port = *static_cast<const Port*>(context);
  return port.user.process == nullptr || port.user.process(port.user.context, sequence, payload);
}

void Link::on_ack_trampoline(void* context, uint16_t sequence) {
  const Port& port = *static_cast<const Port*>(context);
  if (port.user.on_ack != nullptr) port.user.on_ack(port.user.context, sequence);
}

}  // namespace bitwire
