#include "core/particles.hpp"

#include <stdexcept>

namespace regosph {

void ParticleSet::push_back(const std::array<double, 3>& position,
                            const std::array<double, 3>& velocity, double density,
                            double particle_mass, double support_radius,
                            std::int32_t material_index, std::int32_t body_index, ParticleKind k,
                            std::int64_t particle_id) {
    if (n_halo != 0) throw std::logic_error("ParticleSet::push_back with a halo attached");
    const std::size_t n = size();
    resize(n + 1);
    for (int d = 0; d < 3; ++d) {
        x[d][n] = position[d];
        v[d][n] = velocity[d];
    }
    rho[n] = density;
    mass[n] = particle_mass;
    h[n] = support_radius;
    material[n] = material_index;
    body[n] = body_index;
    kind[n] = k;
    id[n] = particle_id;
}

void ParticleSet::resize(std::size_t n) {
    for_each_array([n](auto& a) { a.resize(n); });
    if (n_halo > n) n_halo = 0;
}

void ParticleSet::reserve(std::size_t n) {
    for_each_array([n](auto& a) { a.reserve(n); });
}

void ParticleSet::permute(const std::vector<std::size_t>& order) {
    for_each_array([&order](auto& a) {
        auto copy = a;
        for (std::size_t i = 0; i < order.size(); ++i) a[i] = copy[order[i]];
    });
}

}  // namespace regosph
