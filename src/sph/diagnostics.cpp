#include "sph/diagnostics.hpp"

#include <algorithm>
#include <cmath>

namespace regosph {

Diagnostics compute_diagnostics(const ParticleSet& p) {
    Diagnostics g;
    // Serial on purpose: the sums must not depend on the thread count.
    for (std::size_t a = 0; a < p.size(); ++a) {
        if (p.kind[a] != ParticleKind::dynamic) continue;
        double v2 = 0.0;
        for (int d = 0; d < 3; ++d) {
            g.momentum[d] += p.mass[a] * p.v[d][a];
            v2 += p.v[d][a] * p.v[d][a];
        }
        g.mass += p.mass[a];
        g.kinetic_energy += 0.5 * p.mass[a] * v2;
        g.max_speed = std::max(g.max_speed, std::sqrt(v2));
        g.yielding += p.yielding[a];
        ++g.dynamic_particles;
    }
    return g;
}

}  // namespace regosph
