// Long-run systems of spheres (src/geometry/body_system.hpp): order and conservation of the three
// integrators, impacts located in time, the tidal energy balance (Levine eqs. 3.12-3.13),
// canonical units, the energy function (eq. 2.9) and the configuration labels.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "geometry/body_system.hpp"

using namespace regosph::geometry;

namespace {
// Two point-like bodies on a Kepler ellipse (e = 0.5, a = 1 m, G (m1 + m2) = 1 m^3/s^2).
BodySystem kepler(BodyIntegrator method, double dt) {
    BodySystem s;
    s.law.gravitational_constant = 1.0;
    s.bodies.resize(2);
    for (auto& b : s.bodies) {
        b.mass_kg = 0.5;
        b.radius_m = 1e-3;
    }
    const double e = 0.5, rp = 1.0 - e, vp = std::sqrt((1.0 + e) / rp);
    s.bodies[0].x_m = {-0.5 * rp, 0.0, 0.0};
    s.bodies[1].x_m = {0.5 * rp, 0.0, 0.0};
    s.bodies[0].v_m_s = {0.0, -0.5 * vp, 0.0};
    s.bodies[1].v_m_s = {0.0, 0.5 * vp, 0.0};
    s.options.method = method;
    s.options.dt_s = dt;
    return s;
}

// Largest |E - E0| / |E0| over 10 orbits.
double kepler_energy_error(BodySystem s) {
    const BodyRecord rec = integrate_bodies(s, 20.0 * std::numbers::pi, 0.1);
    double worst = 0.0;
    for (double e : rec.energy_J) worst = std::max(worst, std::abs(e / rec.energy_J[0] - 1.0));
    return worst;
}

// Three equal spheres of the thesis (d = 4 km, rho = 2 g/cm^3) with its contact and tides.
BodySystem thesis_spheres() {
    BodySystem s;
    s.bodies.assign(3, make_sphere(2000.0, 2000.0));
    s.law.law = NormalLaw::hooke;
    s.law.stiffness_N_m = 1e13;
    s.law.restitution = 0.4;
    s.law.gravitational_constant = 6.674e-11;
    s.tidal.assign(3, TidalParameters{1e-5, 100.0, 2000.0, 6.674e-11});
    return s;
}
}  // namespace

TEST_CASE("body system: Verlet is 2nd, Yoshida 4th order; Dormand-Prince follows its tolerance") {
    const double v1 = kepler_energy_error(kepler(BodyIntegrator::verlet, 2e-3));
    const double v2 = kepler_energy_error(kepler(BodyIntegrator::verlet, 1e-3));
    const double y1 = kepler_energy_error(kepler(BodyIntegrator::yoshida4, 1e-2));
    const double y2 = kepler_energy_error(kepler(BodyIntegrator::yoshida4, 5e-3));
    MESSAGE("Verlet " << v1 << " -> " << v2 << ", Yoshida " << y1 << " -> " << y2);
    CHECK(v1 / v2 == doctest::Approx(4.0).epsilon(0.1));
    CHECK(y1 / y2 == doctest::Approx(16.0).epsilon(0.15));
    BodySystem loose = kepler(BodyIntegrator::dopri45, 1e-2), tight = loose;
    loose.options.relative_tolerance = 1e-7;
    tight.options.relative_tolerance = 1e-11;
    const double d1 = kepler_energy_error(loose), d2 = kepler_energy_error(tight);
    MESSAGE("Dormand-Prince " << d1 << " (1e-7) -> " << d2 << " (1e-11)");
    CHECK(d1 < 1e-5);
    CHECK(d2 < 1e-9);
    CHECK(d2 < 1e-2 * d1);
}

TEST_CASE("body system: an impact of e = 0 is applied when the spheres touch") {
    for (BodyIntegrator method : {BodyIntegrator::verlet, BodyIntegrator::dopri45}) {
        BodySystem s;
        s.bodies.assign(2, make_sphere(1.0, 1000.0));
        s.law.law = NormalLaw::hooke;
        s.law.stiffness_N_m = 1e6;
        s.bodies[0].x_m = {-1.5, 0.0, 0.0};
        s.bodies[1].x_m = {1.5, 0.1, 0.0};
        s.bodies[0].v_m_s = {0.1, 0.0, 0.0};
        s.bodies[1].v_m_s = {-0.1, 0.0, 0.0};
        s.options.method = method;
        s.options.dt_s = 0.3;
        s.options.impact_restitution = 0.0;
        s.options.impact_gap_tolerance_m = 1e-9;
        integrate_bodies(s, 8.0, 1.0);
        REQUIRE(s.impacts.size() == 1);
        const ImpactEvent& ev = s.impacts[0];
        // touching when sqrt((3 - 0.2 t)^2 + 0.01) = 2
        const double t_touch = (3.0 - std::sqrt(4.0 - 0.01)) / 0.2;
        CHECK(ev.time_s == doctest::Approx(t_touch).epsilon(1e-6));
        const double m_star = 0.5 * s.bodies[0].mass_kg, vn = 0.2 * std::sqrt(3.99) / 2.0;
        CHECK(ev.energy_lost_J == doctest::Approx(0.5 * m_star * vn * vn).epsilon(1e-6));
        CHECK(ev.approach_speed_m_s == doctest::Approx(vn).epsilon(1e-6));
    }
}

