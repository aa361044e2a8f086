// Launch declarations: `launches.tsv` beside each kernel (kernels/<family>/<kernel>/launches.tsv) and
// in controls/<backend>/launches.tsv. Format (limits/README.md): whitespace-separated columns, `#`
// starts a comment, one launch a row:
//   backend  launch  symbol  threads  dyn_smem  cluster  flags
// The symbol may itself hold spaces (a demangled template name): it is every column between the
// launch and the last four.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kc::limits {

// One row as written, for any backend: the file, its line and its columns.
struct LaunchRow {
  std::string file;
  int line = 0;
  std::vector<std::string> cols;
  const std::string& backend() const { return cols.front(); }
  std::string where() const { return file + ":" + std::to_string(line); }
};

// A row parsed in the common format.
struct Launch {
  std::string file;
  int line = 0;
  std::string backend, name, symbol;
  uint64_t threads = 0, dyn_smem = 0;
  uint32_t cluster = 1;
  bool optin = false, nonportable = false;
  uint64_t frame = 0;             // frame=<bytes> budget (0: any frame is reported)
  int from_sm = 0;                // from=<sm>: served only from that SM on (e.g. a cluster kernel, from=90)
  int only_sm = 0;                // only=<sm>: served on that SM alone (e.g. a wgmma kernel of the sm_90a image)
  std::string control;            // control=<kind> ("" for a served launch)
  std::vector<std::string> flags; // every flag as written ("-" gives none)
  std::string where() const { return file + ":" + std::to_string(line); }
};

// Every non-empty row of a launches file's text; throws FormatError naming `name` and the line for a
// cuda row with fewer than 7 columns (another backend's row: fewer than 4).
std::vector<LaunchRow> parse_launch_rows(const std::string& text, const std::string& name);
// An SM as written in a flag, a --sm list or CMake's architectures: 90, sm_90, 90a, 90a-real, 100f
// (an arch-specific image serves its SM); 0 when it is none of these.
int parse_sm(std::string s);
// The common format of one row; throws FormatError naming the row on a bad number or flag.
Launch parse_launch(const LaunchRow& row);

// The launches.tsv files under each path (a file is taken as is; a directory is searched
// recursively), sorted; throws FormatError for a path that does not exist.
std::vector<std::string> find_launch_files(const std::vector<std::string>& paths);
// Every row of every file.
std::vector<LaunchRow> read_launch_rows(const std::vector<std::string>& files);

// Where a binary looks by default: $KC_LAUNCHES (paths separated by ':') when set, else the
// `launches` lines of the paths file beside it (kc/limits/paths.hpp); none where neither says.
std::vector<std::string> default_launch_paths();

}  // namespace kc::limits
