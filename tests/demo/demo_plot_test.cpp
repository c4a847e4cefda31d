// The demo's CSV and SVG writers (examples/demo/plot.hpp), and the XML checker the SVG tests rely on
// (tests/support/xml_check.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "plot.hpp"
#include "support/xml_check.hpp"

namespace {

using bitwire::test::check_xml;
using bitwire::test::XmlCheck;
using bitwire::test::XmlElement;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A run of `connections` clients over `seconds`, one sample per second each, under `phases`.
demo::PlotData make_run(int connections, int seconds) {
  demo::PlotData data;
  data.title = "bitwire demo: " + std::to_string(connections) + " clients, seed 1";
  data.connections = connections;
  data.duration_s = seconds;
  for (int t = 1; t <= seconds; ++t) {
    for (int c = 0; c < connections; ++c) {
      demo::Sample s;
      s.time_s = t;
      s.connection = c;
      s.rtt_ms = 200.0 + 10.0 * std::sin(t + c);
      s.jitter_ms = 20.0;
      s.loss_percent = 5.0 + std::cos(t * 0.5 + c);
      s.up_kbps = 40.0 + c;
      s.down_kbps = 300.0 + 5.0 * t;
      s.messages_sent = static_cast<uint64_t>(120 * t);
      s.messages_received = static_cast<uint64_t>(119 * t);
      s.messages_resent = static_cast<uint64_t>(t);
      s.block_percent = std::min(100.0, 25.0 * t);
      s.congestion = t % 7 == 0 ? "bad" : "good";
      data.samples.push_back(s);
    }
  }
  const double third = seconds / 3.0;
  data.phases = {{0.0, third, "100 ms +-20 ms, 5% loss, 1% dup", 100.0, 20.0, 5.0},
                 {third, 2 * third, "loss burst: 100 ms, 25% loss", 100.0, 20.0, 25.0},
                 {2 * third, static_cast<double>(seconds), "latency spike: 250 ms +-40 ms, 5% loss", 250.0, 40.0, 5.0}};
  return data;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

std::vector<std::string> lines(const std::string& text) { return split(text, '\n'); }

// The (x, y) pairs of a polyline's points attribute; each coordinate must parse as a finite number.
std::vector<std::pair<double, double>> points_of(const XmlElement& polyline) {
  std::vector<std::pair<double, double>> points;
  const std::string* attribute = polyline.attribute("points");
  if (attribute == nullptr) return points;
  for (const std::string& pair : split(*attribute, ' ')) {
    if (pair.empty()) continue;
    const size_t comma = pair.find(',');
    EXPECT_NE(comma, std::string::npos) << pair;
    if (comma == std::string::npos) continue;
    char* end = nullptr;
    const double x = std::strtod(pair.c_str(), &end);
    EXPECT_EQ(end, pair.c_str() + comma) << pair;
    const double y = std::strtod(pair.c_str() + comma + 1, &end);
    EXPECT_EQ(*end, '\0') << pair;
    EXPECT_TRUE(std::isfinite(x) && std::isfinite(y)) << pair;
    points.emplace_back(x, y);
  }
  return points;
}

// Every polyline of a well-formed SVG, keyed by id.
std::vector<const XmlElement*> polylines(const XmlCheck& xml) {
  std::vector<const XmlElement*> found;
  for (const XmlElement& e : xml.elements) {
    if (e.name == "polyline") found.push_back(&e);
  }
  return found;
}

const XmlElement* by_id(const XmlCheck& xml, const std::string& id) {
  const XmlElement* found = nullptr;
  for (const XmlElement& e : xml.elements) {
    const std::string* value = e.attribute("id");
    if (value != nullptr && *value == id) {
      EXPECT_EQ(found, nullptr) << "id " << id << " repeated";
      found = &e;
    }
  }
  return found;
}

bool has_text(const XmlCheck& xml, const std::string& text) {
  return std::any_of(xml.elements.begin(), xml.elements.end(),
                     [&](const XmlElement& e) { return e.name == "text" && e.text == text; });
}

// The SVG is well-formed, has an svg root, and exactly one series of each kind per connection.
XmlCheck check_svg(const demo::PlotData& data, int connections) {
  const std::string svg = demo::svg_text(data);
  XmlCheck xml = check_xml(svg);
  EXPECT_TRUE(xml.ok) << xml.error << " at byte " << xml.offset << ": "
                      << svg.substr(xml.offset > 80 ? xml.offset - 80 : 0, 160);
  if (!xml.ok) return xml;
  EXPECT_EQ(xml.root().name, "svg");
  const std::string* ns = xml.root().attribute("xmlns");
  EXPECT_TRUE(ns != nullptr && *ns == "http://www.w3.org/2000/svg");
  EXPECT_EQ(polylines(xml).size(), static_cast<size_t>(4 * connections));
  for (int c = 0; c < connections; ++c) {
    for (const char* kind : {"rtt-", "loss-", "up-", "down-"}) {
      const XmlElement* series = by_id(xml, kind + std::to_string(c));
      EXPECT_TRUE(series != nullptr && series->name == "polyline") << kind << c;
    }
  }
  // No number anywhere is printed as nan or inf.
  for (const char* bad : {"nan", "NaN", "inf", "Inf"}) EXPECT_EQ(svg.find(bad), std::string::npos) << bad;
  return xml;
}

// ---- the checker itself: each rule it claims to check fails on a document that breaks it ----

TEST(XmlCheck, AcceptsAWellFormedDocument) {
  const XmlCheck xml = check_xml(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- c -->\n<svg a=\"1\" b='x &amp; &lt;y&gt; &#65;&#x42;'>"
      "<g><text>a &quot;b&quot; &apos;c&apos;</text><![CDATA[<raw>]]></g><line/></svg>\n");
  ASSERT_TRUE(xml.ok) << xml.error;
  ASSERT_EQ(xml.elements.size(), 4u);
  EXPECT_EQ(xml.root().name, "svg");
  EXPECT_EQ(*xml.root().attribute("b"), "x & <y> AB");
  EXPECT_EQ(xml.elements[2].text, "a \"b\" 'c'");
  EXPECT_EQ(xml.elements[1].text, "<raw>");
  EXPECT_EQ(xml.elements[2].parent, 1);
  EXPECT_EQ(xml.elements[3].depth, 1);
  EXPECT_EQ(xml.count("line"), 1u);
}

TEST(XmlCheck, RefusesWhatIsNotWellFormed) {
  const char* bad[] = {
      "",                                   // no root
      "<svg>",                              // not closed
      "<svg><g></svg></g>",                 // crossed
      "<svg></svg><svg></svg>",             // two roots
      "<svg a=1></svg>",                    // unquoted attribute
      "<svg a=\"1\" a=\"2\"></svg>",        // repeated attribute
      "<svg a=\"<\"></svg>",                // '<' in a value
      "<svg>&nbsp;</svg>",                  // unknown entity
      "<svg>a & b</svg>",                   // bare ampersand
      "<svg>&#0;</svg>",                    // reference to a forbidden character
      "<svg>&#x110000;</svg>",              // beyond Unicode
      "<svg>\x01</svg>",                    // control character
      "<svg>\xff</svg>",                    // invalid UTF-8
      "<svg>\xc0\xaf</svg>",                // overlong UTF-8
      "<svg>\xed\xa0\x80</svg>",            // a surrogate
      "<svg>]]></svg>",                     // CDATA end in text
      "<svg><!-- a -- b --></svg>",         // "--" in a comment
      "<svg a=\"1\"b=\"2\"></svg>",         // no space between attributes
      "<!DOCTYPE svg><svg></svg>",          // DTD
      "<svg><![CDATA[x</svg>",              // unterminated CDATA
      "text<svg></svg>",                    // text before the root
  };
  for (const char* document : bad) {
    const XmlCheck xml = check_xml(document);
    EXPECT_FALSE(xml.ok) << "accepted: " << document;
    EXPECT_FALSE(xml.error.empty()) << document;
  }
}

// ---- CSV ----

TEST(DemoPlotCsv, HeaderAndOneRowPerSample) {
  const demo::PlotData data = make_run(3, 5);
  const std::vector<std::string> rows = lines(demo::csv_text(data));
  ASSERT_EQ(rows.size(), 1u + data.samples.size());
  EXPECT_EQ(rows[0],
            "time_s,connection,rtt_ms,jitter_ms,loss_percent,up_kbps,down_kbps,messages_sent,messages_received,"
            "messages_resent,block_percent,congestion");
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(split(rows[i], ',').size(), 12u) << rows[i];
  EXPECT_EQ(rows[1], "1,0,208.415,20,5.87758,40,305,120,119,1,25,good");
}

TEST(DemoPlotCsv, RowsSortedByTimeThenConnection) {
  demo::PlotData data = make_run(4, 6);
  std::mt19937 random(7);
  std::shuffle(data.samples.begin(), data.samples.end(), random);
  const std::vector<std::string> rows = lines(demo::csv_text(data));
  ASSERT_EQ(rows.size(), 1u + data.samples.size());
  double last_time = -1.0;
  int last_connection = -1;
  for (size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string> fields = split(rows[i], ',');
    const double time = std::stod(fields[0]);
    const int connection = std::stoi(fields[1]);
    EXPECT_TRUE(time > last_time || (time == last_time && connection > last_connection)) << rows[i];
    last_time = time;
    last_connection = connection;
  }
}

TEST(DemoPlotCsv, NonFiniteValuesAreEmptyFieldsAndNaNTimesGoLast) {
  demo::PlotData data;
  data.connections = 1;
  demo::Sample s;
  s.time_s = kNaN;
  s.rtt_ms = 1.0;
  data.samples.push_back(s);
  s.time_s = 2.0;
  s.rtt_ms = kNaN;
  s.loss_percent = kInf;
  s.up_kbps = -kInf;
  data.samples.push_back(s);
  s.time_s = 1.0;
  s.rtt_ms = 3.0;
  s.loss_percent = 0.0;
  s.up_kbps = 0.0;
  data.samples.push_back(s);
  const std::string csv = demo::csv_text(data);
  const std::vector<std::string> rows = lines(csv);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1], "1,0,3,0,0,0,0,0,0,0,0,");
  EXPECT_EQ(rows[2], "2,0,,0,,,0,0,0,0,0,");
  EXPECT_EQ(rows[3], ",0,1,0,0,0,0,0,0,0,0,");
  for (const char* bad : {"nan", "inf"}) EXPECT_EQ(csv.find(bad), std::string::npos);
}

