#include "sph/neighbours.hpp"

#include <algorithm>
#include <cmath>
#include <nanoflann.hpp>
#include <stdexcept>

#include "parallel/threads.hpp"

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

// rows: the block buffer, kept by the list between builds so that its rows keep their
// capacity (with a fresh buffer every row grew from nothing at every build; keeping it cut the
// paper-resolution collapse's neighbour time by 7 %).
template <int Dim>
void search(const ParticleSet& p, double skin, std::vector<std::size_t>& offsets,
            std::vector<std::uint32_t>& indices, std::vector<std::vector<std::uint32_t>>& rows) {
    using Tree = nanoflann::KDTreeSingleIndexAdaptor<
        nanoflann::L2_Simple_Adaptor<double, PositionCloud>, PositionCloud, Dim, std::uint32_t>;
    const PositionCloud cloud{p};
    Tree tree(Dim, cloud, nanoflann::KDTreeSingleIndexAdaptorParams(16));  // builds the tree

    const double h_max = *std::max_element(p.h.begin(), p.h.end());
    const std::size_t n = p.owned();
    if (rows.size() < std::min(n, kBuildBlock)) rows.resize(std::min(n, kBuildBlock));
    for (std::size_t first = 0; first < n; first += kBuildBlock) {
        const std::size_t last = std::min(n, first + kBuildBlock);
#pragma omp parallel num_threads(parallel::threads_for(n, parallel::kMinPairItems))
        {
            std::vector<std::pair<std::uint32_t, double>> found;
            nanoflann::SearchParams params;
            params.sorted = false;
#pragma omp for schedule(static)
            for (std::size_t a = first; a < last; ++a) {
                const double query[3] = {p.x[0][a], p.x[1][a], p.x[2][a]};
                const double reach = 0.5 * (p.h[a] + h_max) + skin;
                found.clear();
                tree.radiusSearch(query, reach * reach, found, params);
                auto& row = rows[a - first];
                row.clear();
                const bool a_is_boundary = p.kind[a] == ParticleKind::boundary;
                for (const auto& [b, r2] : found) {
                    if (b == a) continue;
                    if (a_is_boundary && p.kind[b] == ParticleKind::boundary) continue;
                    const double r_max = 0.5 * (p.h[a] + p.h[b]) + skin;
                    if (r2 < r_max * r_max) row.push_back(b);
                }
                // By particle id, not index: the index order changes with the MPI
                // decomposition, the id order does not, so the sums over a row come out the
                // same on any number of ranks (and threads).
                std::sort(row.begin(), row.end(),
                          [&p](std::uint32_t i, std::uint32_t j) { return p.id[i] < p.id[j]; });
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

void NeighbourList::build(const ParticleSet& p, double skin) {
    if (p.size() >= std::size_t{0xffffffff})
        throw std::length_error("NeighbourList: more than 2^32 - 1 particles on one rank");
    skin_ = skin;
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
    for (int d = 0; d < 3; ++d) x_at_build_[d].assign(p.x[d].begin(), p.x[d].begin() + n);
    built_size_ = p.size();
    ++builds_;
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

bool NeighbourList::needs_rebuild(const ParticleSet& p, double lookahead_dt) const {
    const std::size_t n = p.owned();
    if (offsets_.size() != n + 1 || x_at_build_[0].size() != n || built_size_ != p.size())
        return true;
    const double half_skin = 0.5 * skin_;
    bool moved = false;
    const parallel::Partition& part = partition(p);
    parallel::ChunkQueue chunks(part, n, 512);
#pragma omp parallel num_threads(part.team()) reduction(|| : moved)
    chunks.run([&](std::size_t first, std::size_t last) {
        for (std::size_t a = first; a < last; ++a) {
            double d2 = 0.0, v2 = 0.0;
            for (int d = 0; d < p.dim; ++d) {
                const double dx = p.x[d][a] - x_at_build_[d][a];
                d2 += dx * dx;
                v2 += p.v[d][a] * p.v[d][a];
            }
            const double ahead = 1.25 * std::sqrt(v2) * lookahead_dt;
            // NaN positions force a rebuild (and fail later)
            moved = moved || !(std::sqrt(d2) + ahead <= half_skin);
        }
    });
    return moved;
}

}  // namespace regosph
