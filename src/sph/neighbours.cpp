#include "sph/neighbours.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <nanoflann.hpp>
#include <stdexcept>
#include <string>

#include "parallel/threads.hpp"
#include "sph/pair_selection.hpp"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace regosph {

namespace {

// nanoflann dataset adaptor over the structure-of-arrays positions.
struct PositionCloud {
    const ParticleSet& p;
    std::size_t kdtree_get_point_count() const { return p.size(); }
    double kdtree_get_pt(std::size_t i, std::size_t d) const { return p.x[d][i]; }
    template <class BoundingBox>
    bool kdtree_get_bbox(BoundingBox&) const {
        return false;
    }
};

// Particles per block of the build: rows are searched in parallel into a reusable block
// buffer and appended to the flat list, so the build needs the list plus one block, not twice
// the list (what decides the peak memory of large 3D runs).
constexpr std::size_t kBuildBlock = 8192;
// Particles per claim of the copy of the build's positions (~1 ns each): about a us of work
// per claim, in chunks a helper can still take over.
constexpr std::size_t kCopyChunk = 1024;

// The leaves of a nanoflann tree, left to right: each a range [first, last) of tree.vAcc, the
// tree's permutation of the points (so neighbouring leaves hold neighbouring points).
template <class Tree>
std::vector<std::pair<std::size_t, std::size_t>> tree_leaves(const Tree& tree) {
    std::vector<std::pair<std::size_t, std::size_t>> leaves;
    std::vector<typename Tree::NodePtr> stack;
    if (tree.root_node) stack.push_back(tree.root_node);
    while (!stack.empty()) {
        const auto node = stack.back();
        stack.pop_back();
        if (!node->child1 && !node->child2) {
            leaves.emplace_back(node->node_type.lr.left, node->node_type.lr.right);
            continue;
        }
        if (node->child2) stack.push_back(node->child2);
        if (node->child1) stack.push_back(node->child1);  // the left child comes out first
    }
    return leaves;
}

// The candidates of one leaf's search in particle-id order, copied out of the particle arrays:
// each of the leaf's rows is then a filter of them, in id order without a sort of its own, and
// reads them contiguously.
template <int Dim>
struct Candidates {
    std::vector<std::pair<std::uint32_t, double>> found;  // nanoflann's result
    std::vector<std::pair<std::int64_t, std::uint32_t>> by_id;
    std::array<std::vector<double>, Dim> x;
    std::vector<double> h;
    std::vector<std::uint32_t> index;
    std::vector<std::uint8_t> boundary;
    void take(const ParticleSet& p) {
        const std::size_t m = found.size();
        by_id.resize(m);
        for (std::size_t k = 0; k < m; ++k) by_id[k] = {p.id[found[k].first], found[k].first};
        std::sort(by_id.begin(), by_id.end());  // ids are unique
        for (auto& c : x) c.resize(m);
        h.resize(m);
        index.resize(m);
        boundary.resize(m);
        for (std::size_t k = 0; k < m; ++k) {
            const std::uint32_t b = by_id[k].second;
            for (int d = 0; d < Dim; ++d) x[d][k] = p.x[d][b];
            h[k] = p.h[b];
            index[k] = b;
            boundary[k] = p.kind[b] == ParticleKind::boundary;
        }
    }
};

// The ball of a leaf's particles `mine` for the search: centre c = middle of their bounding
// box, radius max_a (|x_a - c| + reach_a), reach_a = (h_a + h_max) / 2 + skin >= h_ab + skin
// (triangle inequality), widened by 1e-9 against rounding. Returns the radius [m].
template <int Dim>
double search_ball(const ParticleSet& p, const std::vector<std::uint32_t>& mine, double h_max,
                   double skin, double (&centre)[3]) {
    double lo[Dim], hi[Dim];
    for (int d = 0; d < Dim; ++d) lo[d] = hi[d] = p.x[d][mine[0]];
    for (const std::uint32_t a : mine)
        for (int d = 0; d < Dim; ++d) {
            lo[d] = std::min(lo[d], p.x[d][a]);
            hi[d] = std::max(hi[d], p.x[d][a]);
        }
    for (int d = 0; d < Dim; ++d) centre[d] = 0.5 * (lo[d] + hi[d]);
    double radius = 0.0;
    for (const std::uint32_t a : mine) {
        double c2 = 0.0;
        for (int d = 0; d < Dim; ++d) c2 += (p.x[d][a] - centre[d]) * (p.x[d][a] - centre[d]);
        radius = std::max(radius, std::sqrt(c2) + 0.5 * (p.h[a] + h_max) + skin);
    }
    return radius * (1.0 + 1e-9);
}

// The row of particle a from the candidates of its leaf: {b != a : |x_a - x_b|^2 <
// (h_ab + skin)^2}, without boundary-boundary pairs. Without branches: every candidate is
// written, and the count moves on past the listed ones (under half of them, in no predictable
// order). In particle-id order, as the candidates: the index order changes with the MPI
// decomposition, the id order does not, so the sums over a row come out the same on any number
// of ranks (and threads).
template <int Dim>
void fill_row(const ParticleSet& p, std::uint32_t a, const Candidates<Dim>& cand, double skin,
              std::vector<std::uint32_t>& row) {
    const std::size_t m = cand.index.size();
    row.resize(m);
    const std::uint8_t skip_boundary = p.kind[a] == ParticleKind::boundary;
    const double h_a = p.h[a];
    double xa[Dim];
    for (int d = 0; d < Dim; ++d) xa[d] = p.x[d][a];
    std::size_t count = 0;
    for (std::size_t k = 0; k < m; ++k) {
        // |x_a - x_b|^2 as nanoflann's L2_Simple_Adaptor sums it.
        double r2 = 0.0;
        for (int d = 0; d < Dim; ++d) {
            const double diff = xa[d] - cand.x[d][k];
            r2 += diff * diff;
        }
        const double r_max = 0.5 * (h_a + cand.h[k]) + skin;
        const bool listed = (r2 < r_max * r_max) & (cand.index[k] != a) &
                            !(skip_boundary & cand.boundary[k]);
        row[count] = cand.index[k];
        count += listed;
    }
    row.resize(count);
}

// rows: the block buffer, kept by the list between builds so that its rows keep their
// capacity: a fresh buffer would grow every row from nothing, several allocations per row and
// build.
//
// One tree search per leaf of the tree rather than per particle: a ball around the leaf's
// points that holds every particle within reach of any of them, then each of the leaf's rows
// from those candidates. A row is the same set either way, {b != a : |x_a - x_b|^2 <
// (h_ab + skin)^2}, with |x_a - x_b|^2 summed as nanoflann sums it, so the lists (and the
// results) do not depend on how the candidates were found.
template <int Dim>
void search(const ParticleSet& p, double skin, std::vector<std::size_t>& offsets,
            std::vector<std::uint32_t>& indices, std::vector<std::vector<std::uint32_t>>& rows) {
    using Tree = nanoflann::KDTreeSingleIndexAdaptor<
        nanoflann::L2_Simple_Adaptor<double, PositionCloud>, PositionCloud, Dim, std::uint32_t>;
    const PositionCloud cloud{p};
    Tree tree(Dim, cloud, nanoflann::KDTreeSingleIndexAdaptorParams(16));  // builds the tree
    const auto leaves = tree_leaves(tree);

    const double h_max = *std::max_element(p.h.begin(), p.h.end());
    const std::size_t n = p.owned();
    // The leaf of each owned particle (halo particles are candidates only).
    std::vector<std::uint32_t> leaf_of(n);
    for (std::size_t l = 0; l < leaves.size(); ++l)
        for (std::size_t i = leaves[l].first; i < leaves[l].second; ++i)
            if (tree.vAcc[i] < n) leaf_of[tree.vAcc[i]] = static_cast<std::uint32_t>(l);
    std::vector<std::size_t> seen_in_block(leaves.size(), n);  // the block a leaf was listed for
    std::vector<std::uint32_t> block_leaves;
    if (rows.size() < std::min(n, kBuildBlock)) rows.resize(std::min(n, kBuildBlock));
    for (std::size_t first = 0; first < n; first += kBuildBlock) {
        const std::size_t last = std::min(n, first + kBuildBlock);
        // The leaves with a particle of this block (in a spatially ordered set, about
        // block / 16 of them; a leaf whose points lie in several blocks is searched again for
        // each).
        block_leaves.clear();
        for (std::size_t a = first; a < last; ++a)
            if (seen_in_block[leaf_of[a]] != first) {
                seen_in_block[leaf_of[a]] = first;
                block_leaves.push_back(leaf_of[a]);
            }
#pragma omp parallel num_threads(parallel::threads_for(n, parallel::kMinPairItems))
        {
            Candidates<Dim> cand;
            std::vector<std::uint32_t> mine;  // the leaf's particles in this block
            nanoflann::SearchParams params;
            params.sorted = false;
#pragma omp for schedule(dynamic, 8)
            for (std::size_t l = 0; l < block_leaves.size(); ++l) {
                const auto [leaf_first, leaf_last] = leaves[block_leaves[l]];
                mine.clear();
                for (std::size_t i = leaf_first; i < leaf_last; ++i)
                    if (tree.vAcc[i] >= first && tree.vAcc[i] < last) mine.push_back(tree.vAcc[i]);
                double centre[3] = {0.0, 0.0, 0.0};
                const double radius = search_ball<Dim>(p, mine, h_max, skin, centre);
                cand.found.clear();
                tree.radiusSearch(centre, radius * radius, cand.found, params);
                cand.take(p);
                for (const std::uint32_t a : mine) fill_row<Dim>(p, a, cand, skin, rows[a - first]);
            }
            // The block's rows into the flat list: the offsets serially (a prefix sum), the
            // copies in parallel.
#pragma omp single
            {
                for (std::size_t a = first; a < last; ++a)
                    offsets[a + 1] = offsets[a] + rows[a - first].size();
                if (first == 0 && indices.capacity() == 0)  // room for all rows, from the first
                    indices.reserve(offsets[last] * n / (last - first) * 11 / 10 + 16);
                indices.resize(offsets[last]);
            }
#pragma omp for schedule(static)
            for (std::size_t a = first; a < last; ++a)
                std::copy(rows[a - first].begin(), rows[a - first].end(),
                          indices.begin() + static_cast<std::ptrdiff_t>(offsets[a]));
        }
    }
}

}  // namespace

