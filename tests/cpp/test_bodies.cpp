// Bodies behind one interface (src/sph/body.hpp): the integrator's view places each kind's
// particles and asks for the loads each kind wants, and the states of the kinds that have one
// go through checkpoints' JSON and back.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "sph/body.hpp"

using namespace regosph;

namespace {

// Adds a body of `positions` to `bodies`, made as Simulation::add_body makes it, and its
// particles to `p`.
void add(ParticleSet& p, std::vector<Body>& bodies, const std::string& name,
         const std::string& motion, const std::vector<geometry::Point>& positions,
         const std::optional<geometry::Kinematics>& kinematics = std::nullopt) {
    const std::optional<geometry::RigidSpec> no_spec;
    Body b;
    b.name = name;
    b.spacing = 0.1;
    b.smoothing_length = 0.25;
    b.first_id = static_cast<std::int64_t>(p.size());
    b.motion = make_motion(motion, {positions, 1.0, 0.1, p.dim, {0.0, 0.0, 0.0}, kinematics, no_spec},
                           "body '" + name + "': ");
    for (const auto& x : positions)
        p.push_back(x, {0.0, 0.0, 0.0}, 1000.0, 1.0, 0.25, 0,
                    static_cast<std::int32_t>(bodies.size()), ParticleKind::boundary,
                    static_cast<std::int64_t>(p.size()));
    bodies.push_back(b);
}

}  // namespace

TEST_CASE("bodies: each kind places its particles and asks for its own loads") {
    ParticleSet p;
    p.dim = 2;
    geometry::Kinematics right;  // to +x at 1 m/s for 10 s
    right.translation = {{10.0, {1.0, 0.0, 0.0}}};
    std::vector<Body> bodies;
    add(p, bodies, "wall", "fixed", {{0.0, 0.0, 0.0}, {0.1, 0.0, 0.0}});
    add(p, bodies, "tool", "kinematic", {{0.0, 1.0, 0.0}, {0.1, 1.0, 0.0}}, right);
    Bodies view;
    view.bind(&bodies, 2);
    CHECK(view.any_boundary());
    CHECK(view.moving());
    CHECK_FALSE(view.integrated());

    std::array<std::vector<double>, 3> acc;
    view.place(p, 2.0, acc);
    CHECK(p.x[0][0] == 0.0);  // the wall stays
    CHECK(p.x[0][2] == 2.0);  // the tool moved 2 m
    CHECK(p.x[0][3] == doctest::Approx(2.1));
    CHECK(p.v[0][3] == 1.0);
    CHECK(acc[0].size() == p.size());
    CHECK(acc[0][3] == 0.0);

    const LoadRequest r = view.load_request(2.0);
    CHECK(r.collect == std::vector<std::uint8_t>{0, 1});
    CHECK(r.reference[1][0] == 2.0);  // the pivot at t
    CHECK(view.error(1e-3) == 0.0);
    CHECK(view.step_limit(0.3, 2.0) == std::numeric_limits<double>::infinity());
}

TEST_CASE("bodies: the states of rigid bodies go through their JSON text and back") {
    ParticleSet p;
    p.dim = 2;
    std::vector<Body> bodies;
    add(p, bodies, "wall", "fixed", {{0.0, 0.0, 0.0}, {0.1, 0.0, 0.0}});
    add(p, bodies, "disc", "rigid", {{0.0, 1.0, 0.0}, {0.1, 1.0, 0.0}});
    CHECK(body_states_json({bodies[0]}).empty());  // a fixed wall has no state
    auto& disc = std::get<RigidMotion>(bodies[1].motion).body.state;
    disc.velocity = {0.1, -1.0 / 3.0, 0.0};
    disc.orientation = {0.6, 0.0, 0.0, 0.8};
    const std::string text = body_states_json(bodies);

    std::vector<Body> restarted = bodies;
    std::get<RigidMotion>(restarted[1].motion).body.state = {};
    read_body_states_json(text, restarted);
    const auto& back = rigid_body(restarted[1])->state;
    CHECK(back.velocity == disc.velocity);  // doubles round-trip exactly
    CHECK(back.orientation == disc.orientation);

    restarted[1].name = "pebble";
    try {
        read_body_states_json(text, restarted);
        FAIL("a body missing from the text must be refused");
    } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()) == "rigid body states: no state of rigid body 'pebble'");
    }
}
