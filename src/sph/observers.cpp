#include "sph/observers.hpp"

#include "parallel/mpi_env.hpp"

namespace regosph {

std::vector<ObserverReading> read_observers(const ParticleSet& p,
                                            const std::vector<Observer>& observers,
                                            const std::vector<Body>& bodies, double t) {
    std::vector<ObserverReading> out(observers.size());
    for (std::size_t k = 0; k < observers.size(); ++k) {
        const Observer& o = observers[k];
        const geometry::Kinematics* motion =
            o.body >= 0 && bodies[o.body].motion == Motion::kinematic ? &bodies[o.body].kinematics
                                                                      : nullptr;
        ObserverReading& r = out[k];
        for (std::size_t a = 0; a < p.owned(); ++a) {
            if (p.kind[a] != ParticleKind::dynamic) continue;
            if (o.material >= 0 && p.material[a] != o.material) continue;
            geometry::Point x{p.x[0][a], p.x[1][a], p.x[2][a]};
            if (motion) x = motion->to_reference(x, t);
            if (!o.region->contains(x)) continue;
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
