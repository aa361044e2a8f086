// The affine family lives in families/affine/ (its page: families/affine/README.md). This forwarding header keeps
// kc/families/affine.hpp reachable from builds that name core/include alone (the HIP, zebin and nvcc
// release device compiles); the package installs the family's own header in its place.
#pragma once
#include "../../../../families/affine/include/kc/families/affine.hpp"
