// Elasticity of the soil models (materials/elasticity.hpp): Houlsby, Amorosi & Rojas (2005)
// hyperelasticity is conservative (its tangent is the inverse Hessian of its complementary
// energy, its stored energy the Legendre transform), its moduli follow (p / p_r)^n above the
// floor, and linear elasticity is Hooke's law to the bit.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "materials/drucker_prager.hpp"
#include "materials/elasticity.hpp"
#include "materials/material.hpp"
#include "materials/mu_i_rheology.hpp"

using namespace regosph;

namespace {

// SPEC.md's regolith (K = 3.33 MPa, G = 370 kPa) at p_r = 1 kPa; n = 1/2 (Makse et al. 2004).
constexpr double kK = 3.33e6, kG = 3.7e5, kPr = 1e3, kN = 0.5, kPmin = 1.0;
const Elasticity kHoulsby = houlsby_elasticity(kPr, kN, kPmin);

SymTensor random_tensor(std::mt19937_64& rng, double scale) {
    std::uniform_real_distribution<> u(-1.0, 1.0);
    SymTensor t;
    for (double& c : t) c = scale * u(rng);
    return t;
}

// A compressive stress of mean pressure about p [Pa] with a deviator up to about p / 2.
SymTensor random_stress(std::mt19937_64& rng, double p) {
    SymTensor s = random_tensor(rng, 0.3 * p);
    for (int c = XX; c <= ZZ; ++c) s[c] -= p;
    return s;
}

double norm(const SymTensor& t) { return std::sqrt(double_dot(t, t)); }

SymTensor axpy(const SymTensor& x, double a, const SymTensor& y) {
    SymTensor r;
    for (int c = 0; c < kSymComponents; ++c) r[c] = x[c] + a * y[c];
    return r;
}

double energy(const SymTensor& sigma) { return elastic_energy_density(kHoulsby, kK, kG, sigma); }

// Heun's step of sigma_dot = D(sigma) : eps_dot, as the solver integrates the stress.
SymTensor heun(const SymTensor& sigma, const SymTensor& eps_dot, double dt) {
    const SymTensor k1 = elastic_stress_rate(kHoulsby, kK, kG, sigma, eps_dot);
    const SymTensor k2 = elastic_stress_rate(kHoulsby, kK, kG, axpy(sigma, dt, k1), eps_dot);
    return axpy(sigma, 0.5 * dt, axpy(k1, 1.0, k2));
}

}  // namespace

TEST_CASE("Houlsby: the elastic strain is the gradient of the complementary energy") {
    std::mt19937_64 rng(3);
    for (int i = 0; i < 50; ++i) {
        const SymTensor sigma = random_stress(rng, 10.0 * kPr * (0.01 + i / 50.0));
        const SymTensor eps = houlsby_elastic_strain(kHoulsby, kK, kG, sigma);
        const double h = 1e-6 * norm(sigma);
        for (int c = 0; c < kSymComponents; ++c) {
            SymTensor up = sigma, down = sigma;
            up[c] += h;
            down[c] -= h;
            const double dw = (houlsby_complementary_energy(kHoulsby, kK, kG, up) -
                               houlsby_complementary_energy(kHoulsby, kK, kG, down)) / (2.0 * h);
            // A shear component stands for two entries of the symmetric tensor.
            const double expected = c <= ZZ ? eps[c] : 2.0 * eps[c];
            CHECK(dw == doctest::Approx(expected).epsilon(1e-6).scale(norm(eps)));
        }
    }
}