void NeighbourList::build(const ParticleSet& p, double skin, double margin) {
    if (p.size() >= std::size_t{0xffffffff})
        throw std::length_error("NeighbourList: more than 2^32 - 1 particles on one rank");
    if (!(margin >= 0.0 && 2.0 * margin <= skin))
        throw std::invalid_argument("NeighbourList: the pair margin must lie in [0, skin / 2]");
    skin_ = skin;
    margin_ = margin;
    const std::size_t n = p.owned();
    offsets_.assign(n + 1, 0);
    // Keep the capacity of the previous build (its size is a good estimate of this one's).
    indices_.clear();
    if (p.size() > 0) {
        if (p.dim == 2)
            search<2>(p, skin, offsets_, indices_, rows_);
        else
            search<3>(p, skin, offsets_, indices_, rows_);
    }
    wall_entries_ = walls_ = 0;
    for (std::size_t w = 0; w < n; ++w)
        if (p.kind[w] == ParticleKind::boundary) {
            wall_entries_ += offsets_[w + 1] - offsets_[w];
            ++walls_;
        }
    built_size_ = p.size();
    ++builds_;
    // The positions of this build, copied on the new list's partition (each thread its own
    // part, which its motion tests read), not serially: see AdaptiveHeun::prepare.
    const parallel::Partition& part = partition(p);
    parallel::ChunkQueue chunks(part, n, kCopyChunk);
    for (int d = 0; d < 3; ++d) x_at_build_[d].resize(n);
#pragma omp parallel num_threads(part.team())
    chunks.run([&](std::size_t first, std::size_t last) {
        for (int d = 0; d < 3; ++d)
            std::copy(p.x[d].begin() + static_cast<std::ptrdiff_t>(first),
                      p.x[d].begin() + static_cast<std::ptrdiff_t>(last),
                      x_at_build_[d].begin() + static_cast<std::ptrdiff_t>(first));
    });
}