TEST(DemoPlotCsv, CongestionTextIsQuotedWhenItWouldBreakTheRow) {
  demo::PlotData data;
  demo::Sample s;
  s.congestion = "bad, \"very\"\nbad";
  data.samples.push_back(s);
  const std::string csv = demo::csv_text(data);
  EXPECT_NE(csv.find(",\"bad, \"\"very\"\"\nbad\"\n"), std::string::npos) << csv;
}

TEST(DemoPlotCsv, HugeValuesStayNumbers) {
  demo::PlotData data;
  demo::Sample s;
  s.rtt_ms = std::numeric_limits<double>::max();
  s.down_kbps = -1e300;
  s.messages_sent = std::numeric_limits<uint64_t>::max();
  data.samples.push_back(s);
  const std::vector<std::string> fields = split(lines(demo::csv_text(data))[1], ',');
  EXPECT_EQ(std::stod(fields[2]), 1.79769e308);
  EXPECT_EQ(fields[6], "-1e+300");
  EXPECT_EQ(fields[7], "18446744073709551615");
}

// ---- SVG ----

TEST(DemoPlotSvg, OneSeriesPerConnectionPerChartWithEverySample) {
  const demo::PlotData data = make_run(4, 30);
  const XmlCheck xml = check_svg(data, 4);
  ASSERT_TRUE(xml.ok);
  for (int c = 0; c < 4; ++c) {
    for (const char* kind : {"rtt-", "loss-", "up-", "down-"}) {
      const XmlElement* series = by_id(xml, kind + std::to_string(c));
      ASSERT_NE(series, nullptr);
      const auto points = points_of(*series);
      ASSERT_EQ(points.size(), 30u) << kind << c;
      for (size_t i = 1; i < points.size(); ++i) EXPECT_GT(points[i].first, points[i - 1].first);
    }
  }
}

