// A small, strict XML 1.0 well-formedness checker for tests of documents the project writes (the demo's
// SVG). It is not a general parser: no DTD (a <!DOCTYPE> is refused), no namespaces resolved, only the five
// predefined entities and character references. What it checks:
// - the text is valid UTF-8 and holds only characters XML 1.0 allows (no control characters but tab,
//   line feed, carriage return; no U+FFFE/U+FFFF; no surrogates);
// - an optional XML declaration first, then exactly one root element, with only whitespace, comments and
//   processing instructions around it;
// - tags balanced and names well formed; every attribute quoted ('...' or "..."), none repeated in one
//   tag, no '<' in a value; every '&' starts &amp; &lt; &gt; &quot; &apos; or a character reference of an
//   allowed character; no "]]>" in text; comments without "--"; CDATA sections closed.
// On success it returns every element in document order with its attributes and direct text decoded, so a
// test can count elements or read ids without its own parser.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bitwire::test {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;  // decoded values, in document order
  std::string text;                                             // the element's own character data, decoded
  int depth = 0;                                                // 0 for the root
  int parent = -1;                                              // index into XmlCheck::elements, -1 for the root

  // The decoded value of attribute `key`, or nullptr.
  const std::string* attribute(std::string_view key) const {
    for (const auto& [name_, value] : attributes) {
      if (name_ == key) return &value;
    }
    return nullptr;
  }
};

struct XmlCheck {
  bool ok = false;
  std::string error;   // why not, when !ok
  size_t offset = 0;   // byte offset of the problem, when !ok
  std::vector<XmlElement> elements;  // document order; elements[0] is the root (when ok)

  const XmlElement& root() const { return elements.front(); }
  // How many elements are named `name`.
  size_t count(std::string_view name) const {
    size_t n = 0;
    for (const XmlElement& e : elements) n += e.name == name ? 1 : 0;
    return n;
  }
};

namespace xml_detail {

inline bool allowed_char(uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
         (c >= 0x10000 && c <= 0x10FFFF);
}

inline void append_utf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

class Checker {
 public:
  explicit Checker(std::string_view text) : s_(text) {}

  XmlCheck run() {
    if (!check_encoding()) return result_;
    if (starts("\xEF\xBB\xBF")) pos_ += 3;  // byte order mark
    if (starts("<?xml") && pos_ + 5 < s_.size() && is_space(s_[pos_ + 5])) {
      if (!skip_past("?>", "unterminated XML declaration")) return result_;
    }
    if (!misc()) return result_;
    if (pos_ >= s_.size() || s_[pos_] != '<') return fail("expected the root element");
    if (!element(0, -1)) return result_;
    if (!misc()) return result_;
    if (pos_ != s_.size()) return fail("content after the root element (only one root is allowed)");
    result_.ok = true;
    return std::move(result_);
  }

