// Contact between boundary bodies: a rigid body (rigid_dynamics.hpp) against walls, tools and
// other rigid bodies. The SPH pair loop couples boundary particles with dynamic ones only, so
// two boundary bodies would pass through each other; here their particles touch as in the
// discrete-element method, the way Canelas et al. (2016, Comput. Phys. Commun. 202, 131) couple
// SPH with solid-solid contact.
//
// Each particle of a rigid body is a sphere (2D: a cylinder per unit depth) of diameter equal
// to its body's lattice spacing s_a. It meets the surface of another body B (a wall, a tool,
// or a rigid body with coarser particles), seen through B's particles b within
// R = (s_a + s_b) / 2 + s_b (search_radius): the normal n (towards a) is the direction of
// sum_b w_ab (x_a - x_b) / |x_a - x_b|, w_ab = (1 - r^2 / R^2)^2, and the gap g the w-weighted
// mean of (x_a - x_b) . n over B's outer layer (the b within s_b / 2 of the nearest along n).
// On a flat layer g does not depend on where along it a is: the surface has no bumps at the
// lattice spacing, which a sphere-against-sphere contact would have (0.13 s of height, felt as
// a spurious roughness). With the overlap delta = (s_a + s_b) / 2 - g, v_n = dv . n and v_t the
// tangential part of dv = v_a - v_B (v_B w-weighted over the layer), a feels
//   3D (Hertz, sphere on a surface; Johnson 1985 eq. 4.23):
//       F_e = 4/3 E* sqrt(R*) delta^3/2,  k = dF_e/d delta = 2 E* sqrt(R* delta),  R* = s_a / 2,
//   2D (cylinder, linearised per unit depth):  F_e = pi/4 E* delta,  k = pi/4 E*,
//   1/E* = (1 - nu_a^2) / E_a + (1 - nu_b^2) / E_b   (a material without E is rigid: 0),
//   F_n = max(0, F_e - c v_n),  c = -2 gamma beta sqrt(k m*),  beta = ln e / sqrt(ln^2 e + pi^2),
//   gamma = sqrt(5/6) in 3D (Tsuji et al. 1992 damping, as in Hertz-Mindlin DEM codes), 1 in
//   2D (the linear spring-dashpot, whose restitution is then exactly e),
//   F_t = -mu F_n tanh(|v_t| / v_slip) v_t / |v_t|   (Coulomb's law, regularised),
//   f_a = F_n n + F_t at the contact point x_c = x_a - (s_a - delta) / 2 n,
// and B feels -f_a at x_c. m* = 1 / (1 / M_a + 1 / M_B) of the bodies' masses (walls and tools:
// infinite), so one particle's contact restitutes e; e, mu and v_slip of a pair are the
// smaller of the two bodies' (of those that define contact). Action and reaction at one
// point: contact exchanges linear and angular momentum exactly.
//
// The regularised friction needs no tangential history (a restart and any MPI decomposition
// see the same state); its price: a body on a slope tan(beta) < mu creeps at
// v_slip atanh(tan(beta) / mu) instead of sticking.
//
// Sums: each particle's partner bodies in index order and their particles in id order, the
// particles' shares in id order on every rank (body_loads.hpp), so results do not depend on
// ranks or threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/particles.hpp"
#include "materials/material.hpp"
#include "sph/body.hpp"
#include "sph/body_loads.hpp"