const parallel::Partition& NeighbourList::partition(const ParticleSet& p) const {
    const std::size_t n = p.owned();
    const int parts = parallel::threads_for(n, parallel::kMinPairItems);
    if (partition_build_ != builds_) {
        partitions_.clear();
        partition_build_ = builds_;
    }
    if (partitions_.size() <= static_cast<std::size_t>(parts))
        partitions_.resize(static_cast<std::size_t>(parts) + 1);
    parallel::Partition& partition = partitions_[static_cast<std::size_t>(parts)];
    if (partition.parts() != parts || partition.size() != n) {
        // Work per particle in units of one pair: the pair loop of a dynamic particle visits
        // its row, and its staging and per-particle rates weigh about as much as 8 pairs;
        // a boundary particle is staged (and extrapolated, next to a few dynamic ones).
        std::vector<double> cost(n);
        for (std::size_t a = 0; a < n; ++a) {
            const double row_length = static_cast<double>(offsets_.size() > a + 1
                                                              ? offsets_[a + 1] - offsets_[a]
                                                              : 0);
            cost[a] = p.kind[a] == ParticleKind::dynamic ? 8.0 + row_length : 1.0;
        }
        partition = parallel::Partition(cost, parts);
    }
    return partition;
}

namespace {
// The motion of the particles [first, last): whether one moved more than half_skin since the
// build or may get there within lookahead_dt [s] (|dx| + 1.25 |v| dt > half_skin), and whether
// one lies more than half_margin from its x_selected. Every particle, without an early exit and
// with the dimension known, so that the loop vectorises; x_at_build is empty before the first
// build (no rebuild test then). NaN positions ask for both (and fail later).
template <int Dim>
NeighbourList::Motion moved(const ParticleSet& p,
                            const std::array<std::vector<double>, 3>& x_at_build,
                            std::size_t first, std::size_t last, double lookahead_dt,
                            double half_skin, double half_margin) {
    const double* x[Dim];
    const double* x0[Dim];
    const double* xs[Dim];
    const double* v[Dim];
    for (int d = 0; d < Dim; ++d) {
        x[d] = p.x[d].data();
        x0[d] = x_at_build[d].data();
        xs[d] = p.x_selected[d].data();
        v[d] = p.v[d].data();
    }
    int rebuild = 0, reselect = 0;
    if (!x_at_build[0].empty()) {
#pragma omp simd reduction(| : rebuild)
        for (std::size_t a = first; a < last; ++a) {
            double d2 = 0.0, v2 = 0.0;
            for (int d = 0; d < Dim; ++d) {
                const double dx = x[d][a] - x0[d][a];
                d2 += dx * dx;
                v2 += v[d][a] * v[d][a];
            }
            const double ahead = 1.25 * std::sqrt(v2) * lookahead_dt;
            rebuild |= !(std::sqrt(d2) + ahead <= half_skin) ? 1 : 0;
        }
    }
#pragma omp simd reduction(| : reselect)
    for (std::size_t a = first; a < last; ++a) {
        double d2 = 0.0;
        for (int d = 0; d < Dim; ++d) d2 += (x[d][a] - xs[d][a]) * (x[d][a] - xs[d][a]);
        reselect |= !(d2 <= half_margin * half_margin) ? 1 : 0;
    }
    return {rebuild != 0, reselect != 0};
}

// Appends the pair list of dynamic particle a (NeighbourList::select_pairs) to `out`: the
// entries of `row` that interact at the positions y (interacts), then the others within
// h_ab + margin (the margin's), each part in row order, padded with a to a whole number of
// blocks; returns the count of the first part. Tested 64 entries at a time into flags, then
// copied (AVX-512: packed sixteen at a time with a compress); the margin's entries wait in
// `beyond` until the row is done.
template <int Dim>
std::size_t append_pairs(const ParticleSet& p, const std::array<std::vector<double>, 3>& y,
                         std::size_t a, std::span<const std::uint32_t> row, double margin,
                         std::vector<std::uint32_t>& out, std::vector<std::uint32_t>& beyond) {
    constexpr std::size_t kChunk = 64;
    const double* yd[Dim];
    double ya[Dim];
    for (int d = 0; d < Dim; ++d) {
        yd[d] = y[d].data();
        ya[d] = yd[d][a];
    }
    const double* const h = p.h.data();
    const double h_a = h[a];
    const std::size_t start = out.size();
    std::size_t count = start, n_beyond = 0;
    // Room for the whole row, the padding and the vector stores past the count (`beyond` only
    // grows: it keeps the room of the longest row so far).
    out.resize(count + row.size() + 2 * kBlock);
    if (beyond.size() < row.size() + 2 * kBlock) beyond.resize(row.size() + 2 * kBlock);
    std::uint32_t* const dst = out.data();
    std::uint32_t* const dst_beyond = beyond.data();
    for (std::size_t base = 0; base < row.size(); base += kChunk) {
        const std::size_t len = std::min(kChunk, row.size() - base);
        std::uint32_t inner[kChunk], outer[kChunk];
#pragma omp simd
        for (std::size_t k = 0; k < len; ++k) {
            const std::uint32_t b = row[base + k];
            double r2 = 0.0;
            for (int d = 0; d < Dim; ++d) r2 += (ya[d] - yd[d][b]) * (ya[d] - yd[d][b]);
            const double h_ab = 0.5 * (h_a + h[b]);
            const double reach = h_ab + margin;
            // Without branches (& rather than &&), so that the loop vectorises. A NaN distance
            // interacts (a broken state must reach the pair loop); a coincident pair does not.
            const bool in_support = interacts(r2, h_ab);
            inner[k] = in_support ? 1 : 0;
            outer[k] = (!in_support & (r2 < reach * reach)) ? 1 : 0;
        }
#if defined(__AVX512F__)
        for (std::size_t k = 0; k < len; k += 16) {
            const __mmask16 in_row = static_cast<__mmask16>(
                len - k >= 16 ? 0xffff : (1u << (len - k)) - 1u);
            const __m512i entries = _mm512_maskz_loadu_epi32(in_row, row.data() + base + k);
            const __m512i in_flags = _mm512_maskz_loadu_epi32(in_row, inner + k);
            const __m512i out_flags = _mm512_maskz_loadu_epi32(in_row, outer + k);
            const __mmask16 in_kept = _mm512_test_epi32_mask(in_flags, in_flags);
            const __mmask16 out_kept = _mm512_test_epi32_mask(out_flags, out_flags);
            _mm512_storeu_si512(dst + count, _mm512_maskz_compress_epi32(in_kept, entries));
            _mm512_storeu_si512(dst_beyond + n_beyond,
                                _mm512_maskz_compress_epi32(out_kept, entries));
            count += static_cast<std::size_t>(__builtin_popcount(in_kept));
            n_beyond += static_cast<std::size_t>(__builtin_popcount(out_kept));
        }
#else
        for (std::size_t k = 0; k < len; ++k) {
            dst[count] = row[base + k];
            count += inner[k];
            dst_beyond[n_beyond] = row[base + k];
            n_beyond += outer[k];
        }
#endif
    }
    const std::size_t inner = count - start;
    std::copy(dst_beyond, dst_beyond + n_beyond, dst + count);
    count += n_beyond;
    while (count % kBlock != 0) dst[count++] = static_cast<std::uint32_t>(a);
    out.resize(count);
    return inner;
}
}  // namespace

