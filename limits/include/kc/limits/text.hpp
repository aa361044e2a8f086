// Small text helpers shared by gate 5's data files (chip tables, launches.tsv, records).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kc::limits {

// Whitespace-separated columns of one line, with a `#` comment dropped.
std::vector<std::string> split_columns(const std::string& line);
// A decimal (or 0x hex) unsigned number; throws FormatError naming `where` and `what`.
uint64_t parse_uint(const std::string& text, const std::string& where, const char* what);

}  // namespace kc::limits
