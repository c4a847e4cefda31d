// Congestion avoidance: a controller watches the connection's round-trip time and loss and publishes the
// rate (packets per second) the caller should send at. It never sends anything itself and never reads a
// clock: the caller passes the time and the latest statistics to update() once per tick.
//
// CongestionController is the interface; BinaryCongestionController is the simple binary scheme of the
// reliability-and-congestion-avoidance article. A smarter controller (delay-gradient, loss-based AIMD,
// ...) derives from the same interface and replaces it without changes in the caller.
#pragma once

#include <cstdint>

#include "bitwire/core/config_table.hpp"
#include "bitwire/core/monotonic_time.hpp"

namespace bitwire {

// What a controller sees of the network each tick (all from the endpoint's statistics).
struct CongestionSignal {
  double rtt_ms = 0.0;               // smoothed round-trip time
  double packet_loss_percent = 0.0;  // smoothed loss of packets old enough to have been acked
  double jitter_ms = 0.0;            // variation of the RTT (unused by the binary controller)
};

class CongestionController {
 public:
  virtual ~CongestionController() = default;

  // Feeds the statistics at time `now` (seconds). A non-finite or out-of-range time is ignored and a step
  // back counts as no time passing (monotonic_time.hpp).
  virtual void update(double now, const CongestionSignal& signal) = 0;
  // The same with the two figures every controller needs, e.g.
  // update(now, endpoint.rtt_ms(), endpoint.packet_loss_percent()).
  void update(double now, double rtt_ms, double packet_loss_percent) {
    update(now, CongestionSignal{rtt_ms, packet_loss_percent, 0.0});
  }
  // Packets per second the caller should send at from now on.
  virtual double send_rate() const = 0;
  // Back to the state of a new connection.
  virtual void reset() = 0;
};

// The send rates a controller may publish and a pacer accepts (packets per second): from one packet every
// ten seconds (a keep-alive) to far beyond any game's tick rate.
inline constexpr double kMinSendRate = 0.1;
inline constexpr double kMaxSendRate = 100000.0;

// Every field is a default from the article, or marked where the article leaves the choice to us.
struct BinaryCongestionConfig {
  double good_send_rate = 30.0;     // packets per second while conditions are good
  double bad_send_rate = 10.0;      // packets per second while they are bad
  double rtt_threshold_ms = 250.0;  // a smoothed RTT above this is bad (flooding shows as queueing delay)
  // Loss above this is bad too (ours; the article uses RTT alone: set 100 for that). A link that drops
  // everything keeps a stale, low RTT and only the loss shows it; a few percent of random loss is not
  // congestion and should not cost the high rate. The loss estimate remembers a window of packets, so a
  // low threshold also delays recovery after a lossy episode.
  double loss_threshold_percent = 20.0;
  double initial_recover_time = 4.0;  // seconds of good conditions bad mode waits for at first (ours)
  double min_recover_time = 1.0;      // the recover time never halves below this
  double max_recover_time = 60.0;     // ...and never doubles above this
  double relapse_window = 10.0;       // falling back to bad within this long of reaching good doubles it
  double halving_period = 10.0;       // each period spent in good mode halves it
  bool start_good = false;            // a new connection starts in bad mode and earns the high rate

  // Passes when every field is within kBinaryCongestionConfigLimits, else the reason (config_table.hpp).
  ConfigCheck check() const;
  BinaryCongestionConfig sanitized() const;
};

inline constexpr auto kBinaryCongestionConfigLimits = config_table(
    Field<BinaryCongestionConfig, double>{.name = "good_send_rate",
                                          .member = &BinaryCongestionConfig::good_send_rate,
                                          .min = kMinSendRate,
                                          .max = kMaxSendRate,
                                          .unit = "packets/s"},
    Field<BinaryCongestionConfig, double>{.name = "bad_send_rate",
                                          .member = &BinaryCongestionConfig::bad_send_rate,
                                          .min = kMinSendRate,
                                          .max = kMaxSendRate,
                                          .unit = "packets/s"},
    Field<BinaryCongestionConfig, double>{.name = "rtt_threshold_ms",
                                          .member = &BinaryCongestionConfig::rtt_threshold_ms,
                                          .min = 1.0,
                                          .max = 60000.0,
                                          .unit = "ms"},
    Field<BinaryCongestionConfig, double>{.name = "loss_threshold_percent",
                                          .member = &BinaryCongestionConfig::loss_threshold_percent,
                                          .min = 0.0,
                                          .max = 100.0},
    Field<BinaryCongestionConfig, double>{.name = "min_recover_time",
                                          .member = &BinaryCongestionConfig::min_recover_time,
                                          .min = 0.001,
                                          .max = 3600.0,
                                          .unit = "s"},
    Field<BinaryCongestionConfig, double>{
        .name = "max_recover_time",
        .member = &BinaryCongestionConfig::max_recover_time,
        .min = 0.001,
        .max = 3600.0,
        .lower = [](const BinaryCongestionConfig& c) { return c.min_recover_time; },
        .lower_text = "min_recover_time",
        .unit = "s"},
    Field<BinaryCongestionConfig, double>{
        .name = "initial_recover_time",
        .member = &BinaryCongestionConfig::initial_recover_time,
        .min = 0.001,
        .max = 3600.0,
        .lower = [](const BinaryCongestionConfig& c) { return c.min_recover_time; },
        .lower_text = "min_recover_time",
        .upper = [](const BinaryCongestionConfig& c) { return c.max_recover_time; },
        .upper_text = "max_recover_time",
        .unit = "s"},
    Field<BinaryCongestionConfig, double>{.name = "relapse_window",
                                          .member = &BinaryCongestionConfig::relapse_window,
                                          .min = 0.0,
                                          .max = 3600.0,
                                          .unit = "s"},
    Field<BinaryCongestionConfig, double>{.name = "halving_period",
                                          .member = &BinaryCongestionConfig::halving_period,
                                          .min = 0.001,
                                          .max = 3600.0,
                                          .unit = "s"});

enum class CongestionMode : uint8_t { kGood, kBad };

// The binary scheme:
// - good mode, conditions turn bad: drop to bad mode at once; if good mode lasted less than
//   relapse_window, double the recover time (clamped to max_recover_time);
// - bad mode: return to good once conditions have stayed good for the recover time without a break;
// - every halving_period in good mode halves the recover time (clamped to min_recover_time).
// Conditions are bad when the RTT is above its threshold, the loss above its threshold, or either is NaN.
//
// A config check() refuses is not fatal (a controller must always publish a rate): the controller runs on
// config.sanitized(), logs an error, and error_reason() says what was refused.
class BinaryCongestionController final : public CongestionController {
 public:
  explicit BinaryCongestionController(const BinaryCongestionConfig& config = {});

