// Mohr-Coulomb with the Rankine cut-off (src/materials/mohr_coulomb.hpp): the return of random
// trial stresses lands on the admissible set, is the closest point in the elastic energy norm
// for associated flow (the variational inequality of a projection), leaves admissible states
// alone, resolves the triaxial corners and the apex, and softens the tensile strength.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "core/eigen.hpp"
#include "core/tensor.hpp"
#include "materials/mohr_coulomb.hpp"

using namespace regosph;

namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

MohrCoulomb soil(double phi_deg, double c, double psi_deg, double tensile = -1.0,
                 double softening = 0.0) {
    MohrCoulomb m{.density = 1500.0, .bulk_modulus = 1e7, .shear_modulus = 4.6e6,
                  .friction_angle = phi_deg * kDeg, .cohesion = c,
                  .dilatancy_angle = psi_deg * kDeg, .tensile_strength = tensile,
                  .tensile_softening_strain = softening};
    m.validate("soil");
    return m;
}

SymTensor random_stress(std::mt19937& gen, double scale, bool plane) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    SymTensor s{};
    for (int c = 0; c < kSymComponents; ++c) s[c] = scale * u(gen);
    for (int c = XX; c <= ZZ; ++c) s[c] -= 0.6 * scale;  // mostly compressive
    if (plane) s[XZ] = s[YZ] = 0.0;
    return s;
}

// sigma : D^-1 : tau with isotropic elasticity (the energy inner product) [Pa].
double energy_product(const MohrCoulomb& m, const SymTensor& a, const SymTensor& b) {
    const double ta = trace(a), tb = trace(b);
    const SymTensor da = deviator(a), db = deviator(b);
    return ta * tb / (9.0 * m.bulk_modulus) + double_dot(da, db) / (2.0 * m.shear_modulus);
}

std::array<double, 3> principal(const SymTensor& s) {
    Eigen::Matrix3d m;
    m << s[XX], s[XY], s[XZ], s[XY], s[YY], s[YZ], s[XZ], s[YZ], s[ZZ];
    const Eigen::Vector3d v = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(m).eigenvalues();
    return {v[2], v[1], v[0]};
}

}  // namespace

TEST_CASE("Mohr-Coulomb: every returned stress is admissible, and admissible ones stay") {
    std::mt19937 gen(7);
    for (const double phi : {0.0, 20.0, 42.0})
        for (const double psi_share : {0.0, 1.0})
            for (const double tensile : {-1.0, 200.0})
                for (int k = 0; k < 400; ++k) {
                    const MohrCoulomb m = soil(phi, 1e3, psi_share * phi, tensile);
                    const MohrCoulombSurface s = mohr_coulomb_surface(m, 0.0);
                    SymTensor sigma = random_stress(gen, 2e4, k % 2 == 0);
                    const SymTensor trial = sigma;
                    const MohrCoulombReturn r = mohr_coulomb_return(s, sigma);
                    const std::array<double, 2> f = mohr_coulomb_functions(s, sigma);
                    CHECK(f[0] <= 1e-8 * 2e4);
                    CHECK(f[1] <= 1e-8 * 2e4);
                    const std::array<double, 2> f0 = mohr_coulomb_functions(s, trial);
                    if (r.changed) CHECK((f0[0] > 0.0 || f0[1] > 0.0));
                    if (f0[0] > 1e-9 * 2e4 || f0[1] > 1e-9 * 2e4) CHECK(r.changed);
                    if (k % 2 == 0) CHECK((sigma[XZ] == 0.0 && sigma[YZ] == 0.0));
                    // A second return leaves the returned stress where it is.
                    SymTensor again = sigma;
                    mohr_coulomb_return(s, again);
                    for (int c = 0; c < kSymComponents; ++c)
                        CHECK(again[c] == doctest::Approx(sigma[c]).scale(2e4).epsilon(1e-9));
                }
}

