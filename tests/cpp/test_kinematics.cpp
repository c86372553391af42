// Prescribed rigid-body motion (src/geometry/kinematics.hpp): the translation schedule, the
// rotation about a moving pivot, the rigid velocity and centripetal acceleration, and the
// inverse map used by observers.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "geometry/kinematics.hpp"

using namespace regosph::geometry;

namespace {
Kinematics tool_3d() {
    Kinematics k;
    k.translation = {{0.2, {0.0, -0.05, 0.0}}, {0.5, {0.1, 0.0, 0.02}}};
    k.angular_velocity = 7.0;
    k.axis = {1.0, 2.0, 2.0};
    k.pivot = {0.3, -0.1, 0.05};
    return validated(k, 3, "test: ");
}
}  // namespace

TEST_CASE("kinematics: the translation schedule integrates piecewise-constant velocities") {
    const Kinematics k = tool_3d();
    const Vec3 d1 = k.displacement(0.1);
    CHECK(d1[1] == doctest::Approx(-0.005));
    const Vec3 d2 = k.displacement(0.3);
    CHECK(d2[0] == doctest::Approx(0.01));
    CHECK(d2[1] == doctest::Approx(-0.01));
    CHECK(d2[2] == doctest::Approx(0.002));
    // After the last segment the body rests.
    const Vec3 d3 = k.displacement(0.5), d4 = k.displacement(9.0);
    for (int c = 0; c < 3; ++c) CHECK(d3[c] == d4[c]);
    CHECK(k.translation_velocity(0.6) == Vec3{0, 0, 0});
    CHECK(k.translation_velocity(0.2)[0] == 0.1);  // at a switch: the velocity after it
}

TEST_CASE("kinematics: place keeps distances to the pivot and is inverted by to_reference") {
    const Kinematics k = tool_3d();
    const Vec3 ref{0.35, -0.02, 0.11};
    for (double t : {0.0, 0.05, 0.37, 1.3}) {
        Vec3 x, v;
        k.place(ref, t, x, v);
        const Vec3 p = k.pivot_at(t);
        double r0 = 0, r = 0, along0 = 0, along = 0;
        for (int c = 0; c < 3; ++c) {
            r0 += (ref[c] - k.pivot[c]) * (ref[c] - k.pivot[c]);
            r += (x[c] - p[c]) * (x[c] - p[c]);
            along0 += (ref[c] - k.pivot[c]) * k.axis[c];
            along += (x[c] - p[c]) * k.axis[c];
        }
        CHECK(r == doctest::Approx(r0).epsilon(1e-13));
        CHECK(along == doctest::Approx(along0).epsilon(1e-12));  // rotation about the axis
        const Vec3 back = k.to_reference(x, t);
        for (int c = 0; c < 3; ++c) CHECK(back[c] == doctest::Approx(ref[c]).epsilon(1e-13));
    }
}

TEST_CASE("kinematics: velocity and acceleration are the time derivatives of the position") {
    const Kinematics k = tool_3d();
    const Vec3 ref{0.35, -0.02, 0.11};
    const double t = 0.33, e = 1e-6;  // inside a segment: smooth motion
    Vec3 xm, xp, x0, vm, vp, v0;
    k.place(ref, t - e, xm, vm);
    k.place(ref, t + e, xp, vp);
    k.place(ref, t, x0, v0);
    const Vec3 a = k.acceleration(x0, t);
    for (int c = 0; c < 3; ++c) {
        CHECK(v0[c] == doctest::Approx((xp[c] - xm[c]) / (2 * e)).epsilon(1e-7));
        CHECK(a[c] == doctest::Approx((vp[c] - vm[c]) / (2 * e)).epsilon(1e-6));
    }
}

TEST_CASE("kinematics: a full revolution in 2D returns every point to round-off") {
    Kinematics k;
    k.angular_velocity = -2.0 * std::numbers::pi * 500.0 / 60.0;  // 500 rpm clockwise
    k.pivot = {0.0475, 0.0434, 0.0};
    k = validated(k, 2, "test: ");
    const double period = 60.0 / 500.0;
    for (const Vec3 ref : {Vec3{0.0825, 0.0434, 0}, Vec3{0.0475, 0.0084, 0}, Vec3{0.03, 0.06, 0}}) {
        Vec3 x, v;
        k.place(ref, period, x, v);
        CHECK(std::abs(x[0] - ref[0]) < 1e-15);
        CHECK(std::abs(x[1] - ref[1]) < 1e-15);
        // Clockwise: the point right of the pivot moves down.
        if (ref[0] > k.pivot[0] + 0.01) CHECK(v[1] < 0.0);
    }
}

TEST_CASE("kinematics: invalid motion is refused with the field named") {
    Kinematics k;
    k.translation = {{0.2, {0, -1, 0}}, {0.2, {0, 0, 0}}};
    CHECK_THROWS_WITH_AS(validated(k, 2, "body 'b': "),
                         doctest::Contains("body 'b': kinematics: translation segment 1"),
                         std::invalid_argument);
    Kinematics z;
    z.axis = {0, 0, 0};
    CHECK_THROWS_WITH_AS(validated(z, 3, ""), doctest::Contains("axis must not be zero"),
                         std::invalid_argument);
    Kinematics tilted;
    tilted.axis = {1, 0, 0};
    CHECK_THROWS_WITH_AS(validated(tilted, 2, ""), doctest::Contains("axis: 2D rotation"),
                         std::invalid_argument);
}
