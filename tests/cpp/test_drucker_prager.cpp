// Drucker-Prager elastic-plastic regolith, SPEC.md section 3 (Schaefer 2017 eqs. 11, 13, 19,
// 20; Bui 2008 eqs. 33-34).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>

#include "materials/drucker_prager.hpp"
#include "materials/material.hpp"
#include "core/tensor.hpp"

using namespace regosph;

namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

double norm(const SymTensor& t) { return std::sqrt(double_dot(t, t)); }

SymTensor hooke(double K, double mu, const SymTensor& eps) {
    // 2 mu eps + (K - 2 mu / 3) tr(eps) I  (first terms of S17-19)
    SymTensor r;
    const double lame = K - 2.0 * mu / 3.0;
    for (int c = 0; c < kSymComponents; ++c) r[c] = 2.0 * mu * eps[c];
    for (int c = XX; c <= ZZ; ++c) r[c] += lame * trace(eps);
    return r;
}

// df/dsigma = S / (2 sqrt(J2)) + alpha_phi I  (gradient of S17-11)
SymTensor yield_gradient(const DruckerPragerConstants& dp, const SymTensor& sigma) {
    const SymTensor s = deviator(sigma);
    const double sq = std::sqrt(second_invariant(sigma));
    SymTensor g;
    for (int c = 0; c < kSymComponents; ++c) g[c] = s[c] / (2.0 * sq);
    for (int c = XX; c <= ZZ; ++c) g[c] += dp.alpha_phi;
    return g;
}

// A stress exactly on the yield surface: mean stress p_mean (< apex), deviator direction `dir`
// (made traceless and scaled so that sqrt(J2) = k_c - alpha_phi I1).
SymTensor on_surface(const DruckerPragerConstants& dp, double mean, SymTensor dir) {
    dir = deviator(dir);
    const double j2 = 0.5 * double_dot(dir, dir);
    const double target = dp.k_c - dp.alpha_phi * 3.0 * mean;
    REQUIRE(target > 0.0);
    const double s = target / std::sqrt(j2);
    SymTensor sigma;
    for (int c = 0; c < kSymComponents; ++c) sigma[c] = s * dir[c];
    for (int c = XX; c <= ZZ; ++c) sigma[c] += mean;
    return sigma;
}

SymTensor random_tensor(std::mt19937_64& rng, double scale) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    SymTensor t;
    for (auto& c : t) c = scale * u(rng);
    return t;
}

DruckerPrager soil(double phi_deg, double c, double psi_deg) {
    DruckerPrager m;
    m.density = 2650.0;
    m.bulk_modulus = 0.7e6;
    m.shear_modulus = 0.7e6 * 3.0 * (1.0 - 0.6) / (2.0 * 1.3);  // nu = 0.3
    m.friction_angle = phi_deg * kDeg;
    m.cohesion = c;
    m.dilatancy_angle = psi_deg * kDeg;
    return m;
}

}  // namespace

TEST_CASE("Drucker-Prager plane-strain constants (S17-13)") {
    // alpha_phi = tan(phi) / sqrt(9 + 12 tan^2 phi), k_c = 3 c / sqrt(9 + 12 tan^2 phi),
    // reference values computed by hand to 5 significant digits.
    const auto a = drucker_prager_constants(19.8 * kDeg, 1.0, 2);
    CHECK(a.alpha_phi == doctest::Approx(0.11081).epsilon(5e-5));
    CHECK(a.k_c == doctest::Approx(0.92339).epsilon(5e-5));
    const auto b = drucker_prager_constants(30.0 * kDeg, 1.0, 2);
    CHECK(b.alpha_phi == doctest::Approx(0.16013).epsilon(5e-5));
    CHECK(b.k_c == doctest::Approx(0.83205).epsilon(5e-5));
    // k_c is linear in the cohesion; phi = 0 is the von Mises limit alpha = 0, k_c = c.
    const auto b2 = drucker_prager_constants(30.0 * kDeg, 2500.0, 2);
    CHECK(b2.k_c == doctest::Approx(2500.0 * b.k_c).epsilon(1e-14));
    CHECK(b2.alpha_phi == doctest::Approx(b.alpha_phi).epsilon(1e-14));
    const auto vm = drucker_prager_constants(0.0, 7.0, 2);
    CHECK(vm.alpha_phi == 0.0);
    CHECK(vm.k_c == doctest::Approx(7.0));
    const auto zero_c = drucker_prager_constants(42.0 * kDeg, 0.0, 2);
    CHECK(zero_c.k_c == 0.0);
    CHECK(zero_c.alpha_phi > 0.0);
}

