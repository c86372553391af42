// Prescribed rigid-body motion of a tool (SPEC.md section 6): a translation schedule of
// piecewise-constant velocities plus a rotation at a constant rate about a pivot that moves
// with the translation. Positions are a closed-form function of time, x(t) = P(t) + Q(t)
// (X - P0), so a body never drifts from its prescribed path and a restart needs nothing but
// the time.
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

struct Kinematics {
    std::vector<VelocitySegment> translation;  // times strictly increasing
    double angular_velocity = 0.0;             // [rad/s], right-handed about `axis`
    Vec3 axis{0.0, 0.0, 1.0};                  // unit rotation axis (2D: +z, counter-clockwise)
    Vec3 pivot{0.0, 0.0, 0.0};                 // pivot at t = 0 [m]; moves with the translation

    // Displacement of the pivot from t = 0 to t [m] (integral of the schedule).
    Vec3 displacement(double t) const;
    // Translation velocity at t [m/s]; at a switching time, the velocity of the segment after.
    Vec3 translation_velocity(double t) const;
    // Pivot position at t [m].
    Vec3 pivot_at(double t) const;
    // Rotation angle at t [rad] (omega t).
    double angle(double t) const { return angular_velocity * t; }

    // Position and velocity at time t of the body point that was at `reference` at t = 0.
    void place(const Vec3& reference, double t, Vec3& x, Vec3& v) const;
    // Acceleration [m/s^2] of the body point now at `x` at time t: the centripetal part
    // omega x (omega x r), r = x - pivot(t) (the translation is piecewise constant).
    Vec3 acceleration(const Vec3& x, double t) const;
    // The point of the t = 0 configuration that is at `x` at time t (inverse of place).
    Vec3 to_reference(const Vec3& x, double t) const;
};

// Throws std::invalid_argument naming `where` and the field: non-finite values, segment
// times not strictly increasing or negative, a zero rotation axis (normalised otherwise).
// In 2D the translation must stay in the x-y plane and the axis is +z.
Kinematics validated(Kinematics k, int dim, const std::string& where);

// Rotation rate [rad/s] from a setup that gives it in rev/min (rpm) or in rad/s
// (angular_velocity), at most one of them; 0 when neither. Throws std::invalid_argument when
// both are given.
double rotation_rate(std::optional<double> rpm, std::optional<double> angular_velocity);

}  // namespace regosph::geometry