 private:
  XmlCheck fail(std::string why) {
    result_.ok = false;
    result_.error = std::move(why);
    result_.offset = pos_;
    result_.elements.clear();
    failed_ = true;
    return result_;
  }

  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  static bool name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
           static_cast<unsigned char>(c) >= 0x80;
  }
  static bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }
  bool starts(std::string_view prefix) const { return s_.substr(pos_, prefix.size()) == prefix; }
  void skip_space() {
    while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
  }
  bool skip_past(std::string_view end, const char* why) {
    const size_t at = s_.find(end, pos_);
    if (at == std::string_view::npos) {
      fail(why);
      return false;
    }
    pos_ = at + end.size();
    return true;
  }

  // Every byte sequence is valid UTF-8 of an allowed character.
  bool check_encoding() {
    size_t i = 0;
    while (i < s_.size()) {
      const auto lead = static_cast<unsigned char>(s_[i]);
      size_t length = 1;
      uint32_t c = lead;
      if (lead >= 0x80) {
        if (lead >= 0xC2 && lead <= 0xDF) {
          length = 2, c = lead & 0x1Fu;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
          length = 3, c = lead & 0x0Fu;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
          length = 4, c = lead & 0x07u;
        } else {
          pos_ = i;
          fail("invalid UTF-8 lead byte");
          return false;
        }
        if (i + length > s_.size()) {
          pos_ = i;
          fail("truncated UTF-8 sequence");
          return false;
        }
        for (size_t k = 1; k < length; ++k) {
          const auto b = static_cast<unsigned char>(s_[i + k]);
          if ((b & 0xC0u) != 0x80u) {
            pos_ = i;
            fail("invalid UTF-8 continuation byte");
            return false;
          }
          c = (c << 6) | (b & 0x3Fu);
        }
        if ((length == 3 && c < 0x800) || (length == 4 && c < 0x10000)) {
          pos_ = i;
          fail("overlong UTF-8 sequence");
          return false;
        }
      }
      if (!allowed_char(c)) {
        pos_ = i;
        fail("a character XML 1.0 does not allow (control character, surrogate or U+FFFE/U+FFFF)");
        return false;
      }
      i += length;
    }
    return true;
  }

  // Whitespace, comments and processing instructions outside the root.
  bool misc() {
    for (;;) {
      skip_space();
      if (starts("<!--")) {
        if (!comment()) return false;
      } else if (starts("<?")) {
        if (!skip_past("?>", "unterminated processing instruction")) return false;
      } else if (starts("<!DOCTYPE")) {
        fail("a DOCTYPE is not accepted");
        return false;
      } else {
        return true;
      }
    }
  }

  bool comment() {
    pos_ += 4;
    const size_t end = s_.find("--", pos_);
    if (end == std::string_view::npos || end + 2 >= s_.size() || s_[end + 2] != '>') {
      fail(end == std::string_view::npos ? "unterminated comment" : "\"--\" inside a comment");
      return false;
    }
    pos_ = end + 3;
    return true;
  }

  bool name(std::string& out) {
    if (pos_ >= s_.size() || !name_start(s_[pos_])) {
      fail("expected a name");
      return false;
    }
    const size_t begin = pos_;
    while (pos_ < s_.size() && name_char(s_[pos_])) ++pos_;
    out.assign(s_.substr(begin, pos_ - begin));
    return true;
  }

  // At '&': appends the decoded reference.
  bool reference(std::string& out) {
    const size_t semicolon = s_.find(';', pos_);
    if (semicolon == std::string_view::npos || semicolon - pos_ > 12) {
      fail("'&' that does not start an entity or character reference");
      return false;
    }
    const std::string_view ref = s_.substr(pos_ + 1, semicolon - pos_ - 1);
    if (ref == "amp") out += '&';
    else if (ref == "lt") out += '<';
    else if (ref == "gt") out += '>';
    else if (ref == "quot") out += '"';
    else if (ref == "apos") out += '\'';
    else if (ref.size() >= 2 && ref[0] == '#') {
      const bool hex = ref[1] == 'x';
      const std::string_view digits = ref.substr(hex ? 2 : 1);
      if (digits.empty()) {
        fail("empty character reference");
        return false;
      }
      uint32_t code = 0;
      for (char d : digits) {
        int v = -1;
        if (d >= '0' && d <= '9') v = d - '0';
        else if (hex && d >= 'a' && d <= 'f') v = d - 'a' + 10;
        else if (hex && d >= 'A' && d <= 'F') v = d - 'A' + 10;
        if (v < 0 || code > 0x10FFFF) {
          fail("malformed character reference");
          return false;
        }
        code = code * (hex ? 16u : 10u) + static_cast<uint32_t>(v);
      }
      if (!allowed_char(code)) {
        fail("character reference to a character XML 1.0 does not allow");
        return false;
      }
      append_utf8(out, code);
    } else {
      fail("unknown entity '&" + std::string(ref) + ";'");
      return false;
    }
    pos_ = semicolon + 1;
    return true;
  }

  // At '<' of a start tag.
  bool element(int depth, int parent) {
    if (depth > 256) {
      fail("elements nested deeper than 256");
      return false;
    }
    ++pos_;
    XmlElement e;
    if (!name(e.name)) return false;
    e.depth = depth;
    e.parent = parent;
    bool empty = false;
    for (;;) {
      const size_t before = pos_;
      skip_space();
      if (pos_ >= s_.size()) {
        fail("unterminated start tag <" + e.name + ">");
        return false;
      }
      if (starts("/>")) {
        pos_ += 2;
        empty = true;
        break;
      }
      if (s_[pos_] == '>') {
        ++pos_;
        break;
      }
      if (pos_ == before) {
        fail("expected whitespace before an attribute in <" + e.name + ">");
        return false;
      }
      std::string key;
      if (!name(key)) return false;
      for (const auto& attribute : e.attributes) {
        if (attribute.first == key) {
          fail("attribute '" + key + "' repeated in <" + e.name + ">");
          return false;
        }
      }
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != '=') {
        fail("expected '=' after attribute '" + key + "'");
        return false;
      }
      ++pos_;
      skip_space();
      if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\'')) {
        fail("unquoted value of attribute '" + key + "'");
        return false;
      }
      const char quote = s_[pos_++];
      std::string value;
      for (;;) {
        if (pos_ >= s_.size()) {
          fail("unterminated value of attribute '" + key + "'");
          return false;
        }
        const char c = s_[pos_];
        if (c == quote) {
          ++pos_;
          break;
        }
        if (c == '<') {
          fail("'<' in the value of attribute '" + key + "'");
          return false;
        }
        if (c == '&') {
          if (!reference(value)) return false;
          continue;
        }
        value += c;
        ++pos_;
      }
      e.attributes.emplace_back(std::move(key), std::move(value));
    }
    const int index = static_cast<int>(result_.elements.size());
    result_.elements.push_back(std::move(e));
    if (empty) return true;
    return content(index, depth);
  }

  // The content of element `index` up to and including its end tag.
  bool content(int index, int depth) {
    std::string text;
    for (;;) {
      if (pos_ >= s_.size()) {
        fail("element <" + result_.elements[static_cast<size_t>(index)].name + "> is not closed");
        return false;
      }
      const char c = s_[pos_];
      if (c == '&') {
        if (!reference(text)) return false;
      } else if (c != '<') {
        if (starts("]]>")) {
          fail("\"]]>\" in character data");
          return false;
        }
        text += c;
        ++pos_;
      } else if (starts("</")) {
        pos_ += 2;
        std::string end;
        if (!name(end)) return false;
        const std::string& open = result_.elements[static_cast<size_t>(index)].name;
        if (end != open) {
          fail("end tag </" + end + "> does not match <" + open + ">");
          return false;
        }
        skip_space();
        if (pos_ >= s_.size() || s_[pos_] != '>') {
          fail("expected '>' after </" + end);
          return false;
        }
        ++pos_;
        result_.elements[static_cast<size_t>(index)].text = std::move(text);
        return true;
      } else if (starts("<!--")) {
        if (!comment()) return false;
      } else if (starts("<![CDATA[")) {
        pos_ += 9;
        const size_t end = s_.find("]]>", pos_);
        if (end == std::string_view::npos) {
          fail("unterminated CDATA section");
          return false;
        }
        text.append(s_.substr(pos_, end - pos_));
        pos_ = end + 3;
      } else if (starts("<?")) {
        if (!skip_past("?>", "unterminated processing instruction")) return false;
      } else if (starts("<!")) {
        fail("markup declaration inside an element");
        return false;
      } else {
        if (!element(depth + 1, index)) return false;
      }
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
  bool failed_ = false;
  XmlCheck result_;
};

}  // namespace xml_detail

// Checks that `document` is well-formed XML (see the header comment for what that covers here).
inline XmlCheck check_xml(std::string_view document) { return xml_detail::Checker(document).run(); }

}  // namespace bitwire::test