TEST_CASE("Drucker-Prager 3D constants: Mohr-Coulomb outer cone (documented formula)") {
    // drucker_prager.hpp: alpha = 2 sin(phi) / (sqrt(3) (3 - sin(phi))),
    //                     k = 6 c cos(phi) / (sqrt(3) (3 - sin(phi))).
    for (const double phi_deg : {10.0, 19.8, 30.0, 42.0, 60.0}) {
        CAPTURE(phi_deg);
        const double phi = phi_deg * kDeg, c = 1234.0;
        const auto k = drucker_prager_constants(phi, c, 3);
        const double s = std::sin(phi);
        CHECK(k.alpha_phi > 0.0);
        CHECK(k.k_c > 0.0);
        CHECK(k.alpha_phi == doctest::Approx(2.0 * s / (std::sqrt(3.0) * (3.0 - s))).epsilon(1e-13));
        CHECK(k.k_c == doctest::Approx(6.0 * c * std::cos(phi) / (std::sqrt(3.0) * (3.0 - s)))
                           .epsilon(1e-13));
        // Independent check of the "outer cone" claim: the cone passes through the
        // Mohr-Coulomb surface on the compressive meridian (sigma_1 = sigma_2 > sigma_3,
        // tension positive). Mohr-Coulomb: (s1 - s3) / 2 = c cos(phi) - (s1 + s3) / 2 sin(phi).
        for (const double a : {0.0, -500.0, -1e5}) {
            const double b = (a * (1.0 + s) - 2.0 * c * std::cos(phi)) / (1.0 - s);
            const SymTensor sigma{a, a, b, 0.0, 0.0, 0.0};
            CHECK(std::abs(yield_function(k, sigma)) <= 1e-10 * (std::abs(a) + std::abs(b) + c));
        }
    }
}

TEST_CASE("yield function sign (S17-11: f = sqrt(J2) + alpha I1 - k_c)") {
    const auto dp = drucker_prager_constants(30.0 * kDeg, 1000.0, 2);
    // Unstressed cohesive material: f = -k_c < 0.
    CHECK(yield_function(dp, SymTensor{}) == doctest::Approx(-dp.k_c));
    // Hydrostatic compression is always inside (for alpha > 0).
    CHECK(yield_function(dp, SymTensor{-1e6, -1e6, -1e6, 0, 0, 0}) < 0.0);
    // Pure shear tau: sqrt(J2) = |tau|; yields when tau > k_c.
    CHECK(yield_function(dp, SymTensor{0, 0, 0, 1.01 * dp.k_c, 0, 0}) > 0.0);
    CHECK(yield_function(dp, SymTensor{0, 0, 0, 0.99 * dp.k_c, 0, 0}) < 0.0);
    CHECK(yield_function(dp, SymTensor{0, 0, 0, 0, 0, -2.0 * dp.k_c}) ==
          doctest::Approx(dp.k_c));
    // Hydrostatic tension beyond the apex I1 = k_c / alpha: f > 0.
    const double apex = dp.k_c / dp.alpha_phi / 3.0;
    CHECK(yield_function(dp, SymTensor{1.1 * apex, 1.1 * apex, 1.1 * apex, 0, 0, 0}) > 0.0);
    // Cohesionless: f = 0 at zero stress, confining pressure raises the strength.
    const auto sand = drucker_prager_constants(30.0 * kDeg, 0.0, 2);
    CHECK(yield_function(sand, SymTensor{}) == 0.0);
    const double tau = 100.0;
    CHECK(yield_function(sand, SymTensor{0, 0, 0, tau, 0, 0}) > 0.0);
    const double p = 2.0 * tau / (3.0 * sand.alpha_phi);  // alpha I1 = -2 tau
    CHECK(yield_function(sand, SymTensor{-p, -p, -p, tau, 0, 0}) == doctest::Approx(-tau));
}

