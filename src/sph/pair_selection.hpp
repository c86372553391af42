// Which neighbours of a particle its pair loops visit: the entries of its Verlet row that
// interact (0 < r_ab < h_ab), in row order, padded to whole blocks for the vectorised loops.
// Shared by the right-hand side (equations.cpp) and its gradient pre-pass
// (gradient_correction.cpp), so both see exactly the same partners.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "core/particles.hpp"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace regosph {

// Whether a and b interact: 0 < r_ab < h_ab. A NaN distance counts as interacting, so that
// a broken state propagates into the derivatives (and the step is rejected).
// Written without a branch (&, not &&): a third of the Verlet list's entries are skin.
inline bool interacts(double r2, double h_ab) { return !(r2 >= h_ab * h_ab) & (r2 != 0.0); }

// The pair loop takes the interacting neighbours of a in blocks of kBlock, the last one
// padded with a itself (r = 0, which the support test turns into exact zeros). A block is one
// branch-free loop that the compiler vectorises (`omp simd`): the kernel's two branches, the
// viscosity of approaching pairs and the support test are selects, and every field of a
// neighbour is gathered from its record. Lane k keeps its own partial sums (neighbours k,
// k + kBlock, ...), and the lanes are added in lane order at the end: the sums of a particle
// are a fixed function of its neighbour row, the same on any number of threads.
constexpr std::size_t kBlock = 8;

// Room the selection needs in `out` beyond the row's length: the padding of the last block,
// and the whole vector stores of the AVX-512 path.
constexpr std::size_t kSelectSlack = 16;
static_assert(kSelectSlack >= kBlock, "room for the padding of the last block");

// Copies the entries of `row` that interact with particle a to `out` (row.size() +
// kSelectSlack entries), in row order, pads the last block with a itself and returns the
// number of interacting ones. The Verlet list's skin entries and coincident particles never
// reach the pair terms.
template <int Dim>
std::uint32_t select_interacting(const ParticleSet& p, std::size_t a,
                                 std::span<const std::uint32_t> row, std::uint32_t* out) {
    constexpr std::size_t kChunk = 64;
    const double* x[Dim];
    double xa[Dim];
    for (int d = 0; d < Dim; ++d) {
        x[d] = p.x[d].data();
        xa[d] = x[d][a];
    }
    const double* const h = p.h.data();
    const double h_a = h[a];
    std::uint32_t count = 0;
    for (std::size_t base = 0; base < row.size(); base += kChunk) {
        const std::size_t len = std::min(kChunk, row.size() - base);
        std::uint32_t keep[kChunk];
#pragma omp simd
        for (std::size_t k = 0; k < len; ++k) {
            const std::uint32_t b = row[base + k];
            double r2 = 0.0;
            for (int d = 0; d < Dim; ++d) r2 += (xa[d] - x[d][b]) * (xa[d] - x[d][b]);
            keep[k] = interacts(r2, 0.5 * (h_a + h[b])) ? 1 : 0;
        }
#if defined(__AVX512F__)
        // Sixteen entries at a time: the kept ones packed to the front of a register (in row
        // order) and the whole register stored at out + count; `out` has kSelectSlack entries
        // beyond the row for the lanes past the count.
        for (std::size_t k = 0; k < len; k += 16) {
            const __mmask16 in_row = static_cast<__mmask16>(
                len - k >= 16 ? 0xffff : (1u << (len - k)) - 1u);
            const __m512i flags = _mm512_maskz_loadu_epi32(in_row, keep + k);
            const __m512i entries = _mm512_maskz_loadu_epi32(in_row, row.data() + base + k);
            const __mmask16 kept = _mm512_test_epi32_mask(flags, flags);
            _mm512_storeu_si512(out + count, _mm512_maskz_compress_epi32(kept, entries));
            count += static_cast<std::uint32_t>(__builtin_popcount(kept));
        }
#else
        for (std::size_t k = 0; k < len; ++k) {
            out[count] = row[base + k];
            count += keep[k];
        }
#endif
    }
    for (std::uint32_t k = count; k % kBlock != 0; ++k) out[k] = static_cast<std::uint32_t>(a);
    return count;
}

}  // namespace regosph
