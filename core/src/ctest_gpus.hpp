// The GPUs CTest hands a test under `ctest --resource-spec-file` (RESOURCE_GROUPS "gpus:1"), read
// from the environment CTest sets, so each entry's test runs on its own GPU. Internal to core.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace kc::detail {

// The ids of the "gpus" CTest allotted (CTEST_RESOURCE_GROUP_COUNT, CTEST_RESOURCE_GROUP_<i> naming
// the types of group i, CTEST_RESOURCE_GROUP_<i>_GPUS = "id:0,slots:1;id:3,slots:1"), in order, each
// once; none where CTest allotted none. `env` reads a variable (nullptr where unset). Throws Error
// naming the variable and its value where one is malformed.
std::vector<std::string> ctest_gpus(const std::function<const char*(const char*)>& env);

// The devices those ids stand for. CTest's ids are lowercase letters, digits and underscores, so
// scripts/resource-spec gives each GPU its position: id k is the k-th device of `visible` (the
// CUDA_VISIBLE_DEVICES CTest ran under: indices or UUIDs), or device k where that is unset. Throws
// Error naming an id that is no position, or one past the end of `visible`.
std::vector<std::string> ctest_devices(const std::vector<std::string>& ids, const char* visible);

// Pins the process to the GPUs CTest allotted, before anything opens a device: CUDA_VISIBLE_DEVICES
// (and HIP_VISIBLE_DEVICES, the same way) set to their devices, and CTest's variables
// cleared, so that a run this one starts is not pinned again. Returns the line saying so ("" where
// CTest allotted none). Throws as ctest_gpus and ctest_devices do.
std::string pin_ctest_gpus();

}  // namespace kc::detail
