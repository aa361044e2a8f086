// The dense family lives in families/dense/ (its page: families/dense/README.md). This forwarding header keeps
// kc/families/dense.hpp reachable from builds that name core/include alone (the HIP, zebin and nvcc
// release device compiles); the package installs the family's own header in its place.
#pragma once
#include "../../../../families/dense/include/kc/families/dense.hpp"
