// Rigid spheres that need no SPH particles (issue 48): mass properties from radius and density,
// mutual Newtonian gravity (exact for spheres), normal contact (Hertz or Hooke with viscous
// damping set from a restitution e in [0, 1]), plane walls with Cundall-Strack friction and the
// planar tides of Levine 2016. The system that integrates them is BodySystem (body_system.hpp);
// it costs O(N^2) pair terms per step and nothing else.
#pragma once

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "geometry/vector_ops.hpp"

namespace regosph::geometry {

struct SphereBody {
    double radius_m = 0.0;
    double mass_kg = 0.0;
    vec::V x_m{};                  // centre
    vec::V v_m_s{};                // centre velocity
    vec::V omega_rad_s{};          // spin; changed only by wall friction
    bool rotation_locked = false;  // a sphere that slides without rolling
};

inline SphereBody make_sphere(double radius_m, double density_kg_m3) {
    if (!(radius_m > 0.0)) throw std::invalid_argument("sphere radius_m must be > 0");
    if (!(density_kg_m3 > 0.0)) throw std::invalid_argument("sphere density_kg_m3 must be > 0");
    SphereBody b;
    b.radius_m = radius_m;
    b.mass_kg = 4.0 / 3.0 * std::numbers::pi * radius_m * radius_m * radius_m * density_kg_m3;
    return b;
}

inline double sphere_inertia_kg_m2(const SphereBody& b) { return 0.4 * b.mass_kg * b.radius_m * b.radius_m; }

enum class NormalLaw { hooke, hertz };

struct SphereContactLaw {
    NormalLaw law = NormalLaw::hertz;
    double stiffness_N_m = 0.0;         // Hooke: F = k delta
    double youngs_modulus_Pa = 0.0;     // Hertz: E of both bodies
    double poisson_ratio = 0.0;
    double restitution = 1.0;           // e in [0, 1]; 0 = perfectly inelastic
    double gravitational_constant = 0.0;  // G [m^3 kg^-1 s^-2]; 0 switches mutual gravity off
    vec::V uniform_gravity_m_s2{};
};

// Damping ratio of a linear spring-dashpot whose rebound has restitution e: zeta = -ln e /
// sqrt(pi^2 + ln^2 e); e = 0 gives critical damping (the bodies stick).
inline double damping_ratio(double e) {
    if (!(e >= 0.0 && e <= 1.0)) throw std::invalid_argument("restitution must be in [0, 1]");
    if (e == 0.0) return 1.0;
    const double l = std::log(e);
    return -l / std::sqrt(std::numbers::pi * std::numbers::pi + l * l);
}

// Restitution of a linear spring k [N/m] with a dashpot c [N s/m] between bodies of reduced
// mass m_star [kg]: e = exp(-pi zeta / sqrt(1 - zeta^2)), zeta = c / (2 sqrt(k m*)), the inverse
// of damping_ratio; 0 from critical damping on.
inline double restitution_from_damping(double k, double c, double m_star) {
    if (!(k > 0.0 && c >= 0.0 && m_star > 0.0))
        throw std::invalid_argument("restitution_from_damping: stiffness and reduced_mass must be > 0, damping >= 0");
    const double zeta = c / (2.0 * std::sqrt(k * m_star));
    return zeta >= 1.0 ? 0.0 : std::exp(-std::numbers::pi * zeta / std::sqrt(1.0 - zeta * zeta));
}

// Normal force magnitude [N] (positive pushes the bodies apart) for overlap delta [m] and
// approach rate delta_dot [m/s]. Hooke: k delta + 2 zeta sqrt(k m*) delta_dot, left unclamped
// so that the rebound ends with exactly e (and e = 0 sticks). Hertz: (4/3) E* sqrt(R*) delta^1.5
// with the Tsuji-Antypov damping 2 sqrt(5/6) zeta sqrt(S_n m*), S_n = 2 E* sqrt(R* delta).
inline double normal_force_N(const SphereContactLaw& c, double delta, double delta_dot, double m_star,
                             double r_star) {
    const double zeta = damping_ratio(c.restitution);
    if (c.law == NormalLaw::hooke) {
        return c.stiffness_N_m * delta + 2.0 * zeta * std::sqrt(c.stiffness_N_m * m_star) * delta_dot;
    }
    const double e_star = c.youngs_modulus_Pa / (2.0 * (1.0 - c.poisson_ratio * c.poisson_ratio));
    const double s_n = 2.0 * e_star * std::sqrt(r_star * delta);
    const double f = 4.0 / 3.0 * e_star * std::sqrt(r_star) * delta * std::sqrt(delta) +
                     2.0 * std::sqrt(5.0 / 6.0) * zeta * std::sqrt(s_n * m_star) * delta_dot;
    return std::max(f, 0.0);
}

// Accelerations [m/s^2] of all bodies: uniform gravity, mutual gravity G m_i m_j / r^2 and
// normal contact along the line of centres.
inline std::vector<vec::V> sphere_accelerations(const std::vector<SphereBody>& bodies, const SphereContactLaw& c) {
    std::vector<vec::V> a(bodies.size(), c.uniform_gravity_m_s2);
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        for (std::size_t j = i + 1; j < bodies.size(); ++j) {
            const SphereBody& bi = bodies[i];
            const SphereBody& bj = bodies[j];
            const vec::V d = vec::sub(bj.x_m, bi.x_m);
            const double r = vec::norm(d);
            if (!(r > 0.0)) throw std::runtime_error("sphere bodies: two centres coincide");
            double f = -c.gravitational_constant * bi.mass_kg * bj.mass_kg / (r * r);  // <0 attracts
            const double delta = bi.radius_m + bj.radius_m - r;
            if (delta > 0.0) {
                const double m_star = bi.mass_kg * bj.mass_kg / (bi.mass_kg + bj.mass_kg);
                const double r_star = bi.radius_m * bj.radius_m / (bi.radius_m + bj.radius_m);
                const double delta_dot = -vec::dot(vec::sub(bj.v_m_s, bi.v_m_s), d) / r;
                f += normal_force_N(c, delta, delta_dot, m_star, r_star);
            }
            for (int k = 0; k < 3; ++k) {
                a[i][k] -= f * d[k] / r / bi.mass_kg;
                a[j][k] += f * d[k] / r / bj.mass_kg;
            }
        }
    }
    return a;
}

