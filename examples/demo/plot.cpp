// The demo's statistics as CSV and as a self-contained SVG (see plot.hpp for the contracts).
//
// The SVG is drawn on a fixed 1000-pixel-wide canvas: a title, a legend, a band with the phase labels,
// then three charts of the same width stacked on the shared time axis, then the list of phases. Every
// number printed goes through append_number/append_fixed, which only ever see finite values; every string
// goes through append_escaped.
#include "plot.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string_view>

namespace demo {
namespace {

// Values beyond this magnitude are drawn at it: the axis arithmetic (spans, nice steps) then never
// overflows, and a huge value still shows as the top of its chart.
constexpr double kMaxMagnitude = 1e300;
// The most phases shaded and listed (a longer list would only make the picture unreadable).
constexpr size_t kMaxPlotPhases = 64;
// The most connections named one by one in the legend; above it the legend says how many there are.
constexpr int kMaxLegendEntries = 64;

// ---- text ----

// Appends `value` (finite) with `decimals` digits after the point; '-0' prints as '0'. A value too long
// for fixed notation falls back to 6 significant digits in exponent form.
void append_fixed(std::string& out, double value, int decimals) {
  if (value == 0.0) value = 0.0;  // -0 -> 0
  std::array<char, 64> buffer{};
  auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::fixed, decimals);
  if (result.ec != std::errc()) {
    result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::general, 6);
  }
  out.append(buffer.data(), result.ptr);
}

// Appends `value` (finite) with 6 significant digits, the shortest of fixed and exponent form.
void append_number(std::string& out, double value) {
  if (value == 0.0) value = 0.0;
  std::array<char, 64> buffer{};
  const auto result =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::general, 6);
  out.append(buffer.data(), result.ptr);
}

void append_int(std::string& out, long long value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), result.ptr);
}

void append_uint(std::string& out, uint64_t value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), result.ptr);
}

// Length of the well-formed UTF-8 sequence at text[i] that encodes a character XML 1.0 allows, or 0.
size_t valid_utf8_char(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  uint32_t code = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code = lead & 0x07u;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
    code = (code << 6) | (byte(i + k) & 0x3Fu);
  }
  const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
  const bool surrogate = code >= 0xD800 && code <= 0xDFFF;
  const bool not_xml_char = code == 0xFFFE || code == 0xFFFF || code > 0x10FFFF;
  return overlong || surrogate || not_xml_char ? 0 : length;
}

// Appends `text` as XML character data (also safe inside a double- or single-quoted attribute): markup
// characters become entities, control characters a space, and bytes that are not a valid UTF-8 encoding of
// an XML character U+FFFD.
void append_escaped(std::string& out, std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        default: out += c < 0x20 ? ' ' : static_cast<char>(c); break;
      }
      ++i;
      continue;
    }
    const size_t length = valid_utf8_char(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
}

// ---- data ----

bool finite(double value) { return std::isfinite(value); }
double clamp_magnitude(double value) { return std::clamp(value, -kMaxMagnitude, kMaxMagnitude); }

// Indices of `samples` sorted by (time, connection); samples with a NaN time go last, in input order.
std::vector<size_t> sorted_order(const std::vector<Sample>& samples) {
  std::vector<size_t> order(samples.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Sample& x = samples[a];
    const Sample& y = samples[b];
    const bool x_nan = std::isnan(x.time_s);
    const bool y_nan = std::isnan(y.time_s);
    if (x_nan != y_nan) return y_nan;
    if (!x_nan && x.time_s != y.time_s) return x.time_s < y.time_s;
    return x.connection < y.connection;
  });
  return order;
}

// ---- axes ----

struct Axis {
  double lo = 0.0;
  double hi = 1.0;
  double step = 0.25;
};

// A step of 1, 2 or 5 times a power of ten that splits `span` into about `target` intervals.
double nice_step(double span, int target) {
  const double raw = span / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  const double nice = fraction <= 1.0 ? 1.0 : fraction <= 2.0 ? 2.0 : fraction <= 5.0 ? 5.0 : 10.0;
  return nice * magnitude;
}

// An axis from lo to hi (both finite, within kMaxMagnitude), widened to whole steps.
Axis nice_axis(double lo, double hi, int target) {
  if (!(hi - lo > 1e-9)) hi = lo + 1.0;
  Axis axis;
  axis.step = nice_step(hi - lo, target);
  axis.lo = std::floor(lo / axis.step) * axis.step;
  axis.hi = std::ceil(hi / axis.step) * axis.step;
  if (!(axis.hi > axis.lo)) axis.hi = axis.lo + axis.step;
  return axis;
}