TEST_CASE("return mapping: random states end on or inside the yield surface (Bui 2008)") {
    std::mt19937_64 rng(20240611);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    int beyond_apex = 0, scaled = 0, untouched = 0;
    for (const double c : {0.0, 5e3}) {
        for (const double phi_deg : {19.8, 42.0}) {
            for (const int dim : {2, 3}) {
                const auto dp = drucker_prager_constants(phi_deg * kDeg, c, dim);
                for (int i = 0; i < 4000; ++i) {
                    // Deviators up to 20 kPa, mean stress from -30 kPa (compression) to +30 kPa
                    // (tension, far beyond the apex for c = 0).
                    SymTensor sigma = random_tensor(rng, 2e4);
                    const double mean = 3e4 * u(rng);
                    for (int k = XX; k <= ZZ; ++k) sigma[k] += mean;
                    const SymTensor before = sigma;
                    const double f0 = yield_function(dp, before);
                    const bool over_apex = dp.alpha_phi * trace(before) - dp.k_c > 0.0;
                    const bool changed = drucker_prager_return(dp, sigma);
                    const double scale = norm(before) + dp.k_c;
                    CAPTURE(c);
                    CAPTURE(phi_deg);
                    CAPTURE(i);
                    CHECK(yield_function(dp, sigma) <= 1e-9 * scale);
                    // Never beyond the apex afterwards.
                    CHECK(dp.alpha_phi * trace(sigma) - dp.k_c <= 1e-12 * scale);
                    if (over_apex) {
                        ++beyond_apex;
                        CHECK(changed);
                        // Cracking first, then scaling with r = 0: exactly the apex.
                        CHECK(trace(sigma) ==
                              doctest::Approx(dp.k_c / dp.alpha_phi).epsilon(1e-12).scale(scale));
                        CHECK(std::sqrt(second_invariant(sigma)) <= 1e-12 * scale);
                    } else if (f0 > 0.0) {
                        ++scaled;
                        CHECK(changed);
                        // Scaling keeps I1 and the deviator's direction, S' = r S, 0 <= r < 1,
                        // and lands on the surface.
                        CHECK(trace(sigma) == doctest::Approx(trace(before)).epsilon(1e-12).scale(scale));
                        CHECK(yield_function(dp, sigma) >= -1e-9 * scale);
                        const SymTensor s0 = deviator(before), s1 = deviator(sigma);
                        const double r = std::sqrt(double_dot(s1, s1) / double_dot(s0, s0));
                        CHECK(r < 1.0);
                        for (int k = 0; k < kSymComponents; ++k)
                            CHECK(s1[k] == doctest::Approx(r * s0[k]).epsilon(1e-12).scale(scale));
                    } else {
                        ++untouched;
                        CHECK_FALSE(changed);
                        CHECK(sigma == before);  // inside the surface: bitwise untouched
                    }
                }
            }
        }
    }
    // The random states must exercise all three branches.
    CHECK(beyond_apex > 1000);
    CHECK(scaled > 1000);
    CHECK(untouched > 1000);
}

