// Which neighbours of a particle its pair loops visit and how: the interaction test, and the
// blocks in which the pair loops take a particle's pair list (NeighbourList::partners, padded
// to whole blocks by NeighbourList::select_pairs). Shared by the right-hand side
// (equations.cpp) and its gradient pre-pass (gradient_correction.cpp), so both see exactly the
// same partners.
#pragma once

#include <cstddef>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

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
// while none of its lanes has come within the support (pair_traversal.hpp, beyond_support). A
// block is evaluated branch-free on 8-lane vectors (rhs_terms.hpp, PairBlock): the kernel's
// two branches, the viscosity of approaching pairs and the support test are selects, and
// every field of a neighbour is gathered from its record. Lane k keeps
// its own partial sums (entries k, k + kBlock, ...), and the lanes are added pairwise at the
// end (lane_sums): the sums of a particle are a fixed function of its pair list, the same on
// any number of threads.
constexpr std::size_t kBlock = 8;

// The sums of the kBlock lanes of N rows of partial sums (rows[j]: kBlock doubles), each
// added pairwise, ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)). With AVX-512, eight rows
// at a time in registers: a transposition whose shuffles are interleaved with the additions
// (14 shuffles and 7 additions for 64 lanes, where adding lane by lane took 56 scalar
// additions and the extraction of every lane, ~5 % of a pair loop). The same additions in the
// same order on either path, so the results do not depend on it.
template <std::size_t N>
inline void lane_sums(const double* const (&rows)[N], double (&out)[N]) {
    static_assert(kBlock == 8, "three rounds of pairwise additions");
    std::size_t j = 0;
#if defined(__AVX512F__)
    // (The masked forms with every lane selected: the plain ones start from an undefined
    // vector, which GCC 12 reports as maybe uninitialised.)
    const __m512i lo2 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
    const __m512i hi2 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    const __m512i lo4 = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
    const __m512i hi4 = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
    for (; j + 8 <= N; j += 8) {
        __m512d r[8];
        for (int k = 0; k < 8; ++k) r[k] = _mm512_loadu_pd(rows[j + static_cast<std::size_t>(k)]);
        // Rows 2i and 2i + 1 in p[i]: lanes 0+1, 2+3, 4+5 and 6+7 of each, alternating.
        __m512d p[4];
        for (int i = 0; i < 4; ++i)
            p[i] = _mm512_add_pd(_mm512_mask_unpacklo_pd(r[2 * i], 0xff, r[2 * i], r[2 * i + 1]),
                                 _mm512_mask_unpackhi_pd(r[2 * i], 0xff, r[2 * i], r[2 * i + 1]));
        // Rows 4i .. 4i + 3 in q[i]: their lanes 0..3, then their lanes 4..7.
        __m512d q[2];
        for (int i = 0; i < 2; ++i)
            q[i] = _mm512_add_pd(_mm512_permutex2var_pd(p[2 * i], lo2, p[2 * i + 1]),
                                 _mm512_permutex2var_pd(p[2 * i], hi2, p[2 * i + 1]));
        _mm512_storeu_pd(out + j, _mm512_add_pd(_mm512_permutex2var_pd(q[0], lo4, q[1]),
                                                _mm512_permutex2var_pd(q[0], hi4, q[1])));
    }
#endif
    for (; j < N; ++j) {
        const double* l = rows[j];
        out[j] = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
    }
}

}  // namespace regosph
