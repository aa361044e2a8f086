// A strict reader for the YAML subset ocloc writes into .ze_info (see ze_info.hpp), and the
// extraction of each kernel's execution environment from it.
#include "ze_info.hpp"

#include <charconv>

#include "kc/limits/error.hpp"

namespace kc::limits::xpu {

const YamlNode* YamlNode::get(std::string_view key) const {
  if (kind != map) return nullptr;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key) return &values[i];
  return nullptr;
}

namespace {

constexpr int kMaxDepth = 64;  // ocloc nests 5 deep; hostile input must not recurse without end

struct Line {
  int indent;
  std::string_view text;  // without the indentation
  int number;             // 1-based
};

class Parser {
 public:
  Parser(std::string_view src, const std::string& what) : what_(what) { split(src); }

  YamlNode parse() {
    if (lines_.empty()) fail(0, "no YAML content");
    YamlNode root = block(lines_[0].indent, 0);
    if (pos_ < lines_.size()) fail(lines_[pos_].number, "unexpected indentation");
    return root;
  }

 private:
  [[noreturn]] void fail(int line, const std::string& why) const {
    throw FormatError(what_, ".ze_info" + (line ? " line " + std::to_string(line) : std::string()) + ": " + why);
  }

  void split(std::string_view src) {
    int number = 0;
    bool started = false;
    while (!src.empty()) {
      size_t nl = src.find('\n');
      std::string_view raw = src.substr(0, nl);
      src = nl == std::string_view::npos ? std::string_view() : src.substr(nl + 1);
      ++number;
      if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
      size_t i = 0;
      while (i < raw.size() && raw[i] == ' ') ++i;
      if (i < raw.size() && raw[i] == '\t') fail(number, "a tab in the indentation");
      std::string_view text = raw.substr(i);
      while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
      if (text.empty() || text[0] == '#') continue;
      if (i == 0 && text == "---") {
        if (started) fail(number, "a second YAML document");
        started = true;
        continue;
      }
      if (i == 0 && text == "...") break;  // end of the document
      for (char c : text)
        if (c == '\0') fail(number, "a NUL byte");
      started = true;
      lines_.push_back({int(i), text, number});
    }
  }

  static bool is_item(std::string_view t) { return t == "-" || t.substr(0, 2) == "- "; }

