#include "kc/limits/records.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "kc/limits/error.hpp"
#include "kc/limits/text.hpp"

namespace kc::limits {

namespace fs = std::filesystem;

std::string normalize_record(const std::string& line) {
  std::string out;
  for (const auto& c : split_columns(line)) out += (out.empty() ? "" : " ") + c;
  return out;
}

RecordKey record_key(const std::string& line, const std::string& where) {
  auto c = split_columns(line);
  if (c.size() < 4 || c[0] != "RECORD" || c[1] != "cuda")
    throw FormatError(where, "not a RECORD line: want 'RECORD cuda <launch> <chip> field=value ...'");
  if (c[3].rfind("sm_", 0) != 0) throw FormatError(where, "RECORD chip '" + c[3] + "' is not sm_<n>");
  return {c[2], c[3]};
}

std::vector<RecordSet> read_record_sets(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw FormatError(dir, "records directory does not exist");
  static const std::regex name(R"(nvcc-(\d+)\.(\d+)\.txt)");
  std::vector<RecordSet> sets;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string fn = e.path().filename().string();
    if (!std::regex_match(fn, m, name)) continue;
    RecordSet s;
    s.release = {std::stoi(m[1]), std::stoi(m[2])};
    s.file = e.path().string();
    std::ifstream in(s.file);
    if (!in) throw FormatError(s.file, "cannot open records");
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (split_columns(line).empty()) continue;
      const std::string where = s.file + ":" + std::to_string(n);
      auto key = record_key(line, where);
      if (!s.lines.emplace(key, normalize_record(line)).second)
        throw FormatError(where, "second record for " + key.first + " on " + key.second);
    }
    sets.push_back(std::move(s));
  }
  if (ec) throw FormatError(dir, "cannot list records directory: " + ec.message());
  std::sort(sets.begin(), sets.end(), [](const RecordSet& a, const RecordSet& b) { return a.release < b.release; });
  return sets;
}

const RecordSet* set_for(const std::vector<RecordSet>& sets, Release r) {
  const RecordSet* best = nullptr;
  for (const auto& s : sets)
    if (s.release <= r) best = &s;
  return best;
}

std::map<RecordKey, std::string> effective_records(const std::vector<RecordSet>& sets, Release r) {
  std::map<RecordKey, std::string> out;
  for (const auto& s : sets)
    if (s.release <= r)
      for (const auto& [k, v] : s.lines) out[k] = v;
  return out;
}

SetChoice choose_set(const std::vector<RecordSet>& sets, Release r) {
  SetChoice c;
  for (const auto& s : sets) {
    if (s.release <= r) c.set = &s;
    else if (!c.above) c.above = &s;
  }
  c.release = r;
  return c;
}

bool SetChoice::own() const { return set && set->release == release; }

std::string SetChoice::says() const {
  if (!set) return "no set at or below nvcc " + release.str();
  const std::string name = fs::path(set->file).filename().string();
  if (own()) return "its own set " + name;
  if (above)
    return name + ", the newest set below " + release.str() + " (which has none of its own; " + fs::path(above->file).filename().string() +
           " lies above it)";
  return name + ", the newest set, below " + release.str() + " (which has none of its own: what " + release.str() +
         " compiles differently shows as stale records)";
}

// The command as a header line: absolute paths under the working directory made relative to it, and
// any other absolute path cut to its file name, so a records file names no machine's folders.
static std::string portable_command(const std::string& command) {
  std::istringstream in(command);
  std::string out, tok;
  const fs::path cwd = fs::current_path();
  while (in >> tok) {
    fs::path p(tok);
    if (p.is_absolute()) {
      auto rel = p.lexically_relative(cwd);
      tok = !rel.empty() && *rel.begin() != ".." ? rel.string() : p.filename().string();
    }
    out += (out.empty() ? "" : " ") + tok;
  }
  return out;
}

std::string write_record_set(const std::string& dir, Release r, const std::map<RecordKey, std::string>& fresh,
                             const std::vector<std::string>& declared, const std::string& command,
                             const std::string& compiler) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw FormatError(dir, "cannot create records directory: " + ec.message());
  auto sets = read_record_sets(dir);
  // The sets strictly below r, and r's own file as it stands.
  std::vector<RecordSet> below;
  const RecordSet* own = nullptr;
  for (const auto& s : sets) {
    if (s.release < r) below.push_back(s);
    if (s.release == r) own = &s;
  }
  const bool base = below.empty();
  auto under = effective_records(below, r);
  const std::set<std::string> launches(declared.begin(), declared.end());

  std::map<RecordKey, std::string> full;  // everything release r compiles, as far as known
  if (own)
    for (const auto& [k, v] : own->lines)
      if (launches.count(k.first)) full[k] = v;  // launches or chips not read now are kept
  for (const auto& [k, v] : fresh) full[k] = v;

  std::ostringstream out;
  out << "# CUDA launch records for nvcc " << r.str() << ": "
      << (base ? "the base set (every launch on every SM)." : "only what this release compiles differently from the sets below it.")
      << (compiler.empty() ? "" : "\n# Read from images of: " + compiler)
      << "\n# One RECORD line a launch and SM; fields in limits/README.md. Written by\n#   " << portable_command(command)
      << "\n# Never edit by hand: re-derive with that command.\n";
  size_t n = 0;
  for (const auto& [k, v] : full) {
    if (!base) {
      auto it = under.find(k);
      if (it != under.end() && it->second == v) continue;
    }
    out << v << "\n";
    ++n;
  }
  const std::string path = (fs::path(dir) / ("nvcc-" + r.str() + ".txt")).string();
  // A release that compiles every launch as the sets below it has no set: an empty one would only
  // say so less plainly (the audit then names the set below as the one used).
  if (!base && !n) {
    fs::remove(path, ec);
    if (ec) throw FormatError(path, "cannot remove records that no longer differ: " + ec.message());
    return "";
  }
  std::ofstream f(path, std::ios::trunc);
  if (!f || !(f << out.str())) throw FormatError(path, "cannot write records");
  return path;
}

}  // namespace kc::limits
