// attention::prompt: decode's entry (formula, references, ranges, replays) with prompt's gate 1 plants.
#include "attention_common.hpp"

namespace kc::attention {
using namespace detail;

Entry prompt(Cache cache, DType out, Steps st, int64_t page) {
  if (cache == Cache::ring) throw Error("attention::prompt: a ring holds a decode's few rows; prefill a linear or paged cache");
  return rows_entry(cache, out, st, page, true);
}

}  // namespace kc::attention