TEST(DemoPlotSvg, AxesLegendAndPhasesAreLabelled) {
  const demo::PlotData data = make_run(2, 30);
  const XmlCheck xml = check_svg(data, 2);
  ASSERT_TRUE(xml.ok);
  for (const char* label : {"RTT (ms)", "packet loss (%)", "bandwidth (kbps)", "time (s)", "client 0", "client 1",
                            "bitwire demo: 2 clients, seed 1", "simulated: 2x latency, loss %", "bandwidth down"}) {
    EXPECT_TRUE(has_text(xml, label)) << label;
  }
  // Nice ticks: the RTT chart reaches 2 x 250 ms, so its axis ends on a round 500 or 600.
  EXPECT_TRUE(has_text(xml, "500") || has_text(xml, "600"));
  EXPECT_TRUE(has_text(xml, "0"));
  EXPECT_TRUE(has_text(xml, "30"));  // the last time tick
  for (size_t i = 0; i < data.phases.size(); ++i) {
    EXPECT_TRUE(has_text(xml, std::to_string(i + 1) + ": " + data.phases[i].label)) << i;
  }
  EXPECT_TRUE(has_text(xml, "phase 2 (10-20 s): loss burst: 100 ms, 25% loss"));
}

TEST(DemoPlotSvg, SimulatedReferenceIsDashedAtTheSimulatedValues) {
  const demo::PlotData data = make_run(1, 30);
  const XmlCheck xml = check_svg(data, 1);
  ASSERT_TRUE(xml.ok);
  std::vector<const XmlElement*> references;
  for (const XmlElement& e : xml.elements) {
    const std::string* dash = e.attribute("stroke-dasharray");
    if (e.name == "line" && dash != nullptr && *dash == "7 4" && e.parent != 0 &&
        xml.elements[static_cast<size_t>(e.parent)].attribute("class") != nullptr) {
      references.push_back(&e);
    }
  }
  // Three phases on the RTT chart and three on the loss chart.
  ASSERT_EQ(references.size(), 6u);
  // The RTT chart's third phase (500 ms) is drawn above its first two (200 ms): smaller pixel y.
  const double y1 = std::stod(*references[0]->attribute("y1"));
  const double y3 = std::stod(*references[2]->attribute("y1"));
  EXPECT_LT(y3, y1);
  // Each reference spans its phase: the first starts at the plot's left edge, the last ends at its right.
  EXPECT_EQ(*references[0]->attribute("x1"), "84.0");
  EXPECT_EQ(*references[2]->attribute("x2"), "976.0");
}