TEST_CASE("return mapping: hydrostatic tension beyond the apex lands exactly on the apex") {
    const auto dp = drucker_prager_constants(19.8 * kDeg, 2000.0, 2);
    const double apex_i1 = dp.k_c / dp.alpha_phi;
    SymTensor sigma{apex_i1, apex_i1, apex_i1, 0, 0, 0};  // I1 = 3 apex
    CHECK(drucker_prager_return(dp, sigma));
    CHECK(trace(sigma) == doctest::Approx(apex_i1).epsilon(1e-14));
    for (int k = XX; k <= ZZ; ++k) CHECK(sigma[k] == doctest::Approx(apex_i1 / 3.0).epsilon(1e-14));
    for (int k = XY; k <= YZ; ++k) CHECK(sigma[k] == 0.0);
    // With a deviator: the cracking shifts only the mean stress; at the apex the cone has zero
    // radius so the scaling then removes the deviator.
    SymTensor t{5e4, 3e4, 4e4, 1e3, -2e3, 5e2};
    CHECK(drucker_prager_return(dp, t));
    CHECK(trace(t) == doctest::Approx(apex_i1).epsilon(1e-12));
    CHECK(std::sqrt(second_invariant(t)) <= 1e-12 * 5e4);
    // Cohesionless: the apex is the stress-free state.
    const auto sand = drucker_prager_constants(30.0 * kDeg, 0.0, 2);
    SymTensor s{100.0, 200.0, 300.0, 50.0, 0.0, 0.0};
    CHECK(drucker_prager_return(sand, s));
    for (double comp : s) CHECK(std::abs(comp) <= 1e-12 * 300.0);
}

TEST_CASE("return mapping: a state inside the surface, and one exactly on it, are untouched") {
    const auto dp = drucker_prager_constants(30.0 * kDeg, 0.0, 2);
    SymTensor inside{-1e4, -2e4, -1.5e4, 1e3, 0, 0};
    REQUIRE(yield_function(dp, inside) < 0.0);
    const SymTensor copy = inside;
    CHECK_FALSE(drucker_prager_return(dp, inside));
    CHECK(inside == copy);
    // on_surface() yields f = 0 to round-off; the return may rescale by 1 +- 1e-16 at most.
    SymTensor on = on_surface(dp, -1e4, SymTensor{1, -1, 0, 0.5, 0, 0});
    const SymTensor on0 = on;
    drucker_prager_return(dp, on);
    for (int k = 0; k < kSymComponents; ++k) CHECK(on[k] == doctest::Approx(on0[k]).epsilon(1e-13));
}

TEST_CASE("stress rate below yield is Hooke's law, lambda_dot = 0 (S17-19)") {
    std::mt19937_64 rng(7);
    const DruckerPrager m = soil(19.8, 1e4, 0.0);
    const auto dp = drucker_prager_constants(m.friction_angle, m.cohesion, 2);
    for (int i = 0; i < 200; ++i) {
        // Small stresses inside the surface: |sigma| ~ 1 kPa, k_c ~ 9 kPa.
        const SymTensor sigma = random_tensor(rng, 1e3);
        REQUIRE(yield_function(dp, sigma) < 0.0);
        const SymTensor eps = random_tensor(rng, 1.0);
        const StressRate r = drucker_prager_stress_rate(m, dp, sigma, eps);
        const SymTensor expect = hooke(m.bulk_modulus, m.shear_modulus, eps);
        for (int k = 0; k < kSymComponents; ++k)
            CHECK(r.rate[k] == doctest::Approx(expect[k]).epsilon(1e-14).scale(norm(expect)));
        CHECK(r.lambda_dot == 0.0);
        CHECK_FALSE(r.yielding);
    }
}

