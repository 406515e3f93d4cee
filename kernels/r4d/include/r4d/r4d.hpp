// r4d: the runtime dispatch library for r4tune's tuned 4-bit decode-band GEMMs.
// See kernels/r4d/README.md.
#pragma once

#include "r4d/constants.hpp"  // IWYU pragma: export
#include "r4d/launch.hpp"     // IWYU pragma: export
#include "r4d/pdl.hpp"        // IWYU pragma: export
#include "r4d/select.hpp"     // IWYU pragma: export
#include "r4d/stats.hpp"      // IWYU pragma: export
#include "r4d/status.hpp"     // IWYU pragma: export
#include "r4d/table.hpp"      // IWYU pragma: export