TEST_CASE("Houlsby: the tangent is the inverse Hessian of W*, the energy its Legendre transform") {
    // Along sigma_dot = D : eps_dot, for any direction: d eps(sigma) gives eps_dot back, and the
    // stored energy W = sigma : eps - W* changes at the rate of the stress power sigma : eps_dot.
    std::mt19937_64 rng(5);
    for (int i = 0; i < 100; ++i) {
        const SymTensor sigma = random_stress(rng, 10.0 * kPr * (0.001 + i / 100.0));
        const SymTensor eps_dot = random_tensor(rng, 1.0);
        const SymTensor rate = elastic_stress_rate(kHoulsby, kK, kG, sigma, eps_dot);
        const double h = 1e-5 * norm(sigma) / norm(rate);
        const SymTensor up = houlsby_elastic_strain(kHoulsby, kK, kG, axpy(sigma, h, rate));
        const SymTensor down = houlsby_elastic_strain(kHoulsby, kK, kG, axpy(sigma, -h, rate));
        for (int c = 0; c < kSymComponents; ++c)
            CHECK((up[c] - down[c]) / (2.0 * h) ==
                  doctest::Approx(eps_dot[c]).epsilon(1e-7).scale(norm(eps_dot)));
        const double dw = (energy(axpy(sigma, h, rate)) - energy(axpy(sigma, -h, rate))) / (2.0 * h);
        const double power = double_dot(sigma, eps_dot);
        CHECK(dw == doctest::Approx(power).epsilon(1e-7).scale(norm(sigma) * norm(eps_dot)));
        const double legendre = double_dot(sigma, houlsby_elastic_strain(kHoulsby, kK, kG, sigma)) -
                                houlsby_complementary_energy(kHoulsby, kK, kG, sigma) +
                                houlsby_complementary_energy(kHoulsby, kK, kG, {});
        CHECK(energy(sigma) == doctest::Approx(legendre).epsilon(1e-12));
        CHECK(energy(sigma) > 0.0);
    }
    CHECK(energy({}) == 0.0);
}

TEST_CASE("Houlsby: a closed strain cycle returns the stress and the stored energy") {
    // A rectangle in strain space (compression, shear, decompression, unshear), non-proportional:
    // a hypoelastic K(p), G(p) gains or loses energy on it; a hyperelastic law returns it up to
    // Heun's O(dt^2), ~1e-10 of the peak energy with 1000 steps per leg.
    const double p0 = 100.0;
    const SymTensor start = {-p0, -p0, -p0, 0.0, 0.0, 0.0};
    const double K0 = kK * std::sqrt(p0 / kPr);
    const double amp = 0.5 * p0 / K0;  // strain of each leg [-]
    const SymTensor compress = {-amp / 3, -amp / 3, -amp / 3, 0.0, 0.0, 0.0};
    const SymTensor shear = {0.0, 0.0, 0.0, 0.5 * amp, 0.2 * amp, 0.0};
    SymTensor sigma = start;
    double peak = energy(sigma);
    const int steps = 1000;
    const double dt = 1.0 / steps;
    for (const SymTensor& leg : {compress, shear, axpy({}, -1.0, compress), axpy({}, -1.0, shear)})
        for (int k = 0; k < steps; ++k) {
            sigma = heun(sigma, leg, dt);
            peak = std::max(peak, energy(sigma));
        }
    CHECK(std::abs(energy(sigma) - energy(start)) < 1e-9 * peak);
    CHECK(norm(axpy(sigma, -1.0, start)) < 1e-8 * p0);
}

TEST_CASE("Houlsby: moduli proportional to (p / p_r)^n above the floor, floor below") {
    for (const double p : {0.3 * kPr, kPr, 7.0 * kPr}) {
        const SymTensor sigma = {-p, -p, -p, 0.0, 0.0, 0.0};
        const double scale = std::pow(p / kPr, kN);
        const double eps = 1e-3;
        const SymTensor isotropic = elastic_stress_rate(kHoulsby, kK, kG, sigma, {-eps, -eps, -eps, 0, 0, 0});
        const SymTensor sheared = elastic_stress_rate(kHoulsby, kK, kG, sigma, {0, 0, 0, eps, 0, 0});
        // P = sqrt(p^2 + p_min^2) differs from p by (p_min / p)^2 / 2 <= 6e-6 here.
        CHECK(-trace(isotropic) / 3.0 / (3.0 * eps) == doctest::Approx(kK * scale).epsilon(1e-5));
        CHECK(sheared[XY] / (2.0 * eps) == doctest::Approx(kG * scale).epsilon(1e-5));
        CHECK(p_wave_modulus(kHoulsby, kK, kG, sigma) ==
              doctest::Approx((kK + 4.0 * kG / 3.0) * scale).epsilon(1e-5));
    }
    // At zero stress: G(p_min), and the bulk modulus (1 - n) K(p_min) of the smooth floor.
    const double floor = std::pow(kPmin / kPr, kN);
    const ElasticTangent D = elastic_tangent(kHoulsby, kK, kG, {});
    CHECK(D.shear == doctest::Approx(kG * floor).epsilon(1e-14));
    CHECK(D.bulk == doctest::Approx((1.0 - kN) * kK * floor).epsilon(1e-14));
    CHECK(std::isfinite(p_wave_modulus(kHoulsby, kK, kG, {})));
}