TEST_CASE("stress rate on the yield surface: consistency condition df/dsigma : rate = 0") {
    std::mt19937_64 rng(99);
    for (const double psi_deg : {0.0, 10.0}) {
        for (const double c : {0.0, 3e3}) {
            const DruckerPrager m = soil(30.0, c, psi_deg);
            const auto dp = drucker_prager_constants(m.friction_angle, m.cohesion, 2);
            int loading = 0;
            for (int i = 0; i < 300; ++i) {
                CAPTURE(psi_deg);
                CAPTURE(c);
                CAPTURE(i);
                const double mean = -1e4 * (0.1 + std::uniform_real_distribution<>(0, 1)(rng));
                const SymTensor sigma = on_surface(dp, mean, random_tensor(rng, 1.0));
                REQUIRE(std::abs(yield_function(dp, sigma)) <= 1e-10 * norm(sigma));
                const SymTensor eps = random_tensor(rng, 1e-2);
                const StressRate r = drucker_prager_stress_rate(m, dp, sigma, eps);
                const SymTensor elastic = hooke(m.bulk_modulus, m.shear_modulus, eps);
                const SymTensor grad = yield_gradient(dp, sigma);
                if (double_dot(grad, elastic) > 0.0) {
                    // Loading (elastic trial rate points outward): plastic flow.
                    ++loading;
                    CHECK(r.yielding);
                    CHECK(r.lambda_dot > 0.0);
                    // S17-20 by hand.
                    const double sq = std::sqrt(second_invariant(sigma));
                    const SymTensor s = deviator(sigma);
                    const double K = m.bulk_modulus, mu = m.shear_modulus;
                    const double sin_psi = std::sin(m.dilatancy_angle);
                    const double lam = (3.0 * K * dp.alpha_phi * trace(eps) +
                                        mu / sq * double_dot(s, eps)) /
                                       (27.0 * K * dp.alpha_phi * sin_psi + mu);
                    CHECK(r.lambda_dot == doctest::Approx(lam).epsilon(1e-12));
                    // Consistency: the rate is tangent to the yield surface.
                    CHECK(std::abs(double_dot(grad, r.rate)) <= 1e-8 * norm(grad) * norm(elastic));
                    // Plastic part -lambda_dot (9 K sin(psi) I + mu / sqrt(J2) S): its trace is
                    // -27 K sin(psi) lambda_dot, nonzero only with dilatancy.
                    const double plastic_trace = trace(r.rate) - trace(elastic);
                    if (psi_deg == 0.0) {
                        CHECK(std::abs(plastic_trace) <= 1e-12 * norm(elastic));
                    } else {
                        CHECK(plastic_trace < 0.0);
                        CHECK(plastic_trace == doctest::Approx(-27.0 * K * sin_psi * r.lambda_dot)
                                                   .epsilon(1e-10));
                    }
                } else {
                    // Unloading: elastic rate, no plastic flow.
                    CHECK_FALSE(r.yielding);
                    CHECK(r.lambda_dot == 0.0);
                    for (int k = 0; k < kSymComponents; ++k)
                        CHECK(r.rate[k] ==
                              doctest::Approx(elastic[k]).epsilon(1e-14).scale(norm(elastic)));
                }
            }
            CHECK(loading > 50);
            CHECK(loading < 250);
        }
    }
}

TEST_CASE("stress rate: unloading from the surface is elastic") {
    const DruckerPrager m = soil(30.0, 0.0, 10.0);
    const auto dp = drucker_prager_constants(m.friction_angle, m.cohesion, 2);
    const SymTensor sigma = on_surface(dp, -2e4, SymTensor{1.0, -0.5, -0.5, 0.3, 0, 0});
    // Strain rate against the deviator plus a compression: both terms of lambda_dot negative.
    SymTensor eps = deviator(sigma);
    for (auto& e : eps) e *= -1e-6;
    for (int k = XX; k <= ZZ; ++k) eps[k] -= 1e-3;
    const StressRate r = drucker_prager_stress_rate(m, dp, sigma, eps);
    CHECK_FALSE(r.yielding);
    CHECK(r.lambda_dot == 0.0);
    const SymTensor e = hooke(m.bulk_modulus, m.shear_modulus, eps);
    for (int k = 0; k < kSymComponents; ++k)
        CHECK(r.rate[k] == doctest::Approx(e[k]).epsilon(1e-14).scale(norm(e)));
    CHECK(yield_function(dp, sigma) + 1e-6 * double_dot(yield_gradient(dp, sigma), r.rate) < 0.0);
}