// Decimals a tick label needs for `step` (a nice step): 0 for steps of 1 and more.
int tick_decimals(double step) {
  const double digits = -std::floor(std::log10(step) + 1e-9);
  return static_cast<int>(std::clamp(digits, 0.0, 9.0));
}

void append_tick_label(std::string& out, double value, double step) {
  if (std::fabs(value) >= 1e9 || step < 1e-9) {
    append_number(out, value);
  } else {
    append_fixed(out, value, tick_decimals(step));
  }
}

// ---- colours ----

// Tableau 10, then a golden-angle walk round the hue circle for connections past ten.
std::string series_colour(int connection) {
  static constexpr std::array<const char*, 10> kPalette = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                                           "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#7f7f7f"};
  if (connection >= 0 && connection < static_cast<int>(kPalette.size())) return kPalette[static_cast<size_t>(connection)];
  const double hue = std::fmod(static_cast<double>(connection) * 137.508, 360.0) / 60.0;
  const double saturation = connection % 2 == 0 ? 0.70 : 0.55;
  const double value = connection % 3 == 0 ? 0.60 : 0.80;
  const double chroma = value * saturation;
  const double x = chroma * (1.0 - std::fabs(std::fmod(hue, 2.0) - 1.0));
  double r = 0, g = 0, b = 0;
  switch (static_cast<int>(hue) % 6) {
    case 0: r = chroma; g = x; break;
    case 1: r = x; g = chroma; break;
    case 2: g = chroma; b = x; break;
    case 3: g = x; b = chroma; break;
    case 4: r = x; b = chroma; break;
    default: r = chroma; b = x; break;
  }
  const double m = value - chroma;
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", static_cast<unsigned>(std::lround((r + m) * 255.0)),
                static_cast<unsigned>(std::lround((g + m) * 255.0)), static_cast<unsigned>(std::lround((b + m) * 255.0)));
  return buffer;
}

// ---- the SVG ----

constexpr double kWidth = 1000.0;
constexpr double kLeft = 84.0;    // room for the y tick labels and the rotated axis title
constexpr double kRight = 24.0;
constexpr double kLabelCharWidth = 0.62;  // em per character, for fitting phase labels
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kChartHeight = 170.0;
constexpr double kChartGap = 46.0;  // x tick labels of the chart above, and air
constexpr double kLegendColumn = 112.0;
constexpr double kLegendRow = 18.0;
constexpr const char* kFont = "font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\"";
constexpr const char* kReferenceDash = "7 4";
constexpr const char* kDownDash = "2 2";

enum class Series { kRtt, kLoss, kUp, kDown };

double series_value(const Sample& sample, Series series) {
  switch (series) {
    case Series::kRtt: return sample.rtt_ms;
    case Series::kLoss: return sample.loss_percent;
    case Series::kUp: return sample.up_kbps;
    case Series::kDown: return sample.down_kbps;
  }
  return 0.0;
}

const char* series_id(Series series) {
  switch (series) {
    case Series::kRtt: return "rtt";
    case Series::kLoss: return "loss";
    case Series::kUp: return "up";
    case Series::kDown: return "down";
  }
  return "";
}

struct Chart {
  const char* title;     // the y axis title, with the unit
  std::vector<Series> series;
  bool loss_reference;   // true: the phases' loss percent; false with rtt_reference: 2x latency
  bool rtt_reference;
  double top = 0.0;      // pixel y of the plot area's top edge
  Axis y;
};

// The prepared inputs: clamped time axis, valid phases, samples in order.
struct Prepared {
  double duration = 1.0;
  int connections = 0;
  std::vector<const Sample*> samples;  // finite time, in (time, connection) order
  std::vector<Phase> phases;           // finite, clamped to [0, duration], non-empty
  size_t phases_left_out = 0;
};

