#include "sph/observers.hpp"

#include <cstdint>

#include "parallel/mpi_env.hpp"
#include "parallel/threads.hpp"

namespace regosph {

std::vector<ObserverReading> read_observers(const ParticleSet& p,
                                            const std::vector<Observer>& observers,
                                            const std::vector<Body>& bodies, double t) {
    std::vector<ObserverReading> out(observers.size());
    std::vector<std::uint8_t> inside;
    for (std::size_t k = 0; k < observers.size(); ++k) {
        const Observer& o = observers[k];
        // A region carried by a kinematic body: its motion at t, once for all particles.
        const geometry::Kinematics* tool = o.body >= 0 ? prescribed_motion(bodies[o.body]) : nullptr;
        const bool carried = tool != nullptr;
        const geometry::KinematicState motion = carried ? tool->at(t) : geometry::KinematicState{};
        // Which particles lie inside, in parallel (the region test is the costly part); the
        // sums then run serially in particle order, so they do not depend on the threads.
        const std::size_t n = p.owned();
        inside.assign(n, 0);
#pragma omp parallel for schedule(static) \
    num_threads(parallel::threads_for(n, parallel::kMinCheapItems))
        for (std::size_t a = 0; a < n; ++a) {
            if (p.kind[a] != ParticleKind::dynamic) continue;
            if (o.material >= 0 && p.material[a] != o.material) continue;
            geometry::Point x{p.x[0][a], p.x[1][a], p.x[2][a]};
            if (carried) x = motion.to_reference(x);
            inside[a] = o.region->contains(x) ? 1 : 0;
        }
        ObserverReading& r = out[k];
        for (std::size_t a = 0; a < n; ++a) {
            if (!inside[a]) continue;
            ++r.count;
            r.mass += p.mass[a];
        }
    }
    // Over the ranks: the counts exactly, the masses to round-off.
    std::vector<std::int64_t> counts;
    std::vector<double> masses;
    for (const ObserverReading& r : out) {
        counts.push_back(r.count);
        masses.push_back(r.mass);
    }
    mpi::sum_in_place(counts);
    mpi::sum_in_place(masses);
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = {counts[k], masses[k]};
    return out;
}

}  // namespace regosph