// Kinetic (translation and spin) plus mutual gravitational energy [J]; contact and wall
// potentials are left out (they vanish between contacts).
inline double sphere_energy_J(const std::vector<SphereBody>& bodies, double gravitational_constant) {
    double e = 0.0;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        const SphereBody& b = bodies[i];
        e += 0.5 * b.mass_kg * vec::dot(b.v_m_s, b.v_m_s) +
             0.5 * sphere_inertia_kg_m2(b) * vec::dot(b.omega_rad_s, b.omega_rad_s);
        for (std::size_t j = i + 1; j < bodies.size(); ++j) {
            e -= gravitational_constant * b.mass_kg * bodies[j].mass_kg / vec::norm(vec::sub(bodies[j].x_m, b.x_m));
        }
    }
    return e;
}

// Total angular momentum [kg m^2/s] about the origin: orbital m x cross v plus spin I omega.
inline vec::V sphere_angular_momentum(const std::vector<SphereBody>& bodies) {
    vec::V h{};
    for (const SphereBody& b : bodies) {
        const vec::V orbital = vec::cross(b.x_m, b.v_m_s);
        for (int k = 0; k < 3; ++k) {
            h[k] += b.mass_kg * orbital[k] + sphere_inertia_kg_m2(b) * b.omega_rad_s[k];
        }
    }
    return h;
}

// Centre of mass [m] of the bodies.
inline vec::V barycentre_m(const std::vector<SphereBody>& bodies) {
    double mass = 0.0;
    vec::V centre{};
    for (const SphereBody& b : bodies) {
        mass += b.mass_kg;
        for (int k = 0; k < 3; ++k) centre[k] += b.mass_kg * b.x_m[k];
    }
    return {centre[0] / mass, centre[1] / mass, centre[2] / mass};
}