Prepared prepare(const PlotData& data) {
  Prepared p;
  p.connections = std::clamp(data.connections, 0, kMaxPlotConnections);
  for (size_t index : sorted_order(data.samples)) {
    const Sample& sample = data.samples[index];
    if (finite(sample.time_s)) p.samples.push_back(&sample);
  }
  double duration = data.duration_s;
  if (!finite(duration) || duration <= 0.0) {
    duration = 0.0;
    for (const Sample* sample : p.samples) duration = std::max(duration, sample->time_s);
  }
  p.duration = duration > 0.0 ? std::min(duration, kMaxMagnitude) : 1.0;
  for (const Phase& phase : data.phases) {
    if (!finite(phase.start_s) || !finite(phase.end_s)) continue;
    Phase clamped = phase;
    clamped.start_s = std::clamp(phase.start_s, 0.0, p.duration);
    clamped.end_s = std::clamp(phase.end_s, 0.0, p.duration);
    if (clamped.end_s <= clamped.start_s) continue;
    if (p.phases.size() == kMaxPlotPhases) {
      ++p.phases_left_out;
      continue;
    }
    p.phases.push_back(std::move(clamped));
  }
  return p;
}

double reference_value(const Phase& phase, const Chart& chart) {
  if (chart.rtt_reference) return 2.0 * phase.latency_ms;
  if (chart.loss_reference) return phase.loss_percent;
  return NAN;
}

bool in_plot(const Sample& sample, const Prepared& p) {
  return sample.connection >= 0 && sample.connection < p.connections;
}

// The y axis of a chart: from 0 (or the smallest value, if negative) to the largest value or reference.
Axis chart_axis(const Chart& chart, const Prepared& p) {
  double lo = 0.0;
  double hi = 0.0;
  for (const Sample* sample : p.samples) {
    if (!in_plot(*sample, p)) continue;
    for (Series series : chart.series) {
      const double value = series_value(*sample, series);
      if (!finite(value)) continue;
      lo = std::min(lo, clamp_magnitude(value));
      hi = std::max(hi, clamp_magnitude(value));
    }
  }
  for (const Phase& phase : p.phases) {
    const double value = reference_value(phase, chart);
    if (!finite(value)) continue;
    lo = std::min(lo, clamp_magnitude(value));
    hi = std::max(hi, clamp_magnitude(value));
  }
  if (chart.loss_reference && hi < 1.0) hi = 1.0;  // a clean run still shows a 0..1 % scale, not 0..1e-9
  return nice_axis(lo, hi, 4);
}

class SvgWriter {
 public:
  SvgWriter(const PlotData& data, Prepared prepared) : data_(data), p_(std::move(prepared)) {}

  std::string write() {
    charts_ = {Chart{"RTT (ms)", {Series::kRtt}, false, true, 0.0, {}},
               Chart{"packet loss (%)", {Series::kLoss}, true, false, 0.0, {}},
               Chart{"bandwidth (kbps)", {Series::kUp, Series::kDown}, false, false, 0.0, {}}};
    const double legend_top = 46.0;
    const int legend_rows = legend_client_rows();
    const double band_top = legend_top + kLegendRow * (1 + legend_rows) + 10.0;
    double top = band_top + 22.0;
    for (Chart& chart : charts_) {
      chart.top = top;
      chart.y = chart_axis(chart, p_);
      top += kChartHeight + kChartGap;
    }
    const double charts_bottom = top - kChartGap;
    const double phases_top = charts_bottom + 58.0;
    const size_t phase_lines = p_.phases.size() + (p_.phases_left_out > 0 ? 1 : 0);
    const double height = phases_top + kLegendRow * static_cast<double>(phase_lines) + 12.0;

    out_.reserve(16384 + p_.samples.size() * 64);
    out_ += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out_ += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"";
    append_fixed(out_, kWidth, 0);
    out_ += "\" height=\"";
    append_fixed(out_, height, 0);
    out_ += "\" viewBox=\"0 0 ";
    append_fixed(out_, kWidth, 0);
    out_ += ' ';
    append_fixed(out_, height, 0);
    out_ += "\">\n";
    out_ += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
    text(kLeft, 28.0, data_.title.empty() ? std::string_view("bitwire demo") : std::string_view(data_.title), 18,
         "start", "font-weight=\"bold\"");
    legend(legend_top);
    phase_band(band_top);
    for (size_t i = 0; i < charts_.size(); ++i) chart(charts_[i], i + 1 == charts_.size());
    phase_list(phases_top);
    out_ += "</svg>\n";
    return std::move(out_);
  }

 private:
  double x_of(double time) const {
    return kLeft + std::clamp(time, 0.0, p_.duration) / p_.duration * kPlotWidth;
  }
  static double y_of(const Chart& chart, double value) {
    const double v = std::clamp(clamp_magnitude(value), chart.y.lo, chart.y.hi);
    return chart.top + kChartHeight - (v - chart.y.lo) / (chart.y.hi - chart.y.lo) * kChartHeight;
  }