TEST_CASE("body system: every integrator finds the impact of two spheres falling together") {
    // from rest 6 km apart: all the kinetic energy at touching, G m^2 (1/d - 1/6 km), goes
    for (BodyIntegrator method : {BodyIntegrator::verlet, BodyIntegrator::yoshida4, BodyIntegrator::dopri45}) {
        BodySystem s = thesis_spheres();
        s.bodies.resize(2);
        s.tidal.clear();
        s.bodies[1].x_m = {6000.0, 0.0, 0.0};
        s.options.method = method;
        s.options.dt_s = 0.1;
        s.options.impact_restitution = 0.0;
        integrate_bodies(s, 3780.0, 100.0);  // the impact at 3776.44 s
        REQUIRE(!s.impacts.empty());
        const double m = s.bodies[0].mass_kg, g = s.law.gravitational_constant;
        // Yoshida's first substep (1.35 h) overshoots the landing into the contact's dashpot
        const double tol = method == BodyIntegrator::yoshida4 ? 1e-2 : 1e-6;
        CHECK(s.impacts[0].energy_lost_J == doctest::Approx(g * m * m * (1.0 / 4000.0 - 1.0 / 6000.0)).epsilon(tol));
        CHECK(s.impacts[0].time_s == doctest::Approx(3776.44).epsilon(1e-4));
    }
}

TEST_CASE("body system: a perfectly inelastic blow passes through touching spheres") {
    // 0 and 1 touch at rest, 2 strikes 1 head-on at v: all three end at v/3 (Newton's cradle
    // with e = 0), losing (1 - 1/3) m v^2 / 2
    BodySystem s;
    s.bodies.assign(3, make_sphere(1.0, 1000.0));
    s.law.law = NormalLaw::hooke;
    s.law.stiffness_N_m = 1e6;
    s.bodies[1].x_m = {2.0, 0.0, 0.0};
    s.bodies[2].x_m = {4.5, 0.0, 0.0};
    s.bodies[2].v_m_s = {-0.3, 0.0, 0.0};
    s.options.dt_s = 0.1;
    s.options.impact_restitution = 0.0;
    s.options.impact_gap_tolerance_m = 1e-9;
    integrate_bodies(s, 2.0, 1.0);
    double lost = 0.0;
    for (const ImpactEvent& ev : s.impacts) lost += ev.energy_lost_J;
    const double m = s.bodies[0].mass_kg;
    for (const SphereBody& b : s.bodies) CHECK(b.v_m_s[0] == doctest::Approx(-0.1).epsilon(1e-6));
    CHECK(lost == doctest::Approx(0.5 * m * 0.09 * 2.0 / 3.0).epsilon(1e-6));
}

TEST_CASE("body system: tides take energy at sum Gamma |phi_dot| and keep angular momentum") {
    BodySystem s = thesis_spheres();
    s.bodies.resize(2);
    s.tidal.resize(2);
    s.bodies[1].x_m = {4500.0, 0.0, 0.0};
    const double n = std::sqrt(6.674e-11 * 2.0 * s.bodies[0].mass_kg / std::pow(4500.0, 3));
    s.bodies[0].v_m_s = {0.0, -0.5 * n * 4500.0, 0.0};
    s.bodies[1].v_m_s = {0.0, 0.5 * n * 4500.0, 0.0};
    s.bodies[0].omega_rad_s = {0.0, 0.0, 3.0 * n};
    s.options.dt_s = 2.0;
    const BodyRecord rec = integrate_bodies(s, 2e5, 1e4);
    const std::size_t last = rec.time_s.size() - 1;
    const double lost = rec.energy_J[0] - rec.energy_J[last];
    double predicted = 0.0;  // trapezoid of the tidal rate over the record
    for (std::size_t k = 1; k <= last; ++k) {
        predicted -= 0.5 * (rec.tidal_rate_W[k] + rec.tidal_rate_W[k - 1]) * (rec.time_s[k] - rec.time_s[k - 1]);
    }
    MESSAGE("energy lost " << lost << " J, tidal prediction " << predicted << " J, summed " << s.dissipated_J);
    CHECK(lost > 0.0);
    CHECK(lost == doctest::Approx(predicted).epsilon(1e-2));
    CHECK(lost == doctest::Approx(s.dissipated_J).epsilon(1e-3));
    MESSAGE("angular momentum change " << rec.angular_momentum[last][2] / rec.angular_momentum[0][2] - 1.0);
    CHECK(rec.angular_momentum[last][2] == doctest::Approx(rec.angular_momentum[0][2]).epsilon(1e-10));
}