TEST_CASE("Mohr-Coulomb: with associated flow the return is the closest admissible point") {
    // A projection P onto a convex set in the energy norm satisfies
    // (trial - P) : D^-1 : (tau - P) <= 0 for every admissible tau.
    std::mt19937 gen(11);
    const MohrCoulomb m = soil(30.0, 500.0, 30.0, 100.0);
    const MohrCoulombSurface s = mohr_coulomb_surface(m, 0.0);
    int projected = 0;
    for (int k = 0; k < 300; ++k) {
        SymTensor p = random_stress(gen, 1e4, false);
        const SymTensor trial = p;
        if (!mohr_coulomb_return(s, p).changed) continue;
        ++projected;
        SymTensor diff{};
        for (int c = 0; c < kSymComponents; ++c) diff[c] = trial[c] - p[c];
        for (int j = 0; j < 50; ++j) {
            SymTensor tau = random_stress(gen, 1e4, false);
            mohr_coulomb_return(s, tau);  // an admissible stress
            SymTensor step{};
            for (int c = 0; c < kSymComponents; ++c) step[c] = tau[c] - p[c];
            CHECK(energy_product(m, diff, step) <= 1e-9 * energy_product(m, diff, diff) + 1e-12);
        }
    }
    CHECK(projected > 100);
}

TEST_CASE("Mohr-Coulomb: the triaxial corners and the apex") {
    const MohrCoulomb m = soil(30.0, 0.0, 0.0);
    const MohrCoulombSurface s = mohr_coulomb_surface(m, 0.0);
    // Compression corner: lateral -1 kPa, axial far beyond the strength.
    SymTensor tc{-1000.0, -1000.0, -9000.0, 0.0, 0.0, 0.0};
    CHECK(mohr_coulomb_return(s, tc).changed);
    const std::array<double, 3> p = principal(tc);
    CHECK(p[0] == doctest::Approx(p[1]).epsilon(1e-12));  // still on the edge sigma_1 = sigma_2
    CHECK(p[2] / p[0] == doctest::Approx(3.0).epsilon(1e-12));
    // A cohesionless soil pulled apart returns to zero stress (its apex), without tension.
    SymTensor pulled{500.0, -200.0, 300.0, 100.0, -50.0, 20.0};
    CHECK(mohr_coulomb_return(s, pulled).changed);
    for (int c = 0; c < kSymComponents; ++c) CHECK(std::abs(pulled[c]) < 1e-9);
}

TEST_CASE("Mohr-Coulomb: the Rankine cut-off caps tension and softens with cracking") {
    // Uniaxial tension of a cohesive soil: sigma_xx is capped at sigma_t.
    const MohrCoulomb brittle = soil(30.0, 2000.0, 30.0, 300.0, 0.0);
    double kappa = 0.0;
    SymTensor sigma{1000.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    MaterialState state{1500.0, sigma, &kappa};
    CHECK(brittle.correct(state, 1e-4));
    CHECK(principal(state.sigma)[0] == doctest::Approx(300.0).epsilon(1e-12));
    CHECK(kappa > 0.0);
    // Brittle: once cracked the strength is gone.
    state.sigma = SymTensor{200.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    CHECK(brittle.correct(state, 1e-4));
    CHECK(principal(state.sigma)[0] <= 1e-9);
    // Linear softening: at half the softening strain, half the strength.
    const MohrCoulomb soft = soil(30.0, 2000.0, 30.0, 300.0, 1e-3);
    CHECK(mohr_coulomb_surface(soft, 0.5e-3).tensile_strength == doctest::Approx(150.0));
    CHECK(mohr_coulomb_surface(soft, 2e-3).tensile_strength == 0.0);
    // Without a cut-off the apex c cot(phi) bounds the tension.
    const MohrCoulomb none = soil(30.0, 2000.0, 30.0);
    CHECK(none.history().empty());
    SymTensor pulled{1e5, 1e5, 1e5, 0.0, 0.0, 0.0};
    mohr_coulomb_return(mohr_coulomb_surface(none, 0.0), pulled);
    CHECK(pulled[XX] == doctest::Approx(2000.0 / std::tan(30.0 * kDeg)).epsilon(1e-12));
}

TEST_CASE("Mohr-Coulomb: input checks name the field") {
    MohrCoulomb m = soil(30.0, 0.0, 0.0);
    m.dilatancy_angle = 40.0 * kDeg;
    CHECK_THROWS_WITH_AS(m.validate("sand"), doctest::Contains("dilatancy_angle"),
                         std::invalid_argument);
    m = soil(30.0, 0.0, 0.0);
    m.friction_angle = 0.0;
    CHECK_THROWS_WITH_AS(m.validate("sand"), doctest::Contains("cohesion"), std::invalid_argument);
    m = soil(30.0, 0.0, 0.0);
    m.tensile_softening_strain = -1.0;
    CHECK_THROWS_WITH_AS(m.validate("sand"), doctest::Contains("tensile_softening_strain"),
                         std::invalid_argument);
}
