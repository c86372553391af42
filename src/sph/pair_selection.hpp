// Which neighbours of a particle its pair loops visit and how: the interaction test, and the
// blocks in which the pair loops take a particle's pair list (NeighbourList::partners, padded
// to whole blocks by NeighbourList::select_pairs). Shared by the right-hand side
// (equations.cpp) and its gradient pre-pass (gradient_correction.cpp), so both see exactly the
// same partners.
#pragma once

#include <cstddef>

namespace regosph {

// Whether a and b interact: 0 < r_ab < h_ab. A NaN distance counts as interacting, so that
// a broken state propagates into the derivatives (and the step is rejected).
// Written without a branch (&, not &&): some entries of a pair list lie in its margin.
inline bool interacts(double r2, double h_ab) { return !(r2 >= h_ab * h_ab) & (r2 != 0.0); }

// The pair loop takes the pair list of a in blocks of kBlock, the last one padded with a
// itself (r = 0). The support test turns the padding and the entries in the list's margin
// (r >= h_ab) into exact zeros. A block is one branch-free loop that the compiler vectorises
// (`omp simd`): the kernel's two branches, the viscosity of approaching pairs and the support
// test are selects, and every field of a neighbour is gathered from its record. Lane k keeps
// its own partial sums (entries k, k + kBlock, ...), and the lanes are added in lane order at
// the end: the sums of a particle are a fixed function of its pair list, the same on any
// number of threads.
constexpr std::size_t kBlock = 8;

}  // namespace regosph
