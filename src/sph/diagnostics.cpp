#include "sph/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "parallel/mpi_env.hpp"

namespace regosph {

Diagnostics compute_diagnostics(const ParticleSet& p) {
    Diagnostics g;
    // Serial on purpose: the sums must not depend on the thread count.
    for (std::size_t a = 0; a < p.owned(); ++a) {
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
    // Over the ranks (identity on one rank).
    std::vector<double> sums = {g.mass, g.kinetic_energy, g.momentum[0], g.momentum[1],
                                g.momentum[2]};
    mpi::sum_in_place(sums);
    g.mass = sums[0];
    g.kinetic_energy = sums[1];
    for (int d = 0; d < 3; ++d) g.momentum[d] = sums[2 + d];
    g.max_speed = mpi::max(g.max_speed);
    g.yielding = static_cast<std::size_t>(mpi::sum(static_cast<std::int64_t>(g.yielding)));
    g.dynamic_particles =
        static_cast<std::size_t>(mpi::sum(static_cast<std::int64_t>(g.dynamic_particles)));
    return g;
}

}  // namespace regosph
