// The gradient pre-pass (src/sph/gradient_correction.hpp): the kernel gradient correction of
// Randles & Libersky (1996) / Bonet & Lok (1999) and Balsara's (1995) viscosity switch.
// - the correction matrix and its fall-back to the identity; Balsara's factor;
// - a linear velocity field v = A x + c gives the exact velocity gradient A (strain rate,
//   spin and density rate) at every particle of a free block, surface and corners included,
//   and the plain gradient visibly not at the surface;
// - linear and angular momentum of an isolated body are conserved by the corrected momentum
//   equation (Bonet & Lok's variational form);
// - the results do not depend on the thread count.
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "geometry/lattice.hpp"
#include "geometry/shapes.hpp"
#include "sph/gradient_correction.hpp"
#include "sph/simulation.hpp"

using namespace regosph;

namespace {

constexpr double kE = 1e6;     // Young's modulus [Pa]
constexpr double kNu = 0.25;   // Poisson's ratio [-]
constexpr double kRho0 = 1000.0;

// An elastic block of n[0] x n[1] (x n[2]) particles at spacing dx, h = 2.5 dx, free on every
// side; the material with or without the correction.
Simulation elastic_block(int dim, std::array<int, 3> n, double dx, bool corrected) {
    Simulation sim(dim);
    ElasticSolid es;
    es.density = kRho0;
    es.bulk_modulus = kE / (3.0 * (1.0 - 2.0 * kNu));
    es.shear_modulus = kE / (2.0 * (1.0 + kNu));
    Material m{"block", es, 0.0, corrected};
    const int mat = sim.add_material(m);
    const geometry::ShapePtr shape =
        dim == 2 ? geometry::rectangle({0, 0}, {n[0] * dx, n[1] * dx})
                 : geometry::box({0, 0, 0}, {n[0] * dx, n[1] * dx, n[2] * dx});
    sim.add_body("block", mat, "dynamic", geometry::lattice_fill(*shape, dx), dx, 2.5 * dx);
    sim.physics().gravity = {0.0, 0.0, 0.0};
    sim.physics().dissipation = PhysicsParameters::Dissipation::monaghan;  // Balsara's switch's
    return sim;
}

// Jitters positions, masses and densities, and sets random velocities and stresses (a body
// far from any lattice symmetry); deterministic for a seed.
void randomise(ParticleSet& p, double dx, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (std::size_t a = 0; a < p.size(); ++a) {
        for (int d = 0; d < p.dim; ++d) {
            p.x[d][a] += 0.15 * dx * u(rng);
            p.v[d][a] = 0.3 * u(rng);
        }
        p.rho[a] = kRho0 * (1.0 + 0.03 * u(rng));
        p.mass[a] *= 1.0 + 0.05 * u(rng);
        for (int c = 0; c < kSymComponents; ++c)
            if (p.dim == 3 || (c != XZ && c != YZ)) p.stress[c][a] = 1e4 * u(rng);
    }
}

}  // namespace

TEST_CASE("correction matrix: the inverse, or the identity where M is singular or too weak") {
    const double M[2][2] = {{0.5, 0.1}, {0.2, 0.8}};
    double L[2][2];
    CHECK(correction_matrix<2>(M, L));
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            double id = 0.0;
            for (int k = 0; k < 2; ++k) id += M[i][k] * L[k][j];
            CHECK(id == doctest::Approx(i == j ? 1.0 : 0.0).epsilon(1e-14));
        }
    const double M3[3][3] = {{0.6, 0.1, -0.2}, {0.05, 0.9, 0.1}, {0.1, -0.3, 0.7}};
    double L3[3][3];
    CHECK(correction_matrix<3>(M3, L3));
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double id = 0.0;
            for (int k = 0; k < 3; ++k) id += M3[i][k] * L3[k][j];
            CHECK(std::abs(id - (i == j ? 1.0 : 0.0)) < 1e-14);
        }
    // A single row of particles (rank 1), a reflection, an isolated particle, a weak M whose
    // inverse would amplify more than kMaxCorrectionNorm: the identity.
    const double singular[2][2] = {{1.0, 0.0}, {0.0, 0.0}};
    const double reflected[2][2] = {{1.0, 0.0}, {0.0, -1.0}};
    const double zero[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
    const double weak[2][2] = {{0.05, 0.0}, {0.0, 0.5}};
    for (const auto* m : {&singular, &reflected, &zero, &weak}) {
        CHECK_FALSE(correction_matrix<2>(*m, L));
        CHECK((L[0][0] == 1.0 && L[1][1] == 1.0 && L[0][1] == 0.0 && L[1][0] == 0.0));
    }
}