TEST_CASE("body system: a run in canonical units is the run in SI") {
    BodySystem si = thesis_spheres();
    const double d = 4000.0, rc = d / std::sqrt(3.0);
    for (int i = 0; i < 3; ++i) {
        const double phi = 2.0 * std::numbers::pi * i / 3.0;
        si.bodies[i].x_m = {1.001 * rc * std::cos(phi), rc * std::sin(phi), 0.0};
        si.bodies[i].v_m_s = {-2e-4 * rc * std::sin(phi), 2e-4 * rc * std::cos(phi), 0.0};
        si.bodies[i].omega_rad_s = {0.0, 0.0, 3e-4};
    }
    si.options.dt_s = 0.5;
    si.options.impact_restitution = 0.0;
    BodySystem canon = si;
    const CanonicalUnits u = canonical_units(2000.0, si.bodies[0].mass_kg, 6.674e-11);
    CHECK(u.time_s == doctest::Approx(std::sqrt(8e9 / (6.674e-11 * si.bodies[0].mass_kg))));
    rescale_body_system(canon, u.length_m, u.mass_kg, u.time_s);
    CHECK(canon.law.gravitational_constant == doctest::Approx(1.0));
    CHECK(canon.bodies[0].radius_m == doctest::Approx(1.0));
    integrate_bodies(si, 2000.0, 500.0);
    integrate_bodies(canon, 2000.0 / u.time_s, 500.0 / u.time_s);
    rescale_body_system(canon, 1.0 / u.length_m, 1.0 / u.mass_kg, 1.0 / u.time_s);
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 2; ++k) {
            CHECK(canon.bodies[i].x_m[k] == doctest::Approx(si.bodies[i].x_m[k]).epsilon(1e-8));
            CHECK(canon.bodies[i].v_m_s[k] == doctest::Approx(si.bodies[i].v_m_s[k]).epsilon(1e-6));
        }
    }
    CHECK(canon.dissipated_J == doctest::Approx(si.dissipated_J).epsilon(1e-6));
}

TEST_CASE("body system: energy function and configuration labels of the thesis' equilibria") {
    BodySystem s = thesis_spheres();
    const double d = 4000.0, g = 6.674e-11, m = s.bodies[0].mass_kg;
    // Euler resting turning at omega: normalised E = H2 / (2 * 2.3) - 2.5 (eq. 2.9)
    const double omega = 2e-4;
    for (int i = 0; i < 3; ++i) {
        const double x = (i - 1) * d;
        s.bodies[i].x_m = {x, 0.0, 0.0};
        s.bodies[i].v_m_s = {0.0, omega * x, 0.0};
        s.bodies[i].omega_rad_s = {0.0, 0.0, omega};
    }
    const double h2 = normalised_h2(s.bodies, g);
    CHECK(energy_function_J(s.bodies, g) / (g * m * m / d) == doctest::Approx(h2 / 4.6 - 2.5).epsilon(1e-12));
    CHECK(configuration_label(s.bodies, 1e-3) == "euler_resting");
    s.bodies[2].x_m = {-0.5 * d, 0.5 * std::sqrt(3.0) * d, 0.0};
    CHECK(configuration_label(s.bodies, 1e-3) == "lagrange_resting");
    s.bodies[2].x_m = {0.0, d, 0.0};
    CHECK(configuration_label(s.bodies, 1e-3) == "v_resting");
    s.bodies[2].x_m = {3.0 * d, 0.0, 0.0};
    CHECK(configuration_label(s.bodies, 1e-3) == "aligned_mixed");
    s.bodies[2].x_m = {0.5 * d, 3.0 * d, 0.0};
    CHECK(configuration_label(s.bodies, 1e-3) == "transverse_mixed");
    s.bodies[1].x_m = {0.0, -3.0 * d, 0.0};
    CHECK(configuration_label(s.bodies, 1e-3) == "orbiting");
}
