// Particle-free rigid spheres (src/geometry/sphere_bodies.hpp, stepped by BodySystem's velocity
// Verlet): Hertz contact duration, the restitution of the Hooke law, e = 0 sticking, the mean
// motion of the Lagrangian resting configuration of three gravitating spheres (Levine 2016, sec.
// 5.1), friction at a wall and the tides.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "geometry/body_system.hpp"

using namespace regosph::geometry;

namespace {
// Spheres under one contact law, stepped by velocity Verlet (body_verlet_step).
struct Verlet {
    BodySystem s;
    BodyRates r;
    Verlet(std::vector<SphereBody> b, const SphereContactLaw& law) {
        s.bodies = std::move(b);
        s.law = law;
        r = body_rates(s, 0.0);
    }
    void step(double dt_s) { body_verlet_step(s, r, dt_s); }
    const std::vector<SphereBody>& bodies() const { return s.bodies; }
};

// Two equal spheres approaching head-on at relative speed v_rel_m_s; returns the contact
// duration [s] and the ratio of normal relative velocities after/before.
struct Collision { double duration_s; double velocity_ratio; };

Collision head_on(const SphereContactLaw& law, double radius_m, double v_rel_m_s, double dt_s) {
    std::vector<SphereBody> b{make_sphere(radius_m, 2500.0), make_sphere(radius_m, 2500.0)};
    b[0].x_m = {-radius_m, 0.0, 0.0};
    b[1].x_m = {radius_m, 0.0, 0.0};
    b[0].v_m_s = {0.5 * v_rel_m_s, 0.0, 0.0};
    b[1].v_m_s = {-0.5 * v_rel_m_s, 0.0, 0.0};
    Verlet run(b, law);
    const auto& now = run.bodies();
    double t = 0.0;
    for (int n = 0; n < 10'000'000; ++n) {
        run.step(dt_s);
        t += dt_s;
        if (now[1].x_m[0] - now[0].x_m[0] >= 2.0 * radius_m) break;
    }
    return {t, (now[1].v_m_s[0] - now[0].v_m_s[0]) / v_rel_m_s};
}
}  // namespace

TEST_CASE("sphere bodies: Hertz contact lasts 2.87 (m*^2 / (R* E*^2 v))^(1/5)") {
    SphereContactLaw law;
    law.youngs_modulus_Pa = 1e7;
    law.poisson_ratio = 0.25;
    const double r = 0.05, v = 0.2;
    const double m_star = 0.5 * make_sphere(r, 2500.0).mass_kg;
    const double e_star = law.youngs_modulus_Pa / (2.0 * (1.0 - 0.25 * 0.25));
    const double expected = 2.87 * std::pow(m_star * m_star / (0.5 * r * e_star * e_star * v), 0.2);
    const Collision c = head_on(law, r, v, expected / 4000.0);
    MESSAGE("Hertz duration " << c.duration_s << " s, expected " << expected << " s");
    CHECK(std::abs(c.duration_s / expected - 1.0) < 0.02);
    CHECK(c.velocity_ratio == doctest::Approx(1.0).epsilon(1e-3));
}