// Total angular momentum about the barycentre [kg m^2/s].
inline vec::V barycentric_angular_momentum(const std::vector<SphereBody>& bodies) {
    vec::V momentum{};
    for (const SphereBody& b : bodies) {
        for (int k = 0; k < 3; ++k) momentum[k] += b.mass_kg * b.v_m_s[k];
    }
    return vec::sub(sphere_angular_momentum(bodies), vec::cross(barycentre_m(bodies), momentum));
}

// Normalised angular momentum H-bar^2 = H^2 / (G m^3 d) of equal spheres of mass m and
// diameter d (Levine 2016, eq. 2.12), with H taken about the barycentre.
inline double normalised_h2(const std::vector<SphereBody>& bodies, double gravitational_constant) {
    const vec::V h = barycentric_angular_momentum(bodies);
    const double m = bodies.at(0).mass_kg, d = 2.0 * bodies.at(0).radius_m;
    return vec::dot(h, h) / (gravitational_constant * m * m * m * d);
}

struct TidalParameters {
    double love_number_k2 = 1e-5;
    double quality_factor_q = 100.0;  // Q = 1 / tan(2 epsilon) (eq. 3.10)
    double density_kg_m3 = 0.0;       // of the parent body i
    double gravitational_constant = 0.0;
};

struct TidalLoad {
    double torque_z_N_m = 0.0;  // on the parent's spin about Z
    vec::V force_N{};           // on the child; the parent takes -force_N
};

// Planar tidal torque of child j on parent i, Levine 2016 eq. 3.9:
// Gamma = sign(phi_dot) (3/2) k2 (3 / (4 pi rho_i))^2 G m_i^2 m_j^2 / r^6 sin(2 epsilon), with
// phi_dot = psi_dot_i - theta_dot_ij. Eq. 3.9 carries R_i^6 = (3 m_i / (4 pi rho_i))^2 where a
// torque needs R_i^5 (Murray & Dermott: (3/2) k2 G m_j^2 R_i^5 / r^6 sin 2 epsilon); the thesis
// evaluated it in canonical units with R_i = 1 DU (its sec. 4.3.1), which is this R_i^5 form: its
// spin-down 3.32766e-15 rad/s^2 (Table 5.3) and Edot -314.28 W follow from it, eq. 3.9 in SI
// would be R_i [m] times stronger. The parent's spin takes -Gamma, the child the force
// Gamma / r (Z x r_hat) of eq. 3.18 and the parent its reaction, so that linear and angular
// momentum are kept and the mechanical energy falls at Gamma |phi_dot| (eqs. 3.12-3.13).
inline TidalLoad tidal_load(const SphereBody& parent, const SphereBody& child, const TidalParameters& p) {
    const vec::V r = vec::sub(child.x_m, parent.x_m);
    const vec::V rdot = vec::sub(child.v_m_s, parent.v_m_s);
    const double r2 = vec::dot(r, r), rn = std::sqrt(r2);
    const double theta_dot = vec::cross(r, rdot)[2] / r2;
    const double phi_dot = parent.omega_rad_s[2] - theta_dot;
    const double sin_2eps = 1.0 / std::sqrt(1.0 + p.quality_factor_q * p.quality_factor_q);
    const double radius_m = std::cbrt(3.0 * parent.mass_kg / (4.0 * std::numbers::pi * p.density_kg_m3));
    const double r5 = radius_m * radius_m * radius_m * radius_m * radius_m;
    const double gamma = (phi_dot > 0.0 ? 1.0 : (phi_dot < 0.0 ? -1.0 : 0.0)) * 1.5 * p.love_number_k2 *
                         p.gravitational_constant * child.mass_kg * child.mass_kg * r5 / (r2 * r2 * r2) * sin_2eps;
    TidalLoad load;
    load.torque_z_N_m = -gamma;
    load.force_N = {-gamma / rn * r[1] / rn, gamma / rn * r[0] / rn, 0.0};
    return load;
}

