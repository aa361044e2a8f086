// The attention family lives in families/attention/ (its page: families/attention/README.md). This forwarding header keeps
// kc/families/attention.hpp reachable from builds that name core/include alone (the HIP, zebin and nvcc
// release device compiles); the package installs the family's own header in its place.
#pragma once
#include "../../../../families/attention/include/kc/families/attention.hpp"