TEST_CASE("Houlsby: the wave modulus bounds the acoustic tensor in every direction") {
    // M >= m . (D : (m m)) . m, the longitudinal modulus along any unit vector m.
    std::mt19937_64 rng(13);
    std::normal_distribution<> gauss;
    for (int i = 0; i < 200; ++i) {
        const SymTensor sigma = random_stress(rng, kPr * (0.01 + i / 20.0));
        const double M = p_wave_modulus(kHoulsby, kK, kG, sigma);
        for (int j = 0; j < 20; ++j) {
            std::array<double, 3> m = {gauss(rng), gauss(rng), gauss(rng)};
            const double len = std::sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
            for (double& x : m) x /= len;
            const SymTensor mm = {m[0] * m[0], m[1] * m[1], m[2] * m[2],
                                  m[0] * m[1], m[0] * m[2], m[1] * m[2]};
            const SymTensor rate = elastic_stress_rate(kHoulsby, kK, kG, sigma, mm);
            CHECK(double_dot(mm, rate) <= M * (1.0 + 1e-12));
        }
    }
}

TEST_CASE("elasticity: linear is Hooke's law to the bit, Houlsby with n = 0 is Hooke's law") {
    std::mt19937_64 rng(17);
    const Elasticity hooke_like = houlsby_elasticity(kPr, 0.0, kPmin);
    for (int i = 0; i < 20; ++i) {
        const SymTensor sigma = random_stress(rng, kPr);
        const SymTensor eps_dot = random_tensor(rng, 1.0);
        const SymTensor linear = elastic_stress_rate(Elasticity{}, kK, kG, sigma, eps_dot);
        const SymTensor hooke = hooke_stress_rate(kK, kG, eps_dot);
        const SymTensor n0 = elastic_stress_rate(hooke_like, kK, kG, sigma, eps_dot);
        for (int c = 0; c < kSymComponents; ++c) {
            CHECK(linear[c] == hooke[c]);
            CHECK(n0[c] == doctest::Approx(hooke[c]).epsilon(1e-12).scale(norm(hooke)));
        }
        CHECK(elastic_energy_density(Elasticity{}, kK, kG, sigma) == hooke_strain_energy(kK, kG, sigma));
        CHECK(elastic_energy_density(hooke_like, kK, kG, sigma) ==
              doctest::Approx(hooke_strain_energy(kK, kG, sigma)).epsilon(1e-12));
        CHECK(p_wave_modulus(Elasticity{}, kK, kG, sigma) == kK + 4.0 * kG / 3.0);
    }
}

TEST_CASE("elasticity: the soil models' wave speed follows the stress with Houlsby's law") {
    DruckerPrager dp;
    dp.density = 1500.0;
    dp.bulk_modulus = kK;
    dp.shear_modulus = kG;
    dp.friction_angle = 30.0 * std::numbers::pi / 180.0;
    MuIRheology mi;
    mi.density = 1500.0;
    mi.bulk_modulus = kK;
    mi.shear_modulus = kG;
    mi.static_friction = 0.4;
    mi.limit_friction = 0.6;
    mi.reference_inertial_number = 0.3;
    mi.grain_diameter = 1e-3;
    mi.grain_density = 2600.0;
    const double linear_speed = std::sqrt((kK + 4.0 * kG / 3.0) / 1500.0);
    const MaterialState shallow{1500.0, {-kPr, -kPr, -kPr, 0, 0, 0}, nullptr};
    const MaterialState deep{1500.0, {-16 * kPr, -16 * kPr, -16 * kPr, 0, 0, 0}, nullptr};
    dp.prepare(3);
    CHECK(dp.wave_speed(deep) == linear_speed);  // linear: c_p in every state
    dp.elasticity = mi.elasticity = kHoulsby;
    dp.prepare(3);
    CHECK(dp.p_wave_speed == 0.0);
    for (const double ratio : {dp.wave_speed(deep) / dp.wave_speed(shallow),
                               mi.wave_speed(deep) / mi.wave_speed(shallow)})
        CHECK(ratio == doctest::Approx(std::pow(16.0, kN / 2.0)).epsilon(1e-6));
    CHECK(dp.wave_speed(shallow) == doctest::Approx(linear_speed).epsilon(1e-6));  // at p = p_r
    CHECK(dp.reference_wave_speed() == linear_speed);
    CHECK(dp.strain_energy(1500.0, deep.sigma) ==
          doctest::Approx(elastic_energy_density(kHoulsby, kK, kG, deep.sigma) / 1500.0));
    // Its parameters in run.json, after the model's own.
    const std::vector<ModelParameter> q = dp.parameters();
    CHECK(q.back().key == "elasticity_floor_pressure_Pa");
    CHECK(q.back().value == kPmin);
}

