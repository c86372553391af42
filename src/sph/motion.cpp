#include "sph/motion.hpp"

#include <cmath>

#include "parallel/mpi_env.hpp"
#include "sph/kernel.hpp"

namespace regosph {

const char* motion_name(Motion m) {
    switch (m) {
        case Motion::dynamic: return "dynamic";
        case Motion::fixed: return "fixed";
        case Motion::kinematic: return "kinematic";
    }
    return "?";
}

bool has_kinematic_bodies(const std::vector<Body>& bodies) {
    for (const Body& b : bodies)
        if (b.motion == Motion::kinematic) return true;
    return false;
}

void place_kinematic_bodies(ParticleSet& p, const std::vector<Body>& bodies, double t,
                            std::array<std::vector<double>, 3>& acc) {
    const std::size_t n = p.size();
    for (auto& c : acc) c.assign(n, 0.0);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
        const Body& b = bodies[p.body[i]];
        if (b.motion != Motion::kinematic) continue;
        const auto& ref = b.reference_positions[static_cast<std::size_t>(p.id[i] - b.first_id)];
        geometry::Vec3 x, v;
        b.kinematics.place(ref, t, x, v);
        const geometry::Vec3 a = b.kinematics.acceleration(x, t);
        for (int d = 0; d < p.dim; ++d) {
            p.x[d][i] = x[d];
            p.v[d][i] = v[d];
            acc[d][i] = a[d];
        }
    }
}

namespace {

template <int Dim>
std::vector<BodyLoad> loads_impl(const ParticleSet& p, const NeighbourList& nl,
                                 const MaterialTable& mt, const PhysicsParameters& pp,
                                 const std::vector<Body>& bodies, double t) {
    const std::size_t n = p.owned();  // every wall particle is counted by its owner
    // Force of the dynamic particles on each kinematic particle, summed serially over its row.
    std::array<std::vector<double>, 3> f;
    for (auto& c : f) c.assign(n, 0.0);
#pragma omp parallel for schedule(dynamic, 64)
    for (std::size_t b = 0; b < n; ++b) {
        if (p.kind[b] != ParticleKind::boundary || bodies[p.body[b]].motion != Motion::kinematic)
            continue;
        const double rho_b = p.rho[b];
        double sb[Dim][Dim] = {};
        for (int i = 0; i < Dim; ++i) sb[i][i] = p.stress[i][b] / (rho_b * rho_b);
        sb[0][1] = sb[1][0] = p.stress[XY][b] / (rho_b * rho_b);
        if constexpr (Dim == 3) {
            sb[0][2] = sb[2][0] = p.stress[XZ][b] / (rho_b * rho_b);
            sb[1][2] = sb[2][1] = p.stress[YZ][b] / (rho_b * rho_b);
        }
        for (const std::uint32_t a : nl.row(b)) {  // dynamic partners only
            double dx[Dim], r2 = 0.0, vr = 0.0;
            for (int d = 0; d < Dim; ++d) {
                dx[d] = p.x[d][a] - p.x[d][b];  // x_a - x_b
                r2 += dx[d] * dx[d];
                vr += (p.v[d][a] - p.v[d][b]) * dx[d];
            }
            const double h_ab = 0.5 * (p.h[a] + p.h[b]);
            if (r2 >= h_ab * h_ab || r2 == 0.0) continue;
            const double g = kernel::gradient_factor<Dim>(std::sqrt(r2), h_ab);  // grad_a W = g dx
            const double rho_a = p.rho[a];
            double sa[Dim][Dim] = {};
            for (int i = 0; i < Dim; ++i) sa[i][i] = p.stress[i][a] / (rho_a * rho_a);
            sa[0][1] = sa[1][0] = p.stress[XY][a] / (rho_a * rho_a);
            if constexpr (Dim == 3) {
                sa[0][2] = sa[2][0] = p.stress[XZ][a] / (rho_a * rho_a);
                sa[1][2] = sa[2][1] = p.stress[YZ][a] / (rho_a * rho_a);
            }
            // Artificial viscosity (eqs. 35-36) as in the momentum equation: a wall partner
            // uses the dynamic particle's sound speed.
            double pi_ab = 0.0;
            if (vr < 0.0) {
                const double c = mt.viscosity_speed[p.material[a]];
                const double nu = h_ab * vr / (r2 + pp.av_epsilon * h_ab * h_ab);
                pi_ab = (-pp.av_alpha * c * nu + pp.av_beta * nu * nu) / (0.5 * (rho_a + rho_b));
            }
            const double mm = p.mass[a] * p.mass[b];
            for (int i = 0; i < Dim; ++i) {
                double s = -pi_ab * g * dx[i];
                for (int j = 0; j < Dim; ++j) s += (sa[i][j] + sb[i][j]) * g * dx[j];
                f[i][b] -= mm * s;  // reaction to the force on a
            }
        }
    }
    std::vector<BodyLoad> loads(bodies.size());
    std::vector<geometry::Vec3> pivots(bodies.size());
    for (std::size_t k = 0; k < bodies.size(); ++k)
        if (bodies[k].motion == Motion::kinematic) pivots[k] = bodies[k].kinematics.pivot_at(t);
    for (std::size_t b = 0; b < n; ++b) {
        if (p.kind[b] != ParticleKind::boundary || bodies[p.body[b]].motion != Motion::kinematic)
            continue;
        BodyLoad& L = loads[p.body[b]];
        const auto& c = pivots[p.body[b]];
        const double r[3] = {p.x[0][b] - c[0], p.x[1][b] - c[1], p.x[2][b] - c[2]};
        const double F[3] = {f[0][b], f[1][b], f[2][b]};
        for (int d = 0; d < 3; ++d) L.force[d] += F[d];
        L.torque[0] += r[1] * F[2] - r[2] * F[1];
        L.torque[1] += r[2] * F[0] - r[0] * F[2];
        L.torque[2] += r[0] * F[1] - r[1] * F[0];
    }
    std::vector<double> sums;  // over the ranks
    for (const BodyLoad& L : loads) {
        sums.insert(sums.end(), L.force.begin(), L.force.end());
        sums.insert(sums.end(), L.torque.begin(), L.torque.end());
    }
    mpi::sum_in_place(sums);
    for (std::size_t k = 0; k < loads.size(); ++k)
        for (int d = 0; d < 3; ++d) {
            loads[k].force[d] = sums[6 * k + d];
            loads[k].torque[d] = sums[6 * k + 3 + d];
        }
    return loads;
}

}  // namespace

std::vector<BodyLoad> kinematic_body_loads(const ParticleSet& p, const NeighbourList& nl,
                                           const MaterialTable& mt, const PhysicsParameters& pp,
                                           const std::vector<Body>& bodies, double t) {
    return p.dim == 2 ? loads_impl<2>(p, nl, mt, pp, bodies, t)
                      : loads_impl<3>(p, nl, mt, pp, bodies, t);
}

}  // namespace regosph