TEST_CASE("Balsara's factor: ~1 for compression, 0 for rotation and pure shear") {
    const double c = 30.0, h = 0.01;  // [m/s], [m]
    const double compression[2][2] = {{-2.0, 0.0}, {0.0, -2.0}};
    const double rotation[2][2] = {{0.0, -3.0}, {3.0, 0.0}};
    const double shear[2][2] = {{0.0, 3.0}, {0.0, 0.0}};
    const double floor = kBalsaraEpsilon * c / h;  // 0.3 / s
    CHECK(balsara_factor<2>(compression, c, h) == doctest::Approx(4.0 / (4.0 + floor)));
    CHECK(balsara_factor<2>(rotation, c, h) == 0.0);
    CHECK(balsara_factor<2>(shear, c, h) == 0.0);
    const double compression3[3][3] = {{-1.0, 0, 0}, {0, -1.0, 0}, {0, 0, -1.0}};
    CHECK(balsara_factor<3>(compression3, c, h) == doctest::Approx(3.0 / (3.0 + floor)));
    // Compression rates of impacts (|div v| >> 1e-4 c / h) give f ~ 1.
    const double impact[2][2] = {{-300.0, 0.0}, {0.0, -300.0}};
    CHECK(balsara_factor<2>(impact, c, h) > 0.999);
    // At rest (no gradient) the factor is 0: nothing for the viscosity to act on.
    const double rest[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
    CHECK(balsara_factor<2>(rest, c, h) == 0.0);
}

TEST_CASE("a linear velocity field gives the exact gradient at every particle (corrected)") {
    // v = A x + c with a uniform stress sigma0: the stress rate is Hooke's law of sym(A) plus
    // the Jaumann terms of the spin of A (so the whole of A is checked), and drho/dt =
    // -rho tr(A). With the correction both hold to round-off at every particle of a free
    // block, its surface and corners included; the plain gradient misses them at the
    // surface by tens of per cent.
    const double dx = 0.01;
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        const std::array<int, 3> n = dim == 2 ? std::array<int, 3>{14, 9, 1}
                                              : std::array<int, 3>{8, 7, 6};
        double A[3][3] = {{0.3, -0.7, 0.2}, {0.4, -0.1, 0.5}, {-0.6, 0.25, 0.15}};
        if (dim == 2) A[0][2] = A[1][2] = A[2][0] = A[2][1] = A[2][2] = 0.0;
        const double c[3] = {0.05, -0.02, dim == 3 ? 0.01 : 0.0};
        SymTensor eps{A[0][0], A[1][1], A[2][2], 0.5 * (A[0][1] + A[1][0]),
                      0.5 * (A[0][2] + A[2][0]), 0.5 * (A[1][2] + A[2][1])};
        const Spin w{0.5 * (A[0][1] - A[1][0]), 0.5 * (A[0][2] - A[2][0]),
                     0.5 * (A[1][2] - A[2][1])};
        SymTensor sigma0{-3e3, 1e3, -2e3, 5e2, dim == 3 ? 4e2 : 0.0, dim == 3 ? -6e2 : 0.0};
        double worst[2] = {0.0, 0.0}, worst_rho[2] = {0.0, 0.0};
        for (const bool corrected : {false, true}) {
            Simulation sim = elastic_block(dim, n, dx, corrected);
            ParticleSet& p = sim.particles();
            const ElasticSolid es = std::get<ElasticSolid>(sim.materials()[0].model);
            for (std::size_t a = 0; a < p.size(); ++a)
                for (int i = 0; i < 3; ++i) {
                    p.v[i][a] = c[i];
                    for (int j = 0; j < 3; ++j) p.v[i][a] += A[i][j] * p.x[j][a];
                    for (int k = 0; k < kSymComponents; ++k) p.stress[k][a] = sigma0[k];
                }
            const Derivatives& d = sim.evaluate_derivatives();
            const SymTensor dev_rate = hooke_deviatoric_rate(es, eps);
            const SymTensor rot = jaumann_rotation_term(sigma0, w);
            double scale = 0.0;
            for (int k = 0; k < kSymComponents; ++k) scale = std::max(scale, std::abs(dev_rate[k]));
            for (std::size_t a = 0; a < p.size(); ++a) {
                for (int k = 0; k < kSymComponents; ++k)
                    worst[corrected] = std::max(
                        worst[corrected], std::abs(d.dstress[k][a] - dev_rate[k] - rot[k]) / scale);
                worst_rho[corrected] =
                    std::max(worst_rho[corrected],
                             std::abs(d.drho[a] + p.rho[a] * trace(eps)) / (p.rho[a] * 0.7));
            }
        }
        MESSAGE("dim ", dim, ": largest relative stress-rate error plain ", worst[0],
                ", corrected ", worst[1], "; density rate plain ", worst_rho[0], ", corrected ",
                worst_rho[1]);
        CHECK(worst[1] < 1e-12);
        CHECK(worst_rho[1] < 1e-12);
        CHECK(worst[0] > 0.1);
        CHECK(worst_rho[0] > 0.1);
    }
}

