// Domain decomposition over MPI ranks: which rank owns which particle, moving particles to
// their owners, and the halo copies of remote particles that each rank's pair loops need.
//
// Ownership follows an orthogonal recursive bisection (ORB) of space: the ranks are split into
// two halves, space is cut perpendicular to the longest extent of the particles so that each
// half of the ranks gets its share of the particle weight, and so on down to single ranks. The
// cuts are found by bisection on the cut coordinate with global weight sums, so every rank
// holds the same tree. The tree is recomputed when the load becomes unbalanced.
//
// Halos: after migration each rank sends every owned particle that lies within `reach` of
// another rank's particles (the bounding box of that rank's owned particles, exchanged by all
// ranks) to that rank, where it is appended after the owned particles
// (ParticleSet::n_halo). With reach = largest support radius + Verlet skin, every pair that a
// neighbour list with that skin may need is present until some particle has moved more than
// half the skin, and NeighbourList::motion asks for a rebuild earlier (half the skin less the
// pair margin), so halos are rebuilt together with the neighbour lists. In between, update_halo refreshes the copies' fields.
//
// Nothing here depends on the SPH physics: the decomposition only sees positions, kinds and
// ids. With one rank every operation is a cheap no-op, so a 1-rank run takes the same path.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/particles.hpp"

namespace regosph::parallel {

// Which fields update_halo refreshes (the field table in core/fields.hpp says which fields).
enum class HaloFields {
    dynamic_state,    // of dynamic halo particles: the fields marked kHaloState
    boundary_values,  // of boundary halo particles: those marked kHaloBoundary (extrapolated by
                      // their owner)
};

// Cumulative counters of this rank (for benchmarks and the run summary).
struct DomainStatistics {
    std::int64_t bytes_sent = 0;        // halo builds, halo updates and migrations [bytes]
    std::int64_t halo_bytes_sent = 0;   // of which halo updates (the per-evaluation traffic)
    std::int64_t halo_updates = 0;      // update_halo calls
    std::int64_t halo_builds = 0;
    std::int64_t migrations = 0;        // migrate calls
    std::int64_t particles_migrated = 0;  // sent away by this rank
    std::int64_t rebalances = 0;        // ORB trees computed
    std::int64_t halo_particles = 0;    // copies received at the last halo build
    std::int64_t halo_partners = 0;     // ranks exchanged with at the last halo build
};

// The part [first, last) of n items (a body's particles in id order) that this rank builds in
// a split setup: contiguous, the sizes of any two ranks differing by one at most.
struct Share {
    std::size_t first = 0, last = 0;
};
Share setup_share(std::size_t n);

class Domain {
public:
    // Particle weight of the load balance: dynamic particles carry the pair loops, boundary
    // particles only the wall extrapolation over their dynamic neighbours.
    static constexpr double kBoundaryWeight = 0.25;
    // Recompute the bisection when the heaviest rank exceeds the mean by this fraction.
    static constexpr double kImbalanceTolerance = 0.05;

    // True once distribute() has run: each rank then holds only its own particles.
    bool distributed() const { return distributed_; }
    // The ranks this one exchanges halo copies with (0 on a single rank).
    std::size_t halo_partners() const { return partners_.size(); }

    // From a whole setup (every rank holds every particle, as Python setup scripts build it
    // from positions) or a split one (`split`: each rank holds a share, setup_share) to a
    // distributed one: every rank computes the same tree (from the whole set without
    // communication, or from global sums), the split shares are sent to their owners, and each
    // rank keeps its own particles in id order. Must be called by every rank.
    void distribute(ParticleSet& p, bool split);

    // Collective. Drops the halo, recomputes the tree if the load is unbalanced, and sends every
    // owned particle outside this rank's cell to its owner. Received particles are appended.
    void migrate(ParticleSet& p);

    // Collective. Appends halo copies (all fields) of every remote particle within reach [m] of
    // this rank's owned particles' bounding box; replaces an existing halo.
    void build_halo(ParticleSet& p, double reach);

    // Collective. Refreshes the halo copies from their owners (same halo as the last build).
    void update_halo(ParticleSet& p, HaloFields fields);

    // Collective. The same for values that are not particle fields (e.g. a quantity staged by
    // the physics): `values` holds `stride` doubles per particle of p (owned, then halo), and
    // the dynamic halo copies get their owners' values.
    void update_halo_values(const ParticleSet& p, std::vector<double>& values, int stride);

    // Rank that owns position x under the current tree (0 before any decomposition).
    int owner(const std::array<double, 3>& x) const;

    // Weighted particle load of this rank's owned particles.
    static double load(const ParticleSet& p);

    const DomainStatistics& statistics() const { return stats_; }

private:
    struct Node {
        int rank_lo = 0, rank_hi = 1;  // ranks [lo, hi) below this node
        int axis = -1;                 // -1: leaf (one rank)
        double cut = 0.0;              // x[axis] < cut: child 0, else child 1
        int child[2] = {-1, -1};
    };
    // global: the particle set is distributed and sums run over all ranks; otherwise every
    // rank holds the same (replicated) set and computes alone.
    void compute_tree(const ParticleSet& p, bool global);
    void select_halo(const ParticleSet& p, double reach);  // partners_, send_, send_kind_
    // One level's cut of each active node (domain.cpp).
    struct LevelCuts {
        std::vector<int> axis;      // per active node: the axis cut
        std::vector<double> upper;  // per active node: the cut [m]
    };
    LevelCuts level_cuts(const ParticleSet& p, const std::vector<int>& node_of,
                         const std::vector<int>& slot_of, const std::vector<int>& active,
                         bool global) const;

    std::vector<Node> tree_;
    bool distributed_ = false;
    // Halo bookkeeping of the last build: per partner rank, the owned indices sent to it and the
    // number of particles received from it (appended in partner order).
    std::vector<int> partners_;
    std::vector<std::vector<std::uint32_t>> send_;       // per partner: all halo particles
    std::vector<std::vector<std::uint32_t>> send_kind_[2];  // per kind (dynamic, boundary)
    std::vector<std::size_t> recv_count_;
    std::vector<std::vector<std::uint32_t>> recv_kind_[2];  // local halo indices per kind
    DomainStatistics stats_;
};

}  // namespace regosph::parallel
