// The blockscaled family lives in families/blockscaled/ (its page: families/blockscaled/README.md). This forwarding header keeps
// kc/families/blockscaled.hpp reachable from builds that name core/include alone (the HIP, zebin and nvcc
// release device compiles); the package installs the family's own header in its place.
#pragma once
#include "../../../../families/blockscaled/include/kc/families/blockscaled.hpp"
