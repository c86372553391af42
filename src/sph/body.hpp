// Bodies: named groups of particles sharing a material and a kind of motion. `BodyMotion` is
// the registry of the kinds (body_motion.hpp says what a kind answers); body.cpp is the only
// place that dispatches on it. A new kind is its own files plus one alternative here (and its
// include).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/particles.hpp"
#include "sph/body_loads.hpp"
#include "sph/body_motion.hpp"
#include "sph/kinematic_motion.hpp"
#include "sph/rigid_dynamics.hpp"

namespace regosph {

using BodyMotion = std::variant<DynamicMotion, FixedMotion, KinematicMotion, RigidMotion>;

struct Body {
    std::string name;
    std::int32_t material = 0;
    BodyMotion motion;              // DynamicMotion unless set
    double spacing = 0.0;           // lattice spacing the body was filled with [m]
    double smoothing_length = 0.0;  // kernel support radius of its particles [m]
    std::size_t particle_count = 0;
    std::int64_t first_id = 0;      // its particles have ids first_id, first_id + 1, ...
    // Boundary bodies: friction of their wall particles against the regolith, a Coulomb
    // coefficient mu_w >= 0 (0: free-slip) or < 0 for no-slip, the default (pair_terms.hpp).
    double wall_friction = -1.0;
    // Boundary bodies: the soil's contact with their particles (InterfaceLaw); unset, the run's
    // default (physics.wall_contact and wall_adhesion, interface_law). A symmetry plane is
    // 'bonded'.
    std::optional<InterfaceLaw> interface;
};

// The law of the soil's contact with b's particles: its own, else the run's default.
inline InterfaceLaw interface_law(const Body& b, const InterfaceLaw& run_default) {
    return b.interface.value_or(run_default);
}

// The motion a setup names ("dynamic", "fixed", "kinematic" or "rigid"), made from its
// arguments. Throws std::invalid_argument naming `where` and the field, or listing the
// accepted names ("free" is ambiguous, and refused with a pointer to "dynamic" and "rigid").
BodyMotion make_motion(const std::string& name, const MotionInput& in, const std::string& where);
// Whether the motion so named has boundary particles; throws as make_motion for a bad name.
bool boundary_motion(const std::string& name);

const char* motion_name(const Body& b);
// Whether its particles are boundary (wall) particles: every kind but dynamic bodies.
bool is_boundary(const Body& b);
// Whether it has a state of its own that the integrator's stages advance (rigid bodies).
bool is_integrated(const Body& b);
// Whether the pair loop collects its load (kinematic tools for the motor, rigid bodies for
// their equations of motion).
bool collects_loads(const Body& b);
// The power it gives the regolith through `load` (its load from the regolith, torque about its
// load reference) at time t [s] [W] (2D: [W/m]): -(F . V + T . omega); equal to
// -sum_b F_b . v_b over its particles. 0 for bodies that do not move.
double regolith_power(const Body& b, const BodyLoad& load, double t, int dim);
// Its motion's entries in run.json.
void describe_motion(const Body& b, io::Json& body);

// The motion of a tool driven by a motor (a kinematic body), null for other bodies: tools
// have power and work columns, and observers ride with them.
inline const geometry::Kinematics* prescribed_motion(const Body& b) {
    const auto* k = std::get_if<KinematicMotion>(&b.motion);
    return k ? &k->kinematics : nullptr;
}
// The rigid body (mass properties and state) of a rigid body, null for other bodies: what
// contact between bodies moves, and what bodies.csv reports.
inline const geometry::RigidBody* rigid_body(const Body& b) {
    const auto* r = std::get_if<RigidMotion>(&b.motion);
    return r ? &r->body : nullptr;
}

// Throws std::invalid_argument naming `where` when a wall friction mu >= 0 (not no-slip) is
// given to a body that is not a wall (not `boundary`).
void check_wall_friction(bool boundary, double mu, const std::string& where);
// Throws std::invalid_argument naming `where` and the field when an interface law is given to
// a body that is not a wall, or its adhesion is negative, not finite, or given to a bonded one.
void check_interface(bool boundary, const InterfaceLaw& law, const std::string& where);

// The states of the bodies that have one (rigid bodies) as JSON text {"<body>": {...}, ...}
// (doubles written so that they read back exactly, which an exact restart needs): a snapshot
// and checkpoint attribute. "" when none has.
std::string body_states_json(const std::vector<Body>& bodies);
// Sets those states from that text; throws std::runtime_error naming a body missing from it
// or a malformed entry.
void read_body_states_json(const std::string& text, std::vector<Body>& bodies);

// The bodies of a run as the integrator moves them: their particles placed at each stage
// time, their loads requested, and the integrated ones advanced in the particles' Heun stages
// (integrator.hpp).
class Bodies {
public:
    // Binds the run's bodies (must outlive this; null: none).
    void bind(std::vector<Body>* bodies, int dim);
    const std::vector<Body>* all() const { return bodies_; }
    // Whether some body has boundary particles (the pair loop's wall term).
    bool any_boundary() const { return any_boundary_; }
    // Whether some body's particles move (kinematic or rigid), and whether some body has a
    // state of its own to integrate (rigid).
    bool moving() const { return moving_; }
    // Per body, whether it moves (kinematic or rigid): 1, else 0.
    const std::vector<std::uint8_t>& moving_bodies() const { return moving_bodies_; }
    bool integrated() const { return integrated_; }

    // Positions, velocities and accelerations [m/s^2] of the moving bodies' particles (owned
    // and halo) at time t; `acceleration` gets one entry per particle, zero for the others.
    // A no-op without moving bodies.
    void place(ParticleSet& p, double t, std::array<std::vector<double>, 3>& acceleration) const;
    // The loads to collect at time t, each about its body's load reference; empty when no
    // body collects any.
    LoadRequest load_request(double t) const;
    // The bodies' power on the particles at time t from an evaluation's loads [W].
    double power(const std::vector<BodyLoad>& loads, double t) const;

    void save_start();
    void restore_start();
    // Stage rates from an evaluation's loads at time t (stage 1 or 2; 3: SSP-RK3's third,
    // combined into the second's, integrator.hpp).
    void compute_rates(int stage, const std::vector<BodyLoad>& loads,
                       const std::array<double, 3>& gravity, double t);
    // Predictor (final = false) or corrector, to the state at time t.
    void update(double dt, bool final, double t);
    // The largest error of the bodies' own states (as the particles' norm).
    double error(double dt) const;
    // The step the bodies' own motion allows [s].
    double step_limit(double courant, double t) const;

private:
    std::vector<Body>* bodies_ = nullptr;
    int dim_ = 2;
    bool any_boundary_ = false, moving_ = false, integrated_ = false;
    std::vector<std::uint8_t> moving_bodies_;
};

}  // namespace regosph