NeighbourList::Motion NeighbourList::motion(const ParticleSet& p, double lookahead_dt) const {
    const std::size_t n = p.owned();
    const bool stale = !built_for(p) || x_at_build_[0].size() != n;
    static const std::array<std::vector<double>, 3> kNoBuild;
    const auto& x0 = stale ? kNoBuild : x_at_build_;
    const double half_skin = 0.5 * (skin_ - margin_), half_margin = 0.5 * margin_;
    int rebuild = stale ? 1 : 0, reselect = 0;
    const parallel::Partition& part = partition(p);
    parallel::ChunkQueue chunks(part, n, 512);
#pragma omp parallel num_threads(part.team()) reduction(| : rebuild, reselect)
    chunks.run([&](std::size_t first, std::size_t last) {
        const Motion m = p.dim == 2 ? moved<2>(p, x0, first, last, lookahead_dt, half_skin,
                                               half_margin)
                                    : moved<3>(p, x0, first, last, lookahead_dt, half_skin,
                                               half_margin);
        rebuild |= m.rebuild ? 1 : 0;
        reselect |= m.reselect ? 1 : 0;
    });
    return {rebuild != 0, reselect != 0};
}

std::size_t NeighbourList::pair_list_entries() const {
    std::size_t total = late_pairs_.size();
    for (const auto& buffer : part_pairs_) total += buffer.size();
    return total;
}