TEST_CASE("sphere bodies: Hooke rebound has the input restitution; e = 0 sticks") {
    SphereContactLaw law;
    law.law = NormalLaw::hooke;
    law.stiffness_N_m = 1e4;
    for (double e : {0.3, 0.6, 0.9}) {
        law.restitution = e;
        const Collision c = head_on(law, 0.05, 0.2, 1e-5);
        MESSAGE("e = " << e << ": v+/v- = " << c.velocity_ratio);
        CHECK(std::abs(c.velocity_ratio / e - 1.0) < 0.03);
    }
    law.restitution = 0.0;
    std::vector<SphereBody> b{make_sphere(0.05, 2500.0), make_sphere(0.05, 2500.0)};
    b[0].x_m = {-0.05, 0.0, 0.0};
    b[1].x_m = {0.05, 0.0, 0.0};
    b[0].v_m_s = {0.1, 0.0, 0.0};
    b[1].v_m_s = {-0.1, 0.0, 0.0};
    Verlet run(b, law);
    for (int n = 0; n < 200'000; ++n) run.step(1e-5);
    const auto& end = run.bodies();
    CHECK(end[1].x_m[0] - end[0].x_m[0] <= 0.1 + 1e-12);          // no rebound: still touching after 2 s
    CHECK(std::abs(end[1].v_m_s[0] - end[0].v_m_s[0]) < 1e-6);  // and at rest relative to each other
}

TEST_CASE("sphere bodies: Lagrangian resting configuration turns at the thesis' mean motion") {
    // Three spheres d = 4 km, rho = 2 g/cm^3 in contact, H-bar^2 = H^2 / (G m^3 d) = 1 (eq. 2.12),
    // all turning at omega = H / (3 I + m sum r_i^2) (eq. 4.7); thesis n = 2.03357e-4 rad/s.
    const double d = 4000.0, g = 6.674e-11;
    SphereContactLaw law;
    law.law = NormalLaw::hooke;
    law.stiffness_N_m = 1e14;  // overlap ~1e-4 m: r_ij differs from d by < 1e-7
    law.restitution = 0.5;
    law.gravitational_constant = g;
    std::vector<SphereBody> b(3, make_sphere(0.5 * d, 2000.0));
    const double m = b[0].mass_kg, rc = d / std::sqrt(3.0);
    const double h = std::sqrt(g * m * m * m * d);
    const double omega = h / (3.0 * sphere_inertia_kg_m2(b[0]) + 3.0 * m * rc * rc);
    for (int i = 0; i < 3; ++i) {
        const double phi = 2.0 * std::numbers::pi * i / 3.0;
        b[i].x_m = {rc * std::cos(phi), rc * std::sin(phi), 0.0};
        b[i].v_m_s = {-omega * rc * std::sin(phi), omega * rc * std::cos(phi), 0.0};
        b[i].omega_rad_s = {0.0, 0.0, omega};
    }
    CHECK(normalised_h2(b, g) == doctest::Approx(1.0).epsilon(1e-12));
    const vec::V h0 = sphere_angular_momentum(b);
    Verlet run(b, law);
    const auto& x = run.bodies();
    const double dt = 0.05, t_end = 2.0 * std::numbers::pi / omega;  // one revolution
    double angle = 0.0, previous = std::atan2(b[0].x_m[1], b[0].x_m[0]);
    int steps = static_cast<int>(t_end / dt);
    for (int n = 0; n < steps; ++n) {
        run.step(dt);
        const double now = std::atan2(x[0].x_m[1], x[0].x_m[0]);
        angle += std::remainder(now - previous, 2.0 * std::numbers::pi);
        previous = now;
    }
    const double n_measured = angle / (steps * dt);
    MESSAGE("LR mean motion " << n_measured << " rad/s (thesis 2.03357e-4)");
    CHECK(std::abs(n_measured / 2.03357e-4 - 1.0) < 1e-3);
    CHECK(sphere_angular_momentum(x)[2] == doctest::Approx(h0[2]).epsilon(1e-12));
}

TEST_CASE("sphere bodies: velocity Verlet keeps a Kepler orbit's energy and angular momentum") {
    // eccentricity 0.5, semi-major axis 1 m, G M = 1 m^3/s^2: period 2 pi s; 100 orbits
    const double g = 1.0, e = 0.5;
    std::vector<SphereBody> b{make_sphere(0.01, 1.0), make_sphere(0.01, 1.0)};
    b[0].mass_kg = 1.0 - 1e-12;
    b[1].mass_kg = 1e-12;
    b[1].x_m = {1.0 - e, 0.0, 0.0};
    b[1].v_m_s = {0.0, std::sqrt((1.0 + e) / (1.0 - e)), 0.0};
    b[0].v_m_s = {0.0, -b[1].v_m_s[1] * b[1].mass_kg / b[0].mass_kg, 0.0};
    SphereContactLaw law;
    law.gravitational_constant = g;
    const double e0 = sphere_energy_J(b, g), h0 = sphere_angular_momentum(b)[2];
    Verlet run(b, law);
    const double dt = 2.0 * std::numbers::pi / 2000.0;
    double worst = 0.0;
    for (int n = 0; n < 200'000; ++n) {
        run.step(dt);
        worst = std::max(worst, std::abs(sphere_energy_J(run.bodies(), g) / e0 - 1.0));
    }
    const double h_drift = std::abs(sphere_angular_momentum(run.bodies())[2] / h0 - 1.0);
    MESSAGE("100 orbits, 2000 steps/orbit: worst relative energy error " << worst << ", angular momentum drift "
                                                                          << h_drift);
    CHECK(worst < 1e-4);    // symplectic: bounded, O(dt^2), no secular drift
    CHECK(h_drift < 1e-11);  // central forces: conserved to rounding
}

namespace {
// A sphere (R = 5 cm, 2500 kg/m^3) resting on a plane inclined at 30 degrees under g; returns
// the largest downslope displacement [m] over t_end_s, that between t_end_s / 2 and t_end_s, and the downslope acceleration [m/s^2]
// between t_end_s / 2 and t_end_s.
struct Incline { double max_displacement_m; double creep_m; double accel_m_s2; };

Incline on_incline(double mu, bool rotation_locked, double t_end_s) {
    const double beta = std::numbers::pi / 6.0, g = 9.81, dt = 1e-4;
    BodySystem s;
    s.law.law = NormalLaw::hooke;
    s.law.stiffness_N_m = 1e5;
    s.law.restitution = 0.5;
    s.law.uniform_gravity_m_s2 = {0.0, 0.0, -g};
    s.friction = {2.0 / 7.0 * 1e5, mu, mu};
    const vec::V n{std::sin(beta), 0.0, std::cos(beta)}, t{std::cos(beta), 0.0, -std::sin(beta)};
    s.walls = {PlaneWall{{0.0, 0.0, 0.0}, n}};
    SphereBody b = make_sphere(0.05, 2500.0);
    b.rotation_locked = rotation_locked;
    const double rest = b.radius_m - b.mass_kg * g * std::cos(beta) / s.law.stiffness_N_m;
    b.x_m = {rest * n[0], rest * n[1], rest * n[2]};
    s.bodies = {b};
    BodyRates r = body_rates(s, 0.0);
    const int steps = static_cast<int>(t_end_s / dt);
    double max_s = 0.0, v_half = 0.0, s_half = 0.0;
    for (int k = 1; k <= steps; ++k) {
        body_verlet_step(s, r, dt);
        max_s = std::max(max_s, std::abs(vec::dot(vec::sub(s.bodies[0].x_m, b.x_m), t)));
        if (k == steps / 2) {
            v_half = vec::dot(s.bodies[0].v_m_s, t);
            s_half = vec::dot(vec::sub(s.bodies[0].x_m, b.x_m), t);
        }
    }
    const double s_end = vec::dot(vec::sub(s.bodies[0].x_m, b.x_m), t);
    return {max_s, s_end - s_half, (vec::dot(s.bodies[0].v_m_s, t) - v_half) / (0.5 * steps * dt)};
}
}  // namespace

TEST_CASE("sphere bodies: friction on a 30 degree plane holds at mu = 0.8, slides at mu = 0.3") {
    const double beta = std::numbers::pi / 6.0, g = 9.81;
    const Incline held = on_incline(0.8, true, 2.0);
    // the tangential spring's static deflection is m g sin(beta) / k_t = 2.2e-4 m; once the
    // dashpot has settled it (rate zeta omega_t = 32 /s) the sphere must not creep
    MESSAGE("mu = 0.8: largest displacement " << held.max_displacement_m << " m, creep over the last second "
                                              << held.creep_m << " m");
    CHECK(held.max_displacement_m < 1e-3);
    CHECK(std::abs(held.creep_m) < 1e-9);
    const Incline slid = on_incline(0.3, true, 1.0);
    const double expected = g * (std::sin(beta) - 0.3 * std::cos(beta));
    MESSAGE("mu = 0.3: accel " << slid.accel_m_s2 << " m/s^2, expected " << expected);
    CHECK(std::abs(slid.accel_m_s2 / expected - 1.0) < 0.01);
    // a free sphere with enough friction rolls without slipping at (5/7) g sin(beta)
    const Incline rolled = on_incline(0.8, false, 1.0);
    MESSAGE("rolling: accel " << rolled.accel_m_s2 << " m/s^2, expected " << 5.0 / 7.0 * g * std::sin(beta));
    CHECK(std::abs(rolled.accel_m_s2 / (5.0 / 7.0 * g * std::sin(beta)) - 1.0) < 0.01);
}

TEST_CASE("sphere bodies: tidal torque and force (Levine eqs. 3.9, 3.18) dissipate at Gamma |phi_dot|") {
    const double g = 6.674e-11, rho = 2000.0;
    SphereBody parent = make_sphere(2000.0, rho), child = make_sphere(2000.0, rho);
    child.x_m = {6000.0, 1000.0, 0.0};
    child.v_m_s = {-0.1, 0.5, 0.0};
    TidalParameters p{1e-5, 100.0, rho, g};
    for (double spin : {1e-3, -1e-3}) {
        parent.omega_rad_s = {0.0, 0.0, spin};
        const TidalLoad load = tidal_load(parent, child, p);
        const vec::V r = vec::sub(child.x_m, parent.x_m);
        const double r2 = vec::dot(r, r);
        const double theta_dot = vec::cross(r, child.v_m_s)[2] / r2;
        const double gamma = 1.5e-5 * g * child.mass_kg * child.mass_kg * std::pow(2000.0, 5) / (r2 * r2 * r2) /
                             std::sqrt(1.0 + 1e4);
        CHECK(std::abs(load.torque_z_N_m) == doctest::Approx(gamma).epsilon(1e-12));
        CHECK(std::abs(load.torque_z_N_m) > 0.0);
        // power of the torque on the spin plus the force on the relative motion
        const double power = load.torque_z_N_m * spin + vec::dot(load.force_N, child.v_m_s);
        CHECK(power == doctest::Approx(-gamma * std::abs(spin - theta_dot)).epsilon(1e-12));
        // angular momentum: the spin's change cancels the moment of the force pair
        CHECK(load.torque_z_N_m + vec::cross(r, load.force_N)[2] == doctest::Approx(0.0).scale(gamma));
    }
}

TEST_CASE("sphere bodies: tidal spin-down of touching spheres is the thesis' Table 5.3 rate") {
    // Euler resting: the centre body touches two (r = d), an outer one touches one and sees the
    // other at 2 d; thesis 6.55193e-15 and 3.32766e-15 rad/s^2 (Table 5.3).
    const double g = 6.674e-11, rho = 2000.0, d = 4000.0;
    std::vector<SphereBody> b(3, make_sphere(0.5 * d, rho));
    b[1].x_m = {d, 0.0, 0.0};
    b[2].x_m = {-d, 0.0, 0.0};
    for (auto& body : b) body.omega_rad_s = {0.0, 0.0, 1e-3};
    const TidalParameters p{1e-5, 100.0, rho, g};
    auto spin_down = [&](int i) {
        double torque = 0.0;
        for (int j = 0; j < 3; ++j) {
            if (j != i) torque += tidal_load(b[i], b[j], p).torque_z_N_m;
        }
        return -torque / sphere_inertia_kg_m2(b[i]);
    };
    CHECK(std::abs(spin_down(0) / 6.55193e-15 - 1.0) < 1e-3);
    CHECK(std::abs(spin_down(1) / 3.32766e-15 - 1.0) < 1e-3);
}
