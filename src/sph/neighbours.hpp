// Verlet neighbour lists built with a nanoflann k-d tree (one search per leaf of the tree;
// neighbours.cpp).
//
// A pair (a, b) interacts when |x_a - x_b| < h_ab = (h_a + h_b) / 2 (SPEC.md section 1). The
// list stores every b within h_ab + skin, so it stays valid until some particle has moved
// more than skin / 2 since the build; `needs_rebuild` checks exactly that. Rows of dynamic
// particles hold all their neighbours, rows of boundary particles only dynamic ones (a wall
// never interacts with a wall). Only owned particles have rows (ParticleSet::owned()); halo
// particles appear as neighbours. Rows are sorted by particle id, so sums over a row depend
// neither on the thread count nor on the MPI decomposition.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/particles.hpp"
#include "parallel/threads.hpp"

namespace regosph {

class NeighbourList {
public:
    // skin: extra search distance [m] beyond the interaction radius.
    void build(const ParticleSet& p, double skin);

    // True when the list is empty, sized for another particle set, or some owned particle
    // moved more than skin / 2 since the build. With a look-ahead time dt [s], also when a
    // particle may get there within a step of dt (|dx| + 1.25 |v| dt > skin / 2): a step start
    // then rebuilds (and migrates particles between ranks) instead of the middle of the step.
    // Local: under MPI the caller combines the answers of all ranks (halo particles are
    // checked by their owners).
    bool needs_rebuild(const ParticleSet& p, double lookahead_dt = 0.0) const;

    std::span<const std::uint32_t> row(std::size_t i) const {
        return {indices_.data() + offsets_[i], indices_.data() + offsets_[i + 1]};
    }
    std::size_t pair_count() const { return indices_.size(); }

    // The owned particles split into one contiguous range per thread of the pair loop
    // (parallel::threads_for(owned, kMinPairItems) threads), of about equal work: a dynamic
    // particle costs its row length plus a fixed part, a boundary particle little. Every
    // particle loop of a step takes its particles from it (parallel::Partition). Computed
    // once per build and part count (the thread tuner alternates counts); call outside
    // parallel regions.
    const parallel::Partition& partition(const ParticleSet& p) const;
    // Entries of the rows of boundary particles (their dynamic neighbours within reach) and
    // the number of boundary particles among the owned ones, counted at the build: the work of
    // the wall extrapolation (boundary.hpp).
    std::size_t wall_entries() const { return wall_entries_; }
    std::size_t walls() const { return walls_; }
    std::size_t build_count() const { return builds_; }
    double skin() const { return skin_; }

private:
    std::vector<std::size_t> offsets_;
    std::vector<std::uint32_t> indices_;
    std::vector<std::vector<std::uint32_t>> rows_;  // the build's block buffer (neighbours.cpp)
    std::array<std::vector<double>, 3> x_at_build_;
    double skin_ = 0.0;
    std::size_t built_size_ = 0;  // owned + halo particles at the build
    std::size_t wall_entries_ = 0, walls_ = 0;
    std::size_t builds_ = 0;
    // Partitions of this build by part count (index), made on demand.
    mutable std::vector<parallel::Partition> partitions_;
    mutable std::size_t partition_build_ = 0;  // builds_ when partitions_ were made (0: never)
};

}  // namespace regosph
