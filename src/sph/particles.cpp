#include "sph/particles.hpp"

namespace regosph {

namespace {
// Apply `fn` to every per-particle array, so that resize/reserve/permute cannot forget one.
template <class Set, class Fn>
void for_each_array(Set& p, Fn&& fn) {
    for (auto& c : p.x) fn(c);
    for (auto& c : p.v) fn(c);
    fn(p.rho);
    fn(p.mass);
    fn(p.h);
    for (auto& c : p.stress) fn(c);
    fn(p.plastic_strain);
    fn(p.yielding);
    fn(p.material);
    fn(p.body);
    fn(p.kind);
    fn(p.id);
}
}  // namespace

void ParticleSet::push_back(const std::array<double, 3>& position,
                            const std::array<double, 3>& velocity, double density,
                            double particle_mass, double support_radius,
                            std::int32_t material_index, std::int32_t body_index, ParticleKind k,
                            std::int64_t particle_id) {
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
    for_each_array(*this, [n](auto& a) { a.resize(n); });
}

void ParticleSet::reserve(std::size_t n) {
    for_each_array(*this, [n](auto& a) { a.reserve(n); });
}

void ParticleSet::permute(const std::vector<std::size_t>& order) {
    for_each_array(*this, [&order](auto& a) {
        auto copy = a;
        for (std::size_t i = 0; i < order.size(); ++i) a[i] = copy[order[i]];
    });
}

}  // namespace regosph
