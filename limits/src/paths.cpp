#include "kc/limits/paths.hpp"

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kc/limits/error.hpp"
#include "kc/limits/text.hpp"

namespace kc::limits {

namespace fs = std::filesystem;

namespace {

constexpr std::array<std::pair<const char*, const char*>, 8> kKeys = {{{"launches", "KC_LAUNCHES"},
                                                                       {"cuda-records", "KC_CUDA_RECORDS"},
                                                                       {"hip-records", "KC_HIP_RECORDS"},
                                                                       {"hip-objects", "KC_HIP_OBJECTS"},
                                                                       {"xpu-records", "KC_XPU_RECORDS"},
                                                                       {"xpu-zebins", "KC_XPU_ZEBINS"},
                                                                       {"limits-tool", "KC_LIMITS_TOOL"},
                                                                       {"cupti", "KC_CUPTI"}}};

const char* env_of(const std::string& key) {
  for (const auto& [k, e] : kKeys)
    if (key == k) return e;
  throw FormatError("contract paths", "unknown key '" + key + "'");
}

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

// The file beside this executable, once: "" where there is none.
struct Found {
  std::string file, would_be;
  std::vector<std::pair<std::string, std::string>> entries;
};
const Found& found() {
  static const Found f = [] {
    Found r;
    const std::string exe = self_exe();
    if (exe.empty()) return r;
    r.would_be = exe + ".paths";
    for (const fs::path p : {fs::path(exe + ".paths"), fs::path(exe).parent_path() / "kc.paths"}) {
      std::ifstream in(p);
      if (!in) continue;
      std::stringstream ss;
      ss << in.rdbuf();
      r.file = p.string();
      r.entries = parse_paths(ss.str(), p.parent_path().string(), r.file);
      break;
    }
    return r;
  }();
  return f;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_paths(const std::string& text, const std::string& dir,
                                                             const std::string& name) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    auto cols = split_columns(line);
    if (cols.empty()) continue;
    const std::string where = name + ":" + std::to_string(n);
    bool known = false;
    for (const auto& [k, e] : kKeys) known |= cols[0] == k;
    if (!known) throw FormatError(where, "unknown key '" + cols[0] + "'");
    if (cols.size() < 2) throw FormatError(where, "'" + cols[0] + "' names no path (want `key path`)");
    // The path is the rest of the line: it may hold spaces.
    std::string rest = line.substr(line.find(cols[0]) + cols[0].size());
    rest.erase(0, rest.find_first_not_of(" \t"));
    rest.erase(rest.find_last_not_of(" \t\r") + 1);
    fs::path p(rest);
    out.emplace_back(cols[0], p.is_absolute() ? p.string() : (fs::path(dir) / p).lexically_normal().string());
  }
  return out;
}

std::vector<std::string> contract_paths(const std::string& key) {
  std::vector<std::string> out;
  if (const char* e = std::getenv(env_of(key)); e && *e) {
    std::istringstream in(e);
    std::string p;
    if (key == "launches") {
      while (std::getline(in, p, ':'))
        if (!p.empty()) out.push_back(p);
    } else {
      out.push_back(e);
    }
    return out;
  }
  for (const auto& [k, p] : found().entries)
    if (k == key) out.push_back(p);
  return out;
}

std::string contract_path(const std::string& key) {
  auto v = contract_paths(key);
  return v.empty() ? std::string() : v.front();
}

std::string paths_file() {
  const Found& f = found();
  return !f.file.empty() ? f.file : !f.would_be.empty() ? f.would_be : "<executable>.paths";
}

}  // namespace kc::limits
