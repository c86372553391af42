// The 3D pair loops: equations.cpp compiled a second time, with only derivatives_3d defined
// (see the top of equations.cpp), so that the two dimensions' loop variants build in parallel.
#define REGOSPH_PAIR_LOOPS_DIM 3
#include "sph/equations.cpp"  // NOLINT(bugprone-suspicious-include)