TEST_CASE("corrected momentum keeps linear and angular momentum (Bonet & Lok 1999)") {
    const double dx = 0.01;
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        const std::array<int, 3> n = dim == 2 ? std::array<int, 3>{12, 9, 1}
                                              : std::array<int, 3>{7, 6, 5};
        double torque_ratio[2] = {0.0, 0.0};
        for (const bool corrected : {false, true}) {
            Simulation sim = elastic_block(dim, n, dx, corrected);
            sim.physics().av_balsara = corrected;  // the switch keeps the viscosity central
            ParticleSet& p = sim.particles();
            randomise(p, dx, 7 + dim);
            const Derivatives& d = sim.evaluate_derivatives();
            double f[3] = {0, 0, 0}, t[3] = {0, 0, 0}, f_abs = 0.0, t_abs = 0.0;
            for (std::size_t a = 0; a < p.size(); ++a) {
                double F[3] = {0, 0, 0};
                for (int k = 0; k < dim; ++k) {
                    F[k] = p.mass[a] * d.dv[k][a];
                    f[k] += F[k];
                    f_abs += std::abs(F[k]);
                }
                const double x[3] = {p.x[0][a], p.x[1][a], p.x[2][a]};
                const double tq[3] = {x[1] * F[2] - x[2] * F[1], x[2] * F[0] - x[0] * F[2],
                                      x[0] * F[1] - x[1] * F[0]};
                for (int k = 0; k < 3; ++k) {
                    t[k] += tq[k];
                    t_abs += std::abs(tq[k]);
                }
            }
            REQUIRE(f_abs > 0.0);
            for (int k = 0; k < dim; ++k) CHECK(std::abs(f[k]) <= 1e-12 * f_abs);
            torque_ratio[corrected] = std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]) / t_abs;
        }
        MESSAGE("dim ", dim, ": net torque / sum |torque| plain ", torque_ratio[0],
                ", corrected ", torque_ratio[1]);
        CHECK(torque_ratio[1] < 1e-12);
        CHECK(torque_ratio[0] > 1e-4);  // the plain gradient's stress forces are not central
    }
}

TEST_CASE("corrected runs with Balsara's switch do not depend on the thread count") {
    const int saved = omp_get_max_threads();
    const double dx = 0.01;
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        const std::array<int, 3> n = dim == 2 ? std::array<int, 3>{40, 30, 1}
                                              : std::array<int, 3>{12, 10, 9};
        Derivatives d[2];
        ParticleSet end[2];
        for (const int threads : {1, 2}) {
            omp_set_num_threads(threads);
            Simulation sim = elastic_block(dim, n, dx, true);
            sim.physics().av_balsara = true;
            randomise(sim.particles(), dx, 3);
            for (int c = 0; c < kSymComponents; ++c)
                for (double& s : sim.particles().stress[c]) s *= 0.01;  // a gentle start
            d[threads - 1] = sim.evaluate_derivatives();
            for (int i = 0; i < 5; ++i) sim.advance(1.0);
            end[threads - 1] = sim.particles();
        }
        omp_set_num_threads(saved);
        for (int k = 0; k < 3; ++k) CHECK(d[0].dv[k] == d[1].dv[k]);  // bitwise
        CHECK(d[0].drho == d[1].drho);
        for (int c = 0; c < kSymComponents; ++c) CHECK(d[0].dstress[c] == d[1].dstress[c]);
        for (int k = 0; k < 3; ++k) CHECK(end[0].x[k] == end[1].x[k]);
        CHECK(end[0].rho == end[1].rho);
    }
}
