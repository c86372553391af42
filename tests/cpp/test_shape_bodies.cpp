// Particle-free rigid bodies with true shapes (geometry/shape_bodies.hpp, shape_contact.hpp,
// shape_system.hpp): mass properties of meshes against the analytic box and ellipsoid, the
// restitution of a sphere hitting a mesh head-on, a box resting on a plane on its four
// corners, and static against sliding friction on an incline.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "geometry/shape_system.hpp"

using namespace regosph::geometry;

namespace {

// Closed box [0, l]^3 meshes: 8 corners, 12 triangles facing outward.
struct BoxMesh {
    std::vector<Point> vertices;
    std::vector<std::array<std::int64_t, 3>> triangles;
};

BoxMesh box_mesh(double lx, double ly, double lz) {
    BoxMesh m;
    for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 2; ++j)
            for (int i = 0; i < 2; ++i) m.vertices.push_back({i * lx, j * ly, k * lz});
    m.triangles = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
                   {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
    return m;
}

ShapeSystem system_with(const ShapeContactLaw& law) {
    ShapeSystem s;
    s.law = law;
    return s;
}

}  // namespace

TEST_CASE("shape bodies: mesh mass properties match the analytic box and ellipsoid") {
    const BoxMesh m = box_mesh(0.1, 0.2, 0.3);
    const ClosedMesh box = close_mesh("box", m.vertices, m.triangles);
    const MassProperties p = polyhedron_mass_properties(box, 1000.0);
    const double mass = 1000.0 * 0.1 * 0.2 * 0.3;
    CHECK(p.mass == doctest::Approx(mass).epsilon(1e-12));
    CHECK(p.centre[2] == doctest::Approx(0.15).epsilon(1e-12));
    CHECK(p.inertia[0] == doctest::Approx(mass * (0.04 + 0.09) / 12.0).epsilon(1e-12));
    CHECK(p.inertia[4] == doctest::Approx(mass * (0.01 + 0.09) / 12.0).epsilon(1e-12));
    CHECK(p.inertia[8] == doctest::Approx(mass * (0.01 + 0.04) / 12.0).epsilon(1e-12));
    CHECK(std::abs(p.inertia[1]) < 1e-15);

    // An icosphere stretched to (a, b, c) tends to the ellipsoid's analytic properties.
    const vec::V axes{0.03, 0.04, 0.05};
    SurfaceMesh s = icosphere(5);
    for (Point& v : s.vertices)
        for (int k = 0; k < 3; ++k) v[k] *= axes[k];
    const ClosedMesh solid = close_mesh("ellipsoid", s.vertices, s.triangles);
    const MassProperties e = polyhedron_mass_properties(solid, 2000.0);
    const ShapeBody exact = make_ellipsoid_body(axes, 2000.0, 12);
    CHECK(e.mass == doctest::Approx(exact.mass_kg).epsilon(2e-3));
    for (int k : {0, 4, 8}) CHECK(e.inertia[k] == doctest::Approx(exact.inertia_kg_m2[k]).epsilon(3e-3));
}

TEST_CASE("shape bodies: a sphere hitting a mesh box head-on rebounds with the input restitution") {
    for (double e : {0.5, 0.9}) {
        ShapeContactLaw law;
        law.stiffness_per_area_N_m3 = 1e9;
        law.restitution = e;
        ShapeSystem s = system_with(law);
        ShapeBody ball = make_sphere_body(0.05, 2500.0, 2562);
        ball.x_m = {-0.1505, 0.1, 0.1};
        ball.v_m_s = {0.2, 0.0, 0.0};
        const BoxMesh m = box_mesh(0.2, 0.2, 0.2);
        ShapeBody box = make_mesh_body("box", m.vertices, m.triangles, 8.0, 0.005);
        box.x_m = {0.0, 0.1, 0.1};
        s.bodies = {ball, box};
        start(s);
        for (int n = 0; n < 3000 && (s.collisions.empty() || !s.collisions[0].finished); ++n) step(s, 1e-5);
        REQUIRE(s.collisions.size() == 1);
        const CollisionOutcome o = collision_outcome(s.collisions[0]);
        CHECK(o.normal_velocity_ratio == doctest::Approx(e).epsilon(0.03));
        CHECK(s.collisions[0].peak_nodes > 3);  // a curved patch of several nodes
        CHECK(std::abs(s.bodies[0].v_m_s[1]) < 1e-9);  // central: no sideways kick
    }
}

TEST_CASE("shape bodies: a box rests on a plane on its four corners") {
    ShapeContactLaw law;
    law.stiffness_per_area_N_m3 = 1e8;
    law.restitution = 0.3;
    law.mu_static = law.mu_dynamic = 0.5;
    ShapeSystem s = system_with(law);
    s.gravity_m_s2 = {0.0, 0.0, -9.81};
    s.walls.push_back(PlaneWall{});
    const BoxMesh m = box_mesh(0.1, 0.1, 0.1);
    ShapeBody box = make_mesh_body("box", m.vertices, m.triangles, 1.0, 0.005);
    box.x_m = {0.0, 0.0, 0.05};
    s.bodies = {box};
    start(s);
    for (int n = 0; n < 50000; ++n) step(s, 2e-5);
    REQUIRE(s.contacts.size() == 1);
    CHECK(s.contacts[0].nodes == 4);
    CHECK(s.contacts[0].normal_force_N == doctest::Approx(9.81).epsilon(1e-3));
    CHECK(vec::norm(s.bodies[0].v_m_s) < 1e-5);
    CHECK(vec::norm(angular_velocity(s.bodies[0])) < 1e-3);
    CHECK(s.bodies[0].x_m[2] > 0.0499);
}

TEST_CASE("shape bodies: static friction holds a box on a 30 degree incline, dynamic friction lets it slide") {
    const double g = 9.81, beta = std::numbers::pi / 6.0;
    for (double mu : {0.8, 0.3}) {
        ShapeContactLaw law;
        law.stiffness_per_area_N_m3 = 1e8;
        law.restitution = 0.3;
        law.mu_static = law.mu_dynamic = mu;
        ShapeSystem s = system_with(law);
        s.gravity_m_s2 = {g * std::sin(beta), 0.0, -g * std::cos(beta)};  // the incline is z = 0
        s.walls.push_back(PlaneWall{});
        const BoxMesh m = box_mesh(0.1, 0.1, 0.1);
        ShapeBody box = make_mesh_body("box", m.vertices, m.triangles, 1.0, 0.005);
        box.x_m = {0.0, 0.0, 0.05 - 9.81 * std::cos(beta) / (law.stiffness_per_area_N_m3 * 0.005)};
        s.bodies = {box};
        start(s);
        for (int n = 0; n < 10000; ++n) step(s, 2e-5);
        const double x0 = s.bodies[0].x_m[0], v0 = s.bodies[0].v_m_s[0], t0 = s.time_s;
        for (int n = 0; n < 10000; ++n) step(s, 2e-5);
        const double dx = s.bodies[0].x_m[0] - x0;
        if (mu > std::tan(beta)) {
            CHECK(std::abs(dx) < 1e-6);
            CHECK(std::abs(s.bodies[0].v_m_s[0]) < 1e-5);
        } else {
            const double a = (s.bodies[0].v_m_s[0] - v0) / (s.time_s - t0);
            CHECK(a == doctest::Approx(g * (std::sin(beta) - mu * std::cos(beta))).epsilon(0.02));
        }
    }
}
