#include "sph/motion.hpp"

#include <cmath>

#include "parallel/threads.hpp"

namespace regosph {

bool has_kinematic_bodies(const std::vector<Body>& bodies) {
    for (const Body& b : bodies)
        if (b.motion == Motion::kinematic) return true;
    return false;
}

void place_kinematic_bodies(ParticleSet& p, const std::vector<Body>& bodies, double t,
                            std::array<std::vector<double>, 3>& acc) {
    const std::size_t n = p.size();
    for (auto& c : acc) c.resize(n);  // zero for other particles, written below
    // Each kinematic body's motion at t, once for all its particles.
    std::vector<geometry::KinematicState> state(bodies.size());
    for (std::size_t k = 0; k < bodies.size(); ++k)
        if (bodies[k].motion == Motion::kinematic) state[k] = bodies[k].kinematics.at(t);
#pragma omp parallel for schedule(static) \
    num_threads(parallel::threads_for(n, parallel::kMinCheapItems))
    for (std::size_t i = 0; i < n; ++i) {
        for (auto& c : acc) c[i] = 0.0;
        const Body& b = bodies[p.body[i]];
        if (b.motion != Motion::kinematic) continue;
        const auto& ref = b.reference_positions[static_cast<std::size_t>(p.id[i] - b.first_id)];
        const geometry::KinematicState& k = state[static_cast<std::size_t>(p.body[i])];
        geometry::Vec3 x, v;
        k.place(ref, x, v);
        const geometry::Vec3 a = k.acceleration(x);
        for (int d = 0; d < p.dim; ++d) {
            p.x[d][i] = x[d];
            p.v[d][i] = v[d];
            acc[d][i] = a[d];
        }
    }
}

LoadRequest kinematic_load_request(const std::vector<Body>& bodies, double t) {
    LoadRequest r;
    r.collect.assign(bodies.size(), 0);
    r.reference.assign(bodies.size(), {0.0, 0.0, 0.0});
    for (std::size_t k = 0; k < bodies.size(); ++k) {
        if (bodies[k].motion != Motion::kinematic) continue;
        r.collect[k] = 1;
        r.reference[k] = bodies[k].kinematics.pivot_at(t);
    }
    return r;
}

}  // namespace regosph
