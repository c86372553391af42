// The pair traversal: how one particle's pair list is walked, with no physics in it. It owns
// the records of the partners (a layout of named fields, each particle's fields in whole cache
// lines), the blocks of kBlock partners (pair_selection.hpp), the skipping of blocks beyond the
// support, the transposition of a block's records into one vector per field, the two passes
// over a group of blocks, and the instruction-set paths. What is computed for a pair is given
// by the caller: a first pass (per block, an `omp simd` loop over the lanes, for what several
// blocks should have in flight together: square roots and divisions) and a second pass (per
// block, on Vec8 lanes, the pair terms). The SPH right-hand side (equations.cpp) composes its
// pair terms (rhs_terms.hpp) into these two passes; a new term adds nothing here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#include "sph/pair_selection.hpp"

namespace regosph::traversal {

// The eight lanes of a block as one value of GCC's vector extensions (kernel.hpp: the pair terms
// take it as their lane type): one AVX-512 register, two AVX2 ones, or whatever the target has,
// GCC splitting each operation. GCC's own type rather than __m512d, whose may_alias attribute a
// template argument would drop; the two convert into each other.
using Vec8 = double __attribute__((vector_size(8 * sizeof(double))));
// The result of a comparison of two Vec8: all bits set in a lane where it holds.
using Mask8 = decltype(Vec8{} < Vec8{});
static_assert(kBlock == 8, "one Vec8 per block");

inline Vec8 load8(const double* lanes) {
    Vec8 v;
    std::memcpy(&v, lanes, sizeof v);
    return v;
}
inline void store8(double* lanes, const Vec8& v) { std::memcpy(lanes, &v, sizeof v); }
// Whether m holds in any lane.
inline bool any_lane(const Mask8& m) {
    long bits = 0;
    for (int k = 0; k < kBlock; ++k) bits |= m[k];
    return bits != 0;
}

// ---- Records ------------------------------------------------------------------------------
// A record holds the fields of one particle that its partners read, one double each, at the
// offsets a layout names (Layout: static members `stride`, the doubles from one record to the
// next, a multiple of 8 so that records are whole cache lines and a block's records are read
// with aligned vector loads; `x`, the position's Dim doubles; `h`, the support radius; the
// traversal reads nothing else).

// ---- Transposition ------------------------------------------------------------------------
#if defined(__AVX512F__)
// Fields g0 .. g0 + 7 of the eight records `block`, field f in out[f - g0] (lane k: record
// block[k]): each record's eight fields read with one aligned 512-bit load and transposed in
// registers (unpack, then two rounds of permutations). Explicit shuffles because GCC's tuning
// for this CPU family never emits gather instructions, and gathers would be slower here.
template <int Stride>
inline void transpose_group(const double* rec, const std::uint32_t* block, int g0,
                            Vec8 (&out)[8]) {
    static_assert(Stride % 8 == 0, "records are whole cache lines");
    const __m512i lo2 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
    const __m512i hi2 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    const __m512i lo4 = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
    const __m512i hi4 = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
    __m512d row[8];
    for (int k = 0; k < 8; ++k)
        row[k] = _mm512_load_pd(rec + static_cast<std::size_t>(block[k]) * Stride + g0);
    // Pairs of lanes: t[2j] holds fields 0, 2, 4, 6 of records 2j and 2j + 1, t[2j + 1]
    // fields 1, 3, 5, 7. (The masked forms with every lane selected: the plain ones start from
    // an undefined vector, which GCC 12 reports as maybe uninitialised.)
    __m512d t[8];
    for (int j = 0; j < 4; ++j) {
        t[2 * j] = _mm512_mask_unpacklo_pd(row[2 * j], 0xff, row[2 * j], row[2 * j + 1]);
        t[2 * j + 1] = _mm512_mask_unpackhi_pd(row[2 * j], 0xff, row[2 * j], row[2 * j + 1]);
    }
    // Quads of lanes: u[4i + m] holds fields m' and m' + 4 of records 4i .. 4i + 3, with
    // m' = 0, 2, 1, 3 for m = 0, 1, 2, 3.
    __m512d u[8];
    for (int i = 0; i < 2; ++i) {
        u[4 * i + 0] = _mm512_permutex2var_pd(t[4 * i], lo2, t[4 * i + 2]);
        u[4 * i + 1] = _mm512_permutex2var_pd(t[4 * i], hi2, t[4 * i + 2]);
        u[4 * i + 2] = _mm512_permutex2var_pd(t[4 * i + 1], lo2, t[4 * i + 3]);
        u[4 * i + 3] = _mm512_permutex2var_pd(t[4 * i + 1], hi2, t[4 * i + 3]);
    }
    static constexpr int kField[4] = {0, 2, 1, 3};
    for (int m = 0; m < 4; ++m) {
        out[kField[m]] = _mm512_permutex2var_pd(u[m], lo4, u[4 + m]);
        out[kField[m] + 4] = _mm512_permutex2var_pd(u[m], hi4, u[4 + m]);
    }
}
#endif

// Copies fields 0 .. To - 1 of the records of the kBlock partners `block` into
// blk[field][lane]. Exact copies on every path: the results do not depend on it.
template <int Stride, int To = Stride>
inline void load_block(const double* rec, const std::uint32_t* block,
                       double (&blk)[Stride][kBlock]) {
    static_assert(Stride % 8 == 0 && To % 8 == 0, "records are whole cache lines");
#if defined(__AVX512F__)
    for (int g = 0; g < To; g += 8) {
        Vec8 fields[8];
        transpose_group<Stride>(rec, block, g, fields);
        for (int f = 0; f < 8; ++f) _mm512_store_pd(blk[g + f], fields[f]);
    }
#elif defined(__AVX2__)
    // Four records at a time: each group of four fields is read with one aligned 256-bit load
    // per record and transposed in registers, pairs by unpacking, then halves by 128-bit
    // permutations.
    static_assert(kBlock % 4 == 0, "the transpose takes four records");
    for (std::size_t k0 = 0; k0 < kBlock; k0 += 4) {
        const double* r[4];
        for (std::size_t k = 0; k < 4; ++k)
            r[k] = rec + static_cast<std::size_t>(block[k0 + k]) * Stride;
        for (int g = 0; g < To; g += 4) {
            const __m256d a = _mm256_load_pd(r[0] + g), b = _mm256_load_pd(r[1] + g);
            const __m256d c = _mm256_load_pd(r[2] + g), d = _mm256_load_pd(r[3] + g);
            // Fields 0 and 2 (even) or 1 and 3 (odd) of records a, b and of c, d.
            const __m256d ab_even = _mm256_unpacklo_pd(a, b), ab_odd = _mm256_unpackhi_pd(a, b);
            const __m256d cd_even = _mm256_unpacklo_pd(c, d), cd_odd = _mm256_unpackhi_pd(c, d);
            _mm256_store_pd(&blk[g][k0], _mm256_permute2f128_pd(ab_even, cd_even, 0x20));
            _mm256_store_pd(&blk[g + 1][k0], _mm256_permute2f128_pd(ab_odd, cd_odd, 0x20));
            _mm256_store_pd(&blk[g + 2][k0], _mm256_permute2f128_pd(ab_even, cd_even, 0x31));
            _mm256_store_pd(&blk[g + 3][k0], _mm256_permute2f128_pd(ab_odd, cd_odd, 0x31));
        }
    }
#else
    for (std::size_t k = 0; k < kBlock; ++k) {
        const double* r = rec + static_cast<std::size_t>(block[k]) * Stride;
        for (int f = 0; f < To; ++f) blk[f][k] = r[f];
    }
#endif
}

// ---- Skipping -----------------------------------------------------------------------------
// Whether every lane of the block `block` lies beyond the support of a, or is a itself (the
// padding), so that no lane would interact. Read from the records directly (positions and h
// only; with AVX-512 gathers of those few fields instead of a transposition). Tested against
// the support radius widened by a relative 1e-12, far more than the rounding by which this sum
// and the passes' may differ, so that a block is skipped only when the passes' own test
// (interacts) would find no interacting lane either; a NaN distance is never beyond.
template <int Dim, class Layout>
inline bool beyond_support(const double* rec, const std::uint32_t* block,
                           const double (&xa)[Dim], double h_a) {
    constexpr int x_at = Layout::x, h_at = Layout::h;
    constexpr double kWidened = (1.0 + 1e-12) * kSupportFraction2;
#if defined(__AVX512F__)
    // The zero-masked forms with every lane selected: the plain ones start from an undefined
    // vector, which GCC 12 reports as maybe uninitialised.
    const __mmask8 all = 0xff;
    const __m512i index = _mm512_maskz_cvtepu32_epi64(
        all, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block)));
    const __m512i first = _mm512_maskz_mul_epu32(all, index, _mm512_set1_epi64(Layout::stride));
    const auto field = [&](int offset) {  // field `offset` of the eight records
        return _mm512_mask_i64gather_pd(_mm512_setzero_pd(), all,
                                        _mm512_maskz_add_epi64(all, first,
                                                               _mm512_set1_epi64(offset)),
                                        rec, 8);
    };
    __m512d r2 = _mm512_setzero_pd();
    for (int d = 0; d < Dim; ++d) {
        const __m512d diff = _mm512_sub_pd(_mm512_set1_pd(xa[d]), field(x_at + d));
        r2 = _mm512_fmadd_pd(diff, diff, r2);
    }
    const __m512d hb = field(h_at);
    const __m512d h_ab = _mm512_mul_pd(_mm512_set1_pd(0.5), _mm512_add_pd(_mm512_set1_pd(h_a), hb));
    const __m512d limit = _mm512_mul_pd(_mm512_set1_pd(kWidened), _mm512_mul_pd(h_ab, h_ab));
    // Ordered comparisons: false for NaN, which is thus never beyond.
    const __mmask8 beyond = _mm512_cmp_pd_mask(r2, limit, _CMP_GE_OQ) |
                            _mm512_cmp_pd_mask(r2, _mm512_setzero_pd(), _CMP_EQ_OQ);
    return beyond == 0xff;
