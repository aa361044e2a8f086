// Small text helpers shared by gate 5's data files (chip tables, launches.tsv, records).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kc::limits {

// Whitespace-separated columns of one line, with a `#` comment dropped.
std::vector<std::string> split_columns(const std::string& line);
// A decimal (or 0x hex) unsigned number; throws FormatError naming `where` and `what`.
uint64_t parse_uint(const std::string& text, const std::string& where, const char* what);

// Every line of `text` that has columns, with `where` = "name:line" for its errors.
void for_each_row(const std::string& text, const std::string& name,
                  const std::function<void(const std::string& where, const std::vector<std::string>& cols)>& fn);
// The items of a comma-separated list ("-" is none). Empty items are kept, for the caller to refuse.
std::vector<std::string> split_list(const std::string& s);
// Columns [from, end) joined by one space: a row's closing source, or a symbol, may hold spaces.
std::string join_from(const std::vector<std::string>& cols, size_t from, size_t end = SIZE_MAX);
// The whole of a text file; throws FormatError naming it and `what` it should hold when unreadable.
std::string read_text_file(const std::string& path, const char* what);
// The value of column `i` written `key=value`; throws FormatError naming `where` otherwise.
std::string keyed(const std::vector<std::string>& cols, size_t i, const char* key, const std::string& where);

}  // namespace kc::limits
