// Prescribed rigid-body motion of a tool (SPEC.md section 6): a translation plus a rotation
// about a pivot that moves with the translation, like a motor-driven tool.
//  - translation: piecewise-constant velocity segments, or a velocity ramp (velocities at
//    knots, linear between them: smooth starts and stops without a velocity jump);
//  - rotation: a constant rate, or a rate schedule (rates at knots, linear between: spin-up,
//    reversal, stop).
// Positions are a closed-form function of time, x(t) = P(t) + Q(theta(t)) (X - P0), with P and
// theta the exact integrals of the schedules, so a body never drifts from its prescribed path
// and a restart needs nothing but the time.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace regosph::geometry {

using Vec3 = std::array<double, 3>;

// Velocity `velocity` [m/s] held until time `until` [s] (from the end of the previous segment,
// or from t = 0). After the last segment the body stops translating.
struct VelocitySegment {
    double until = 0.0;
    Vec3 velocity{0.0, 0.0, 0.0};
};

// A function of time given at knots (t_k, y_k), t_0 >= 0 and strictly increasing: y_0 before
// t_0, linear between knots, the last value after the last knot. Its integral from t = 0 is
// exact (a sum of trapezoids), so positions built on it are closed-form functions of time.
template <std::size_t N>
struct PiecewiseLinear {
    struct Knot {
        double time = 0.0;  // [s]
        std::array<double, N> value{};
    };
    std::vector<Knot> knots;

    bool empty() const { return knots.empty(); }
    // y(t); continuous, so a knot's own value at a knot time.
    std::array<double, N> value(double t) const;
    // dy/dt on the interval after t (at a knot: the slope that follows it); 0 outside the knots.
    std::array<double, N> slope(double t) const;
    // The integral of y from 0 to t.
    std::array<double, N> integral(double t) const;
};

// Throws std::invalid_argument "<what> knot <i>: ..." unless the knot times are finite, >= 0
// and strictly increasing and the values finite (schedules of rigid bodies' applied loads).
void validate_schedule(const PiecewiseLinear<3>& f, const std::string& what);

struct Kinematics;

// The motion at one time t: what place and acceleration need of the schedules (the pivot, the
// rotation's cosine and sine, the rates), evaluated once for all the points of a body
// (Kinematics::at) instead of once per point, which cost the brush sampler's kinematic bodies
// a cosine, a sine and several schedule look-ups per particle and stage.
struct KinematicState {
    const Kinematics* motion = nullptr;  // the motion it was taken from (must outlive it)
    Vec3 pivot{0.0, 0.0, 0.0};     // pivot at t [m]
    bool rotated = false;          // angle(t) != 0
    double cos_angle = 1.0, sin_angle = 0.0;
    Vec3 velocity{0.0, 0.0, 0.0};  // translation velocity [m/s]
    double omega = 0.0;            // rotation rate [rad/s]
    double alpha = 0.0;            // its derivative [rad/s^2]
    Vec3 pivot_acceleration{0.0, 0.0, 0.0};  // [m/s^2]
    // A constant rate and a piecewise-constant translation (no schedule, no ramp): only the
    // centripetal part of the acceleration; `still` if the rate is also zero.
    bool steady = true, still = true;

    // Kinematics::place, acceleration and to_reference at this state's time.
    void place(const Vec3& reference, Vec3& x, Vec3& v) const;
    Vec3 acceleration(const Vec3& x) const;
    Vec3 to_reference(const Vec3& x) const;
};

struct Kinematics {
    std::vector<VelocitySegment> translation;  // times strictly increasing
    // Instead of `translation`: velocities [m/s] at knots, linear between them.
    PiecewiseLinear<3> velocity_ramp;
    double angular_velocity = 0.0;             // [rad/s], right-handed about `axis`
    // Instead of the constant `angular_velocity`: rates [rad/s] at knots, linear between them.
    PiecewiseLinear<1> rate_schedule;
    Vec3 axis{0.0, 0.0, 1.0};                  // unit rotation axis (2D: +z, counter-clockwise)
    Vec3 pivot{0.0, 0.0, 0.0};                 // pivot at t = 0 [m]; moves with the translation

    // Displacement of the pivot from t = 0 to t [m] (integral of the schedule).
    Vec3 displacement(double t) const;
    // Translation velocity at t [m/s]; at a switching time, the velocity of the segment after.
    Vec3 translation_velocity(double t) const;
    // Translation acceleration at t [m/s^2]: the ramp's slope (0 for velocity segments).
    Vec3 translation_acceleration(double t) const;
    // Pivot position at t [m].
    Vec3 pivot_at(double t) const;
    // Rotation rate omega(t) [rad/s] and its derivative [rad/s^2].
    double rate(double t) const;
    double angular_acceleration(double t) const;
    // Rotation angle at t [rad]: omega t, or the integral of the rate schedule.
    double angle(double t) const;

    // The motion's state at t (for many points at one time).
    KinematicState at(double t) const;
    // Position and velocity at time t of the body point that was at `reference` at t = 0.
    void place(const Vec3& reference, double t, Vec3& x, Vec3& v) const;
    // Acceleration [m/s^2] of the body point now at `x` at time t, r = x - pivot(t):
    // a_pivot + alpha n x r + omega^2 (n (n . r) - r) (translation, tangential, centripetal).
    Vec3 acceleration(const Vec3& x, double t) const;
    // The point of the t = 0 configuration that is at `x` at time t (inverse of place).
    Vec3 to_reference(const Vec3& x, double t) const;
};

// Mechanical power [W] (2D: W/m) the regolith takes from a body moving with k at time t, whose
// load from the regolith is `force` [N] and `torque` about the pivot [N m]:
// -(force . v_pivot + torque . omega n) (a tool pushing against the regolith's resistance does
// positive work on it).
double power_into_regolith(const Kinematics& k, const Vec3& force, const Vec3& torque, double t);

// Throws std::invalid_argument naming `where` and the field: non-finite values, segment or
// knot times not strictly increasing or negative, both a constant rate and a rate schedule,
// both translation segments and a velocity ramp, a zero rotation axis (normalised otherwise).
// In 2D the translation must stay in the x-y plane and the axis is +z.
Kinematics validated(Kinematics k, int dim, const std::string& where);

// Rotation rate [rad/s] from a setup that gives it in rev/min (rpm) or in rad/s
// (angular_velocity), at most one of them; 0 when neither. Throws std::invalid_argument when
// both are given.
double rotation_rate(std::optional<double> rpm, std::optional<double> angular_velocity);

}  // namespace regosph::geometry
