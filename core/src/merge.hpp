// kernel-contract --merge (merge.cpp). Internal to core.
#pragma once
#include <string>
#include <vector>

#include "kc/report.hpp"

namespace kc::detail {
// Replays the JSON Lines reports `files` (each a whole run: --reporter json --out) into `reps` as one
// run, with one SUMMARY per backend summed from theirs; returns the exit code that run would have.
// Throws Error naming the file and line of anything it cannot read, a report cut off before its end,
// and an entry found in two reports.
int merge_reports(const std::vector<std::string>& files, const std::vector<Reporter*>& reps);
}  // namespace kc::detail
