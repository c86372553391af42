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

// Velocity and acceleration at t against central differences of the position and velocity
// (relative tolerances 1e-7 and acc_eps; `scale` [m/s^2] absorbs components that cancel to ~0).
void check_derivatives(const Kinematics& k, const Vec3& ref, double t, double scale, double acc_eps) {
    const double e = 1e-6;
    Vec3 xm, xp, x0, vm, vp, v0;
    k.place(ref, t - e, xm, vm);
    k.place(ref, t + e, xp, vp);
    k.place(ref, t, x0, v0);
    const Vec3 a = k.acceleration(x0, t);
    for (int c = 0; c < 3; ++c) {
        CHECK(v0[c] == doctest::Approx((xp[c] - xm[c]) / (2 * e)).epsilon(1e-7).scale(0.1 * scale));
        CHECK(a[c] == doctest::Approx((vp[c] - vm[c]) / (2 * e)).epsilon(acc_eps).scale(scale));
    }
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
    check_derivatives(k, {0.35, -0.02, 0.11}, 0.33, 0.0, 1e-6);  // inside a segment: smooth motion
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

// --- motor-like schedules (issue 17 part 3) ----------------------------------------------------

namespace {
PiecewiseLinear<1> rates(std::initializer_list<std::pair<double, double>> knots) {
    PiecewiseLinear<1> f;
    for (const auto& [t, w] : knots) f.knots.push_back({t, {w}});
    return f;
}
}  // namespace

TEST_CASE("kinematics: a piecewise-linear schedule, its slope and its exact integral") {
    // 2 before the first knot at 0.1 s, up to 6 at 0.3 s, down to -2 at 0.5 s, then -2.
    const PiecewiseLinear<1> f = rates({{0.1, 2.0}, {0.3, 6.0}, {0.5, -2.0}});
    CHECK(f.value(0.0)[0] == 2.0);
    CHECK(f.value(0.2)[0] == doctest::Approx(4.0));
    CHECK(f.value(0.3)[0] == 6.0);  // a knot's own value
    CHECK(f.value(0.9)[0] == -2.0);
    CHECK(f.slope(0.05)[0] == 0.0);
    CHECK(f.slope(0.1)[0] == doctest::Approx(20.0));   // the interval after the knot
    CHECK(f.slope(0.3)[0] == doctest::Approx(-40.0));
    CHECK(f.slope(0.5)[0] == 0.0);
    // Integral by hand: 2 * 0.1 + (2 + 6) / 2 * 0.2 + (6 - 2) / 2 * 0.2 + (-2) * (t - 0.5).
    CHECK(f.integral(0.05)[0] == doctest::Approx(0.1));
    CHECK(f.integral(0.3)[0] == doctest::Approx(0.2 + 0.8));
    CHECK(f.integral(0.4)[0] == doctest::Approx(1.0 + (6.0 + 2.0) / 2 * 0.1));
    CHECK(f.integral(0.7)[0] == doctest::Approx(1.0 + 0.4 - 0.4));
    // The integral's derivative is the value (central differences inside and across knots).
    for (double t : {0.05, 0.1, 0.17, 0.3, 0.45, 0.5, 0.8}) {
        const double e = 1e-7;
        const double left = f.value(t - e)[0], right = f.value(t + e)[0];
        CHECK((f.integral(t + e)[0] - f.integral(t - e)[0]) / (2 * e) == doctest::Approx(0.5 * (left + right)).epsilon(1e-6));
    }
}

TEST_CASE("kinematics: spin-up, reversal and stop: angle, rate and angular acceleration") {
    const double w = 2.0 * std::numbers::pi * 300.0 / 60.0;  // 300 rpm [rad/s]
    Kinematics k;
    k.rate_schedule = rates({{0.0, 0.0}, {0.1, w}, {0.3, w}, {0.5, -w}, {0.6, 0.0}});
    k = validated(k, 2, "test: ");
    CHECK(k.angle(0.05) == doctest::Approx(w * 0.05 * 0.05 / (2 * 0.1)));  // w t^2 / (2 T)
    CHECK(k.angle(0.1) == doctest::Approx(0.5 * w * 0.1));
    CHECK(k.angle(0.4) == doctest::Approx(0.05 * w + 0.2 * w + 0.05 * w));  // reversal midpoint: w = 0
    CHECK(k.rate(0.4) == doctest::Approx(0.0).scale(w));
    CHECK(k.angle(2.0) == doctest::Approx(0.2 * w));              // stopped after 0.6 s
    CHECK(k.rate(1.0) == 0.0);
    CHECK(k.angular_acceleration(0.05) == doctest::Approx(w / 0.1));
    CHECK(k.angular_acceleration(0.45) == doctest::Approx(-2 * w / 0.2));
    CHECK(k.angular_acceleration(0.7) == 0.0);
}

TEST_CASE("kinematics: with a rate schedule and a velocity ramp, velocity and acceleration are the derivatives of the position") {
    Kinematics k;
    k.velocity_ramp.knots = {{0.0, {0.0, 0.0, 0.0}}, {0.2, {0.1, -0.3, 0.05}}, {0.5, {0.0, 0.0, 0.0}}};
    k.rate_schedule = rates({{0.05, 0.0}, {0.25, 40.0}, {0.6, -10.0}});
    k.axis = {1.0, 2.0, 2.0};
    k.pivot = {0.3, -0.1, 0.05};
    k = validated(k, 3, "test: ");
    const Vec3 ref{0.35, -0.02, 0.11};
    for (double t : {0.03, 0.12, 0.33, 0.55, 0.9}) {  // inside intervals: smooth motion
        check_derivatives(k, ref, t, 1e-2, 1e-5);
        Vec3 x, v;
        k.place(ref, t, x, v);
        const Vec3 back = k.to_reference(x, t);
        for (int c = 0; c < 3; ++c) CHECK(back[c] == doctest::Approx(ref[c]).epsilon(1e-13));
    }
    // The ramp is continuous: no velocity jump at a knot.
    Vec3 x, before, after;
    k.place(ref, 0.2 - 1e-12, x, before);
    k.place(ref, 0.2, x, after);
    for (int c = 0; c < 3; ++c) CHECK(after[c] == doctest::Approx(before[c]).epsilon(1e-9));
    // Displacement: the trapezoids of the ramp, (0.1, -0.3, 0.05) / 2 * 0.5 s after it ends.
    const Vec3 d = k.displacement(1.0);
    CHECK(d[0] == doctest::Approx(0.025));
    CHECK(d[1] == doctest::Approx(-0.075));
    CHECK(d[2] == doctest::Approx(0.0125));
}

TEST_CASE("kinematics: the constant-rate, piecewise-constant motion is unchanged bit for bit") {
    const Kinematics k = tool_3d();
    const Vec3 x{0.4, 0.02, -0.03};
    for (double t : {0.0, 0.1, 0.2, 0.37, 2.0}) {
        CHECK(k.angle(t) == k.angular_velocity * t);
        CHECK(k.rate(t) == k.angular_velocity);
        // The centripetal acceleration alone, as before the schedules existed.
        const Vec3 p = k.pivot_at(t);
        const Vec3 r{x[0] - p[0], x[1] - p[1], x[2] - p[2]};
        const double w2 = k.angular_velocity * k.angular_velocity;
        const double nr = k.axis[0] * r[0] + k.axis[1] * r[1] + k.axis[2] * r[2];
        const Vec3 a = k.acceleration(x, t);
        for (int c = 0; c < 3; ++c) CHECK(a[c] == w2 * (k.axis[c] * nr - r[c]));
        CHECK(k.translation_acceleration(t) == Vec3{0.0, 0.0, 0.0});
    }
}

TEST_CASE("kinematics: the power the regolith takes is minus the load's power on the tool") {
    Kinematics k;
    k.translation = {{1.0, {0.0, -0.05, 0.0}}};
    k.rate_schedule = rates({{0.0, 0.0}, {0.5, 10.0}});
    k = validated(k, 2, "");
    // The regolith resists: force against the descent, torque against the rotation.
    const Vec3 force{0.3, 2.0, 0.0}, torque{0.0, 0.0, -0.4};
    CHECK(power_into_regolith(k, force, torque, 0.25) == doctest::Approx(2.0 * 0.05 + 0.4 * 5.0));
    CHECK(power_into_regolith(k, force, torque, 2.0) == doctest::Approx(0.4 * 10.0));
}

TEST_CASE("kinematics: invalid schedules are refused with the field named") {
    Kinematics both;
    both.angular_velocity = 1.0;
    both.rate_schedule = rates({{0.0, 1.0}});
    CHECK_THROWS_WITH_AS(validated(both, 2, "body 'b': "),
                         doctest::Contains("body 'b': kinematics: give a constant angular velocity or a rate schedule"),
                         std::invalid_argument);
    Kinematics order;
    order.rate_schedule = rates({{0.2, 1.0}, {0.1, 2.0}});
    CHECK_THROWS_WITH_AS(validated(order, 2, ""), doctest::Contains("rate schedule knot 1: time"),
                         std::invalid_argument);
    Kinematics negative;
    negative.rate_schedule = rates({{-0.1, 1.0}});
    CHECK_THROWS_WITH_AS(validated(negative, 2, ""), doctest::Contains("rate schedule knot 0"),
                         std::invalid_argument);
    Kinematics mixed;
    mixed.translation = {{0.2, {0, -1, 0}}};
    mixed.velocity_ramp.knots = {{0.0, {0, 0, 0}}};
    CHECK_THROWS_WITH_AS(validated(mixed, 2, ""), doctest::Contains("translation segments or a velocity ramp"),
                         std::invalid_argument);
    Kinematics flat;
    flat.velocity_ramp.knots = {{0.0, {0, 0, 0}}, {0.1, {0, 0, 1}}};
    CHECK_THROWS_WITH_AS(validated(flat, 2, ""), doctest::Contains("velocity ramp knot 1: a 2D run has no z velocity"),
                         std::invalid_argument);
    Kinematics nan;
    nan.velocity_ramp.knots = {{0.0, {0, NAN, 0}}};
    CHECK_THROWS_WITH_AS(validated(nan, 3, ""), doctest::Contains("velocity ramp knot 0: value must be finite"),
                         std::invalid_argument);
}
