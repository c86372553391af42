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
#include <optional>
#include <string>
#include <vector>

#include "core/particles.hpp"
#include "geometry/rigid_body.hpp"
#include "sph/body_motion.hpp"
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

// A rigid body's motion kind (body_motion.hpp): its mass properties and state, and the rates
// and start of the step that the Heun stages advance it with.
struct RigidMotion {
    static constexpr const char* kName = "rigid";
    static constexpr bool kBoundary = true;
    static constexpr bool kIntegrated = true;

    geometry::RigidBody body;
    geometry::RigidState start;  // the state at the start of the step
    RigidRates k1, k2;           // the stages' rates

    static RigidMotion make(const MotionInput& in, const std::string& where);

    // Its loads, torques about its centre.
    bool collects_loads() const { return true; }
    geometry::Vec3 load_reference(double) const { return body.state.centre; }

    // The motion of the body's particles from the current state at time t: the rotation, the
    // angular velocity and the accelerations of the centre.
    struct Frame {
        const geometry::RigidBody* body;
        geometry::Mat3 R;
        geometry::Vec3 omega, alpha, acc;
        bool place(std::size_t j, geometry::Vec3& x, geometry::Vec3& v, geometry::Vec3& a) const;
    };
    Frame frame(double t, int dim) const;

    // -(F . V + T . omega) in the current state (torque about the centre).
    double regolith_power(const BodyLoad& load, double t, int dim) const;

    void save_start() { start = body.state; }
    void restore_start() { body.state = start; }
    // Stage rates (stage 1 or 2) from an evaluation's load at time t; stage 3, SSP-RK3's third
    // rates, combined into k2 (time_scheme.hpp).
    void rates(int stage, const BodyLoad& load, const std::array<double, 3>& gravity, double t,
               int dim);
    // Predictor (final = false): y = y0 + dt k1; corrector: y = y0 + dt/2 (k1 + k2). t is the
    // time of the new state (prescribed degrees of freedom).
    void update(double dt, bool final, double t, int dim);
    // Error of the corrector against the predictor, as the particles' norm: the largest of
    // |dc| / h, |dV| dt / h and the rotation error times the extent over h.
    double error(double dt, double h, int dim) const;
    // The step its own motion allows: courant h / (|V| + |omega| extent) [s].
    double step_limit(double courant, double h, double t, int dim) const;

    // Its state as JSON {"centre_m": [..], "orientation_wxyz": [..], "velocity_m_s": [..],
    // "angular_momentum_kg_m2_s": [..], "acceleration_m_s2": [..], "torque_rate_N_m": [..]}
    // (doubles written so that they read back exactly, which an exact restart needs), and back
    // (throws nlohmann's exceptions on a malformed one).
    std::optional<nlohmann::json> state() const;
    void read_state(const nlohmann::json& j);
    void describe(io::Json&) const {}
};

}  // namespace regosph
