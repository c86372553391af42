// Shape-true contact between particle-free rigid bodies (shape_bodies.hpp) and plane walls:
// level-set DEM (Kawamoto et al. 2016, J. Mech. Phys. Solids 91, 1).
//
// Why level-set DEM: a body's surface nodes tested against the other body's signed-distance
// field resolve faces, edges and corners of any closed shape with one test per node (a grid
// lookup), need no convexity (unlike GJK/EPA) and give several simultaneous contact points by
// construction (a box face on a plane touches with all its nodes). The mesh's exact signed
// distance (triangle_mesh.hpp) is sampled once on a grid per body.
//
// The law, per node i of body A inside body B by the depth d_i = -phi_B(x_i) > 0, along the
// outward normal n_i = grad phi_B / |grad phi_B|:
//  - elastic: f_i = k_i d_i with k_i = k_a a_i (a_i the node's surface area, k_a a stiffness per
//    unit area [N/m^3]): a bed of springs whose resultant does not depend on how finely the
//    surface is sampled (Kawamoto's per-node stiffness, scaled by the node's area). It is Hooke's
//    law K delta on a flat face (K = k_a A) and grows like pi R k_a delta^2 on a curved one.
//  - Nodes are tested both ways (A's nodes in B and B's in A), each direction with half the
//    stiffness, so that a body-body contact is symmetric and as stiff as the same shape on a wall.
//  - damping: one dashpot per contact (body pair or body-wall), spread over its nodes in
//    proportion to k_i: c_i = c k_i / K, K = sum k_i = dF/d delta, c = 2 zeta sqrt(m_eff K), with
//    m_eff the effective mass of the two bodies along the contact's mean normal at its centre
//    (rotation included), and zeta = zeta(e, p) chosen so that a power-law contact F ~ delta^p
//    with this damping rebounds with exactly e (the nondimensional rebound is independent of
//    the impact speed; tabulated once, damping_ratio_power_law). p is the contact's current
//    exponent K delta_max / F: 1 on a flat face or a single node, 2 on a smooth curved contact.
//    The node forces are not clamped at zero, so a linear contact ends with exactly e and e = 0
//    sticks. On a curved contact K and p are staircases of the nodes entering and leaving; the
//    table's e holds for the smooth power law, so small restitutions come out low while the
//    patch holds a few rings of nodes and exact at both ends: two 5 cm spheres at 0.2 m/s, e =
//    0.1 gives 0.0993 with 2 nodes in the patch (642-node spheres: linear), 0.080 with 14 (2562),
//    0.0985 with 46 (10242); at 0.05 m/s 0.0907 with 14 (10242 nodes), not changed by the step.
//    With 2562 nodes e = 0.3 gives 0.278, 0.9 gives 0.899; e = 0 leaves at 0.3 % of the speed.
//  - friction: a Cundall-Strack tangential spring per node (k_t,i = ratio k_i, dashpot
//    c_i sqrt(ratio)) with static/dynamic Coulomb limits mu f_n,i; the spring is history, kept
//    per node and contact between steps (ContactHistory) and dropped when the node leaves.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "geometry/shape_bodies.hpp"
#include "geometry/sphere_bodies.hpp"

namespace regosph::geometry {

struct ShapeContactLaw {
    double stiffness_per_area_N_m3 = 0.0;  // k_a
    double restitution = 1.0;              // e in [0, 1]
    double tangential_ratio = 1.0;         // k_t / k_n per node
    double mu_static = 0.0;
    double mu_dynamic = 0.0;
};

// Damping ratio zeta for which x'' = -x^p - 2 zeta sqrt(p x^(p-1)) x' (x(0) = 0, x'(0) = 1)
// leaves with x' = -e; p in [1, 3] (clamped). p = 1 is the linear spring-dashpot:
// zeta = -ln e / sqrt(pi^2 + ln^2 e).
double damping_ratio_power_law(double e, double p);

struct NodeSpring : TangentialSpring {
    bool touched = false;  // met in the current evaluation
};
// Key: contact (body pair or body-wall), direction and node; see contact_key.
using ContactHistory = std::unordered_map<std::uint64_t, NodeSpring>;
std::uint64_t contact_key(std::uint64_t contact, int direction, std::uint32_t node);

// The resultant of one contact in the current state, for post-processing.
struct ContactSummary {
    int body_a = -1, body_b = -1;  // body_b = -1 - wall index for a wall
    int nodes = 0;                 // nodes in contact (both directions)
    double normal_force_N = 0.0;   // sum of the elastic node forces
    vec::V point_m{};              // force-weighted centre of the nodes
    vec::V normal{};               // force-weighted mean normal, pointing from B to A
    double depth_m = 0.0;          // deepest node
};

// Adds the loads of contact `contact_id` between bodies a and b (b may be null for a wall w)
// to force/torque [N, N m] of a and b; dt_s advances the tangential springs. Returns the
// contact's summary (nodes = 0: no contact).
ContactSummary body_contact(const ShapeBody& a, const ShapeBody& b, std::uint64_t contact_id,
                            const ShapeContactLaw& law, ContactHistory& history, double dt_s,
                            vec::V& force_a, vec::V& torque_a, vec::V& force_b, vec::V& torque_b);
ContactSummary wall_contact(const ShapeBody& a, const PlaneWall& w, std::uint64_t contact_id,
                            const ShapeContactLaw& law, ContactHistory& history, double dt_s,
                            vec::V& force_a, vec::V& torque_a);

}  // namespace regosph::geometry
