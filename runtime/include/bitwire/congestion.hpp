// Congestion avoidance: a controller watches the connection's round-trip time and loss and publishes the
// rate (packets per second) the caller should send at. It never sends anything itself and never reads a
// clock: the caller passes the time and the latest statistics to update() once per tick.
//
// CongestionController is the interface; BinaryCongestionController is the simple binary scheme of the
// reliability-and-congestion-avoidance article. A smarter controller (delay-gradient, loss-based AIMD,
// ...) derives from the same interface and replaces it without changes in the caller.
#pragma once

#include <cstdint>

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

  // Feeds the statistics at time `now` (seconds; should not decrease, a step back counts as no time).
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
};

enum class CongestionMode : uint8_t { kGood, kBad };

// The binary scheme:
// - good mode, conditions turn bad: drop to bad mode at once; if good mode lasted less than
//   relapse_window, double the recover time (clamped to max_recover_time);
// - bad mode: return to good once conditions have stayed good for the recover time without a break;
// - every halving_period in good mode halves the recover time (clamped to min_recover_time).
// Conditions are bad when the RTT is above its threshold, the loss above its threshold, or either is NaN.
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
  const BinaryCongestionConfig& config() const { return config_; }

 private:
  bool conditions_bad(const CongestionSignal& signal) const;

  BinaryCongestionConfig config_;
  CongestionMode mode_ = CongestionMode::kBad;
  double recover_time_ = 0.0;
  bool started_ = false;  // an update has set `last_update_`
  double last_update_ = 0.0;
  double mode_entered_ = 0.0;  // when the current mode began
  bool good_streak_ = false;   // bad mode: conditions have been good since `good_since_`
  double good_since_ = 0.0;
  double halving_anchor_ = 0.0;  // good mode: the last halving (or entering good mode)
  uint64_t drops_ = 0;
  uint64_t recoveries_ = 0;
};

// Turns a rate into send decisions at tick granularity: due() says whether to send a packet now, and
// keeps the average at the rate while the caller polls at least as often as it is asked to send.
class SendPacer {
 public:
  // True when a packet should go out at `now` for `packets_per_second` (> 0).
  bool due(double now, double packets_per_second);
  void reset() { started_ = false; }

 private:
  bool started_ = false;
  double next_send_ = 0.0;
};

}  // namespace bitwire
