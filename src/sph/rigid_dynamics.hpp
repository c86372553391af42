// Equations of motion of the rigid bodies (geometry/rigid_body.hpp), advanced in the same Heun
// stages as the particles (integrator.hpp) so that the step's error estimate and its momentum
// exchange with the regolith are shared:
//   dc/dt = V,   M dV/dt = M g + F_regolith + F_contact + F_applied(t),
//   dq/dt = 1/2 (0, omega) * q,   dL/dt = T_regolith + T_contact + T_applied(t)   (about c,
//   world frame; contact with other bodies: contact.hpp),
// the orientation advanced by the exact rotation of the stages' mean angular velocity,
// q = exp(dt/2 (0, omega_mean)) * q0 (a rotation at a constant rate is then exact),
// omega = R I_body^-1 R^T L with the prescribed components of omega imposed (the rows of the
// constrained axes take the constraint torque; rigid_body.cpp). Prescribed translations follow
// their motion exactly: c_d(t) = c_d(0) + displacement_d(t), V_d = velocity_d(t).
// F_regolith and T_regolith are the loads of the pair loop (body_loads.hpp), the reaction to
// every pair term, so that M V + sum m v is conserved to round-off in an isolated system.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/particles.hpp"
#include "geometry/body.hpp"
#include "sph/body_loads.hpp"

namespace regosph {

struct RigidRates {
    geometry::Vec3 centre{0.0, 0.0, 0.0};        // dc/dt [m/s]
    geometry::Vec3 velocity{0.0, 0.0, 0.0};      // dV/dt [m/s^2]
    geometry::Vec3 angular_velocity{0.0, 0.0, 0.0};        // omega [rad/s], world frame
    geometry::Vec3 angular_momentum{0.0, 0.0, 0.0};        // dL/dt [N m]
};

// Rates of body b in state s at time t under gravity g, the regolith's load and the contact
// load of other bodies (contact.hpp), both in `regolith`.
RigidRates rigid_rates(const geometry::RigidBody& b, const geometry::RigidState& s,
                       const BodyLoad& regolith, const std::array<double, 3>& gravity, double t,
                       int dim);

// What a rigid body's row of bodies.csv and sim.bodies_state() hold.
struct RigidBodyReport {
    geometry::RigidState state;
    geometry::Vec3 angular_velocity{0.0, 0.0, 0.0};  // world frame [rad/s]
    double angle = 0.0;  // 2D: rotation about z from the initial configuration [rad]
    BodyLoad regolith;   // the regolith's load and the contact load (torques about the centre)
    geometry::Vec3 applied_force{0.0, 0.0, 0.0};   // world frame [N] (2D: [N/m])
    geometry::Vec3 applied_torque{0.0, 0.0, 0.0};  // world frame [N m] (2D: [N])
};
RigidBodyReport report_rigid_body(const geometry::RigidBody& b, const BodyLoad& regolith,
                                  double t, int dim);

// The states of the rigid bodies as JSON text {"<body>": {"centre_m": [..], "orientation_wxyz":
// [..], "velocity_m_s": [..], "angular_momentum_kg_m2_s": [..], "acceleration_m_s2": [..],
// "torque_rate_N_m": [..]}, ...} (doubles round-trip exactly): a snapshot and checkpoint
// attribute. "" without rigid bodies.
std::string rigid_states_json(const std::vector<Body>& bodies);
// Sets the states of the rigid bodies from that text; throws std::runtime_error naming a body
// missing from it or a malformed entry.
void read_rigid_states_json(const std::string& text, std::vector<Body>& bodies);

// The rigid bodies of a run, as the integrator advances them.
class RigidBodies {
public:
    // Binds the run's bodies (must outlive this); none rigid: every call is a no-op.
    void bind(std::vector<Body>* bodies, int dim);
    bool empty() const { return index_.empty(); }

    // Adds the rigid bodies to a load request: their loads, torques about their centres.
    void request_loads(LoadRequest& request) const;

    void save_start();
    void restore_start();
    // Stage rates from an evaluation's loads at time t (stage 1 or 2).
    void compute_rates(int stage, const std::vector<BodyLoad>& loads,
                       const std::array<double, 3>& gravity, double t);
    // Predictor (final = false): y = y0 + dt k1; corrector: y = y0 + dt/2 (k1 + k2). t is the
    // time of the new state (prescribed degrees of freedom).
    void update(double dt, bool final, double t);
    // Error of the corrector against the predictor, as the particles' norm: the largest over
    // the bodies of |dc| / h, |dV| dt / h and the rotation error times the extent over h.
    double error(double dt) const;
    // The step the bodies' own motion allows: courant h / (|V| + |omega| extent) [s].
    double step_limit(double courant, double t) const;

    // Positions, velocities and accelerations [m/s^2] of the rigid bodies' particles (owned and
    // halo) at time t, from the current states; `acceleration` has one entry per particle.
    void place(ParticleSet& p, double t, std::array<std::vector<double>, 3>& acceleration) const;

private:
    std::vector<Body>* bodies_ = nullptr;
    int dim_ = 2;
    std::vector<std::size_t> index_;  // the rigid bodies among bodies_
    std::vector<geometry::RigidState> start_;
    std::vector<RigidRates> k1_, k2_;
};

}  // namespace regosph
