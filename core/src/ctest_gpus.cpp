// CTest's resource allocation to device visibility (ctest_gpus.hpp). CTest only says which ids of
// its resource spec a test holds; a test that then opened device 0 regardless would share it with
// every other test.
#include "ctest_gpus.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "kc/types.hpp"

namespace kc::detail {
namespace {

std::vector<std::string> split(const std::string& s, char by) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, by);) v.push_back(x);
  return v;
}

}  // namespace

std::vector<std::string> ctest_gpus(const std::function<const char*(const char*)>& env) {
  const char* count = env("CTEST_RESOURCE_GROUP_COUNT");
  if (!count) return {};
  char* end = nullptr;
  const long n = std::strtol(count, &end, 10);
  if (end == count || *end || n < 0 || n > 4096)
    throw Error(fmt::format("CTEST_RESOURCE_GROUP_COUNT='{}' is not a count of resource groups", count));
  std::vector<std::string> ids;
  for (long g = 0; g < n; ++g) {
    const std::string types_var = fmt::format("CTEST_RESOURCE_GROUP_{}", g);
    const char* types = env(types_var.c_str());
    if (!types) throw Error(fmt::format("{} is unset, but CTEST_RESOURCE_GROUP_COUNT is {}", types_var, n));
    const auto listed = split(types, ',');
    if (std::find(listed.begin(), listed.end(), "gpus") == listed.end()) continue;
    const std::string var = types_var + "_GPUS";
    const char* value = env(var.c_str());
    if (!value || !*value) throw Error(fmt::format("{} is unset, but {} names gpus", var, types_var));
    for (const auto& alloc : split(value, ';')) {
      std::string id;
      long slots = 0;
      bool known = true;
      for (const auto& kv : split(alloc, ',')) {
        if (kv.rfind("id:", 0) == 0) id = kv.substr(3);
        else if (kv.rfind("slots:", 0) == 0) slots = std::strtol(kv.c_str() + 6, nullptr, 10);
        else known = false;
      }
      if (!known || id.empty() || slots < 1 || id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
        throw Error(fmt::format("{}='{}': '{}' is not id:<id>,slots:<n>", var, value, alloc));
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
  }
  return ids;
}

std::vector<std::string> ctest_devices(const std::vector<std::string>& ids, const char* visible) {
  const std::vector<std::string> listed = visible ? split(visible, ',') : std::vector<std::string>{};
  std::vector<std::string> devices;
  for (const auto& id : ids) {
    if (id.empty() || id.size() > 4 || id.find_first_not_of("0123456789") != std::string::npos)
      throw Error(fmt::format("CTest allotted GPU '{}': not a position in the GPU list (scripts/resource-spec writes "
                              "ids 0, 1, ...)", id));
    const size_t k = std::stoul(id);
    if (!visible) {
      devices.push_back(id);
    } else if (k >= listed.size() || listed[k].empty()) {
      throw Error(fmt::format("CTest allotted GPU {}, but CUDA_VISIBLE_DEVICES='{}' lists {} device{}: the resource "
                              "spec was written for other GPUs (scripts/resource-spec under the same CUDA_VISIBLE_DEVICES)",
                              id, visible, listed.size(), listed.size() == 1 ? "" : "s"));
    } else {
      devices.push_back(listed[k]);
    }
  }
  return devices;
}

std::string pin_ctest_gpus() {
  const auto ids = ctest_gpus([](const char* name) { return std::getenv(name); });
  if (ids.empty()) return "";
  const auto devices = ctest_devices(ids, std::getenv("CUDA_VISIBLE_DEVICES"));
  const std::string list = fmt::format("{}", fmt::join(devices, ","));
  setenv("CUDA_VISIBLE_DEVICES", list.c_str(), 1);
  const auto hip = ctest_devices(ids, std::getenv("HIP_VISIBLE_DEVICES"));
  setenv("HIP_VISIBLE_DEVICES", fmt::format("{}", fmt::join(hip, ",")).c_str(), 1);
  unsetenv("CTEST_RESOURCE_GROUP_COUNT");
  return fmt::format("CTest allotted GPU id {}: CUDA_VISIBLE_DEVICES={}", fmt::join(ids, ","), list);
}

}  // namespace kc::detail