#else
    bool beyond = true;
    for (std::size_t k = 0; k < kBlock; ++k) {
        const double* r = rec + static_cast<std::size_t>(block[k]) * Layout::stride;
        double r2 = 0.0;
        for (int d = 0; d < Dim; ++d) r2 += (xa[d] - r[x_at + d]) * (xa[d] - r[x_at + d]);
        const double h_ab = 0.5 * (h_a + r[h_at]);
        beyond = beyond && ((r2 >= kWidened * h_ab * h_ab) || r2 == 0.0);
    }
    return beyond;
#endif
}

// ---- The walk -----------------------------------------------------------------------------
// One block as the second pass sees it: `field(f)` gives field offset f of the eight partners
// as a Vec8, `first` the fields the first pass read (first[f][lane], f below kFirstPassFields),
// `partners` the block's eight record indices.
template <class Field, int Stride>
struct BlockView {
    const Field& field;
    const double (&first)[Stride][kBlock];
    const std::uint32_t* partners;
};

// How many leading fields of a record the first pass transposes: with AVX-512 the first eight
// (the rest are transposed into registers where the second pass reads them, which saves a store
// and a reload of each), elsewhere all of them.
template <class Layout>
inline constexpr int kFirstPassFields =
#if defined(__AVX512F__)
    8;