struct PlaneWall {
    vec::V point_m{};
    vec::V normal{0.0, 0.0, 1.0};  // unit, pointing to the side the bodies are on
};

// Cundall-Strack tangential spring-dashpot with static/dynamic Coulomb friction: the contact
// holds until |k_t xi + c_t v_t| exceeds mu_static F_n, then the contact slides at mu_dynamic F_n until the spring
// force falls below it again.
struct FrictionLaw {
    double tangential_stiffness_N_m = 0.0;
    double mu_static = 0.0;
    double mu_dynamic = 0.0;
};

// History of one tangential contact (a sphere on a wall, a node of a shape body); part of the
// state a checkpoint must keep for an exact restart.
struct TangentialSpring {
    vec::V spring_m{};
    bool sliding = false;
};

// One Cundall-Strack update of a tangential spring (Luding 2008): the spring turned into the
// plane normal to n, stretched by the slip v_t dt, force -k_t xi - c_t v_t capped at
// mu_static f_n while stuck and at mu_dynamic f_n while sliding (the spring then set to match
// the capped force). Returns the force [N]. Out of line (shape_contact.cpp): the sphere walls
// and the shape bodies' nodes call one compiled update.
vec::V cundall_strack(TangentialSpring& h, const vec::V& n, const vec::V& v_t, double f_n, double k_t, double c_t,
                      double mu_static, double mu_dynamic, double dt_s);

// Force [N] and torque [N m] of a plane wall on a sphere; dt_s advances the tangential spring
// by the contact-point slip v_t dt (Cundall-Strack), after turning it into the tangent plane.
inline void wall_contact(const SphereBody& b, const PlaneWall& w, const SphereContactLaw& c, const FrictionLaw& f,
                         TangentialSpring& h, double dt_s, vec::V& force, vec::V& torque) {
    const double delta = b.radius_m - vec::dot(vec::sub(b.x_m, w.point_m), w.normal);
    if (delta <= 0.0) {
        h = TangentialSpring{};
        return;
    }
    const vec::V arm{-b.radius_m * w.normal[0], -b.radius_m * w.normal[1], -b.radius_m * w.normal[2]};
    const vec::V spin = vec::cross(b.omega_rad_s, arm);
    const vec::V vc{b.v_m_s[0] + spin[0], b.v_m_s[1] + spin[1], b.v_m_s[2] + spin[2]};
    const double vn = vec::dot(vc, w.normal);
    const double fn = std::max(normal_force_N(c, delta, -vn, b.mass_kg, b.radius_m), 0.0);
    // tangential dashpot with the normal law's damping ratio, so that a stuck contact settles
    const double c_t = 2.0 * damping_ratio(c.restitution) * std::sqrt(f.tangential_stiffness_N_m * b.mass_kg);
    const vec::V vt{vc[0] - vn * w.normal[0], vc[1] - vn * w.normal[1], vc[2] - vn * w.normal[2]};
    const vec::V ft = cundall_strack(h, w.normal, vt, fn, f.tangential_stiffness_N_m, c_t, f.mu_static,
                                     f.mu_dynamic, dt_s);
    for (int k = 0; k < 3; ++k) force[k] += fn * w.normal[k] + ft[k];
    const vec::V t = vec::cross(arm, ft);
    for (int k = 0; k < 3; ++k) torque[k] += t[k];
}

// Velocity and spin of every body advanced by dt_s [s] at the given accelerations.
inline void kick_bodies(std::vector<SphereBody>& bodies, const std::vector<vec::V>& accel_m_s2,
                        const std::vector<vec::V>& angular_accel_rad_s2, double dt_s) {
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        for (int k = 0; k < 3; ++k) {
            bodies[i].v_m_s[k] += dt_s * accel_m_s2[i][k];
            bodies[i].omega_rad_s[k] += dt_s * angular_accel_rad_s2[i][k];
        }
    }
}

}  // namespace regosph::geometry
