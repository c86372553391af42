// mu(I) rheology (src/materials/mu_i_rheology.hpp; Jop, Forterre & Pouliquen 2006) at a material
// point: the friction law itself, and a point sheared at a constant rate under a constant
// pressure, driven by the model's own stress rate, Jaumann terms, history rate and return,
// which must settle on sqrt(J2) = mu(I) p with the inertial number of the imposed shear; and a
// point pulled beyond the apex and pushed back, which must close its opening before it loads.
#include <doctest/doctest.h>

#include <array>
#include <cmath>

#include "core/tensor.hpp"
#include "materials/mu_i_rheology.hpp"

using namespace regosph;

namespace {

// Glass beads of Jop et al. (2006): mu_s = tan 20.9 deg, mu_2 = tan 32.76 deg, I_0 = 0.279,
// d = 0.5 mm, rho_s = 2450 kg/m^3.
MuIRheology beads() {
    const MuIRheology m{.density = 1500.0, .bulk_modulus = 1e6, .shear_modulus = 4e5,
                        .static_friction = 0.382, .limit_friction = 0.643,
                        .reference_inertial_number = 0.279, .grain_diameter = 0.5e-3,
                        .grain_density = 2450.0};
    m.validate("beads");
    return m;
}

}  // namespace

TEST_CASE("mu(I): mu_s without flow, the mean of mu_s and mu_2 at I_0, mu_2 as I grows") {
    const MuIRheology m = beads();
    const double p = 1000.0;                                              // [Pa]
    const double rate_at_i0 = 0.279 * std::sqrt(p / 2450.0) / 0.5e-3;   // gamma_dot of I = I_0
    CHECK(mu_of_i(m, 0.0, p) == m.static_friction);
    CHECK(mu_of_i(m, rate_at_i0, p) == doctest::Approx(0.5 * (0.382 + 0.643)).epsilon(1e-14));
    CHECK(mu_of_i(m, 1e6 * rate_at_i0, p) == doctest::Approx(0.643).epsilon(1e-6));
    CHECK(mu_of_i(m, 1.0, 0.0) == m.limit_friction);  // no confinement: I infinite
    // Simple shear eps_xy = gamma_dot / 2 has |gamma_dot| = gamma_dot.
    SymTensor eps{};
    eps[XY] = 0.5 * 7.0;
    CHECK(shear_rate(eps) == doctest::Approx(7.0).epsilon(1e-14));
}

TEST_CASE("mu(I): a point sheared at a constant rate settles on sqrt(J2) = mu(I) p") {
    const MuIRheology m = beads();
    const double p = 1000.0, gamma_dot = 100.0;  // [Pa], [1/s]
    const double inertial = gamma_dot * m.grain_diameter / std::sqrt(p / m.grain_density);
    const double expected = m.static_friction + (m.limit_friction - m.static_friction) /
                                                    (m.reference_inertial_number / inertial + 1.0);
    SymTensor sigma{-p, -p, -p, 0.0, 0.0, 0.0};
    std::array<double, 2> history{m.history()[0].initial, m.history()[1].initial};
    double& mu = history[MuIRheology::kFriction];
    CHECK(mu == m.static_friction);
    SymTensor eps{};
    eps[XY] = 0.5 * gamma_dot;
    Spin w{};
    w[0] = 0.5 * gamma_dot;  // v_x = gamma_dot y: L_xy = gamma_dot
    const double dt = 1e-5;  // [s], below the inertial time (dt_limit)
    bool yielded = false;
    for (int step = 0; step < 4000; ++step) {
        MaterialState s{m.density, sigma, history.data()};
        const StressRate r = m.stress_rate(s, eps, w);
        CHECK(r.dt_limit == doctest::Approx(m.grain_diameter / std::sqrt(p / m.grain_density)));
        const SymTensor rot = jaumann_rotation_term(sigma, w);
        for (int c = 0; c < kSymComponents; ++c) s.sigma[c] += dt * (r.rate[c] + rot[c]);
        mu += dt * r.history_rate[0];
        yielded = m.correct(s, dt) || yielded;
        sigma = s.sigma;
    }
    CHECK(yielded);
    CHECK(-trace(sigma) / 3.0 == doctest::Approx(p).epsilon(1e-12));
    CHECK(mu == doctest::Approx(expected).epsilon(1e-9));
    CHECK(history[MuIRheology::kOpenVolumeStrain] == 0.0);  // never beyond the apex
    CHECK(std::sqrt(second_invariant(sigma)) == doctest::Approx(expected * p).epsilon(1e-9));
    CHECK(expected > m.static_friction + 0.05);  // the rate dependence is what is measured
}

TEST_CASE("mu(I) return: tension goes to the apex, cohesion holds a deviator there") {
    SymTensor sigma{100.0, 50.0, 80.0, 30.0, 0.0, 0.0};
    CHECK(mu_i_return(0.4, 0.0, sigma));
    for (int c = 0; c < kSymComponents; ++c) CHECK(std::abs(sigma[c]) < 1e-12);
    SymTensor held{-1000.0, -1000.0, -1000.0, 100.0, 0.0, 0.0};
    CHECK_FALSE(mu_i_return(0.4, 0.0, held));  // sqrt(J2) = 100 < 0.4 x 1000 Pa
    CHECK(held[XY] == 100.0);
    SymTensor cohesive{0.0, 0.0, 0.0, 200.0, 0.0, 0.0};
    CHECK(mu_i_return(0.4, 150.0, cohesive));
    CHECK(std::sqrt(second_invariant(cohesive)) == doctest::Approx(150.0).epsilon(1e-14));
}

TEST_CASE("mu(I): grains pulled apart beyond the apex close the gap before they load again") {
    const MuIRheology m = beads();
    const double p0 = 100.0;     // [Pa]
    const double rate = 1.0;     // |tr eps_dot| [1/s]
    const double swing = 5e-4;   // volumetric strain each way [-]: 5 p0 / K
    SymTensor sigma{-p0, -p0, -p0, 0.0, 0.0, 0.0};
    std::array<double, 2> history{m.history()[0].initial, m.history()[1].initial};
    const Spin w{};
    const double dt = 1e-6;      // [s]
    const int steps = static_cast<int>(std::lround(swing / (rate * dt)));
    auto strain = [&](double tr) {
        SymTensor eps{};
        for (int c = XX; c <= ZZ; ++c) eps[c] = tr / 3.0;
        for (int step = 0; step < steps; ++step) {
            MaterialState s{m.density, sigma, history.data()};
            const StressRate r = m.stress_rate(s, eps, w);
            for (int c = 0; c < kSymComponents; ++c) s.sigma[c] += dt * r.rate[c];
            history[MuIRheology::kOpenVolumeStrain] +=
                dt * r.history_rate[MuIRheology::kOpenVolumeStrain];
            m.correct(s, dt);
            sigma = s.sigma;
        }
    };
    strain(rate);  // pulled apart: the pressure reaches 0 after p0 / K, the rest opens
    CHECK(std::abs(trace(sigma)) < 1e-9);
    const double opening = swing - p0 / m.bulk_modulus;
    CHECK(history[MuIRheology::kOpenVolumeStrain] == doctest::Approx(opening).epsilon(1e-6));
    strain(-rate);  // pushed back by as much: the gap closes, then p0 returns
    CHECK(history[MuIRheology::kOpenVolumeStrain] == 0.0);
    CHECK(-trace(sigma) / 3.0 == doctest::Approx(p0).epsilon(1e-6));
}
