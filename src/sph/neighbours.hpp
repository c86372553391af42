// Verlet neighbour lists built with a nanoflann k-d tree (one search per leaf of the tree;
// neighbours.cpp), and the pair lists the pair loops visit.
//
// A pair (a, b) interacts when |x_a - x_b| < h_ab = (h_a + h_b) / 2 (SPEC.md section 1). The
// Verlet list stores every b within h_ab + skin of the positions at the build. Rows of dynamic
// particles hold all their neighbours, rows of boundary particles only dynamic ones (a wall
// never interacts with a wall). Only owned particles have rows (ParticleSet::owned()); halo
// particles appear as neighbours. Rows are sorted by particle id, so sums over a row depend
// neither on the thread count nor on the MPI decomposition.
//
// The pair lists are narrower: for each owned dynamic particle (with sleeping regions, each
// awake one), the entries of its Verlet row within h_ab + margin of the positions
// y = ParticleSet::x_selected at their selection (select_pairs): those within the support at
// y first, then those of the margin, each in row order (pair_selection.hpp). They hold every
// interacting pair until some particle has moved margin / 2 from y (both ends of a pair then
// moved less than margin in all), and the pair loops visit them at every evaluation instead
// of testing the wider Verlet rows again; the few entries beyond h_ab give exact zeros there.
//
// The lists are a function of y alone, whatever Verlet list they were filtered from. That list
// holds every pair within h_ab + margin of y when every y lies within (skin - margin) / 2 of
// the particle's position at the build (the pair is then within h_ab + skin there), and it
// does: y is either the present position, taken while no particle has moved more than
// (skin - margin) / 2 since the build (`motion` asks for a rebuild beyond), or an earlier one
// within margin / 2 <= (skin - margin) / 2 of the present. So a run whose Verlet lists were
// rebuilt at other times (a restart) has the same pair lists, and the same results, bit for
// bit, as long as it has the same y (a checkpointed field).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/particles.hpp"
#include "parallel/threads.hpp"

namespace regosph {

class NeighbourList {
public:
    // skin: extra search distance [m] beyond the interaction radius; margin [m], in
    // [0, skin / 2]: the width of the pair lists beyond it (select_pairs).
    void build(const ParticleSet& p, double skin, double margin = 0.0);

    // What the motion since the build and since the pair selection asks for. Local: under MPI
    // the caller combines the answers of all ranks (halo particles are checked by their
    // owners).
    struct Motion {
        // The list is empty, sized for another particle set, or some owned particle moved more
        // than (skin - margin) / 2 since the build. With a look-ahead time dt [s], also when a
        // particle may get there within a step of dt (|dx| + 1.25 |v| dt > (skin - margin) / 2):
        // a step start then rebuilds (and migrates particles between ranks) instead of the
        // middle of the step.
        bool rebuild = false;
        // Some owned particle lies more than margin / 2 from its x_selected (or its position is
        // not finite): the pair lists must be selected again, at the present positions. With
        // the margin of the last build: after a rebuild, ask again.
        bool reselect = false;
    };
    Motion motion(const ParticleSet& p, double lookahead_dt = 0.0) const;

    // The pair lists of the owned dynamic particles: the entries b of a's Verlet row with
    // |y_a - y_b| < h_ab + margin (or a distance that is NaN, which propagates a broken state),
    // y = `at` (ParticleSet::x_selected, or x for a list used once): those within the support
    // at y, then the others, each in row order, padded with a itself to a whole number of
    // blocks (pair_selection.hpp); other particles get
    // none. Every `at` must lie within (skin - margin) / 2 of its particle's position at the
    // build. `idle` (one flag per owned particle, or null): the rows whose pair loops do not
    // run (sleeping particles, sleep_regions.hpp) get no list, unless their row holds a halo
    // copy (a sleeping particle's wake test then reads its list: the lists that hold it on
    // the other side are on another rank).
    void select_pairs(const ParticleSet& p, const std::array<std::vector<double>, 3>& at,
                      const std::uint8_t* idle = nullptr);
    // The lists of the owned dynamic particles that have none and are not `idle` (woken since
    // the last selection), with the `at` of that selection: the lists it would have given
    // them.
    void select_missing(const ParticleSet& p, const std::array<std::vector<double>, 3>& at,
                        const std::uint8_t* idle);
    // Whether owned particle a has its pair list of the last selection (select_pairs).
    bool listed(std::size_t a) const { return listed_[a] != 0; }
    // The entries of owned particle b's Verlet row within h_ab + margin at `at`, padded as a
    // pair list (b dynamic or not; a dynamic b's pair list): the dynamic particles whose pair
    // lists hold b, since the row and the test are symmetric in a and b.
    void pairs_of(const ParticleSet& p, const std::array<std::vector<double>, 3>& at,
                  std::size_t b, std::vector<std::uint32_t>& out) const;
    // The pair list of owned particle a, padded: what its pair loops visit.
    std::span<const std::uint32_t> partners(std::size_t a) const {
        return {pair_begin_[a], pair_count_[a]};
    }
    // Where the blocks of a's pair list that hold only entries beyond the support at the
    // selection (the margin's) and padding begin: a multiple of kBlock (pair_selection.hpp).
    std::size_t margin_blocks(std::size_t a) const { return margin_blocks_[a]; }
    // Whether the pair lists were selected from this build, for a set of p's size.
    bool has_pairs(const ParticleSet& p) const {
        return built_for(p) && pairs_build_ == builds_;
    }

    std::span<const std::uint32_t> row(std::size_t i) const {
        return {indices_.data() + offsets_[i], indices_.data() + offsets_[i + 1]};
    }
    std::size_t pair_count() const { return indices_.size(); }
    std::size_t pair_list_entries() const;  // padding included

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
    std::size_t selection_count() const { return selections_; }
    double skin() const { return skin_; }
    double margin() const { return margin_; }

private:
    // Whether the list was built, and for a set of p's owned and halo counts.
    bool built_for(const ParticleSet& p) const {
        return builds_ > 0 && offsets_.size() == p.owned() + 1 && built_size_ == p.size();
    }

    std::vector<std::size_t> offsets_;
    std::vector<std::uint32_t> indices_;
    std::vector<std::vector<std::uint32_t>> rows_;  // the build's block buffer (neighbours.cpp)
    std::array<std::vector<double>, 3> x_at_build_;
    // The pair lists, one buffer per part of the partition (each filled by one thread, in
    // particle order), and where each particle's list starts in its part's buffer.
    std::vector<std::vector<std::uint32_t>> part_pairs_;
    std::vector<const std::uint32_t*> pair_begin_;  // owned
    std::vector<std::uint32_t> pair_count_;         // owned
    std::vector<std::uint32_t> margin_blocks_;      // owned
    std::vector<std::uint8_t> listed_;              // owned: has its list (select_pairs)
    // The lists of select_missing (since the last select_pairs), each row's start in it.
    std::vector<std::uint32_t> late_pairs_;
    std::vector<std::pair<std::uint32_t, std::size_t>> late_rows_;
    std::size_t pairs_build_ = 0;  // builds_ at the last selection (0: none)
    std::size_t selections_ = 0;
    double skin_ = 0.0, margin_ = 0.0;
    std::size_t built_size_ = 0;  // owned + halo particles at the build
    std::size_t wall_entries_ = 0, walls_ = 0;
    std::size_t builds_ = 0;
    // Partitions of this build by part count (index), made on demand.
    mutable std::vector<parallel::Partition> partitions_;
    mutable std::size_t partition_build_ = 0;  // builds_ when partitions_ were made (0: never)
};

}  // namespace regosph
