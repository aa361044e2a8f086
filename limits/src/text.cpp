#include "kc/limits/text.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "kc/limits/error.hpp"

namespace kc::limits {

std::vector<std::string> split_columns(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : line) {
    if (ch == '#') break;
    if (std::isspace(static_cast<unsigned char>(ch))) {
      if (!cur.empty()) out.push_back(std::move(cur)), cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

uint64_t parse_uint(const std::string& text, const std::string& where, const char* what) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const size_t start = hex ? 2 : 0;
  if (text.size() == start || text.size() - start > (hex ? 16u : 19u))
    throw FormatError(where, std::string(what) + " '" + text + "' is not a number");
  uint64_t v = 0;
  for (size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else throw FormatError(where, std::string(what) + " '" + text + "' is not a number");
    v = v * (hex ? 16 : 10) + static_cast<uint64_t>(d);
  }
  return v;
}

void for_each_row(const std::string& text, const std::string& name,
                  const std::function<void(const std::string&, const std::vector<std::string>&)>& fn) {
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::vector<std::string> cols = split_columns(line);
    if (!cols.empty()) fn(name + ":" + std::to_string(n), cols);
  }
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  if (s == "-" || s.empty()) return out;
  size_t at = 0;
  for (size_t comma; (comma = s.find(',', at)) != std::string::npos; at = comma + 1) out.push_back(s.substr(at, comma - at));
  out.push_back(s.substr(at));
  return out;
}

std::string join_from(const std::vector<std::string>& cols, size_t from, size_t end) {
  std::string out;
  for (size_t i = from; i < std::min(end, cols.size()); ++i) out += (i > from ? " " : "") + cols[i];
  return out;
}

std::string read_text_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FormatError(path, std::string("cannot open ") + what);
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw FormatError(path, std::string("cannot read ") + what);
  return ss.str();
}

std::string keyed(const std::vector<std::string>& cols, size_t i, const char* key, const std::string& where) {
  const std::string k = std::string(key) + "=";
  if (i >= cols.size() || cols[i].rfind(k, 0) != 0)
    throw FormatError(where, "field " + std::to_string(i + 1) + " should be " + k + "...");
  return cols[i].substr(k.size());
}

}  // namespace kc::limits
