// The instructions tc-probe measures (instrs(), in experiments.cpp) and the one call that runs
// experiments through them on the GPU (device.cu).
// An experiment is one output of one instruction: D = c + sum_k a_k b_k over its K (operand codes).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kc/tensor_core.hpp"

namespace kc::tcprobe {

enum class Instr : uint8_t { mma_bf16, mma_fp16, mma_tf32, mma_e4m3, wgmma_bf16, wgmma_fp16, wgmma_tf32, wgmma_e4m3 };
struct InstrInfo {
  Instr id;
  const char* name;  // as in records/cuda/tensor-cores.tsv: "mma.m16n8k16.bf16"
  tc::Fmt fmt;
  int K;
  bool wgmma;  // sm_90a only
};
const std::vector<InstrInfo>& instrs();
const InstrInfo* find_instr(const std::string& name);

struct Exp {
  std::vector<uint32_t> a, b;  // K codes each
  float c = 0;
  float d = 0;        // what the GPU returned
  std::string family;  // which experiment made it (experiments.hpp)
};

// The device's SM ("sm_90") and name, or why none can run (empty sm).
struct Device {
  std::string sm, name, why;
  int driver = 0;      // cudaDriverGetVersion
  bool wgmma = false;  // an sm_90 device running this binary's sm_90a image
};
Device device();

// Runs every experiment through the instruction on the GPU, filling d. Empty on success, else why.
std::string run(const InstrInfo& in, std::vector<Exp>& exps);

}  // namespace kc::tcprobe
