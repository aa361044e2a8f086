// CUDA launch records, kept per nvcc release (records/cuda/nvcc-<major>.<minor>.txt): the RECORD lines
// kernel-contract-limits prints, one per launch and SM. The lowest release's file is the base set;
// each later file holds only what that release compiles differently from the sets below it. An image
// of release R is checked against the sets at or below R, later overriding earlier.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kc::limits {

struct Release {
  int major = 0, minor = 0;
  auto operator<=>(const Release&) const = default;
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
};

using RecordKey = std::pair<std::string, std::string>;  // {launch, chip}

// One release's file.
struct RecordSet {
  Release release;
  std::string file;
  std::map<RecordKey, std::string> lines;  // normalized RECORD line per launch and chip
};

// "RECORD cuda <launch> <chip> field=value ...": the key of a RECORD line; throws FormatError naming
// `where` on a line that is not one.
RecordKey record_key(const std::string& line, const std::string& where);
// Collapses runs of whitespace to one space and trims.
std::string normalize_record(const std::string& line);

// Reads every nvcc-<major>.<minor>.txt in `dir`, sorted by release; throws FormatError naming the
// file and line on a malformed one, or the directory when it does not exist.
std::vector<RecordSet> read_record_sets(const std::string& dir);
// The newest set at or below `r` (nullptr when none is).
const RecordSet* set_for(const std::vector<RecordSet>& sets, Release r);
// The records in force for release `r`: every set at or below it, later sets overriding earlier.
std::map<RecordKey, std::string> effective_records(const std::vector<RecordSet>& sets, Release r);

// Which set an image of release `r` is checked against, and why (the run prints it).
struct SetChoice {
  Release release;                   // the image's
  const RecordSet* set = nullptr;    // the newest at or below it (nullptr: none is)
  const RecordSet* above = nullptr;  // the oldest above it, if any
  bool own() const;                  // the release has a set of its own
  // "its own set nvcc-13.2.txt", "nvcc-13.0.txt, the newest set below 13.1 (which has none of its own;
  // nvcc-13.2.txt lies above it)", "nvcc-13.2.txt, the newest set, below 13.5 (which has none of its
  // own: what 13.5 compiles differently shows as stale records)"
  std::string says() const;
};
SetChoice choose_set(const std::vector<RecordSet>& sets, Release r);

// Writes records/.../nvcc-<r>.txt for the RECORD lines of images of release `r`. `fresh` holds the
// lines derived now (they replace the file's lines for the same launch and chip; its other lines are
// kept while their launch is still in `declared`, dropped otherwise). When a set lies below `r`,
// the file keeps only the lines that differ from it; when none differs, no file is written (and an
// old one is removed) and "" is returned. `compiler` (tkinfo's version text of the images) goes into
// the header. Returns the file written.
std::string write_record_set(const std::string& dir, Release r, const std::map<RecordKey, std::string>& fresh,
                             const std::vector<std::string>& declared, const std::string& command,
                             const std::string& compiler = "");

}  // namespace kc::limits
