// What the Python constructors convert (src/core/units.hpp, src/materials/parameters.hpp,
// src/sph/body.hpp, rotation_rate in src/geometry/kinematics.hpp): units, modulus
// combinations and the accepted names, each with its error naming the field.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "materials/parameters.hpp"
#include "sph/body.hpp"

using namespace regosph;

namespace {
template <class F>
std::string error_of(F f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "no error";
}

DruckerPragerInput soil() {
    return {.density = 2650, .bulk_modulus = 0.7e6, .poisson_ratio = 0.3,
            .friction_angle_deg = 19.8, .cohesion = 0.0};
}
}  // namespace

TEST_CASE("units: degrees, radians and rev/min") {
    CHECK(degrees_to_radians(180.0) == std::numbers::pi);
    CHECK(degrees_to_radians(90.0) == doctest::Approx(std::numbers::pi / 2));
    CHECK(radians_to_degrees(std::numbers::pi / 4) == doctest::Approx(45.0));
    CHECK(radians_to_degrees(degrees_to_radians(19.8)) == doctest::Approx(19.8).epsilon(1e-15));
    CHECK(rpm_to_radians_per_second(60.0) == doctest::Approx(2 * std::numbers::pi));
    CHECK(rpm_to_radians_per_second(-100.0) == doctest::Approx(-10.471975511965978));
}

TEST_CASE("parameters: Drucker-Prager from Poisson's ratio and degrees") {
    const Material m = make_material("soil", soil());
    const auto& dp = std::get<DruckerPrager>(m.model);
    // mu = 3K(1 - 2nu) / (2(1 + nu)) = 0.7e6 * 3 * 0.4 / 2.6
    CHECK(dp.shear_modulus == doctest::Approx(0.7e6 * 1.2 / 2.6));
    CHECK(dp.friction_angle == doctest::Approx(19.8 * std::numbers::pi / 180));
    CHECK(dp.dilatancy_angle == 0.0);
    CHECK(m.name == "soil");

    DruckerPragerInput direct = soil();
    direct.poisson_ratio.reset();
    direct.shear_modulus = 0.3e6;
    CHECK(std::get<DruckerPrager>(make_material("soil", direct).model).shear_modulus == 0.3e6);
}

TEST_CASE("parameters: Drucker-Prager errors name the material and the field") {
    DruckerPragerInput both = soil();
    both.shear_modulus = 1e6;
    CHECK(error_of([&] { make_material("soil", both); }) ==
          "material 'soil': give exactly one of shear_modulus and poisson_ratio");
    DruckerPragerInput neither = soil();
    neither.poisson_ratio.reset();
    CHECK(error_of([&] { make_material("soil", neither); }).find("exactly one") != std::string::npos);
    DruckerPragerInput bad_nu = soil();
    bad_nu.poisson_ratio = 0.5;
    CHECK(error_of([&] { make_material("soil", bad_nu); }) ==
          "material 'soil': poisson_ratio = 0.5 must lie in (-1, 0.5)");
    DruckerPragerInput steep = soil();
    steep.friction_angle_deg = 95.0;
    CHECK(error_of([&] { make_material("soil", steep); }).find("friction_angle") != std::string::npos);
}

TEST_CASE("parameters: elastic solid and rigid materials are validated") {
    const Material ring = make_material(
        "ring", ElasticSolidInput{.density = 1200, .youngs_modulus = 1e7, .poisson_ratio = 0.4});
    const auto& es = std::get<ElasticSolid>(ring.model);
    CHECK(es.shear_modulus == doctest::Approx(1e7 / 2.8));
    CHECK(es.bulk_modulus == doctest::Approx(1e7 / 0.6));
    CHECK(error_of([] { make_material("ring", ElasticSolidInput{.density = 1200, .bulk_modulus = 1e6}); })
              .find("(1 given)") != std::string::npos);
    CHECK(std::get<Rigid>(make_material("wall", Rigid{2650}).model).density == 2650);
    CHECK(error_of([] { make_material("wall", Rigid{-1.0}); }).find("material 'wall': density") == 0);
}

TEST_CASE("parameters: motion names and the rotation rate") {
    const std::vector<geometry::Point> positions{{0.0, 0.0, 0.0}, {0.1, 0.0, 0.0}};
    const std::optional<geometry::Kinematics> kinematics = geometry::Kinematics{}, none;
    const std::optional<geometry::RigidSpec> no_spec;
    const MotionInput in{positions, 1.0, 0.1, 2, {0.0, 0.0, 0.0}, kinematics, no_spec};
    const MotionInput still{positions, 1.0, 0.1, 2, {0.0, 0.0, 0.0}, none, no_spec};
    for (const std::string name : {"dynamic", "fixed", "kinematic", "rigid"}) {
        Body b;
        b.motion = make_motion(name, name == "kinematic" ? in : still, "body 'b': ");
        CHECK(motion_name(b) == name);
        CHECK(is_boundary(b) == (name != "dynamic"));
        CHECK(boundary_motion(name) == (name != "dynamic"));
        CHECK(collects_loads(b) == (name == "kinematic" || name == "rigid"));
        CHECK((prescribed_motion(b) != nullptr) == (name == "kinematic"));
        CHECK((rigid_body(b) != nullptr) == (name == "rigid"));
    }
    CHECK(error_of([&] { make_motion("fixed", in, "body 'b': "); }) ==
          "body 'b': kinematics: only a kinematic or rigid body follows prescribed motion "
          "(motion is 'fixed')");
    CHECK(error_of([] { boundary_motion("free"); }).find("use 'dynamic'") != std::string::npos);
    CHECK(error_of([] { boundary_motion("floating"); }) ==
          "motion: 'floating' is not one of 'dynamic', 'fixed', 'kinematic', 'rigid'");
    CHECK(geometry::rotation_rate(std::nullopt, std::nullopt) == 0.0);
    CHECK(geometry::rotation_rate(30.0, std::nullopt) == doctest::Approx(std::numbers::pi));
    CHECK(geometry::rotation_rate(std::nullopt, 2.5) == 2.5);
    CHECK(error_of([] { geometry::rotation_rate(30.0, 2.5); }) ==
          "kinematics: give rpm or angular_velocity, not both");
}