TEST_CASE("elasticity: Drucker-Prager's plastic rate with Houlsby's tangent dissipates the rest") {
    // On the surface under loading: sigma : eps_dot = dW/dt + lambda_dot (sqrt(J2) + 3 sin psi I1)
    // with Houlsby's stored energy W (the general form of Schaefer 2017 eqs. 19-20 with D(sigma)).
    std::mt19937_64 rng(19);
    DruckerPrager m;
    m.density = 1500.0;
    m.bulk_modulus = kK;
    m.shear_modulus = kG;
    m.friction_angle = 30.0 * std::numbers::pi / 180.0;
    m.cohesion = 50.0;
    m.elasticity = kHoulsby;
    int plastic = 0;
    for (const double psi_deg : {0.0, 10.0}) {
        m.dilatancy_angle = psi_deg * std::numbers::pi / 180.0;
        const auto dp = drucker_prager_constants(m.friction_angle, m.cohesion, 3);
        for (int i = 0; i < 200; ++i) {
            // A stress on the yield surface: sqrt(J2) = k_c - alpha I1.
            SymTensor sigma = deviator(random_tensor(rng, 1.0));
            const double mean = -kPr * (0.1 + std::uniform_real_distribution<>(0, 3)(rng));
            const double r = (dp.k_c - 3.0 * dp.alpha_phi * mean) / std::sqrt(second_invariant(sigma));
            for (double& c : sigma) c *= r;
            for (int c = XX; c <= ZZ; ++c) sigma[c] += mean;
            const SymTensor eps = random_tensor(rng, 1e-2);
            const StressRate out = drucker_prager_stress_rate(m, dp, sigma, eps);
            const double h = 1e-5 * norm(sigma) / norm(out.rate);
            const double stored = (m.strain_energy(1.0, axpy(sigma, h, out.rate)) -
                                   m.strain_energy(1.0, axpy(sigma, -h, out.rate))) / (2.0 * h);
            const double power = double_dot(sigma, eps);
            CHECK(power - stored == doctest::Approx(out.dissipation).epsilon(1e-6).scale(std::abs(power)));
            if (!out.yielding) continue;
            ++plastic;
            // The flow keeps the state on the surface: df/dt = a : sigma_dot = 0.
            const SymTensor s = deviator(sigma);
            const double sqrt_j2 = std::sqrt(second_invariant(sigma));
            double a_rate = dp.alpha_phi * trace(out.rate);
            a_rate += double_dot(s, out.rate) / (2.0 * sqrt_j2);
            CHECK(a_rate == doctest::Approx(0.0).scale(1e-8 * norm(out.rate)));
        }
    }
    CHECK(plastic > 100);
}

TEST_CASE("elasticity: bad Houlsby parameters name the field") {
    const auto expect_field = [](const Elasticity& e, const std::string& field) {
        try {
            validate(e, "soil");
            FAIL("no error for " << field);
        } catch (const std::invalid_argument& err) {
            const std::string what = err.what();
            CHECK(what.find("material 'soil': elasticity." + field) != std::string::npos);
        }
    };
    expect_field(houlsby_elasticity(-1.0, 0.5, 1.0), "reference_pressure");
    expect_field(houlsby_elasticity(1e3, 1.0, 1.0), "exponent");
    expect_field(houlsby_elasticity(1e3, -0.1, 1.0), "exponent");
    expect_field(houlsby_elasticity(1e3, 0.5, 0.0), "floor_pressure");
    expect_field(houlsby_elasticity(1e3, 0.5, std::nan("")), "floor_pressure");
    CHECK_NOTHROW(validate(Elasticity{}, "soil"));
    CHECK(elasticity_error(kHoulsby).empty());
}
