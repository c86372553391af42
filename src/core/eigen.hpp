// Eigen, for the files that use it. Eigen is a SYSTEM include (-isystem, from its imported CMake
// target), yet GCC 12 reports -Wmaybe-uninitialized inside its own AVX-512 intrinsics
// (_mm512_extractf64x4_pd's undefined operand, GCC PR 105593, fixed in GCC 13) wherever Eigen's
// AVX-512 packet code is inlined into our functions: ~70 lines of warnings in a build. The
// warning is off for the text of these headers only; our own code keeps it.
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#pragma GCC diagnostic pop
