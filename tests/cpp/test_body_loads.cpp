// Loads on bodies from the pair loop (src/sph/body_loads.hpp): the force on a body is minus
// the rate at which it changes the regolith's momentum, every pair term included (the
// artificial stress of elastic solids too); torques follow the reference point; the sums do
// not depend on the thread count.
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <random>
#include <vector>

#include "sph/equations.hpp"
#include "sph/neighbours.hpp"

using namespace regosph;

namespace {

constexpr double kRho = 1000.0;

// An elastic solid with artificial stress (Monaghan 2000) and a rigid tool material.
std::vector<Material> materials(double artificial_stress) {
    ElasticSolid rubber;
    rubber.density = kRho;
    rubber.bulk_modulus = 2e6;
    rubber.shear_modulus = 1e6;
    rubber.artificial_stress = artificial_stress;
    rubber.artificial_stress_exponent = 4.0;
    return {Material{"rubber", rubber, 0.0}, Material{"tool", Rigid{kRho}, 0.0}};
}

// A block of dynamic particles (body 0) in tension, moving towards a two-layer plate of
// boundary particles (body 1) below it, with random perturbations of positions, velocities,
// densities and stresses. Without `with_plate` the plate is left out.
ParticleSet plate_and_block(int dim, bool with_plate) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const double dx = 1e-3;
    ParticleSet p;
    p.dim = dim;
    const int nz = dim == 3 ? 5 : 1;
    std::int64_t id = 0;
    for (int i = 0; i < 8; ++i)
        for (int j = -2; j < 6; ++j)
            for (int k = 0; k < nz; ++k) {
                const bool plate = j < 0;
                const std::int64_t my_id = id++;
                if (plate && !with_plate) continue;
                std::array<double, 3> x{i * dx, j * dx, dim == 3 ? k * dx : 0.0};
                std::array<double, 3> v{};
                if (!plate)
                    for (int d = 0; d < dim; ++d) {
                        x[d] += 0.1 * dx * u(rng);
                        v[d] = 0.3 * u(rng) - (d == 1 ? 1.0 : 0.0);
                    }
                const double rho = kRho * (1.0 + 0.02 * u(rng));
                p.push_back(x, v, rho, kRho * std::pow(dx, dim), 2.5 * dx, plate ? 1 : 0,
                            plate ? 1 : 0, plate ? ParticleKind::boundary : ParticleKind::dynamic,
                            my_id);
                // Tension (positive principal stresses) switches the artificial stress on.
                for (int c = 0; c < kSymComponents; ++c)
                    if (dim == 3 || (c != XZ && c != YZ))
                        p.stress[c].back() = (c <= ZZ ? 2e4 : 0.0) + 5e3 * u(rng);
            }
    return p;
}

// sum_a m_a dv_a over the dynamic particles [N] (no gravity: pair forces only).
std::array<double, 3> momentum_rate(const ParticleSet& p, const Derivatives& d) {
    std::array<double, 3> s{};
    for (std::size_t a = 0; a < p.size(); ++a)
        if (p.kind[a] == ParticleKind::dynamic)
            for (int c = 0; c < p.dim; ++c) s[c] += p.mass[a] * d.dv[c][a];
    return s;
}

LoadRequest plate_request(std::array<double, 3> reference) {
    return LoadRequest{{0, 1}, {{0.0, 0.0, 0.0}, reference}};
}

Derivatives evaluate(const ParticleSet& p, double artificial_stress, const LoadRequest* request) {
    const MaterialTable table(materials(artificial_stress), p.dim);
    // The widest pair margin (half the skin): its entries beyond the support must add nothing
    // to the loads.
    NeighbourList nl;
    nl.build(p, 0.2e-3, 0.1e-3);
    nl.select_pairs(p, p.x);
    // Bonded: the block's tension (which switches the artificial stress on) reaches the plate.
    PhysicsParameters pp;
    pp.wall_contact = WallContact::bonded;
    Derivatives d;
    compute_derivatives(p, nl, table, pp, d, request);
    return d;
}

}  // namespace

