// The hip backend, real or stub, says by name which served chips it could not run: every one of them
// without an AMD GPU, the others with one.
#include <gtest/gtest.h>

#include "backends/factories.hpp"

TEST(HipBackend, NamesTheChipsItCouldNotRun) {
  auto b = kc::make_hip_backend();
  EXPECT_EQ(b->name(), "hip");
  const std::string why = b->absent();
  if (why.empty()) {
    // An AMD GPU of a served chip is here: the device line names the three it did not run.
    const std::string dev = b->device();
    int named = 0;
    for (const char* c : {"gfx1030", "gfx1100", "gfx1151", "gfx1201"}) named += dev.find(c) != std::string::npos;
    EXPECT_EQ(named, 4) << dev;
    return;
  }
  for (const char* c : {"gfx1030", "gfx1100", "gfx1151", "gfx1201"}) EXPECT_NE(why.find(c), std::string::npos) << why;
  EXPECT_THROW(b->alloc(16), kc::Error);  // absent: nothing runs
  std::printf("hip backend: %s\n", why.c_str());
}
