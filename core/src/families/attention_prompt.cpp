// attention::prompt: decode's entry (formula, references, ranges, replays) with prompt's gate 1 plants.
#include "attention_common.hpp"

namespace kc::attention {
using namespace detail;

Entry prompt(Cache cache, DType out, Steps st, int64_t page) {
  if (cache == Cache::ring) throw Error("attention::prompt: a ring holds a decode's few rows; prefill a linear or paged cache");
  Entry e = decode(cache, out, st, page);
  set_plants(e.rig, cache, true);
  e.rig.prepare = [cache, page, out](Case& c) {  // decode's, with the plants above
    const Geometry g = geometry(cache, c.shape(), page);
    prepare_inputs(c, g, true);
    Buf(c, "out", out, size_t(g.seqs * g.rows * g.q_heads * g.d), Role::out);
    c.out<float>("lse", size_t(g.seqs * g.rows * g.q_heads));
  };
  return e;
}

}  // namespace kc::attention