  int legend_client_rows() const {
    if (p_.connections > kMaxLegendEntries) return 1;
    const int per_row = static_cast<int>(kPlotWidth / kLegendColumn);
    return (p_.connections + per_row - 1) / per_row;
  }

  void text(double x, double y, std::string_view content, int size, const char* anchor, const char* extra = "") {
    out_ += "<text x=\"";
    append_fixed(out_, x, 1);
    out_ += "\" y=\"";
    append_fixed(out_, y, 1);
    out_ += "\" ";
    out_ += kFont;
    out_ += " font-size=\"";
    append_int(out_, size);
    out_ += "\" text-anchor=\"";
    out_ += anchor;
    out_ += "\" fill=\"#222222\"";
    if (*extra != '\0') {
      out_ += ' ';
      out_ += extra;
    }
    out_ += '>';
    append_escaped(out_, content);
    out_ += "</text>\n";
  }

  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double width,
            const char* dash = nullptr) {
    out_ += "<line x1=\"";
    append_fixed(out_, x1, 1);
    out_ += "\" y1=\"";
    append_fixed(out_, y1, 1);
    out_ += "\" x2=\"";
    append_fixed(out_, x2, 1);
    out_ += "\" y2=\"";
    append_fixed(out_, y2, 1);
    out_ += "\" stroke=\"";
    out_ += stroke;
    out_ += "\" stroke-width=\"";
    append_fixed(out_, width, 1);
    out_ += '"';
    if (dash != nullptr) {
      out_ += " stroke-dasharray=\"";
      out_ += dash;
      out_ += '"';
    }
    out_ += "/>\n";
  }

  void rect(double x, double y, double w, double h, const char* fill, const char* extra = "") {
    out_ += "<rect x=\"";
    append_fixed(out_, x, 1);
    out_ += "\" y=\"";
    append_fixed(out_, y, 1);
    out_ += "\" width=\"";
    append_fixed(out_, std::max(w, 0.0), 1);
    out_ += "\" height=\"";
    append_fixed(out_, std::max(h, 0.0), 1);
    out_ += "\" fill=\"";
    out_ += fill;
    out_ += '"';
    if (*extra != '\0') {
      out_ += ' ';
      out_ += extra;
    }
    out_ += "/>\n";
  }

  // One legend key: a short line in the given style, then its label.
  void legend_key(double x, double y, const std::string& colour, const char* dash, double width,
                  std::string_view label) {
    line(x, y - 4.0, x + 22.0, y - 4.0, colour, width, dash);
    text(x + 27.0, y, label, 12, "start");
  }

  void legend(double top) {
    out_ += "<g id=\"legend\">\n";
    double y = top + 12.0;
    legend_key(kLeft, y, "#444444", nullptr, 2.0, "RTT, loss, bandwidth up");
    legend_key(kLeft + 210.0, y, "#444444", kDownDash, 2.0, "bandwidth down");
    legend_key(kLeft + 370.0, y, "#222222", kReferenceDash, 1.5, "simulated: 2x latency, loss %");
    if (p_.connections == 0) {
      text(kLeft + 640.0, y, "no connections", 12, "start");
    } else if (p_.connections > kMaxLegendEntries) {
      std::string label = "clients 0..";
      append_int(label, p_.connections - 1);
      label += " (colours repeat)";
      legend_key(kLeft, y + kLegendRow, series_colour(0), nullptr, 2.0, label);
    } else {
      const int per_row = static_cast<int>(kPlotWidth / kLegendColumn);
      for (int c = 0; c < p_.connections; ++c) {
        std::string label = "client ";
        append_int(label, c);
        legend_key(kLeft + kLegendColumn * (c % per_row), y + kLegendRow * (1 + c / per_row), series_colour(c),
                   nullptr, 2.0, label);
      }
    }
    out_ += "</g>\n";
  }

  static const char* phase_fill(size_t index) { return index % 2 == 0 ? "#eef3fa" : "#faf1e6"; }

  // The phase numbers and conditions above the first chart. A label wider than its phase (at a generous
  // kLabelCharWidth per character) shrinks to the phase number alone (the list under the legend names the
  // conditions), so no label is cut mid-word; each is still clipped to its phase as a last resort.
  void phase_band(double top) {
    if (p_.phases.empty()) return;
    out_ += "<defs>\n";
    for (size_t i = 0; i < p_.phases.size(); ++i) {
      out_ += "<clipPath id=\"phase-clip-";
      append_uint(out_, i);
      out_ += "\">";
      const double x = x_of(p_.phases[i].start_s);
      rect(x, top, x_of(p_.phases[i].end_s) - x, 22.0, "#000000");
      out_ += "</clipPath>\n";
    }
    out_ += "</defs>\n<g id=\"phase-labels\">\n";
    for (size_t i = 0; i < p_.phases.size(); ++i) {
      const Phase& phase = p_.phases[i];
      const double x = x_of(phase.start_s);
      rect(x, top, x_of(phase.end_s) - x, 20.0, phase_fill(i));
      std::string label;
      append_uint(label, i + 1);
      const std::string number = label;
      label += ": ";
      label += phase.label;
      if (text_width(label, 11) + 8.0 > x_of(phase.end_s) - x) label = number;
      std::string clip = "clip-path=\"url(#phase-clip-";
      append_uint(clip, i);
      clip += ")\"";
      text(x + 4.0, top + 14.5, label, 11, "start", clip.c_str());
    }
    out_ += "</g>\n";
  }

  // Width of `content` at `size` px, rounded up: kLabelCharWidth em per UTF-8 character (wider than the
  // average glyph of a sans-serif font).
  static double text_width(std::string_view content, int size) {
    size_t characters = 0;
    for (const char c : content) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    return static_cast<double>(characters) * kLabelCharWidth * size;
  }

  void phase_list(double top) {
    if (p_.phases.empty()) return;
    out_ += "<g id=\"phase-list\">\n";
    for (size_t i = 0; i < p_.phases.size(); ++i) {
      const Phase& phase = p_.phases[i];
      std::string label = "phase ";
      append_uint(label, i + 1);
      label += " (";
      append_number(label, phase.start_s);
      label += "-";
      append_number(label, phase.end_s);
      label += " s): ";
      label += phase.label;
      const double y = top + kLegendRow * static_cast<double>(i);
      rect(kLeft, y - 10.0, 14.0, 12.0, phase_fill(i), "stroke=\"#999999\" stroke-width=\"0.5\"");
      text(kLeft + 20.0, y, label, 12, "start");
    }
    if (p_.phases_left_out > 0) {
      std::string label = "(";
      append_uint(label, p_.phases_left_out);
      label += " more phases not drawn)";
      text(kLeft + 20.0, top + kLegendRow * static_cast<double>(p_.phases.size()), label, 12, "start");
    }
    out_ += "</g>\n";
  }

  void chart(const Chart& chart, bool last) {
    const double top = chart.top;
    const double bottom = top + kChartHeight;
    out_ += "<g class=\"chart\">\n";
    // Phases shaded behind everything.
    for (size_t i = 0; i < p_.phases.size(); ++i) {
      const double x = x_of(p_.phases[i].start_s);
      rect(x, top, x_of(p_.phases[i].end_s) - x, kChartHeight, phase_fill(i));
    }
    // Grid, tick labels and the y axis title.
    for (int k = 0; k <= 40; ++k) {
      const double value = chart.y.lo + chart.y.step * k;
      if (value > chart.y.hi + chart.y.step * 1e-6) break;
      const double y = y_of(chart, value);
      line(kLeft, y, kLeft + kPlotWidth, y, "#d0d0d0", 0.8);
      std::string label;
      append_tick_label(label, value, chart.y.step);
      text(kLeft - 6.0, y + 4.0, label, 11, "end");
    }
    const Axis time_axis = nice_axis(0.0, p_.duration, 10);
    for (int k = 0; k <= 40; ++k) {
      const double t = time_axis.step * k;
      if (t > p_.duration * (1.0 + 1e-9)) break;
      const double x = x_of(t);
      line(x, top, x, bottom, "#e4e4e4", 0.8);
      std::string label;
      append_tick_label(label, t, time_axis.step);
      text(x, bottom + 15.0, label, 11, "middle");
    }
    std::string rotate = "transform=\"rotate(-90 ";
    append_fixed(rotate, kLeft - 58.0, 1);
    rotate += ' ';
    append_fixed(rotate, top + kChartHeight / 2.0, 1);
    rotate += ")\"";
    text(kLeft - 58.0, top + kChartHeight / 2.0, chart.title, 13, "middle", rotate.c_str());
    if (last) text(kLeft + kPlotWidth / 2.0, bottom + 34.0, "time (s)", 13, "middle");
    // One polyline per connection per series.
    const double width = p_.connections > 16 ? 1.0 : 1.6;
    bool any_point = false;
    for (Series series : chart.series) {
      for (int c = 0; c < p_.connections; ++c) {
        out_ += "<polyline id=\"";
        out_ += series_id(series);
        out_ += '-';
        append_int(out_, c);
        out_ += "\" fill=\"none\" stroke=\"";
        out_ += series_colour(c);
        out_ += "\" stroke-width=\"";
        append_fixed(out_, width, 1);
        out_ += "\" stroke-linejoin=\"round\"";
        if (series == Series::kDown) {
          out_ += " stroke-dasharray=\"";
          out_ += kDownDash;
          out_ += '"';
        }
        out_ += " points=\"";
        bool first = true;
        for (const Sample* sample : p_.samples) {
          if (sample->connection != c) continue;
          const double value = series_value(*sample, series);
          if (!finite(value)) continue;
          if (!first) out_ += ' ';
          first = false;
          any_point = true;
          append_fixed(out_, x_of(sample->time_s), 1);
          out_ += ',';
          append_fixed(out_, y_of(chart, value), 1);
        }
        out_ += "\"/>\n";
      }
    }
    // The simulated reference, one dashed segment per phase, over the series so it stays visible
    // under many connections.
    for (const Phase& phase : p_.phases) {
      const double value = reference_value(phase, chart);
      if (!finite(value)) continue;
      const double y = y_of(chart, value);
      line(x_of(phase.start_s), y, x_of(phase.end_s), y, "#222222", 1.5, kReferenceDash);
    }
    if (!any_point) text(kLeft + kPlotWidth / 2.0, top + kChartHeight / 2.0, "no samples", 13, "middle",
                         "fill-opacity=\"0.6\"");
    // The frame last, so it sits on top of the shading.
    rect(kLeft, top, kPlotWidth, kChartHeight, "none", "stroke=\"#555555\" stroke-width=\"1\"");
    out_ += "</g>\n";
  }

  const PlotData& data_;
  Prepared p_;
  std::array<Chart, 3> charts_{};
  std::string out_;
};