  // The position of the colon that ends a plain key ("key:" or "key: value"), or npos.
  static size_t key_colon(std::string_view t) {
    if (t.empty() || t[0] == '\'' || t[0] == '"' || t[0] == '[' || t[0] == '{') return std::string_view::npos;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i] == ':' && (i + 1 == t.size() || t[i + 1] == ' ')) return i;
      if (t[i] == ' ' && i + 1 < t.size() && t[i + 1] == '#') return std::string_view::npos;
    }
    return std::string_view::npos;
  }

  YamlNode block(int indent, int depth) {
    if (depth > kMaxDepth) fail(lines_[pos_].number, "nested deeper than " + std::to_string(kMaxDepth));
    return is_item(lines_[pos_].text) ? seq(indent, depth) : map(indent, depth);
  }

  YamlNode seq(int indent, int depth) {
    YamlNode n;
    n.kind = YamlNode::seq;
    n.line = lines_[pos_].number;
    while (pos_ < lines_.size() && lines_[pos_].indent == indent && is_item(lines_[pos_].text)) {
      Line& l = lines_[pos_];
      std::string_view rest = l.text.substr(1);
      size_t skip = 1;
      while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1), ++skip;
      if (rest.empty()) {
        ++pos_;
        if (pos_ < lines_.size() && lines_[pos_].indent > indent) {
          n.elems.push_back(block(lines_[pos_].indent, depth + 1));
        } else {
          YamlNode e;
          e.line = l.number;
          n.elems.push_back(e);
        }
      } else if (is_item(rest)) {
        fail(l.number, "nested sequence items on one line");
      } else if (key_colon(rest) != std::string_view::npos) {
        // "- key: value" starts a map whose keys line up with "key".
        l.indent += int(skip);
        l.text = rest;
        n.elems.push_back(map(l.indent, depth + 1));
      } else {
        n.elems.push_back(inline_value(rest, l.number));
        ++pos_;
      }
    }
    if (pos_ < lines_.size() && lines_[pos_].indent > indent) fail(lines_[pos_].number, "unexpected indentation");
    return n;
  }

  YamlNode map(int indent, int depth) {
    YamlNode n;
    n.kind = YamlNode::map;
    n.line = lines_[pos_].number;
    while (pos_ < lines_.size() && lines_[pos_].indent == indent) {
      const Line l = lines_[pos_];
      if (is_item(l.text)) fail(l.number, "a sequence item where a map key was expected");
      size_t c = key_colon(l.text);
      if (c == std::string_view::npos || c == 0) fail(l.number, "expected \"key: value\"");
      std::string key(l.text.substr(0, c));
      if (n.get(key)) fail(l.number, "duplicate key \"" + key + "\"");
      std::string_view rest = l.text.substr(c + 1);
      while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
      ++pos_;
      YamlNode v;
      if (!rest.empty() && rest[0] != '#') {
        v = inline_value(rest, l.number);
      } else if (pos_ < lines_.size() && lines_[pos_].indent > indent) {
        v = block(lines_[pos_].indent, depth + 1);
      } else if (pos_ < lines_.size() && lines_[pos_].indent == indent && is_item(lines_[pos_].text)) {
        v = seq(indent, depth + 1);  // "key:" then "- item" at the key's own indentation
      } else {
        v.line = l.number;  // an empty value
      }
      n.keys.push_back(std::move(key));
      n.values.push_back(std::move(v));
    }
    if (pos_ < lines_.size() && lines_[pos_].indent > indent) fail(lines_[pos_].number, "unexpected indentation");
    return n;
  }

  YamlNode inline_value(std::string_view t, int line) {
    if (t[0] == '{') fail(line, "flow maps are not in the subset ocloc writes");
    if (t[0] == '&' || t[0] == '*' || t[0] == '!' || t[0] == '|' || t[0] == '>' || t[0] == '%' || t[0] == '@' || t[0] == '`')
      fail(line, std::string("\"") + t[0] + "\" (anchors, tags, block scalars) is not in the subset ocloc writes");
    if (t[0] != '[') return scalar(t, line);
    YamlNode n;
    n.kind = YamlNode::seq;
    n.line = line;
    size_t close = std::string_view::npos;
    std::string_view body = t.substr(1);
    // Split on commas outside quotes; the list ends at its "]".
    size_t start = 0;
    char quote = 0;
    for (size_t i = 0; i < body.size(); ++i) {
      char ch = body[i];
      if (quote) {
        if (ch == quote) quote = 0;
        continue;
      }
      if (ch == '\'' || ch == '"') quote = ch;
      else if (ch == '[' || ch == '{') fail(line, "nested flow collections are not in the subset ocloc writes");
      else if (ch == ',' || ch == ']') {
        std::string_view item = trim(body.substr(start, i - start));
        if (item.empty()) {
          if (ch == ',' || !n.elems.empty()) fail(line, "an empty item in a flow sequence");
        } else {
          n.elems.push_back(scalar(item, line));
        }
        start = i + 1;
        if (ch == ']') {
          close = i;
          break;
        }
      }
    }
    if (close == std::string_view::npos) fail(line, "a flow sequence without its \"]\"");
    std::string_view after = trim(body.substr(close + 1));
    if (!after.empty() && after[0] != '#') fail(line, "text after a flow sequence");
    return n;
  }

  static std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  }

  YamlNode scalar(std::string_view t, int line) {
    YamlNode n;
    n.line = line;
    if (t[0] == '\'' || t[0] == '"') {
      const char q = t[0];
      size_t i = 1;
      std::string out;
      bool closed = false;
      for (; i < t.size(); ++i) {
        if (q == '\'' && t[i] == '\'') {
          if (i + 1 < t.size() && t[i + 1] == '\'') {
            out += '\'';
            ++i;
            continue;
          }
          closed = true;
          break;
        }
        if (q == '"' && t[i] == '\\') {
          if (i + 1 >= t.size()) break;
          char e = t[++i];
          out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
          continue;
        }
        if (q == '"' && t[i] == '"') {
          closed = true;
          break;
        }
        out += t[i];
      }
      if (!closed) fail(line, "a quoted scalar without its closing quote");
      std::string_view after = trim(t.substr(i + 1));
      if (!after.empty() && after[0] != '#') fail(line, "text after a quoted scalar");
      n.value = std::move(out);
      return n;
    }
    size_t hash = t.find(" #");
    n.value = std::string(trim(t.substr(0, hash)));
    return n;
  }

  std::string what_;
  std::vector<Line> lines_;
  size_t pos_ = 0;
};

[[noreturn]] void bad(const std::string& what, const YamlNode& at, const std::string& why) {
  throw FormatError(what, ".ze_info line " + std::to_string(at.line) + ": " + why);
}

uint64_t number(const YamlNode& n, const std::string& key, const std::string& what, uint64_t max) {
  if (n.kind != YamlNode::scalar) bad(what, n, key + " is not a number");
  uint64_t v = 0;
  const char* b = n.value.data();
  const char* e = b + n.value.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (n.value.empty() || ec != std::errc() || p != e) bad(what, n, key + " = \"" + n.value + "\" is not an unsigned number");
  if (v > max) bad(what, n, key + " = " + n.value + " is out of range");
  return v;
}