TEST_CASE("elastic uniaxial plane-strain loading integrates to Hooke's closed form") {
    // eps_dot = diag(e, 0, 0): sigma_xx = (K + 4 mu / 3) eps_xx, sigma_yy = sigma_zz = lambda eps_xx,
    // lambda = K - 2 mu / 3 (plane strain keeps eps_zz = 0 and carries sigma_zz).
    const DruckerPrager m = soil(30.0, 1e5, 0.0);
    const auto dp = drucker_prager_constants(m.friction_angle, m.cohesion, 2);
    const double rate = -0.1;  // compression [1/s]
    const double dt = 1e-4;
    const int steps = 500;  // eps_xx = -5e-3, sigma_xx ~ -6 kPa, well inside f < 0
    SymTensor sigma{};
    const SymTensor eps{rate, 0, 0, 0, 0, 0};
    for (int i = 0; i < steps; ++i) {
        const StressRate r = drucker_prager_stress_rate(m, dp, sigma, eps);
        REQUIRE_FALSE(r.yielding);
        for (int k = 0; k < kSymComponents; ++k) sigma[k] += dt * r.rate[k];
        REQUIRE_FALSE(drucker_prager_return(dp, sigma));
    }
    const double e = rate * dt * steps;
    const double K = m.bulk_modulus, mu = m.shear_modulus, lame = K - 2.0 * mu / 3.0;
    CHECK(sigma[XX] == doctest::Approx((K + 4.0 * mu / 3.0) * e).epsilon(1e-12));
    CHECK(sigma[YY] == doctest::Approx(lame * e).epsilon(1e-12));
    CHECK(sigma[ZZ] == doctest::Approx(lame * e).epsilon(1e-12));
    CHECK(sigma[XY] == 0.0);
    CHECK(yield_function(dp, sigma) < 0.0);
}

TEST_CASE("perfect plasticity: simple shear under confinement saturates at the yield stress") {
    // sigma_0 = -p I, eps_dot = simple shear (traceless), psi = 0: I1 stays -3p and sqrt(J2) =
    // |sigma_xy| grows elastically (rate 2 mu eps_xy) until sqrt(J2) = k_c + 3 alpha p.
    const DruckerPrager m = soil(19.8, 500.0, 0.0);
    const auto dp = drucker_prager_constants(m.friction_angle, m.cohesion, 2);
    const double p = 1e4;
    SymTensor sigma{-p, -p, -p, 0, 0, 0};
    const SymTensor eps{0, 0, 0, 0.5, 0, 0};  // gamma_dot = 1/s
    const double limit = dp.k_c + 3.0 * dp.alpha_phi * p;
    const double dt = 1e-6;
    bool yielded = false;
    for (int i = 0; i < 20000; ++i) {  // elastic limit reached at t = limit / mu ~ 0.012 s
        const StressRate r = drucker_prager_stress_rate(m, dp, sigma, eps);
        yielded = yielded || r.yielding;
        for (int k = 0; k < kSymComponents; ++k) sigma[k] += dt * r.rate[k];
        drucker_prager_return(dp, sigma);
        CHECK(yield_function(dp, sigma) <= 1e-9 * limit);
    }
    CHECK(yielded);
    CHECK(trace(sigma) == doctest::Approx(-3.0 * p).epsilon(1e-12));
    CHECK(sigma[XY] == doctest::Approx(limit).epsilon(1e-6));
    CHECK(sigma[XX] == doctest::Approx(-p).epsilon(1e-12));
}

