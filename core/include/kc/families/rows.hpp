// The rows family lives in families/rows/ (its page: families/rows/README.md). This forwarding header keeps
// kc/families/rows.hpp reachable from builds that name core/include alone (the HIP, zebin and nvcc
// release device compiles); the package installs the family's own header in its place.
#pragma once
#include "../../../../families/rows/include/kc/families/rows.hpp"