namespace regosph {

// The contact law of one pair of bodies (see above).
struct ContactLaw {
    bool active = false;
    double modulus = 0.0;        // E* [Pa]
    double beta = 0.0;           // ln e / sqrt(ln^2 e + pi^2) [-]
    double friction = 0.0;       // mu [-]
    double slip_velocity = 1.0;  // v_slip [m/s]
    double reduced_mass = 0.0;   // m* [kg] (2D: [kg/m])
};

// The law between bodies a and b, from their materials and motions; inactive unless one is
// rigid, both are boundary bodies and at least one material defines contact. (BodyContact
// keeps it only where a's particles meet b's surface: a rigid, and of two rigid bodies the one
// with the finer spacing.)
ContactLaw contact_law(const Body& a, const Material& ma, const Body& b, const Material& mb);

// One contact of a particle with a surface: the force on the particle [N] (2D: [N/m]) for an
// overlap delta [m] along the unit normal n (pointing to the particle), relative velocity dv =
// v_particle - v_surface [m/s] and Hertz radius R* [m] (3D); with the stiffness dF_n/d delta
// [N/m] (2D: [Pa]) and the damping dF/dv [N s/m] (2D: [Pa s]) for the step limit. Zero for
// delta <= 0.
struct ContactForce {
    double force[3] = {0.0, 0.0, 0.0};
    double stiffness = 0.0;
    double damping = 0.0;
};
ContactForce contact_force(const ContactLaw& law, int dim, const double n[3], double delta,
                           const double dv[3], double radius);

// How far from a particle of spacing s_a the surface of a body of spacing s_b is looked for
// [m]: the contact distance (s_a + s_b) / 2 and one more of the body's spacings, so that its
// outer layer is always seen on both sides of the particle.
constexpr double search_radius(double spacing_a, double spacing_b) {
    return 0.5 * (spacing_a + spacing_b) + spacing_b;
}

class BodyContact {
public:
    // Decides which pairs of `bodies` (indexed by material in `materials`) can touch. Must
    // outlive nothing: bodies' masses and spacings are copied.
    void bind(const std::vector<Body>& bodies, const std::vector<Material>& materials, int dim);
    bool active() const { return active_; }

    // Adds the contact loads to `loads` (resized to one per body), torques about each rigid
    // body's centre (other bodies: the origin), for the state in p (owned and halo particles
    // placed). Returns the step the contacts allow [s] (+inf without any): per rigid body
    // 0.1 sqrt(m / sum k) and m / sum c, m the smaller of M and I_min / extent^2 (the usual
    // discrete-element step, a fraction of the contact's period, and Heun's stability for a
    // stiff dashpot), and onset_limit. Collective under MPI.
    double add_loads(const ParticleSet& p, const std::vector<Body>& bodies,
                     std::vector<BodyLoad>& loads) const;

private:
    struct Partner {
        std::int32_t body;
        std::int64_t id;
        std::size_t index;
    };
    // The shares of row particle i (see contact_shares) against its partners (sorted by body,
    // then id).
    std::vector<LoadShare> row_shares(const ParticleSet& p, const std::vector<Body>& bodies,
                                      std::size_t i, const std::vector<Partner>& partners) const;
    // Each owned particle of a rigid body that touches: its contact load (body k) and its
    // stiffness and damping sums (force slots 0 and 1 of "body" n_bodies + k; torque slot 0 is
    // 1 when it is close to another body).
    std::vector<LoadShare> contact_shares(const ParticleSet& p, const std::vector<Body>& bodies,
                                          const double box_lo[3], const double box_hi[3]) const;

    // The step a contact that closes at the bodies' present speeds allows [s], for the rigid
    // bodies `close` to another body (a pair within twice its contact distance): the same
    // bound for one particle pair, so that a step cannot run deep into a contact that has not
    // begun.
    double onset_limit(const std::vector<Body>& bodies, const std::vector<std::uint8_t>& close) const;

    bool active_ = false;
    int dim_ = 2;
    std::size_t n_bodies_ = 0;
    std::vector<ContactLaw> laws_;       // n_bodies^2, row-major
    std::vector<std::uint8_t> touches_;  // per body: some active law involves it
    // Per rigid body (bind): min(M, I_min / extent^2) [kg]
    // and extent / I_min [m / (kg m^2)], for the step limits.
    std::vector<double> moved_mass_, arm_per_moment_;
    double reach_ = 0.0;                 // largest search_radius of a pair [m]
};

}  // namespace regosph
