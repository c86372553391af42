// Power and work of kinematic bodies for diagnostics.csv (sph/tool_work.hpp): the power is
// minus the load's power on the tool, the work its trapezoidal integral over the rows, and a
// series continued from its last row goes on exactly as an uninterrupted one.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sph/tool_work.hpp"

using namespace regosph;

namespace {
std::vector<Body> tool_and_wall() {
    Body tool;
    tool.name = "tool";
    KinematicMotion down;
    down.kinematics.translation = {{10.0, {0.0, -1.0, 0.0}}};  // down at 1 m/s
    tool.motion = down;
    Body wall;
    wall.name = "wall";
    wall.motion = FixedMotion{};
    return {tool, wall};
}
std::vector<BodyLoad> pushing_up(double newtons) {
    std::vector<BodyLoad> loads(2);
    loads[0].force = {0.0, newtons, 0.0};  // the regolith resists the descent
    return loads;
}
}  // namespace

TEST_CASE("tool work: power of the load against the motion, trapezoidal work, exact continuation") {
    const std::vector<Body> bodies = tool_and_wall();
    CHECK(ToolWork::columns("tool", true) == std::vector<std::string>{"tool.power [W/m]", "tool.work [J/m]"});
    ToolWork w(bodies);
    CHECK(w.driven(0));
    CHECK_FALSE(w.driven(1));
    w.row(pushing_up(2.0), 0.0, 0.0);  // first row: no work yet
    CHECK(w.power(0) == 2.0);
    CHECK(w.work(0) == 0.0);
    w.row(pushing_up(2.0), 0.5, 0.1);
    CHECK(w.work(0) == doctest::Approx(1.0));
    w.row(pushing_up(4.0), 1.0, 0.1);
    CHECK(w.power(0) == 4.0);
    CHECK(w.work(0) == doctest::Approx(1.0 + 0.5 * (2.0 + 4.0) * 0.5));
    // A restarted run reads its last row back and writes the same next row.
    ToolWork resumed(bodies);
    resumed.resume({"time [s]", "tool.force_y [N/m]", "tool.power [W/m]", "tool.work [J/m]"},
                   {{0.5, 2.0, 2.0, 1.0}, {1.0, 4.0, w.power(0), w.work(0)}});
    w.row(pushing_up(6.0), 2.0, 0.1);
    resumed.row(pushing_up(6.0), 2.0, 0.1);
    CHECK(resumed.work(0) == w.work(0));
    CHECK(w.work(0) == doctest::Approx(2.5 + 0.5 * (4.0 + 6.0) * 1.0));
    ToolWork fresh(bodies);
    fresh.resume({"time [s]"}, {});  // an empty series starts afresh
    fresh.row(pushing_up(6.0), 2.0, 0.1);
    CHECK(fresh.work(0) == 0.0);
}
