#include "kc/limits/launches.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kc/limits/error.hpp"
#include "kc/limits/paths.hpp"
#include "kc/limits/text.hpp"


namespace kc::limits {

namespace fs = std::filesystem;

std::vector<LaunchRow> parse_launch_rows(const std::string& text, const std::string& name) {
  std::vector<LaunchRow> out;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    auto cols = split_columns(line);
    if (cols.empty()) continue;
    // CUDA rows have 7 columns; other backends' rows are generic here (hip, xpu and metal have 6:
    // limits/README-backends.md) and their own auditors check their columns.
    if (cols[0] == "cuda" ? cols.size() < 7 : cols.size() < 4)
      throw FormatError(name + ":" + std::to_string(n),
                        "launch row has " + std::to_string(cols.size()) + " columns, want: " +
                            (cols[0] == "cuda" ? "backend launch symbol threads dyn_smem cluster flags"
                                               : "backend launch symbol threads ..."));
    out.push_back(LaunchRow{name, n, std::move(cols)});
  }
  return out;
}

int parse_sm(std::string s) {
  if (auto dash = s.find('-'); dash != std::string::npos) s.resize(dash);  // -real, -virtual
  if (s.rfind("sm_", 0) == 0) s = s.substr(3);
  if (!s.empty() && (s.back() == 'a' || s.back() == 'f')) s.pop_back();  // sm_90a, sm_100f
  if (s.empty() || s.size() > 4 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) return 0;
  return std::stoi(s);
}

Launch parse_launch(const LaunchRow& row) {
  const std::string where = row.where();
  const auto& c = row.cols;
  if (c.size() < 7) throw FormatError(where, "launch row has fewer than 7 columns");
  Launch l;
  l.file = row.file;
  l.line = row.line;
  l.backend = c[0];
  l.name = c[1];
  const size_t n = c.size();
  l.symbol = join_from(c, 2, n - 4);
  l.threads = parse_uint(c[n - 4], where, "threads");
  l.dyn_smem = parse_uint(c[n - 3], where, "dyn_smem");
  const uint64_t cl = parse_uint(c[n - 2], where, "cluster");
  if (l.threads == 0) throw FormatError(where, "threads is 0");
  if (cl == 0 || cl > 1024) throw FormatError(where, "cluster " + c[n - 2] + " is not 1..1024");
  l.cluster = static_cast<uint32_t>(cl);
  {
    for (const std::string& f : split_list(c[n - 1])) {
      if (f.empty()) throw FormatError(where, "empty flag in '" + c[n - 1] + "'");
      l.flags.push_back(f);
      if (f == "optin") l.optin = true;
      else if (f == "nonportable") l.nonportable = true;
      else if (f.rfind("frame=", 0) == 0) l.frame = parse_uint(f.substr(6), where, "frame budget");
      else if (f.rfind("from=", 0) == 0 || f.rfind("only=", 0) == 0) {
        const int sm = parse_sm(f.substr(5));
        if (!sm) throw FormatError(where, f + " does not name an SM");
        (f[0] == 'f' ? l.from_sm : l.only_sm) = sm;
      }
      else if (f.rfind("control=", 0) == 0) {
        l.control = f.substr(8);
        if (l.control.empty()) throw FormatError(where, "control= names no kind");
      }
      // Other flags are kept in `flags` for the backend's auditor to accept or refuse.
    }
  }
  return l;
}

std::vector<std::string> find_launch_files(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      out.push_back(p);
    } else if (fs::is_directory(p, ec)) {
      for (fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end; it != end;
           it.increment(ec)) {
        if (ec) break;
        if (it->is_regular_file(ec) && it->path().filename() == "launches.tsv") out.push_back(it->path().string());
      }
      if (ec) throw FormatError(p, "cannot search directory: " + ec.message());
    } else {
      throw FormatError(p, "launch declarations path does not exist");
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<LaunchRow> read_launch_rows(const std::vector<std::string>& files) {
  std::vector<LaunchRow> out;
  for (const auto& f : files) {
    auto rows = parse_launch_rows(read_text_file(f, "launch declarations"), f);
    out.insert(out.end(), rows.begin(), rows.end());
  }
  return out;
}

std::vector<std::string> default_launch_paths() { return contract_paths("launches"); }

}  // namespace kc::limits