TEST(DemoPlotSvg, EmptyDataIsAWellFormedEmptyPlot) {
  const XmlCheck xml = check_svg(demo::PlotData{}, 0);
  ASSERT_TRUE(xml.ok);
  EXPECT_TRUE(has_text(xml, "no samples"));
  EXPECT_TRUE(has_text(xml, "no connections"));
  EXPECT_TRUE(has_text(xml, "RTT (ms)"));
}

TEST(DemoPlotSvg, ConnectionsWithoutSamplesStillHaveTheirSeries) {
  demo::PlotData data;
  data.connections = 3;
  data.duration_s = 10.0;
  const XmlCheck xml = check_svg(data, 3);
  ASSERT_TRUE(xml.ok);
  EXPECT_TRUE(points_of(*by_id(xml, "rtt-2")).empty());
}

TEST(DemoPlotSvg, OneAndSixtyFourConnections) {
  for (int connections : {1, 64}) {
    SCOPED_TRACE(connections);
    const XmlCheck xml = check_svg(make_run(connections, 10), connections);
    ASSERT_TRUE(xml.ok);
    EXPECT_TRUE(has_text(xml, "client " + std::to_string(connections - 1)));
    EXPECT_EQ(points_of(*by_id(xml, "down-" + std::to_string(connections - 1))).size(), 10u);
  }
}

TEST(DemoPlotSvg, SamplesOfUnknownConnectionsAreLeftOutOfThePlot) {
  demo::PlotData data = make_run(2, 5);
  demo::Sample stray;
  stray.time_s = 3.0;
  stray.connection = 7;
  data.samples.push_back(stray);
  stray.connection = -1;
  data.samples.push_back(stray);
  const XmlCheck xml = check_svg(data, 2);
  ASSERT_TRUE(xml.ok);
  EXPECT_EQ(by_id(xml, "rtt-7"), nullptr);
  EXPECT_EQ(points_of(*by_id(xml, "rtt-1")).size(), 5u);
  EXPECT_EQ(lines(demo::csv_text(data)).size(), 1u + data.samples.size());  // the CSV keeps them
}

