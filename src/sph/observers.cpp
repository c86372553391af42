#include "sph/observers.hpp"

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
        for (std::size_t a = 0; a < p.size(); ++a) {
            if (p.kind[a] != ParticleKind::dynamic) continue;
            if (o.material >= 0 && p.material[a] != o.material) continue;
            geometry::Point x{p.x[0][a], p.x[1][a], p.x[2][a]};
            if (motion) x = motion->to_reference(x, t);
            if (!o.region->contains(x)) continue;
            ++r.count;
            r.mass += p.mass[a];
        }
    }
    return out;
}

}  // namespace regosph