namespace {
// Whether row `row` of an owned particle holds a halo copy (an index from `owned` on).
bool reaches_halo(std::span<const std::uint32_t> row, std::size_t owned) {
    return std::any_of(row.begin(), row.end(), [&](std::uint32_t b) { return b >= owned; });
}
}  // namespace

void NeighbourList::select_pairs(const ParticleSet& p,
                                 const std::array<std::vector<double>, 3>& at,
                                 const std::uint8_t* idle) {
    const std::size_t n = p.owned();
    if (!built_for(p))
        throw std::logic_error("NeighbourList::select_pairs: the list was built for another "
                               "particle set");
    for (int d = 0; d < p.dim; ++d)
        if (at[d].size() != p.size())
            throw std::invalid_argument("NeighbourList::select_pairs: positions for " +
                                        std::to_string(at[d].size()) + " particles, not " +
                                        std::to_string(p.size()));
    // Each part of the partition selects its particles' lists into a buffer of its own, which
    // the lists then point into (no flat copy: a list twice would weigh on large 3D runs).
    const parallel::Partition& part = partition(p);
    const std::size_t parts = static_cast<std::size_t>(part.parts());
    part_pairs_.resize(parts);  // buffers of an earlier, larger part count are freed
    // Every entry is written below, each by its part's thread (no serial fill first).
    pair_begin_.resize(n);
    pair_count_.resize(n);
    margin_blocks_.resize(n);
    listed_.resize(n);
    late_pairs_.clear();
    late_rows_.clear();
#pragma omp parallel for num_threads(part.team()) schedule(static, 1)
    for (std::size_t k = 0; k < parts; ++k) {
        // Filled through a vector object of the thread's own (its storage moved in and out):
        // the parts' vector objects share a cache line, and a thread that grows its buffer
        // in place writes that line at every particle, which the other thread then has to
        // fetch back (false sharing: append_pairs took 2.5 x the CPU time on two threads).
        std::vector<std::uint32_t> buffer = std::move(part_pairs_[k]);
        buffer.clear();
        std::vector<std::uint32_t> beyond;  // append_pairs' scratch, as long as the longest row
        const int kk = static_cast<int>(k);
        for (std::size_t a = part.begin(kk); a < part.end(kk); ++a) {
            const std::size_t before = buffer.size();
            std::size_t inner = 0;
            listed_[a] = p.kind[a] == ParticleKind::dynamic &&
                         !(idle && idle[a] && !(p.n_halo > 0 && reaches_halo(row(a), n)));
            if (listed_[a]) {
                if (p.dim == 2)
                    inner = append_pairs<2>(p, at, a, row(a), margin_, buffer, beyond);
                else
                    inner = append_pairs<3>(p, at, a, row(a), margin_, buffer, beyond);
            }
            pair_count_[a] = static_cast<std::uint32_t>(buffer.size() - before);
            margin_blocks_[a] = static_cast<std::uint32_t>((inner + kBlock - 1) / kBlock * kBlock);
        }
        // The buffer has its final size (and address) now.
        std::size_t offset = 0;
        for (std::size_t a = part.begin(kk); a < part.end(kk); ++a) {
            pair_begin_[a] = buffer.data() + offset;
            offset += pair_count_[a];
        }
        part_pairs_[k] = std::move(buffer);  // the storage, and so pair_begin_, stays put
    }
    pairs_build_ = builds_;
    ++selections_;
}

