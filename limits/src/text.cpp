#include "kc/limits/text.hpp"

#include <cctype>

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

}  // namespace kc::limits
