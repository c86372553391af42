// Rigid bodies moved by the regolith (motion "rigid"): mass properties, applied loads, which
// degrees of freedom are prescribed, and the state the integrator advances. The equations of
// motion are in src/sph/rigid_dynamics.hpp.
//
// State: centre of mass c [m], orientation q (unit quaternion w, x, y, z; body frame to world
// frame, identity at t = 0, so the body frame is the world frame of the initial configuration),
// linear velocity V [m/s] and angular momentum about the centre L [kg m^2/s] in the world frame.
// L rather than the angular velocity is integrated: without torque it stays constant exactly,
// and omega = R I_body^-1 R^T L follows from it. In 2D (plane strain) everything is per metre
// of depth ([kg/m], [kg m^2/m], [N/m]) and only x, y and the rotation about z are free.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "geometry/kinematics.hpp"

namespace regosph::geometry {

using Quaternion = std::array<double, 4>;  // w, x, y, z
using Mat3 = std::array<double, 9>;        // row-major

// Applied loads are vector functions of time, linear between knots and constant before the
// first and after the last one (one knot: a constant): kinematics.hpp's PiecewiseLinear.
using VectorSchedule = PiecewiseLinear<3>;

// Degrees of freedom, in the order of RigidBody::prescribed.
enum Dof : int { kX = 0, kY = 1, kZ = 2, kRx = 3, kRy = 4, kRz = 5 };
inline constexpr std::array<const char*, 6> kDofNames{"x", "y", "z", "rx", "ry", "rz"};

struct RigidState {
    Vec3 centre{0.0, 0.0, 0.0};              // [m]
    Quaternion orientation{1.0, 0.0, 0.0, 0.0};
    Vec3 velocity{0.0, 0.0, 0.0};            // [m/s]
    Vec3 angular_momentum{0.0, 0.0, 0.0};    // about the centre, world frame [kg m^2/s]
    // Rates of the last step's first stage, dV/dt [m/s^2] and dL/dt [N m]: the acceleration
    // its wall particles have in the boundary extrapolation (part of the state, so that a
    // restart continues bit for bit).
    Vec3 acceleration{0.0, 0.0, 0.0};
    Vec3 torque{0.0, 0.0, 0.0};
};

struct RigidBody {
    double mass = 0.0;          // [kg] (2D: [kg/m])
    Mat3 inertia{};             // about the centre, body frame [kg m^2] (2D: [kg m^2/m])
    Vec3 initial_centre{0.0, 0.0, 0.0};  // [m]
    // Every particle's position relative to the centre in the body frame (by id - first_id).
    std::vector<Vec3> offsets;
    double extent = 0.0;        // largest |offset| [m]
    // Applied loads besides gravity and the regolith: a force [N] through the centre and a
    // torque [N m], each in the world frame or turning with the body.
    VectorSchedule force, torque;
    bool force_in_body_frame = false, torque_in_body_frame = false;
    // Prescribed degrees of freedom (world axes) follow `motion` (its translation velocity and
    // angular velocity); a prescribed one without a motion is locked. The others are free.
    std::array<bool, 6> prescribed{};
    Kinematics motion;
    RigidState state;
};

// Mass, centre and inertia (about the centre, each particle's own cell of side `spacing`
// included) of particles of masses m at positions x; 2D: about z only, per unit depth.
struct MassProperties {
    double mass = 0.0;
    Vec3 centre{0.0, 0.0, 0.0};
    Mat3 inertia{};
};
MassProperties mass_properties(const std::vector<Vec3>& x, const std::vector<double>& m,
                               double spacing, int dim);

// Rotation matrix of a unit quaternion (row-major) and its use.
Mat3 rotation_matrix(const Quaternion& q);
Vec3 rotate(const Mat3& R, const Vec3& v);            // R v
Vec3 rotate_back(const Mat3& R, const Vec3& v);       // R^T v
Vec3 cross(const Vec3& a, const Vec3& b);
// The orientation q turned by the rotation vector phi [rad] (world frame): exp((0, phi) / 2) * q,
// normalised.
Quaternion rotated(const Quaternion& q, const Vec3& phi);

// The angular velocity [rad/s] of a body in state s (world frame), prescribed components from
// its motion at time t (constrained rows solved, see rigid_dynamics.hpp).
Vec3 angular_velocity(const RigidBody& b, const RigidState& s, double t, int dim);
// I_world = R I_body R^T.
Mat3 world_inertia(const RigidBody& b, const Quaternion& q);
// Smallest principal moment of inertia [kg m^2] (2D: I_zz, per unit depth).
double smallest_moment(const RigidBody& b, int dim);

// What a setup says about a rigid body; unset mass properties come from its particles.
struct RigidSpec {
    std::optional<double> mass;    // [kg] (2D: [kg/m]); alone, it scales the particles' inertia
    std::optional<Vec3> centre;    // centre of mass [m]
    std::optional<Mat3> inertia;   // about the centre, axes of the initial configuration [kg m^2]
    Vec3 angular_velocity{0.0, 0.0, 0.0};  // initial [rad/s]
    VectorSchedule force, torque;
    bool force_in_body_frame = false, torque_in_body_frame = false;
    std::vector<std::string> fixed_dofs;  // prescribed by the body's kinematics, else locked
};

// The rigid body of particles at x (masses m, lattice spacing [m]) moving initially at
// `velocity` [m/s] with spec.angular_velocity; prescribed degrees of freedom follow `motion`
// (default: locked). Validated (see validate); throws naming `where` and the field.
RigidBody make_rigid_body(const std::vector<Vec3>& x, const std::vector<double>& m,
                          double spacing, int dim, const RigidSpec& spec, const Vec3& velocity,
                          const std::optional<Kinematics>& motion, const std::string& where);

// Throws std::invalid_argument naming `where` and the field: mass not positive, inertia not
// symmetric positive definite (2D: I_zz not positive), schedules not increasing in time or not
// finite, a 2D force/torque/velocity out of the plane.
void validate(const RigidBody& b, int dim, const std::string& where);

// "world" -> false, "body" -> true (the frame a force or torque is given in); throws naming
// `where` otherwise.
bool parse_frame(const std::string& name, const std::string& where);

// Parses a degree-of-freedom name ("x", ..., "rz"); throws naming `where` and listing the
// valid names.
Dof parse_dof(const std::string& name, const std::string& where);

}  // namespace regosph::geometry
