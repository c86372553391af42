// Systems of particle-free spheres (issue 48; Levine 2016, the full three-body problem with
// tides): the forces of sphere_bodies.hpp (gravity, contact, plane walls with friction) plus the
// planar tides of every ordered pair, impulsive impacts located in time (thesis secs. 3.3, 6.3), three integrators, the
// thesis' canonical units (sec. 4.3.1) and the quantities of its post-processing (energy
// function eq. 2.6, tidal energy rate eqs. 3.12-3.13, configuration labels of its Figure 2.3).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "geometry/sphere_bodies.hpp"

namespace regosph::geometry {

enum class BodyIntegrator {
    verlet,    // velocity Verlet, fixed step: the thesis' integrator, symplectic without dashpots
    yoshida4,  // Yoshida (1990) 4th-order composition of three Verlet steps, fixed step
    dopri45,   // Dormand-Prince 5(4) with step control: the thesis' RK45
};

struct BodyIntegratorOptions {
    BodyIntegrator method = BodyIntegrator::verlet;
    double dt_s = 1.0;                  // the step (verlet, yoshida4); the first step (dopri45)
    double relative_tolerance = 1e-10;  // dopri45: local error per step over the state's scale
    // < 0: contact by the contact law alone. In [0, 1]: two spheres more than the tolerance apart
    // that come to touch take the impulse of restitution e along their centres (thesis eqs.
    // 3.33-3.35; 0 = perfectly inelastic) when their gap is within the tolerance, found by
    // bisection of the step, and pass it on to the spheres they touch (impact_cluster); pairs
    // closer than that are left to the contact law.
    double impact_restitution = -1.0;
    double impact_gap_tolerance_m = 1e-6;
};

struct ImpactEvent {
    double time_s = 0.0;
    int body_a = 0, body_b = 0;
    double approach_speed_m_s = 0.0;
    double energy_lost_J = 0.0;
};

struct BodyRates {
    std::vector<vec::V> accel_m_s2, angular_accel_rad_s2;
};

struct BodySystem {
    std::vector<SphereBody> bodies;
    SphereContactLaw law;               // mutual gravity, contact, uniform gravity
    std::vector<TidalParameters> tidal;  // one per body as a parent; empty: no tides
    std::vector<PlaneWall> walls;        // fixed planes; their contacts use law and friction
    FrictionLaw friction;                // at the walls (the spheres meet each other frictionless)
    // tangential springs of the sphere-wall contacts, bodies.size() * walls.size(), body-major;
    // part of the state a restart must keep
    std::vector<TangentialSpring> wall_history;
    BodyIntegratorOptions options;
    double time_s = 0.0;
    double dissipated_J = 0.0;  // taken by dashpots, tides and impacts since the start
    std::vector<ImpactEvent> impacts;
    long long steps = 0, rejected_steps = 0;
    double next_step_s = 0.0;  // dopri45's step control; 0: options.dt_s
    // energy the dashpots and tides took in the last trial step [J], integrated as the step
    // integrates the motion (trapezoidal per Verlet step, the Runge-Kutta weights in dopri45)
    double step_dissipated_J = 0.0;
};

// Forces and torques of the walls on the bodies, added to r; the tangential springs advance by
// the contact-point slip over spring_dt_s [s] (the step that led to this state; 0: none).
inline void add_wall_rates(BodySystem& s, BodyRates& r, double spring_dt_s) {
    if (s.walls.empty()) return;
    s.wall_history.resize(s.bodies.size() * s.walls.size());
    for (std::size_t i = 0; i < s.bodies.size(); ++i) {
        vec::V force{}, torque{};
        for (std::size_t w = 0; w < s.walls.size(); ++w) {
            wall_contact(s.bodies[i], s.walls[w], s.law, s.friction, s.wall_history[i * s.walls.size() + w],
                         spring_dt_s, force, torque);
        }
        const double inertia = sphere_inertia_kg_m2(s.bodies[i]);
        for (int k = 0; k < 3; ++k) {
            r.accel_m_s2[i][k] += force[k] / s.bodies[i].mass_kg;
            if (!s.bodies[i].rotation_locked) r.angular_accel_rad_s2[i][k] += torque[k] / inertia;
        }
    }
}

// Accelerations of the bodies at their state: gravity and contact (sphere_accelerations), the
// walls (add_wall_rates; spring_dt_s as there) and the tidal torque and force of every ordered
// pair (tidal_load).
inline BodyRates body_rates(BodySystem& s, double spring_dt_s) {
    BodyRates r;
    r.accel_m_s2 = sphere_accelerations(s.bodies, s.law);
    r.angular_accel_rad_s2.assign(s.bodies.size(), vec::V{});
    add_wall_rates(s, r, spring_dt_s);
    if (s.tidal.empty()) return r;
    if (s.tidal.size() != s.bodies.size()) throw std::invalid_argument("body system: tidal needs one entry per body");
    for (std::size_t i = 0; i < s.bodies.size(); ++i) {
        for (std::size_t j = 0; j < s.bodies.size(); ++j) {
            if (i == j) continue;
            const TidalLoad load = tidal_load(s.bodies[i], s.bodies[j], s.tidal[i]);
            if (!s.bodies[i].rotation_locked) {
                r.angular_accel_rad_s2[i][2] += load.torque_z_N_m / sphere_inertia_kg_m2(s.bodies[i]);
            }
            for (int k = 0; k < 3; ++k) {
                r.accel_m_s2[j][k] += load.force_N[k] / s.bodies[j].mass_kg;
                r.accel_m_s2[i][k] -= load.force_N[k] / s.bodies[i].mass_kg;
            }
        }
    }
    return r;
}

// Rate of change [W] of the mechanical energy by the tides: the power of the torques on the
// spins and of the forces on the relative motion, = -sum Gamma_ij |phi_dot_ij| over the ordered
// pairs (eqs. 3.12-3.13; the thesis' prediction eq. 5.3 summed over its six tides).
inline double tidal_energy_rate_W(const std::vector<SphereBody>& b, const std::vector<TidalParameters>& tidal) {
    double p = 0.0;
    for (std::size_t i = 0; i < tidal.size(); ++i) {
        for (std::size_t j = 0; j < b.size(); ++j) {
            if (i == j) continue;
            const TidalLoad load = tidal_load(b[i], b[j], tidal[i]);
            p += load.torque_z_N_m * b[i].omega_rad_s[2] + vec::dot(load.force_N, vec::sub(b[j].v_m_s, b[i].v_m_s));
        }
    }
    return p;
}

// Elastic part of the normal force [N] and its potential [J] at overlap delta [m].
inline double contact_elastic_force_N(const SphereContactLaw& c, double delta, double r_star) {
    if (c.law == NormalLaw::hooke) return c.stiffness_N_m * delta;
    const double e_star = c.youngs_modulus_Pa / (2.0 * (1.0 - c.poisson_ratio * c.poisson_ratio));
    return 4.0 / 3.0 * e_star * std::sqrt(r_star) * delta * std::sqrt(delta);
}
inline double contact_potential_J(const SphereContactLaw& c, double delta, double r_star) {
    if (c.law == NormalLaw::hooke) return 0.5 * c.stiffness_N_m * delta * delta;
    return 0.4 * contact_elastic_force_N(c, delta, r_star) * delta;  // 8/15 E* sqrt(R*) delta^2.5
}

// Calls f(i, j, delta, delta_dot, m_star, r_star) for every overlapping pair; delta_dot > 0
// while the spheres approach.
template <class F>
void for_each_contact(const std::vector<SphereBody>& b, F&& f) {
    for (std::size_t i = 0; i < b.size(); ++i) {
        for (std::size_t j = i + 1; j < b.size(); ++j) {
            const vec::V d = vec::sub(b[j].x_m, b[i].x_m);
            const double r = vec::norm(d);
            const double delta = b[i].radius_m + b[j].radius_m - r;
            if (!(delta > 0.0)) continue;
            const double m_star = b[i].mass_kg * b[j].mass_kg / (b[i].mass_kg + b[j].mass_kg);
            const double r_star = b[i].radius_m * b[j].radius_m / (b[i].radius_m + b[j].radius_m);
            f(i, j, delta, -vec::dot(vec::sub(b[j].v_m_s, b[i].v_m_s), d) / r, m_star, r_star);
        }
    }
}

// Rate [W, >= 0] at which dashpots and tides take mechanical energy out.
inline double dissipation_rate_W(const BodySystem& s) {
    double p = -tidal_energy_rate_W(s.bodies, s.tidal);
    for_each_contact(s.bodies, [&](std::size_t, std::size_t, double delta, double delta_dot, double m_star,
                                   double r_star) {
        const double f = normal_force_N(s.law, delta, delta_dot, m_star, r_star);
        p += (f - contact_elastic_force_N(s.law, delta, r_star)) * delta_dot;
    });
    return p;
}

// Mechanical energy [J]: kinetic, mutual gravity, contact springs between spheres and uniform
// gravity; with dissipated_J it is constant up to the integrator's error while no sphere touches
// a wall (the walls' springs, dashpots and friction are not in the balance).
inline double body_system_energy_J(const BodySystem& s) {
    double e = sphere_energy_J(s.bodies, s.law.gravitational_constant);
    for_each_contact(s.bodies, [&](std::size_t, std::size_t, double delta, double, double, double r_star) {
        e += contact_potential_J(s.law, delta, r_star);
    });
    for (const SphereBody& b : s.bodies) e -= b.mass_kg * vec::dot(s.law.uniform_gravity_m_s2, b.x_m);
    return e;
}

// Velocity-Verlet step of h [s] with the rates at the present state in `r` (updated) and the
// dissipation rate p0 [W] there; adds the energy dissipated in the step to step_dissipated_J and
// returns the rate at the end. The dashpots and tides see the half-step velocities.
inline double verlet_substep(BodySystem& s, BodyRates& r, double h, double p0) {
    kick_bodies(s.bodies, r.accel_m_s2, r.angular_accel_rad_s2, 0.5 * h);
    for (auto& b : s.bodies) {
        for (int k = 0; k < 3; ++k) b.x_m[k] += h * b.v_m_s[k];
    }
    r = body_rates(s, h);
    kick_bodies(s.bodies, r.accel_m_s2, r.angular_accel_rad_s2, 0.5 * h);
    const double p1 = dissipation_rate_W(s);
    s.step_dissipated_J += 0.5 * h * (p0 + p1);
    return p1;
}

inline void body_verlet_step(BodySystem& s, BodyRates& r, double h) {
    s.step_dissipated_J = 0.0;
    verlet_substep(s, r, h, dissipation_rate_W(s));
}

// Yoshida's 4th-order symplectic composition: Verlet steps of w1 h, w0 h, w1 h.
inline void body_yoshida4_step(BodySystem& s, BodyRates& r, double h) {
    const double c = std::cbrt(2.0), w1 = 1.0 / (2.0 - c), w0 = -c / (2.0 - c);
    s.step_dissipated_J = 0.0;
    double p = dissipation_rate_W(s);
    p = verlet_substep(s, r, w1 * h, p);
    p = verlet_substep(s, r, w0 * h, p);
    verlet_substep(s, r, w1 * h, p);
}

namespace detail {
// State (x, v, omega) of every body as one vector, and its time derivative.
inline std::vector<double> pack_state(const std::vector<SphereBody>& b) {
    std::vector<double> y(9 * b.size());
    for (std::size_t i = 0; i < b.size(); ++i) {
        for (int k = 0; k < 3; ++k) {
            y[9 * i + k] = b[i].x_m[k];
            y[9 * i + 3 + k] = b[i].v_m_s[k];
            y[9 * i + 6 + k] = b[i].omega_rad_s[k];
        }
    }
    return y;
}
inline void unpack_state(const std::vector<double>& y, std::vector<SphereBody>& b) {
    for (std::size_t i = 0; i < b.size(); ++i) {
        for (int k = 0; k < 3; ++k) {
            b[i].x_m[k] = y[9 * i + k];
            b[i].v_m_s[k] = y[9 * i + 3 + k];
            b[i].omega_rad_s[k] = y[9 * i + 6 + k];
        }
    }
}
inline std::vector<double> state_rate(const BodySystem& s, const BodyRates& r) {
    std::vector<double> f(9 * s.bodies.size());
    for (std::size_t i = 0; i < s.bodies.size(); ++i) {
        for (int k = 0; k < 3; ++k) {
            f[9 * i + k] = s.bodies[i].v_m_s[k];
            f[9 * i + 3 + k] = r.accel_m_s2[i][k];
            f[9 * i + 6 + k] = r.angular_accel_rad_s2[i][k];
        }
    }
    return f;
}
// Largest |x|, |v|, |omega| of the state, the scales of dopri45's relative error, with floors
// for bodies at rest: the first radius for positions, the change over the step h at the rates
// `f` (state_rate) for velocities and spins.
inline std::array<double, 3> state_scales(const std::vector<SphereBody>& b, const std::vector<double>& f, double h) {
    std::array<double, 3> sc{b.at(0).radius_m, 1e-300, 1e-300};
    for (std::size_t i = 0; i < b.size(); ++i) {
        sc[0] = std::max(sc[0], vec::norm(b[i].x_m));
        for (int g = 1; g < 3; ++g) {
            const double* rate = &f[9 * i + 3 * g];
            const vec::V& value = g == 1 ? b[i].v_m_s : b[i].omega_rad_s;
            sc[g] = std::max({sc[g], vec::norm(value), h * std::sqrt(rate[0] * rate[0] + rate[1] * rate[1] + rate[2] * rate[2])});
        }
    }
    return sc;
}
}  // namespace detail

// One Dormand-Prince 5(4) step of h [s] (Dormand & Prince 1980, the tableau of MATLAB's ode45):
// s takes the 5th-order state and r its rates (first same as last); returns the error
// estimate over relative_tolerance times the state's scales (<= 1: acceptable).
inline double body_dopri_step(BodySystem& s, BodyRates& r, double h) {
    static constexpr double a[7][6] = {
        {0, 0, 0, 0, 0, 0},
        {1.0 / 5, 0, 0, 0, 0, 0},
        {3.0 / 40, 9.0 / 40, 0, 0, 0, 0},
        {44.0 / 45, -56.0 / 15, 32.0 / 9, 0, 0, 0},
        {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729, 0, 0},
        {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656, 0},
        {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
    // 5th- minus 4th-order weights
    static constexpr double e[7] = {71.0 / 57600,      0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200,
                                    22.0 / 525, -1.0 / 40};
    const std::vector<double> y0 = detail::pack_state(s.bodies);
    std::vector<std::vector<double>> k(7);
    k[0] = detail::state_rate(s, r);
    const auto scales = detail::state_scales(s.bodies, k[0], h);
    s.step_dissipated_J = h * a[6][0] * dissipation_rate_W(s);
    std::vector<double> y(y0.size());
    for (int stage = 1; stage < 7; ++stage) {
        for (std::size_t n = 0; n < y.size(); ++n) {
            double sum = 0.0;
            for (int j = 0; j < stage; ++j) sum += a[stage][j] * k[j][n];
            y[n] = y0[n] + h * sum;
        }
        detail::unpack_state(y, s.bodies);
        r = body_rates(s, 0.0);  // no walls with dopri45 (integrate_bodies)
        k[stage] = detail::state_rate(s, r);
        if (stage < 6) s.step_dissipated_J += h * a[6][stage] * dissipation_rate_W(s);
    }
    double err = 0.0;
    for (std::size_t n = 0; n < y.size(); ++n) {
        double sum = 0.0;
        for (int j = 0; j < 7; ++j) sum += e[j] * k[j][n];
        err = std::max(err, std::abs(h * sum) / (s.options.relative_tolerance * scales[(n % 9) / 3]));
    }
    return err;
}

// Distance between the surfaces of bodies i and j [m] (< 0: overlap).
inline double surface_gap_m(const std::vector<SphereBody>& b, std::size_t i, std::size_t j) {
    return vec::norm(vec::sub(b[j].x_m, b[i].x_m)) - b[i].radius_m - b[j].radius_m;
}

// The impulse of restitution e on two spheres that touch (thesis eqs. 3.28-3.35; for spheres
// without friction the spins take none); returns the event, with no energy lost if they part.
inline ImpactEvent apply_impact(BodySystem& s, std::size_t i, std::size_t j, double e) {
    SphereBody& a = s.bodies[i];
    SphereBody& b = s.bodies[j];
    const vec::V d = vec::sub(a.x_m, b.x_m);
    const double r = vec::norm(d);
    const vec::V n{d[0] / r, d[1] / r, d[2] / r};
    const double v_rel = vec::dot(n, vec::sub(a.v_m_s, b.v_m_s));  // < 0 while approaching
    ImpactEvent ev{s.time_s, static_cast<int>(i), static_cast<int>(j), -v_rel, 0.0};
    if (v_rel >= 0.0) return ev;
    const double m_star = a.mass_kg * b.mass_kg / (a.mass_kg + b.mass_kg);
    const double j_n = -(1.0 + e) * v_rel * m_star;
    for (int k = 0; k < 3; ++k) {
        a.v_m_s[k] += j_n * n[k] / a.mass_kg;
        b.v_m_s[k] -= j_n * n[k] / b.mass_kg;
    }
    ev.energy_lost_J = 0.5 * m_star * v_rel * v_rel * (1.0 - e * e);
    return ev;
}

// One trial step of h from s with the rates r (both updated); returns the error estimate
// (0 for the fixed-step methods).
inline double body_trial_step(BodySystem& s, BodyRates& r, double h) {
    switch (s.options.method) {
        case BodyIntegrator::verlet: body_verlet_step(s, r, h); return 0.0;
        case BodyIntegrator::yoshida4: body_yoshida4_step(s, r, h); return 0.0;
        case BodyIntegrator::dopri45: return body_dopri_step(s, r, h);
    }
    return 0.0;
}

// Pairs more than `gap_m` apart in `before` that overlap in `after`.
inline std::vector<std::pair<std::size_t, std::size_t>> new_contacts(const std::vector<SphereBody>& before,
                                                                      const std::vector<SphereBody>& after,
                                                                      double gap_m) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (std::size_t i = 0; i < before.size(); ++i) {
        for (std::size_t j = i + 1; j < before.size(); ++j) {
            if (surface_gap_m(before, i, j) > gap_m && surface_gap_m(after, i, j) < 0.0) out.emplace_back(i, j);
        }
    }
    return out;
}

// Bisects the step h that took the bodies from `start` (rates r_start) to their present state
// until the nearest of the pairs that came into contact is apart by at most the impact
// tolerance; s and r end at that time, just before touching, so that no step integrates the
// dashpot's jump from zero to c v at first touch. Returns the step length; `error` takes the
// error estimate of that step (dopri45).
inline double land_on_contact(BodySystem& s, BodyRates& r, const std::vector<SphereBody>& start,
                              const std::vector<TangentialSpring>& start_walls, const BodyRates& r_start, double h,
                              const std::vector<std::pair<std::size_t, std::size_t>>& pairs, double& error) {
    auto nearest = [&pairs](const std::vector<SphereBody>& b) {
        double g = std::numeric_limits<double>::infinity();
        for (const auto& [i, j] : pairs) g = std::min(g, surface_gap_m(b, i, j));
        return g;
    };
    std::vector<SphereBody> lo_bodies = start;
    std::vector<TangentialSpring> lo_walls = start_walls;
    BodyRates lo_r = r_start;
    double lo_dissipated = 0.0;
    error = 0.0;
    double lo = 0.0, hi = h;
    for (int it = 0; it < 200 && nearest(lo_bodies) > s.options.impact_gap_tolerance_m && hi - lo > 1e-14 * h; ++it) {
        const double mid = 0.5 * (lo + hi);
        s.bodies = start;
        s.wall_history = start_walls;
        r = r_start;
        const double err = body_trial_step(s, r, mid);
        if (nearest(s.bodies) < 0.0) {
            hi = mid;
        } else {
            lo = mid;
            lo_bodies = s.bodies;
            lo_walls = s.wall_history;
            lo_r = r;
            lo_dissipated = s.step_dissipated_J;
            error = err;
        }
    }
    s.bodies = std::move(lo_bodies);
    s.wall_history = std::move(lo_walls);
    r = std::move(lo_r);
    s.step_dissipated_J = lo_dissipated;
    return lo;
}

// The impulses of an impact of the given pairs at time_s and, since a sphere that is struck
// passes the blow on to those it touches, of every touching pair that then approaches, swept
// until none does (sequential impulses; a perfectly inelastic cluster moves as one). Returns
// the kinetic energy they take [J].
inline double impact_cluster(BodySystem& s, const std::vector<std::pair<std::size_t, std::size_t>>& pairs,
                             double time_s) {
    const double tol = s.options.impact_gap_tolerance_m, e = s.options.impact_restitution;
    double lost = 0.0;
    auto hit = [&](std::size_t i, std::size_t j) {
        ImpactEvent ev = apply_impact(s, i, j, e);
        if (ev.energy_lost_J <= 0.0) return false;
        ev.time_s = time_s;
        lost += ev.energy_lost_J;
        s.impacts.push_back(ev);
        return true;
    };
    for (const auto& [i, j] : pairs) {
        if (surface_gap_m(s.bodies, i, j) <= tol) hit(i, j);
    }
    for (int sweep = 0; sweep < 100; ++sweep) {
        bool any = false;
        for (std::size_t i = 0; i < s.bodies.size(); ++i) {
            for (std::size_t j = i + 1; j < s.bodies.size(); ++j) {
                if (surface_gap_m(s.bodies, i, j) <= tol) any = hit(i, j) || any;
            }
        }
        if (!any) break;
    }
    return lost;
}

// Advances s by one accepted step of at most h_max [s] (dopri45 retries until its error is
// acceptable), ended early when two spheres come to touch and impacts are on: a trial step that
// brings a pair into contact is cut back to just before the touch (land_on_contact), whatever
// its error, which otherwise would make dopri45 creep up to the contact. r holds the rates at
// s's state. The energy taken by dashpots, tides and impacts is summed in dissipated_J.
inline void body_step(BodySystem& s, BodyRates& r, double h_max) {
    const bool adaptive = s.options.method == BodyIntegrator::dopri45;
    const bool impacts = s.options.impact_restitution >= 0.0;
    const double h_wanted = adaptive && s.next_step_s > 0.0 ? s.next_step_s : s.options.dt_s;
    const bool clamped = h_max < h_wanted;
    double h = std::min(h_wanted, h_max);
    const std::vector<SphereBody> start = s.bodies;
    const std::vector<TangentialSpring> start_walls = s.wall_history;
    const BodyRates r_start = r;
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    bool rejected = false;
    double err = 0.0;
    for (;;) {
        err = body_trial_step(s, r, h);
        pairs = impacts ? new_contacts(start, s.bodies, s.options.impact_gap_tolerance_m)
                        : std::vector<std::pair<std::size_t, std::size_t>>{};
        if (!pairs.empty()) h = land_on_contact(s, r, start, start_walls, r_start, h, pairs, err);
        if (!adaptive || err <= 1.0) break;
        ++s.rejected_steps;
        rejected = true;
        h *= std::max(0.2, 0.9 * std::pow(err, -0.2));
        if (!(h > 1e-12 * s.options.dt_s))
            throw std::runtime_error("body system: dopri45's step fell below 1e-12 dt_s at t = " +
                                     std::to_string(s.time_s) + " s");
        s.bodies = start;
        s.wall_history = start_walls;
        r = r_start;
    }
    if (adaptive && h > 0.0) {
        const double grown = h * std::min(5.0, std::max(0.2, 0.9 * std::pow(std::max(err, 1e-12), -0.2)));
        s.next_step_s = (clamped || !pairs.empty()) && !rejected ? std::max(grown, h_wanted) : grown;
    }
    double lost_in_impacts = 0.0;
    if (!pairs.empty()) {
        lost_in_impacts = impact_cluster(s, pairs, s.time_s + h);
        r = body_rates(s, 0.0);
    }
    s.time_s += h;
    ++s.steps;
    s.dissipated_J += s.step_dissipated_J + lost_in_impacts;
}

// Minimum energy function of Levine eq. 2.6 [J]: H^2 / (2 I_H) + U, with I_H the moment of
// inertia about the barycentric axis along H (orbital and spin parts) and U mutual gravity.
inline double energy_function_J(const std::vector<SphereBody>& b, double gravitational_constant) {
    const vec::V h = barycentric_angular_momentum(b);
    const double hn = vec::norm(h);
    if (!(hn > 0.0)) throw std::invalid_argument("energy function: the angular momentum is zero");
    const vec::V axis{h[0] / hn, h[1] / hn, h[2] / hn};
    const vec::V centre = barycentre_m(b);
    double inertia = 0.0, u = 0.0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        const vec::V r = vec::sub(b[i].x_m, centre);
        const double along = vec::dot(r, axis);
        inertia += b[i].mass_kg * (vec::dot(r, r) - along * along) + sphere_inertia_kg_m2(b[i]);
        for (std::size_t j = i + 1; j < b.size(); ++j) {
            u -= gravitational_constant * b[i].mass_kg * b[j].mass_kg / vec::norm(vec::sub(b[j].x_m, b[i].x_m));
        }
    }
    return hn * hn / (2.0 * inertia) + u;
}

// The equilibrium family of three spheres (Levine Figure 2.3) their contacts describe: pairs
// closer than (R_i + R_j)(1 + contact_tolerance) touch. Three contacts: "lagrange_resting";
// two: "euler_resting" when the angle at the shared body exceeds 120 degrees (halfway between
// the Lagrange 60 and the Euler 180), else "v_resting"; one: "aligned_mixed" when the third
// body lies within 45 degrees of the pair's axis, else "transverse_mixed"; none: "orbiting".
inline std::string configuration_label(const std::vector<SphereBody>& b, double contact_tolerance) {
    if (b.size() != 3) throw std::invalid_argument("configuration label: needs three bodies");
    bool touch[3][3] = {};
    int contacts = 0;
    for (std::size_t i = 0; i < 3; ++i) {
        for (std::size_t j = i + 1; j < 3; ++j) {
            const double r = vec::norm(vec::sub(b[j].x_m, b[i].x_m));
            touch[i][j] = touch[j][i] = r < (b[i].radius_m + b[j].radius_m) * (1.0 + contact_tolerance);
            contacts += touch[i][j] ? 1 : 0;
        }
    }
    auto cos_angle = [&b](std::size_t at, const vec::V& p, const vec::V& q) {
        const vec::V u = vec::sub(p, b[at].x_m), w = vec::sub(q, b[at].x_m);
        return vec::dot(u, w) / (vec::norm(u) * vec::norm(w));
    };
    if (contacts == 3) return "lagrange_resting";
    if (contacts == 0) return "orbiting";
    for (std::size_t k = 0; k < 3; ++k) {
        const std::size_t i = (k + 1) % 3, j = (k + 2) % 3;
        if (contacts == 2 && touch[k][i] && touch[k][j]) {
            return cos_angle(k, b[i].x_m, b[j].x_m) < -0.5 ? "euler_resting" : "v_resting";
        }
        if (contacts == 1 && touch[i][j]) {
            vec::V mid{};
            for (int c = 0; c < 3; ++c) mid[c] = 0.5 * (b[i].x_m[c] + b[j].x_m[c]);
            const vec::V axis = vec::sub(b[j].x_m, b[i].x_m), to_third = vec::sub(b[k].x_m, mid);
            const double c = std::abs(vec::dot(axis, to_third)) / (vec::norm(axis) * vec::norm(to_third));
            return c > std::sqrt(0.5) ? "aligned_mixed" : "transverse_mixed";
        }
    }
    return "orbiting";
}

// The thesis' canonical units (sec. 4.3.1): DU a body's radius, MU its mass, TU such that G = 1.
struct CanonicalUnits {
    double length_m = 1.0, mass_kg = 1.0, time_s = 1.0;
};
inline CanonicalUnits canonical_units(double length_m, double mass_kg, double gravitational_constant) {
    if (!(length_m > 0.0 && mass_kg > 0.0 && gravitational_constant > 0.0))
        throw std::invalid_argument("canonical units: length_m, mass_kg and gravitational_constant must be > 0");
    return {length_m, mass_kg, std::sqrt(length_m * length_m * length_m / (gravitational_constant * mass_kg))};
}

// Expresses s in units of length, mass and time `length`, `mass`, `time` times the present ones
// (canonical: rescale_body_system(s, DU, MU, TU); back: (1/DU, 1/MU, 1/TU)).
inline void rescale_body_system(BodySystem& s, double length, double mass, double time) {
    const double velocity = time / length, force = time * time / (mass * length);
    const double g_scale = mass * time * time / (length * length * length);
    for (SphereBody& b : s.bodies) {
        for (int k = 0; k < 3; ++k) {
            b.x_m[k] /= length;
            b.v_m_s[k] *= velocity;
            b.omega_rad_s[k] *= time;
        }
        b.radius_m /= length;
        b.mass_kg /= mass;
    }
    s.law.stiffness_N_m *= force * length;
    s.law.youngs_modulus_Pa *= force * length * length;
    s.law.gravitational_constant *= g_scale;
    for (int k = 0; k < 3; ++k) s.law.uniform_gravity_m_s2[k] *= time * time / length;
    for (PlaneWall& w : s.walls) {
        for (int k = 0; k < 3; ++k) w.point_m[k] /= length;
    }
    for (TangentialSpring& h : s.wall_history) {
        for (int k = 0; k < 3; ++k) h.spring_m[k] /= length;
    }
    s.friction.tangential_stiffness_N_m *= force * length;
    for (TidalParameters& t : s.tidal) {
        t.density_kg_m3 *= length * length * length / mass;
        t.gravitational_constant *= g_scale;
    }
    s.options.dt_s /= time;
    s.options.impact_gap_tolerance_m /= length;
    s.next_step_s /= time;
    s.time_s /= time;
    s.dissipated_J *= force / length;
    for (ImpactEvent& e : s.impacts) {
        e.time_s /= time;
        e.approach_speed_m_s *= velocity;
        e.energy_lost_J *= force / length;
    }
}

// What integrate_bodies records at each sample.
struct BodyRecord {
    std::vector<double> time_s, energy_J, dissipated_J, tidal_rate_W;
    std::vector<vec::V> angular_momentum;  // about the barycentre [kg m^2/s]
    std::vector<SphereBody> states;        // samples x bodies
};

inline void record_sample(const BodySystem& s, BodyRecord& rec) {
    rec.time_s.push_back(s.time_s);
    rec.energy_J.push_back(body_system_energy_J(s));
    rec.dissipated_J.push_back(s.dissipated_J);
    rec.tidal_rate_W.push_back(tidal_energy_rate_W(s.bodies, s.tidal));
    rec.angular_momentum.push_back(barycentric_angular_momentum(s.bodies));
    rec.states.insert(rec.states.end(), s.bodies.begin(), s.bodies.end());
}

// Integrates s to t_end_s [s], recording its state at the start, every interval_s and at the end.
inline BodyRecord integrate_bodies(BodySystem& s, double t_end_s, double interval_s) {
    if (s.bodies.empty()) throw std::invalid_argument("integrate bodies: the system has no bodies");
    if (!(s.options.dt_s > 0.0)) throw std::invalid_argument("integrate bodies: dt_s must be > 0");
    if (!(interval_s > 0.0)) throw std::invalid_argument("integrate bodies: interval_s must be > 0");
    if (!(t_end_s >= s.time_s)) throw std::invalid_argument("integrate bodies: t_end_s is before the present time");
    if (s.options.method == BodyIntegrator::dopri45 && !(s.options.relative_tolerance > 0.0))
        throw std::invalid_argument("integrate bodies: relative_tolerance must be > 0");
    // the walls' tangential springs advance once per force evaluation by that evaluation's step,
    // which the Runge-Kutta stages do not have; Yoshida's backward middle substep unwinds a
    // sliding spring below the Coulomb limit (friction is not time-reversible): a sphere sliding
    // on a 30 degree plane at mu = 0.1 then accelerates 7 % too slowly
    if (s.options.method != BodyIntegrator::verlet && !s.walls.empty())
        throw std::invalid_argument("integrate bodies: walls need method verlet");
    BodyRecord rec;
    BodyRates r = body_rates(s, 0.0);
    record_sample(s, rec);
    const double eps = 1e-12 * std::max(std::abs(t_end_s), interval_s);
    double next = std::min(s.time_s + interval_s, t_end_s);
    while (s.time_s < t_end_s - eps) {
        body_step(s, r, next - s.time_s);
        if (s.time_s >= next - eps) {
            s.time_s = next;
            record_sample(s, rec);
            next = std::min(next + interval_s, t_end_s);
        }
    }
    return rec;
}

}  // namespace regosph::geometry