TEST_CASE("material validation names the field") {
    Material m{"soil", soil(19.8, 0.0, 0.0), 0.0};
    CHECK_NOTHROW(validate(m));
    const auto expect_field = [](Material bad, const char* field) {
        CAPTURE(field);
        try {
            validate(bad);
            FAIL("no exception");
        } catch (const std::invalid_argument& e) {
            CHECK(std::string(e.what()).find(field) != std::string::npos);
        }
    };
    auto with = [&](auto mutate) {
        Material b = m;
        mutate(std::get<DruckerPrager>(b.model));
        return b;
    };
    expect_field(with([](DruckerPrager& d) { d.density = 0.0; }), "density");
    expect_field(with([](DruckerPrager& d) { d.bulk_modulus = -1.0; }), "bulk_modulus");
    expect_field(with([](DruckerPrager& d) { d.shear_modulus = 0.0; }), "shear_modulus");
    expect_field(with([](DruckerPrager& d) { d.friction_angle = 95.0 * kDeg; }), "friction_angle");
    expect_field(with([](DruckerPrager& d) { d.friction_angle = -1.0 * kDeg; }), "friction_angle");
    expect_field(with([](DruckerPrager& d) { d.cohesion = -1.0; }), "cohesion");
    expect_field(with([](DruckerPrager& d) { d.dilatancy_angle = 25.0 * kDeg; }), "dilatancy_angle");
    expect_field(with([](DruckerPrager& d) { d.density = std::nan(""); }), "density");
}

TEST_CASE("energy: plastic dissipation is the stress power the elastic energy does not store") {
    // On the yield surface under loading: sigma : eps_dot = dw/dt + sigma : eps_dot^p, with w the
    // Hooke energy S:S/(4 mu) + p^2/(2 K) (dw/dsigma = S / (2 mu) - p / (3 K) I) and the rate
    // of S17-19; the dissipation is lambda_dot (sqrt(J2) + 3 sin(psi) I1), >= 0 without dilatancy.
    std::mt19937_64 rng(7);
    for (const double psi_deg : {0.0, 10.0}) {
        const DruckerPrager m = soil(30.0, 3e3, psi_deg);
        const auto dp = drucker_prager_constants(m.friction_angle, m.cohesion, 2);
        int plastic = 0;
        for (int i = 0; i < 200; ++i) {
            const double mean = -1e4 * (0.1 + std::uniform_real_distribution<>(0, 1)(rng));
            const SymTensor sigma = on_surface(dp, mean, random_tensor(rng, 1.0));
            const SymTensor eps = random_tensor(rng, 1e-2);
            const StressRate r = drucker_prager_stress_rate(m, dp, sigma, eps);
            const SymTensor s = deviator(sigma);
            const double p = -trace(sigma) / 3.0;
            SymTensor dw_dsigma;
            for (int c = 0; c < kSymComponents; ++c) dw_dsigma[c] = s[c] / (2.0 * m.shear_modulus);
            for (int c = XX; c <= ZZ; ++c) dw_dsigma[c] -= p / (3.0 * m.bulk_modulus);
            const double stress_power = double_dot(sigma, eps);
            const double stored = double_dot(dw_dsigma, r.rate);
            CHECK(stress_power - stored ==
                  doctest::Approx(r.dissipation).epsilon(1e-9).scale(std::abs(stress_power)));
            if (!r.yielding) {
                CHECK(r.dissipation == 0.0);
                continue;
            }
            ++plastic;
            if (psi_deg == 0.0) CHECK(r.dissipation > 0.0);
        }
        CHECK(plastic > 30);
    }
}

TEST_CASE("energy: Hooke's stored energy in confined compression is (K + 4 mu / 3) e^2 / 2") {
    const DruckerPrager m = soil(30.0, 0.0, 0.0);
    const double K = m.bulk_modulus, mu = m.shear_modulus, e = 2e-3;
    const SymTensor sigma = hooke(K, mu, {0.0, -e, 0.0, 0.0, 0.0, 0.0});
    CHECK(hooke_strain_energy(K, mu, sigma) ==
          doctest::Approx((K + 4.0 * mu / 3.0) * e * e / 2.0).epsilon(1e-13));
    CHECK(m.strain_energy(2000.0, sigma) == doctest::Approx(hooke_strain_energy(K, mu, sigma) / 2000.0));
}