  using CongestionController::update;
  void update(double now, const CongestionSignal& signal) override;
  double send_rate() const override {
    return mode_ == CongestionMode::kGood ? config_.good_send_rate : config_.bad_send_rate;
  }
  void reset() override;

  CongestionMode mode() const { return mode_; }
  // Seconds of good conditions bad mode needs before returning to good.
  double recover_time() const { return recover_time_; }
  // Times the controller dropped to bad / returned to good since creation or reset.
  uint64_t drops() const { return drops_; }
  uint64_t recoveries() const { return recoveries_; }
  // The config in use (sanitized).
  const BinaryCongestionConfig& config() const { return config_; }
  // Why the config given to the constructor was refused, or nullptr.
  bool ok() const { return error_reason_[0] == '\0'; }
  const char* error_reason() const { return ok() ? nullptr : error_reason_; }
  // Times update() ignored (non-finite or out of range) or clamped (a step back), since creation or reset.
  uint64_t time_invalid() const { return clock_.ignored(); }
  uint64_t time_backwards() const { return clock_.backwards(); }
  // The connection its log lines name ("client 3 -> 127.0.0.1:40000"); copied, cut at kLogNameBytes - 1.
  // Kept across reset().
  static constexpr size_t kLogNameBytes = 96;
  void set_log_name(const char* name);

 private:
  bool conditions_bad(const CongestionSignal& signal) const;

  BinaryCongestionConfig config_;
  char error_reason_[kConfigReasonBytes] = {};
  MonotonicTime clock_;
  CongestionMode mode_ = CongestionMode::kBad;
  double recover_time_ = 0.0;
  bool started_ = false;       // an update has run since creation or reset
  double mode_entered_ = 0.0;  // when the current mode began
  bool good_streak_ = false;   // bad mode: conditions have been good since `good_since_`
  double good_since_ = 0.0;
  double halving_anchor_ = 0.0;  // good mode: the last halving (or entering good mode)
  uint64_t drops_ = 0;
  uint64_t recoveries_ = 0;
  char log_name_[kLogNameBytes] = "unnamed connection";
};

// Turns a rate into send decisions at tick granularity: due() says whether to send a packet now, and
// keeps the average at the rate while the caller polls at least as often as it is asked to send.
// A rate outside [kMinSendRate, kMaxSendRate] (zero, negative, NaN, infinite) is clamped into it (NaN to
// the minimum) and counted, so no input freezes the pacer; a rate increase applies from the last send, not
// from a schedule made at the old rate. Time: as CongestionController::update (an invalid time: not due).
class SendPacer {
 public:
  // True when a packet should go out at `now` for `packets_per_second`.
  bool due(double now, double packets_per_second);
  // Forgets the schedule (the next due() sends); keeps the counters.
  void reset() { started_ = false; }

  uint64_t rates_clamped() const { return rates_clamped_; }  // due() calls with a rate outside the limits
  uint64_t time_invalid() const { return clock_.ignored(); }
  uint64_t time_backwards() const { return clock_.backwards(); }

 private:
  MonotonicTime clock_;
  bool started_ = false;
  double last_send_ = 0.0;
  double next_send_ = 0.0;
  uint64_t rates_clamped_ = 0;
};

}  // namespace bitwire