void NeighbourList::select_missing(const ParticleSet& p,
                                   const std::array<std::vector<double>, 3>& at,
                                   const std::uint8_t* idle) {
    const std::size_t n = p.owned(), before = late_rows_.size();
    std::vector<std::uint32_t> beyond;  // append_pairs' scratch
    for (std::size_t a = 0; a < n; ++a) {
        if (listed_[a] || p.kind[a] != ParticleKind::dynamic || (idle && idle[a])) continue;
        const std::size_t start = late_pairs_.size();
        const std::size_t inner =
            p.dim == 2 ? append_pairs<2>(p, at, a, row(a), margin_, late_pairs_, beyond)
                       : append_pairs<3>(p, at, a, row(a), margin_, late_pairs_, beyond);
        pair_count_[a] = static_cast<std::uint32_t>(late_pairs_.size() - start);
        margin_blocks_[a] = static_cast<std::uint32_t>((inner + kBlock - 1) / kBlock * kBlock);
        listed_[a] = 1;
        late_rows_.emplace_back(static_cast<std::uint32_t>(a), start);
    }
    if (late_rows_.size() == before) return;
    for (const auto& [a, start] : late_rows_)  // the buffer may have moved
        pair_begin_[a] = late_pairs_.data() + start;
}

void NeighbourList::pairs_of(const ParticleSet& p, const std::array<std::vector<double>, 3>& at,
                             std::size_t b, std::vector<std::uint32_t>& out) const {
    std::vector<std::uint32_t> beyond;
    out.clear();
    if (p.dim == 2)
        append_pairs<2>(p, at, b, row(b), margin_, out, beyond);
    else
        append_pairs<3>(p, at, b, row(b), margin_, out, beyond);
}

}  // namespace regosph
