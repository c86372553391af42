// A system of particle-free rigid bodies with true shapes (shape_bodies.hpp) and plane walls,
// in contact (shape_contact.hpp) under uniform gravity and optional random accelerations; a
// run of bodies alone costs what their contacts cost.
//
// Step (velocity Verlet for the translation; for the rotation the angular momentum L is kicked
// by the torque and the orientation turned by the angular velocity of the midpoint
// orientation, which is second order and keeps |L| exactly between contacts):
//   v += dt/2 F/m, L += dt/2 T;   x += dt v;   q <- exp(dt omega(q_mid, L)) q;
//   F, T at the new state (dashpots and springs with the half-step velocities);
//   v += dt/2 F/m, L += dt/2 T.
// Collisions of two bodies or of a body and a wall are logged as they happen (CollisionRecord)
// with the states just before and just after, for the energy coefficient of restitution (Vaghi
// et al. eq. 3), the normal-velocity ratio at the contact point and the contact duration.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "geometry/shape_contact.hpp"

namespace regosph::geometry {

struct BodyKinematics {
    vec::V v_m_s{};
    vec::V omega_rad_s{};
    double translational_J = 0.0;
    double rotational_J = 0.0;
};

struct CollisionRecord {
    int body_a = -1, body_b = -1;  // body_b = -1 - wall index for a wall (at rest, zero kinematics)
    double t_start_s = 0.0, t_end_s = 0.0;
    bool finished = false;  // the bodies have parted
    BodyKinematics before_a, before_b, after_a, after_b;  // the last state apart, the first apart again
    double peak_force_N = 0.0;
    vec::V point_m{}, normal{};                // at the peak force (normal from B to A)
    vec::V arm_a_m{}, arm_b_m{};               // point minus each centre, at the peak
    int peak_nodes = 0;
    double peak_depth_m = 0.0;                 // deepest node at the peak
};

// Post-processing of a finished collision.
struct CollisionOutcome {
    double energy_ratio = 0.0;       // CoR_E, Vaghi et al. eq. 3 (both bodies, translation and rotation)
    double normal_velocity_ratio = 0.0;  // -v_N+ / v_N- at the peak's contact point and normal
    double v_normal_before_m_s = 0.0, v_normal_after_m_s = 0.0;  // (v_A - v_B) . n at the point
    double duration_s = 0.0;
};
CollisionOutcome collision_outcome(const CollisionRecord& c);

struct ShapeSystem {
    std::vector<ShapeBody> bodies;
    std::vector<PlaneWall> walls;
    ShapeContactLaw law;
    vec::V gravity_m_s2{};
    double random_acceleration_m_s2 = 0.0;  // rms per component, redrawn every step
    std::mt19937_64 rng{0};
    double time_s = 0.0;
    ContactHistory history;
    std::vector<vec::V> force_N, torque_N_m;   // at the current state
    std::vector<ContactSummary> contacts;      // of the current state
    std::vector<CollisionRecord> collisions;
};

// Validates and evaluates the loads of the initial state; call after the bodies are set up.
void start(ShapeSystem& s);
void step(ShapeSystem& s, double dt_s);
// Total kinetic energy [J] (translation and rotation).
double kinetic_energy_J(const ShapeSystem& s);
BodyKinematics kinematics(const ShapeBody& b);

}  // namespace regosph::geometry