bool write_file(const std::string& path, const std::string& text, std::string& error) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  const size_t written = std::fwrite(text.data(), 1, text.size(), file);
  const int write_errno = errno;
  const bool flushed = std::fflush(file) == 0;
  const int flush_errno = errno;
  const bool closed = std::fclose(file) == 0;
  if (written != text.size() || !flushed || !closed) {
    const int code = written != text.size() ? write_errno : !flushed ? flush_errno : errno;
    error = path + ": " + std::strerror(code != 0 ? code : EIO);
    return false;
  }
  return true;
}

void append_csv_number(std::string& out, double value) {
  if (finite(value)) append_number(out, value);
}

void append_csv_text(std::string& out, std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    out.append(text);
    return;
  }
  out += '"';
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

}  // namespace

std::string csv_text(const PlotData& data) {
  std::string out =
      "time_s,connection,rtt_ms,jitter_ms,loss_percent,up_kbps,down_kbps,messages_sent,messages_received,"
      "messages_resent,block_percent,congestion\n";
  out.reserve(out.size() + data.samples.size() * 96);
  for (size_t index : sorted_order(data.samples)) {
    const Sample& s = data.samples[index];
    append_csv_number(out, s.time_s);
    out += ',';
    append_int(out, s.connection);
    for (double value : {s.rtt_ms, s.jitter_ms, s.loss_percent, s.up_kbps, s.down_kbps}) {
      out += ',';
      append_csv_number(out, value);
    }
    for (uint64_t value : {s.messages_sent, s.messages_received, s.messages_resent}) {
      out += ',';
      append_uint(out, value);
    }
    out += ',';
    append_csv_number(out, s.block_percent);
    out += ',';
    append_csv_text(out, s.congestion);
    out += '\n';
  }
  return out;
}

std::string svg_text(const PlotData& data) { return SvgWriter(data, prepare(data)).write(); }

bool check_writable(const std::string& path, std::string& error) {
  std::FILE* probe = std::fopen(path.c_str(), "rb");
  const bool existed = probe != nullptr;
  if (probe != nullptr) std::fclose(probe);
  std::FILE* file = std::fopen(path.c_str(), "ab");
  if (file == nullptr) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  std::fclose(file);
  if (!existed) std::remove(path.c_str());
  return true;
}

bool write_csv(const std::string& path, const PlotData& data, std::string& error) {
  return write_file(path, csv_text(data), error);
}

bool write_svg(const std::string& path, const PlotData& data, std::string& error) {
  return write_file(path, svg_text(data), error);
}

}  // namespace demo
