// A tensor core's fp32 sum as a rule with a handful of parameters, an exact software model of it,
// and the error bound it implies. NVIDIA documents none of this; tools/tc-probe measures the rule
// per instruction on a GPU (records/cuda/tensor-cores.tsv) and tests/tensor_core holds the model
// to the bound. The rule, for one instruction D = C + sum_k a_k b_k over K products:
//
//   the K products are cut into consecutive groups of `block`; each group is one "k-step". The
//   step's addends (its products, exact, and the accumulator when `c_in_group`) are aligned to
//   2^e, e the largest exponent among them (`op_exp`: a product's exponent is ea + eb, its
//   operands' exponents, rather than its own leading bit), and each is cut to a multiple of
//   2^(e - kept) as `align` says (toward zero, toward -Inf, to nearest). The cut addends are added
//   exactly and the sum rounded once to `sig` significant bits (24 is fp32) as `out` says, Inf
//   past fp32's range; that fp32 value is the accumulator of the next step. Without `c_in_group`
//   the accumulator is added exactly to the step's cut sum, before that one rounding. fp32
//   operands (tf32) first lose all but 10 fraction bits (`cut`).
//
// Measured on the H200 (measured_sm90()): bf16, fp16, tf32 keep 25 bits and truncate everything;
// the e4m3 wgmma keeps 13 and truncates its result to 14 bits. docs/tensor-cores.md says how a
// contract uses depth() in place of the dense GEMM's 3K + 16.
//
// Everything here is exact integer arithmetic: the model is bit-exact, never a float64 guess.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kc::tc {

enum class Fmt : uint8_t { bf16, fp16, tf32, e4m3 };
enum class Cut : uint8_t { zero, down, nearest };  // toward zero, toward -Inf, to nearest even

struct Rule {
  int block = 16;        // products a step aligns together (a divisor of the instruction's K)
  int kept = 23;         // fraction bits kept below the step's largest exponent
  Cut align = Cut::zero;  // how an addend's bits below the window leave
  bool c_in_group = true;
  bool op_exp = false;
  Cut out = Cut::nearest;  // the step's exact sum to `sig` significant bits
  Cut cut = Cut::zero;     // an fp32 operand to tf32 (tf32 instructions only)
  int sig = 24;            // significant bits of a step's result (24: fp32's own)
  bool operator==(const Rule&) const = default;
};

const char* name(Fmt f);
const char* name(Cut c);
int operand_bits(Fmt f);  // bits of one operand's code: 16, 16, 32, 8
// The float64 value of an operand code as the instruction reads it (tf32: after `cut`).
double operand_value(Fmt f, uint32_t code, Cut cut = Cut::zero);

// D of one instruction by the rule: K operand codes each of a and b, the fp32 accumulator c. NaN
// where IEEE arithmetic on the exact values gives NaN, +-Inf where it gives an infinity.
float simulate(const Rule& r, Fmt f, const uint32_t* a, const uint32_t* b, int K, float c);

// The most |D - (c + sum a_k b_k)| (exact values) may be for one step of `n` products under r:
// each of the step's addends loses less than 2^-kept (2^-kept-1 to nearest) of the largest
// addend's magnitude `big`, and the fp32 rounding of the result costs its ulp (half to nearest).
// `big` is max(|c|, max |a_k b_k|) with c_in_group, else the products' alone; `res` >= |D|.
// tf32: a_k and b_k are the operands after `cut` (operand_value(f, code, r.cut)); the cut itself,
// below 2^-10 of each operand, is the inputs' rounding, not the sum's.
double step_bound(const Rule& r, int n, double big, double res);
// The same bound for a chain of steps as gate 3's depth (docs/custom.md): the smallest d with
// gamma(d) * m >= the summed step bounds for any K terms of total magnitude m, K / block steps,
// the accumulator entering each step at most m. Compare kc::gemm_cu::gemm_depth's 3K + 16.
double depth(const Rule& r, long K);

// "block=16 kept=23 align=zero c_in_group=1 op_exp=0 out=nearest sig=24 cut=zero" and back; parse
// throws kc::Error on anything else.
std::string format(const Rule& r);
Rule parse(const std::string& s);

// The rules tools/tc-probe measured on sm_90 (an H200), one an instruction, copied from
// records/cuda/tensor-cores.tsv (tests/tensor_core holds the two equal).
struct Measured {
  const char* instr;  // "mma.m16n8k16.bf16", "wgmma.m64n8k32.e4m3", ...
  Fmt fmt;
  int K;
  Rule rule;
};
const std::vector<Measured>& measured_sm90();
const Measured* find_measured(const std::string& instr);

}  // namespace kc::tc