TEST_CASE("the load on a body is minus the regolith's momentum rate from it, artificial stress included") {
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        const ParticleSet with = plate_and_block(dim, true);
        const ParticleSet without = plate_and_block(dim, false);
        const LoadRequest request = plate_request({0.0, 0.0, 0.0});
        const Derivatives d_with = evaluate(with, 0.3, &request);
        const Derivatives d_without = evaluate(without, 0.3, nullptr);
        REQUIRE(d_with.loads.size() == 2);
        const std::array<double, 3> p_with = momentum_rate(with, d_with);
        const std::array<double, 3> p_without = momentum_rate(without, d_without);
        double scale = 0.0;
        for (int c = 0; c < dim; ++c) scale = std::max(scale, std::abs(d_with.loads[1].force[c]));
        REQUIRE(scale > 0.0);
        for (int c = 0; c < dim; ++c) {
            // What the plate adds to the regolith's momentum rate, against minus the load.
            CHECK(std::abs((p_with[c] - p_without[c]) + d_with.loads[1].force[c]) <= 1e-12 * scale);
            // Pair forces between dynamic particles cancel: the total is the plate's share.
            CHECK(std::abs(p_with[c] + d_with.loads[1].force[c]) <= 1e-11 * scale);
        }
        CHECK(d_with.loads[0].force == std::array<double, 3>{0.0, 0.0, 0.0});  // not collected

        // The artificial stress is part of the load: without it the force differs.
        const Derivatives d_plain = evaluate(with, 0.0, &request);
        double change = 0.0;
        for (int c = 0; c < dim; ++c)
            change = std::max(change, std::abs(d_plain.loads[1].force[c] - d_with.loads[1].force[c]));
        MESSAGE(dim, "D: load with artificial stress (", d_with.loads[1].force[0], ", ",
                d_with.loads[1].force[1], ") N, without (", d_plain.loads[1].force[0], ", ",
                d_plain.loads[1].force[1], ") N");
        CHECK(change > 1e-3 * scale);
    }
}

TEST_CASE("body torques follow the reference point and the loads do not depend on the thread count") {
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        const ParticleSet p = plate_and_block(dim, true);
        const std::array<double, 3> c{2e-3, -1e-3, dim == 3 ? 1.5e-3 : 0.0};
        const LoadRequest at_origin = plate_request({0.0, 0.0, 0.0});
        const LoadRequest at_c = plate_request(c);
        const Derivatives d0 = evaluate(p, 0.3, &at_origin);
        const Derivatives dc = evaluate(p, 0.3, &at_c);
        const BodyLoad& L0 = d0.loads[1];
        const BodyLoad& Lc = dc.loads[1];
        CHECK(L0.force == Lc.force);
        // T(c) = T(0) - c x F
        const std::array<double, 3> c_x_f{c[1] * L0.force[2] - c[2] * L0.force[1],
                                          c[2] * L0.force[0] - c[0] * L0.force[2],
                                          c[0] * L0.force[1] - c[1] * L0.force[0]};
        double scale = 1e-30;
        for (int k = 0; k < 3; ++k) scale = std::max(scale, std::abs(L0.torque[k]));
        for (int k = 0; k < 3; ++k) CHECK(std::abs(Lc.torque[k] - (L0.torque[k] - c_x_f[k])) <= 1e-12 * scale);
        if (dim == 2) {
            CHECK(L0.force[2] == 0.0);
            CHECK(L0.torque[0] == 0.0);
            CHECK(L0.torque[1] == 0.0);
        }
        const int threads = omp_get_max_threads();
        omp_set_num_threads(1);
        const Derivatives serial = evaluate(p, 0.3, &at_origin);
        omp_set_num_threads(2);
        const Derivatives parallel = evaluate(p, 0.3, &at_origin);
        omp_set_num_threads(threads);
        CHECK(serial.loads[1].force == parallel.loads[1].force);  // bitwise
        CHECK(serial.loads[1].torque == parallel.loads[1].torque);
        CHECK(serial.loads[1].force == L0.force);
    }
}
