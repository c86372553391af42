#include "geometry/kinematics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/units.hpp"

namespace regosph::geometry {

namespace {

Vec3 cross(const Vec3& a, const Vec3& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// Rodrigues' formula: r rotated by `angle` [rad] about the unit axis n,
// Q r = r cos(angle) + (n x r) sin(angle) + n (n . r) (1 - cos(angle)).
Vec3 rotate(const Vec3& r, const Vec3& n, double angle) {
    if (angle == 0.0) return r;
    const double c = std::cos(angle), s = std::sin(angle);
    const Vec3 nxr = cross(n, r);
    const double nr = dot(n, r) * (1.0 - c);
    return {r[0] * c + nxr[0] * s + n[0] * nr, r[1] * c + nxr[1] * s + n[1] * nr,
            r[2] * c + nxr[2] * s + n[2] * nr};
}

}  // namespace

Vec3 Kinematics::displacement(double t) const {
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
    for (const VelocitySegment& s : translation)
        if (t < s.until) return s.velocity;
    return {0.0, 0.0, 0.0};
}

Vec3 Kinematics::pivot_at(double t) const {
    const Vec3 d = displacement(t);
    return {pivot[0] + d[0], pivot[1] + d[1], pivot[2] + d[2]};
}

void Kinematics::place(const Vec3& reference, double t, Vec3& x, Vec3& v) const {
    const Vec3 p = pivot_at(t);
    const Vec3 r0{reference[0] - pivot[0], reference[1] - pivot[1], reference[2] - pivot[2]};
    const Vec3 r = rotate(r0, axis, angle(t));
    const Vec3 u = translation_velocity(t);
    // v = u + omega n x r (rigid-body velocity field)
    const Vec3 w = cross(axis, r);
    for (int k = 0; k < 3; ++k) {
        x[k] = p[k] + r[k];
        v[k] = u[k] + angular_velocity * w[k];
    }
}

Vec3 Kinematics::acceleration(const Vec3& x, double t) const {
    if (angular_velocity == 0.0) return {0.0, 0.0, 0.0};
    const Vec3 p = pivot_at(t);
    const Vec3 r{x[0] - p[0], x[1] - p[1], x[2] - p[2]};
    // omega^2 n x (n x r) = omega^2 (n (n . r) - r): towards the axis
    const double w2 = angular_velocity * angular_velocity;
    const double nr = dot(axis, r);
    return {w2 * (axis[0] * nr - r[0]), w2 * (axis[1] * nr - r[1]), w2 * (axis[2] * nr - r[2])};
}

Vec3 Kinematics::to_reference(const Vec3& x, double t) const {
    const Vec3 p = pivot_at(t);
    const Vec3 r = rotate({x[0] - p[0], x[1] - p[1], x[2] - p[2]}, axis, -angle(t));
    return {pivot[0] + r[0], pivot[1] + r[1], pivot[2] + r[2]};
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
