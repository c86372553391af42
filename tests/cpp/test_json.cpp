// run.json through nlohmann-json (src/io/json.hpp, Simulation::describe): doubles read back
// exactly, keys keep the order they are written in, strings are escaped, and a setup's
// description carries every section.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "core/units.hpp"
#include "geometry/shapes.hpp"
#include "geometry/lattice.hpp"
#include "io/json.hpp"
#include "sph/simulation.hpp"

using namespace regosph;

TEST_CASE("json: doubles round-trip bit for bit, non-finite numbers become null") {
    const std::vector<double> values = {0.1, 1.0 / 3.0, -9.81, degrees_to_radians(19.8),
                                        std::numeric_limits<double>::denorm_min(),
                                        std::numeric_limits<double>::max(), 2650.0, -0.0, 1e-10};
    const io::Json j = values;
    const io::Json back = io::Json::parse(j.dump());
    for (std::size_t k = 0; k < values.size(); ++k)
        CHECK(std::bit_cast<std::uint64_t>(back[k].get<double>()) ==
              std::bit_cast<std::uint64_t>(values[k]));
    CHECK(io::Json(std::numeric_limits<double>::quiet_NaN()).dump() == "null");
    CHECK(io::Json(std::numeric_limits<double>::infinity()).dump() == "null");
}

TEST_CASE("json: strings with quotes and control characters are escaped") {
    const std::string awkward = "a \"quoted\" back\\slash\nnew line\ttab \x01";
    CHECK(io::Json::parse(io::Json(awkward).dump()).get<std::string>() == awkward);
}

TEST_CASE("json: a material's description, angles in degrees") {
    DruckerPrager dp;
    dp.density = 2650;
    dp.bulk_modulus = 0.7e6;
    dp.shear_modulus = 0.3e6;
    dp.friction_angle = degrees_to_radians(19.8);
    const io::Json j = io::Json::parse(io::describe_material(Material{"soil", dp, 0.0}).dump());
    std::vector<std::string> keys;
    for (const auto& [k, v] : j.items()) keys.push_back(k);
    CHECK(keys == std::vector<std::string>{"name", "viscosity_sound_speed_m_s", "model",
                                           "density_kg_m3", "bulk_modulus_Pa", "shear_modulus_Pa",
                                           "friction_angle_deg", "cohesion_Pa", "dilatancy_angle_deg"});
    CHECK(j["model"] == "DruckerPrager");
    CHECK(j["friction_angle_deg"].get<double>() == radians_to_degrees(dp.friction_angle));
    CHECK(j["friction_angle_deg"].get<double>() == doctest::Approx(19.8));
    CHECK(io::describe_material(Material{"wall", Rigid{1500.0}, 0.0})["density_kg_m3"] == 1500.0);
}

TEST_CASE("json: Simulation::describe lists the setup in its sections, in order") {
    Simulation sim(2);
    const int wall = sim.add_material(Material{"wall", Rigid{2000.0}, 0.0});
    const auto pts = geometry::lattice_fill(*geometry::rectangle({0, 0}, {0.05, 0.02}), 0.01);
    sim.add_body("floor \"A\"", wall, "fixed", pts, 0.01, 0.025);
    RunOptions o;
    o.end_time = 0.25;
    o.metadata = {{"setup", "test"}, {"spacing_m", "0.01"}};
    const io::Json j = io::Json::parse(sim.describe(o));
    std::vector<std::string> keys;
    for (const auto& [k, v] : j.items()) keys.push_back(k);
    CHECK(keys == std::vector<std::string>{"regosph_version", "dim", "physics", "integrator",
                                           "materials", "bodies", "observers", "run", "metadata"});
    CHECK(j["dim"] == 2);
    CHECK(j["bodies"][0]["name"] == "floor \"A\"");
    CHECK(j["bodies"][0]["particles"] == pts.size());
    CHECK(j["run"]["end_time_s"] == 0.25);
    CHECK(j["metadata"]["spacing_m"] == "0.01");
    CHECK(j["observers"].is_array());
}
