// Which neighbours of a particle its pair loops visit and how: the interaction test, and the
// blocks in which the pair loops take a particle's pair list (NeighbourList::partners, padded
// to whole blocks by NeighbourList::select_pairs). Shared by the right-hand side
// (equations.cpp) and its gradient pre-pass (gradient_correction.cpp), so both see exactly the
// same partners.
#pragma once

#include <cstddef>

namespace regosph {

// The support test counts a pair within a relative 1e-9 of the support radius, r_ab >=
// (1 - 1e-9) h_ab, as beyond it. The cubic B-spline (kernel.hpp) goes to zero there as
// (1 - q)^3 and its gradient as (1 - q)^2: such a pair would add < 1e-26 of a neighbour's
// kernel value and < 1e-17 of its gradient at the spacing, below the rounding of the sums. On a
// lattice whose support radius is a whole number of spacings (h_ab = 3 dx, PySPH's 2 x 1.5 dx,
// in the rubber rings and the 3D blocks) the pairs at r = h_ab are a whole shell of neighbours
// (4 of 28 in 2D, 30 of 122 in 3D), which rounding would otherwise put on either side of the
// support; with this test all of them lie beyond it, in the margin of the pair lists
// (NeighbourList), whose blocks the pair loops then skip.
inline constexpr double kSupportFraction2 = (1.0 - 1e-9) * (1.0 - 1e-9);

// Whether a and b interact: 0 < r_ab < (1 - 1e-9) h_ab (above). A NaN distance counts as
// interacting, so that a broken state propagates into the derivatives (and the step is
// rejected). Written without a branch (&, not &&): some entries of a pair list lie in its
// margin.
inline bool interacts(double r2, double h_ab) {
    return !(r2 >= kSupportFraction2 * h_ab * h_ab) & (r2 != 0.0);
}

// The pair loop takes the pair list of a in blocks of kBlock, the last one padded with a
// itself (r = 0). The support test turns the padding and the entries in the list's margin
// (beyond the support) into exact zeros. A list holds the entries within the support at its
// selection first and those of its margin after them (NeighbourList::select_pairs), so that
// its last blocks often hold margin entries and padding only: the pair loop skips such a block
// while none of its lanes has come within the support (equations.cpp, beyond_support). A
// block is one branch-free loop that the compiler vectorises (`omp simd`): the kernel's two branches, the viscosity of approaching pairs and the support
// test are selects, and every field of a neighbour is gathered from its record. Lane k keeps
// its own partial sums (entries k, k + kBlock, ...), and the lanes are added in lane order at
// the end: the sums of a particle are a fixed function of its pair list, the same on any
// number of threads.
constexpr std::size_t kBlock = 8;

}  // namespace regosph
