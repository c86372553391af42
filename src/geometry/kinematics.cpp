#include "geometry/kinematics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/units.hpp"
#include "geometry/vector_ops.hpp"

namespace regosph::geometry {

namespace {

using vec::cross;
using vec::dot;

// Rodrigues' formula: r rotated by an angle of cosine c and sine s about the unit axis n,
// Q r = r cos(angle) + (n x r) sin(angle) + n (n . r) (1 - cos(angle)).
Vec3 rotate(const Vec3& r, const Vec3& n, double c, double s) {
    const Vec3 nxr = cross(n, r);
    const double nr = dot(n, r) * (1.0 - c);
    return {r[0] * c + nxr[0] * s + n[0] * nr, r[1] * c + nxr[1] * s + n[1] * nr,
            r[2] * c + nxr[2] * s + n[2] * nr};
}

// The value at t of the line through knots a and b.
template <std::size_t N>
std::array<double, N> between(const typename PiecewiseLinear<N>::Knot& a,
                              const typename PiecewiseLinear<N>::Knot& b, double t) {
    const double s = (t - a.time) / (b.time - a.time);
    std::array<double, N> y{};
    for (std::size_t c = 0; c < N; ++c) y[c] = a.value[c] + (b.value[c] - a.value[c]) * s;
    return y;
}

}  // namespace

template <std::size_t N>
std::array<double, N> PiecewiseLinear<N>::value(double t) const {
    if (knots.empty()) return {};
    for (std::size_t k = 0; k + 1 < knots.size(); ++k)
        if (t < knots[k + 1].time) return t <= knots[k].time ? knots[k].value : between<N>(knots[k], knots[k + 1], t);
    return knots.back().value;
}

template <std::size_t N>
std::array<double, N> PiecewiseLinear<N>::slope(double t) const {
    std::array<double, N> d{};
    for (std::size_t k = 0; k + 1 < knots.size(); ++k) {
        const Knot &a = knots[k], &b = knots[k + 1];
        if (t >= a.time && t < b.time) {
            for (std::size_t c = 0; c < N; ++c) d[c] = (b.value[c] - a.value[c]) / (b.time - a.time);
            break;
        }
    }
    return d;
}

template <std::size_t N>
std::array<double, N> PiecewiseLinear<N>::integral(double t) const {
    std::array<double, N> sum{};
    if (knots.empty()) return sum;
    // The constant y_0 up to the first knot.
    const double head = std::min(t, knots.front().time);
    for (std::size_t c = 0; c < N; ++c) sum[c] = knots.front().value[c] * head;
    if (t <= knots.front().time) return sum;
    // Trapezoids of the intervals, the last one cut at t.
    for (std::size_t k = 0; k + 1 < knots.size(); ++k) {
        const Knot &a = knots[k], &b = knots[k + 1];
        const double end = std::min(t, b.time);
        const std::array<double, N> y_end = end < b.time ? between<N>(a, b, end) : b.value;
        for (std::size_t c = 0; c < N; ++c) sum[c] += 0.5 * (a.value[c] + y_end[c]) * (end - a.time);
        if (t <= b.time) return sum;
    }
    // The last value from the last knot on.
    for (std::size_t c = 0; c < N; ++c) sum[c] += knots.back().value[c] * (t - knots.back().time);
    return sum;
}

template struct PiecewiseLinear<1>;
template struct PiecewiseLinear<3>;

Vec3 Kinematics::displacement(double t) const {
    if (!velocity_ramp.empty()) return velocity_ramp.integral(t);
    Vec3 d{0.0, 0.0, 0.0};
    double start = 0.0;
    for (const VelocitySegment& s : translation) {
        if (t <= start) break;
        const double span = std::min(t, s.until) - start;
        for (int k = 0; k < 3; ++k) d[k] += s.velocity[k] * span;
        start = s.until;
    }
    return d;
}

Vec3 Kinematics::translation_velocity(double t) const {
    if (!velocity_ramp.empty()) return velocity_ramp.value(t);
    for (const VelocitySegment& s : translation)
        if (t < s.until) return s.velocity;
    return {0.0, 0.0, 0.0};
}

Vec3 Kinematics::translation_acceleration(double t) const { return velocity_ramp.slope(t); }

double Kinematics::rate(double t) const {
    return rate_schedule.empty() ? angular_velocity : rate_schedule.value(t)[0];
}

double Kinematics::angular_acceleration(double t) const { return rate_schedule.slope(t)[0]; }

double Kinematics::angle(double t) const {
    return rate_schedule.empty() ? angular_velocity * t : rate_schedule.integral(t)[0];
}

Vec3 Kinematics::pivot_at(double t) const {
    const Vec3 d = displacement(t);
    return {pivot[0] + d[0], pivot[1] + d[1], pivot[2] + d[2]};
}

KinematicState Kinematics::at(double t) const {
    KinematicState k;
    k.motion = this;
    k.pivot = pivot_at(t);
    const double theta = angle(t);
    k.rotated = theta != 0.0;
    if (k.rotated) {
        k.cos_angle = std::cos(theta);
        k.sin_angle = std::sin(theta);
    }
    k.velocity = translation_velocity(t);
    k.omega = rate(t);
    k.alpha = angular_acceleration(t);
    k.pivot_acceleration = translation_acceleration(t);
    k.steady = rate_schedule.empty() && velocity_ramp.empty();
    k.still = k.steady && angular_velocity == 0.0;
    return k;
}

void KinematicState::place(const Vec3& reference, Vec3& x, Vec3& v) const {
    const Vec3& p0 = motion->pivot;
    const Vec3& n = motion->axis;
    const Vec3 r0{reference[0] - p0[0], reference[1] - p0[1], reference[2] - p0[2]};
    const Vec3 r = rotated ? rotate(r0, n, cos_angle, sin_angle) : r0;
    // v = u + omega n x r (rigid-body velocity field)
    const Vec3 w = cross(n, r);
    for (int k = 0; k < 3; ++k) {
        x[k] = pivot[k] + r[k];
        v[k] = velocity[k] + omega * w[k];
    }
}

Vec3 KinematicState::acceleration(const Vec3& x) const {
    if (still) return {0.0, 0.0, 0.0};
    const Vec3& n = motion->axis;
    const Vec3 r{x[0] - pivot[0], x[1] - pivot[1], x[2] - pivot[2]};
    // omega^2 n x (n x r) = omega^2 (n (n . r) - r): towards the axis
    const double w2 = omega * omega;
    const double nr = dot(n, r);
    Vec3 a{w2 * (n[0] * nr - r[0]), w2 * (n[1] * nr - r[1]), w2 * (n[2] * nr - r[2])};
    if (steady) return a;  // piecewise-constant translation at a constant rate
    // + the pivot's acceleration and the tangential part alpha n x r of a changing rate.
    const Vec3 nxr = cross(n, r);
    for (int k = 0; k < 3; ++k) a[k] += pivot_acceleration[k] + alpha * nxr[k];
    return a;
}

// The rotation by -angle: cos(-a) = cos(a) and sin(-a) = -sin(a), exactly in IEEE arithmetic
// (the C library's cosine is even and its sine odd).
Vec3 KinematicState::to_reference(const Vec3& x) const {
    const Vec3 r0{x[0] - pivot[0], x[1] - pivot[1], x[2] - pivot[2]};
    const Vec3 r = rotated ? rotate(r0, motion->axis, cos_angle, -sin_angle) : r0;
    const Vec3& p0 = motion->pivot;
    return {p0[0] + r[0], p0[1] + r[1], p0[2] + r[2]};
}

void Kinematics::place(const Vec3& reference, double t, Vec3& x, Vec3& v) const {
    at(t).place(reference, x, v);
}

Vec3 Kinematics::acceleration(const Vec3& x, double t) const { return at(t).acceleration(x); }

double power_into_regolith(const Kinematics& k, const Vec3& force, const Vec3& torque, double t) {
    return -(dot(force, k.translation_velocity(t)) + k.rate(t) * dot(torque, k.axis));
}

Vec3 Kinematics::to_reference(const Vec3& x, double t) const { return at(t).to_reference(x); }

namespace {

// Knot times finite, >= 0 and strictly increasing; values finite.
template <std::size_t N, class Fail>
void check_knots(const PiecewiseLinear<N>& f, const std::string& name, const Fail& fail) {
    double previous = -1.0;
    for (std::size_t i = 0; i < f.knots.size(); ++i) {
        const auto& knot = f.knots[i];
        const std::string at = name + " knot " + std::to_string(i) + ": ";
        if (!(std::isfinite(knot.time) && knot.time >= 0.0 && knot.time > previous))
            fail(at + "time " + std::to_string(knot.time) + " s must be finite, >= 0 and later than "
                 "the previous knot's");
        for (double y : knot.value)
            if (!std::isfinite(y)) fail(at + "value must be finite");
        previous = knot.time;
    }
}

}  // namespace

void validate_schedule(const PiecewiseLinear<3>& f, const std::string& what) {
    check_knots(f, what, [](const std::string& msg) { throw std::invalid_argument(msg); });
}

Kinematics validated(Kinematics k, int dim, const std::string& where) {
    const auto fail = [&](const std::string& what) {
        throw std::invalid_argument(where + "kinematics: " + what);
    };
    if (!std::isfinite(k.angular_velocity)) fail("angular_velocity must be finite");
    for (int d = 0; d < 3; ++d)
        if (!std::isfinite(k.pivot[d]) || !std::isfinite(k.axis[d]))
            fail("pivot and axis must be finite");
    double previous = 0.0;
    for (std::size_t i = 0; i < k.translation.size(); ++i) {
        const VelocitySegment& s = k.translation[i];
        const std::string seg = "translation segment " + std::to_string(i) + ": ";
        if (!(std::isfinite(s.until) && s.until > previous))
            fail(seg + "end time " + std::to_string(s.until) +
                 " s must be finite and later than the previous end " + std::to_string(previous) +
                 " s");
        for (int d = 0; d < 3; ++d)
            if (!std::isfinite(s.velocity[d])) fail(seg + "velocity must be finite");
        if (dim == 2 && s.velocity[2] != 0.0) fail(seg + "a 2D run has no z velocity");
        previous = s.until;
    }
    if (!k.translation.empty() && !k.velocity_ramp.empty())
        fail("give translation segments or a velocity ramp, not both");
    if (k.angular_velocity != 0.0 && !k.rate_schedule.empty())
        fail("give a constant angular velocity or a rate schedule, not both");
    check_knots(k.velocity_ramp, "velocity ramp", fail);
    check_knots(k.rate_schedule, "rate schedule", fail);
    for (std::size_t i = 0; i < k.velocity_ramp.knots.size(); ++i)
        if (dim == 2 && k.velocity_ramp.knots[i].value[2] != 0.0)
            fail("velocity ramp knot " + std::to_string(i) + ": a 2D run has no z velocity");
    if (dim == 2) {
        if (k.pivot[2] != 0.0) fail("pivot: a 2D run has no z coordinate");
        if (k.axis[0] != 0.0 || k.axis[1] != 0.0 || k.axis[2] <= 0.0)
            fail("axis: 2D rotation is about +z (a negative rate turns clockwise)");
    }
    const double norm = std::sqrt(dot(k.axis, k.axis));
    if (!(norm > 0.0)) fail("axis must not be zero");
    for (double& c : k.axis) c /= norm;
    return k;
}

double rotation_rate(std::optional<double> rpm, std::optional<double> angular_velocity) {
    if (rpm && angular_velocity)
        throw std::invalid_argument("kinematics: give rpm or angular_velocity, not both");
    if (rpm) return rpm_to_radians_per_second(*rpm);
    return angular_velocity.value_or(0.0);
}

}  // namespace regosph::geometry