uint32_t opt_u32(const YamlNode& m, const char* key, const std::string& kname, const std::string& what) {
  const YamlNode* v = m.get(key);
  return v ? uint32_t(number(*v, "kernel " + kname + ": " + key, what, 0xffffffffu)) : 0;
}

std::array<uint32_t, 3> triple(const YamlNode& n, const std::string& key, const std::string& what) {
  if (n.kind != YamlNode::seq || n.elems.size() != 3) bad(what, n, key + " is not [x, y, z]");
  std::array<uint32_t, 3> r{};
  for (int i = 0; i < 3; ++i) r[i] = uint32_t(number(n.elems[i], key, what, 0xffffffffu));
  return r;
}

}  // namespace

YamlNode parse_yaml_subset(std::string_view text, const std::string& what) {
  return Parser(text, what).parse();
}

ZeInfo parse_ze_info(std::string_view text, const std::string& what) {
  const YamlNode root = parse_yaml_subset(text, what);
  if (root.kind != YamlNode::map) bad(what, root, "the document is not a map");
  ZeInfo z;
  if (const YamlNode* v = root.get("version")) {
    if (v->kind != YamlNode::scalar) bad(what, *v, "version is not a scalar");
    z.version = v->value;
  }
  const YamlNode* ks = root.get("kernels");
  if (!ks) bad(what, root, "no \"kernels\" list");
  if (ks->kind != YamlNode::seq) bad(what, *ks, "\"kernels\" is not a list");
  for (const YamlNode& k : ks->elems) {
    if (k.kind != YamlNode::map) bad(what, k, "a kernel entry is not a map");
    ZeKernel r;
    const YamlNode* name = k.get("name");
    if (!name || name->kind != YamlNode::scalar || name->value.empty()) bad(what, k, "a kernel without a name");
    r.name = name->value;
    const YamlNode* env = k.get("execution_env");
    if (!env || env->kind != YamlNode::map) bad(what, k, "kernel " + r.name + ": no execution_env map");
    const YamlNode* simd = env->get("simd_size");
    if (!simd) bad(what, *env, "kernel " + r.name + ": execution_env has no simd_size");
    r.simd = uint32_t(number(*simd, "kernel " + r.name + ": simd_size", what, 64));
    if (r.simd != 8 && r.simd != 16 && r.simd != 32 && r.simd != 1)
      bad(what, *simd, "kernel " + r.name + ": simd_size = " + std::to_string(r.simd) + " (want 1, 8, 16 or 32)");
    const YamlNode* grf = env->get("grf_count");
    if (!grf) bad(what, *env, "kernel " + r.name + ": execution_env has no grf_count (its GRF mode cannot be checked)");
    r.grf = uint32_t(number(*grf, "kernel " + r.name + ": grf_count", what, 512));
    r.slm = opt_u32(*env, "slm_size", r.name, what);
    r.barriers = opt_u32(*env, "barrier_count", r.name, what);
    if (const YamlNode* wg = env->get("required_work_group_size"))
      r.required_wg = triple(*wg, "kernel " + r.name + ": required_work_group_size", what);
    if (const YamlNode* ua = k.get("user_attributes")) {
      if (ua->kind != YamlNode::map) bad(what, *ua, "kernel " + r.name + ": user_attributes is not a map");
      r.reqd_sub_group = opt_u32(*ua, "intel_reqd_sub_group_size", r.name, what);
    }
    if (const YamlNode* bufs = k.get("per_thread_memory_buffers")) {
      if (bufs->kind != YamlNode::seq) bad(what, *bufs, "kernel " + r.name + ": per_thread_memory_buffers is not a list");
      for (const YamlNode& b : bufs->elems) {
        if (b.kind != YamlNode::map) bad(what, b, "kernel " + r.name + ": a per-thread buffer is not a map");
        const YamlNode* usage = b.get("usage");
        const YamlNode* size = b.get("size");
        if (!usage || usage->kind != YamlNode::scalar || !size)
          bad(what, b, "kernel " + r.name + ": a per-thread buffer without usage or size");
        uint64_t bytes = number(*size, "kernel " + r.name + ": per-thread buffer size", what, uint64_t(1) << 40);
        if (usage->value == "private_space") r.private_bytes += bytes;
        else if (usage->value == "spill_fill_space") r.spill_bytes += bytes;
        else if (usage->value != "single_space")
          bad(what, *usage, "kernel " + r.name + ": unknown per-thread buffer usage \"" + usage->value + "\"");
      }
    }
    z.kernels.push_back(std::move(r));
  }
  return z;
}

}  // namespace kc::limits::xpu