TEST(DemoPlotSvg, NonFiniteValuesAreSkippedNeverPrinted) {
  demo::PlotData data = make_run(2, 10);
  data.samples[0].rtt_ms = kNaN;           // t=1, connection 0
  data.samples[2].rtt_ms = kInf;           // t=2, connection 0
  data.samples[4].loss_percent = -kInf;    // t=3, connection 0
  data.samples[1].time_s = kNaN;           // connection 1 loses one sample everywhere
  data.samples[3].up_kbps = kNaN;
  data.duration_s = kNaN;                  // the axis falls back to the last sample time
  data.phases[1].latency_ms = kInf;        // that phase's reference is not drawn
  data.phases[2].start_s = kNaN;           // that phase is not drawn at all
  const XmlCheck xml = check_svg(data, 2);
  ASSERT_TRUE(xml.ok);
  EXPECT_EQ(points_of(*by_id(xml, "rtt-0")).size(), 8u);
  EXPECT_EQ(points_of(*by_id(xml, "loss-0")).size(), 9u);
  EXPECT_EQ(points_of(*by_id(xml, "rtt-1")).size(), 9u);
  EXPECT_EQ(points_of(*by_id(xml, "up-1")).size(), 8u);
  EXPECT_FALSE(has_text(xml, "3: " + data.phases[2].label));
}

TEST(DemoPlotSvg, HugeValuesStayOnTheCanvas) {
  demo::PlotData data = make_run(2, 10);
  data.samples[3].rtt_ms = std::numeric_limits<double>::max();
  data.samples[4].loss_percent = -1e308;
  data.samples[5].up_kbps = 1e200;
  data.samples[6].time_s = 1e300;  // beyond the axis: drawn at its end
  data.phases[0].latency_ms = 1e307;
  data.phases[0].end_s = 1e300;
  const std::string svg = demo::svg_text(data);
  const XmlCheck xml = check_svg(data, 2);
  ASSERT_TRUE(xml.ok);
  const double height = std::stod(*xml.root().attribute("height"));
  for (const XmlElement* line : polylines(xml)) {
    for (const auto& [x, y] : points_of(*line)) {
      EXPECT_GE(x, 0.0);
      EXPECT_LE(x, 1000.0);
      EXPECT_GE(y, 0.0);
      EXPECT_LE(y, height);
    }
  }
  EXPECT_LT(svg.size(), 200000u);
}

TEST(DemoPlotSvg, NonsenseSizesAreClampedNotObeyed) {
  demo::PlotData data;
  data.connections = -5;
  data.duration_s = -kInf;
  EXPECT_TRUE(check_svg(data, 0).ok);
  data.connections = 1 << 30;
  data.samples.resize(1);
  const std::string svg = demo::svg_text(data);
  const XmlCheck xml = check_xml(svg);
  ASSERT_TRUE(xml.ok) << xml.error;
  EXPECT_EQ(polylines(xml).size(), static_cast<size_t>(4 * demo::kMaxPlotConnections));
  EXPECT_TRUE(has_text(xml, "clients 0..1023 (colours repeat)"));
}

TEST(DemoPlotSvg, HostileTextIsEscaped) {
  demo::PlotData data = make_run(1, 5);
  const std::string hostile = "</text><script>alert(\"x\")</script> & 'q' <!-- ]]> \x01\x1f";
  data.title = hostile;
  data.phases[0].label = hostile + " \xff\xc0\xaf bad utf-8 \xe2\x82\xac";
  // Wide enough for the whole label in the band (a narrow phase shows its number alone).
  data.phases[0].end_s = data.phases[1].start_s = 4.0;
  data.phases[1].end_s = data.phases[2].start_s = 4.5;
  data.samples[0].congestion = hostile;
  const std::string svg = demo::svg_text(data);
  const XmlCheck xml = check_svg(data, 1);
  ASSERT_TRUE(xml.ok);
  EXPECT_EQ(xml.count("script"), 0u);
  const std::string decoded = "</text><script>alert(\"x\")</script> & 'q' <!-- ]]>   ";
  EXPECT_TRUE(has_text(xml, decoded));
  // Invalid UTF-8 became U+FFFD per byte; the valid euro sign survived.
  EXPECT_TRUE(has_text(xml, "1: " + decoded + " \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd bad utf-8 \xe2\x82\xac"));
}