#else
    Layout::stride;
#endif

// Walks the pair list `partners` of particle a (position xa, support radius h_a): the list goes
// in groups of kGroup blocks; the first pass, first_pass(blk, geometry) with the transposed
// leading fields of a block, runs over every block of a group before the second pass,
// second_pass(BlockView, geometry), runs over them, so that the square roots and divisions of
// several blocks are in flight together. Blocks from `margin_blocks` on that lie wholly beyond
// the support are skipped (they would add exact zeros, pair_selection.hpp). `Geometry` is what
// the first pass hands to the second for one block.
template <int Dim, class Layout, class Geometry, class FirstPass, class SecondPass>
inline void walk_pairs(const double* rec, std::span<const std::uint32_t> partners,
                       std::size_t margin_blocks, const double (&xa)[Dim], double h_a,
                       FirstPass&& first_pass, SecondPass&& second_pass) {
    constexpr int kStride = Layout::stride;
    constexpr int kFirst = kFirstPassFields<Layout>;
    static_assert(kFirst == kStride || kFirst == 8, "the first pass's fields");
    constexpr std::size_t kGroup = 4;
    for (std::size_t group = 0; group < partners.size(); group += kGroup * kBlock) {
        alignas(64) double blocks[kGroup][kStride][kBlock];
        alignas(64) Geometry geometry[kGroup];
        std::size_t kept[kGroup];  // where each block of `blocks` starts in the list
        std::size_t n_kept = 0;
        const std::size_t group_end = std::min(partners.size(), group + kGroup * kBlock);
        for (std::size_t base = group; base < group_end; base += kBlock) {
            if (base >= margin_blocks &&
                beyond_support<Dim, Layout>(rec, partners.data() + base, xa, h_a))
                continue;
            load_block<kStride, kFirst>(rec, partners.data() + base, blocks[n_kept]);
            first_pass(blocks[n_kept], geometry[n_kept]);
            kept[n_kept++] = base;
        }
        for (std::size_t g = 0; g < n_kept; ++g) {
            const std::uint32_t* block = partners.data() + kept[g];
            const double (&blk)[kStride][kBlock] = blocks[g];
#if defined(__AVX512F__)
            Vec8 tail[kStride / 8 > 1 ? kStride / 8 - 1 : 1][8];
            for (int group8 = 1; group8 < kStride / 8; ++group8) {
                __m512d fields[8];
                transpose_group<kStride>(rec, block, 8 * group8, fields);
                for (int f = 0; f < 8; ++f) tail[group8 - 1][f] = fields[f];
            }
            const auto field = [&](int f) -> Vec8 {
                return f < 8 ? load8(blk[f]) : tail[f / 8 - 1][f % 8];
            };
#else
            const auto field = [&](int f) -> Vec8 { return load8(blk[f]); };
#endif
            second_pass(BlockView<decltype(field), kStride>{field, blk, block}, geometry[g]);
        }
    }
}

}  // namespace regosph::traversal
