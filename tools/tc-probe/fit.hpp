// Which rules of kc/tensor_core.hpp's space explain what the GPU returned, and the records rows
// that say so. The space: every block dividing K (2 and up), kept 6..48, each alignment cut, C in
// the group or added after, either alignment exponent, each output rounding, a result of 24 or
// 23 significant bits or of kept - 1 .. kept + 3, each tf32 cut: every
// rule is run over every fitted experiment (all families but special:*) and kept only if it gives
// the GPU's bits on every one.
#pragma once
#include <string>
#include <vector>

#include "device.hpp"

namespace kc::tcprobe {

std::vector<tc::Rule> space(const InstrInfo& in);
bool same(float gpu, float model);  // equal values (+0 == -0), or both NaN

// The experiments rule r gets wrong, at most `cap` counted (fitted families only).
long misses(const InstrInfo& in, const tc::Rule& r, const std::vector<Exp>& exps, long cap = 1L << 40,
            const Exp** first = nullptr);

struct Fit {
  std::vector<tc::Rule> fits;  // every rule of the space with no miss
  long fitted = 0;             // experiments fitted
  long models = 0;             // rules tried
  tc::Rule best;               // fits[0], else the rule with fewest misses
  long best_misses = 0;
};
Fit fit(const InstrInfo& in, const std::vector<Exp>& exps);

// The single-parameter changes of r still in the space: the rules a test must see contradicted.
std::vector<tc::Rule> neighbours(const InstrInfo& in, const tc::Rule& r);

// records/cuda/tensor-cores.tsv rows for one instruction: the rule, each parameter with what rules
// out its neighbours, the products' exactness and each special case as seen.
std::vector<std::string> rows(const InstrInfo& in, const Fit& f, const std::vector<Exp>& exps, const std::string& sm,
                              const std::string& source);

}  // namespace kc::tcprobe