// A phase narrower than its label shows its number alone in the band above the charts (the list under the
// legend names its conditions), instead of the first letters of the label cut off at the phase's edge.
TEST(DemoPlotSvg, ANarrowPhaseShowsItsNumberNotACutLabel) {
  demo::PlotData data = make_run(2, 30);
  data.phases = {{0.0, 28.0, "100 ms +-20 ms, 5% loss, 1% dup", 100.0, 20.0, 5.0},
                 {28.0, 29.0, "loss burst: 100 ms, 25% loss", 100.0, 20.0, 25.0},
                 {29.0, 30.0, "normal", 100.0, 20.0, 5.0}};
  const XmlCheck xml = check_svg(data, 2);
  ASSERT_TRUE(xml.ok);
  const XmlElement* band = by_id(xml, "phase-labels");
  ASSERT_NE(band, nullptr);
  const int band_index = static_cast<int>(band - xml.elements.data());
  std::vector<std::string> labels;
  for (const XmlElement& e : xml.elements) {
    if (e.name == "text" && e.parent == band_index) labels.push_back(e.text);
  }
  EXPECT_EQ(labels, (std::vector<std::string>{"1: 100 ms +-20 ms, 5% loss, 1% dup", "2", "3"}));
  EXPECT_TRUE(has_text(xml, "phase 2 (28-29 s): loss burst: 100 ms, 25% loss")) << "the list still names it";
}

TEST(DemoPlotSvg, SameDataSameBytes) {
  demo::PlotData data = make_run(3, 8);
  const std::string first = demo::svg_text(data);
  std::reverse(data.samples.begin(), data.samples.end());
  EXPECT_EQ(demo::svg_text(data), first);
}

// ---- files ----

TEST(DemoPlotFiles, WritesWhatTheTextFunctionsReturn) {
  const demo::PlotData data = make_run(2, 4);
  const std::string base = ::testing::TempDir() + "demo_plot_test_" + std::to_string(::getpid());
  std::string error;
  ASSERT_TRUE(demo::write_svg(base + ".svg", data, error)) << error;
  ASSERT_TRUE(demo::write_csv(base + ".csv", data, error)) << error;
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  EXPECT_EQ(read(base + ".svg"), demo::svg_text(data));
  EXPECT_EQ(read(base + ".csv"), demo::csv_text(data));
  std::remove((base + ".svg").c_str());
  std::remove((base + ".csv").c_str());
}

TEST(DemoPlotFiles, CheckWritableRefusesABadPathAndLeavesNoTrace) {
  std::string error;
  EXPECT_FALSE(demo::check_writable("/nonexistent-directory-for-bitwire/plot.svg", error));
  EXPECT_NE(error.find("/nonexistent-directory-for-bitwire/plot.svg: No such file"), std::string::npos)
      << error;
  const std::string fresh = ::testing::TempDir() + "demo_check_" + std::to_string(::getpid()) + ".svg";
  std::remove(fresh.c_str());
  EXPECT_TRUE(demo::check_writable(fresh, error)) << error;
  EXPECT_FALSE(std::ifstream(fresh).good()) << "a file that did not exist is removed again";
  {
    std::ofstream out(fresh);
    out << "kept";
  }
  EXPECT_TRUE(demo::check_writable(fresh, error)) << error;
  std::ifstream in(fresh);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "kept") << "an existing file is left as it was";
  std::remove(fresh.c_str());
}

TEST(DemoPlotFiles, UnwritablePathIsAnErrorNamingThePath) {
  std::string error;
  const std::string path = "/nonexistent-directory-for-bitwire/plot.svg";
  EXPECT_FALSE(demo::write_svg(path, demo::PlotData{}, error));
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find("No such file"), std::string::npos) << error;
  error.clear();
  EXPECT_FALSE(demo::write_csv(path, demo::PlotData{}, error));
  EXPECT_NE(error.find(path), std::string::npos) << error;
}

}  // namespace
