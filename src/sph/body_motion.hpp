// What a kind of body motion is: the questions every body answers, whatever moves it. A kind
// is a small value type (its data, and for an integrated kind its stage state) with the
// members of BodyMotionKind; body.hpp registers the kinds in `BodyMotion` and body.cpp is the
// only place that dispatches on them. The stateless defaults come from StillBody, so that a
// kind writes only what it does:
//   kName, kBoundary     its name in setups and run.json; whether its particles are boundary
//                        (wall) particles rather than dynamic ones
//   kIntegrated          whether it has a state of its own that the Heun stages advance
//   make                 the kind from a setup's arguments (refusing those it does not take)
//   collects_loads,      whether the pair loop collects the regolith's load on it, with the
//   load_reference       torque about this point at time t
//   frame(t).place       position, velocity and acceleration of each of its particles at t
//   regolith_power       the power it gives the regolith through a load (energy budget, tools)
//   save_start ... step_limit   its own equations of motion in the integrator's Heun stages
//   state, read_state    its integrated state in checkpoints and snapshots
//   describe             its entries in run.json
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "geometry/kinematics.hpp"
#include "geometry/rigid_body.hpp"
#include "geometry/shapes.hpp"
#include "io/json.hpp"
#include "sph/body_loads.hpp"

namespace regosph {

// What a setup gives add_body about a body's motion (Simulation::add_body).
struct MotionInput {
    const std::vector<geometry::Point>& positions;  // as given [m] (2D: z is dropped)
    double particle_mass = 0.0;                     // of each particle [kg] (2D: [kg/m])
    double spacing = 0.0;                           // lattice spacing [m]
    int dim = 2;
    geometry::Point velocity{0.0, 0.0, 0.0};        // initial [m/s]
    const std::optional<geometry::Kinematics>& kinematics;
    const std::optional<geometry::RigidSpec>& rigid;
};

// Refusals of arguments a kind does not take; `where` names the body, `kind` its motion.
void refuse_velocity(const MotionInput& in, const std::string& where);
void refuse_kinematics(const MotionInput& in, const char* kind, const std::string& where);
void refuse_rigid_spec(const MotionInput& in, const char* kind, const std::string& where);

// The frame of a body whose particles never move: place leaves them where they are.
struct NoFrame {
    bool place(std::size_t, geometry::Vec3&, geometry::Vec3&, geometry::Vec3&) const {
        return false;
    }
};

// The defaults of a body that nothing moves: no loads, no frame, no state of its own.
struct StillBody {
    static constexpr bool kIntegrated = false;  // no state of its own in the Heun stages
    bool collects_loads() const { return false; }
    geometry::Vec3 load_reference(double) const { return {0.0, 0.0, 0.0}; }
    NoFrame frame(double, int) const { return {}; }
    double regolith_power(const BodyLoad&, double, int) const { return 0.0; }
    void save_start() {}
    void restore_start() {}
    void rates(int, const BodyLoad&, const std::array<double, 3>&, double, int) {}
    void update(double, bool, double, int) {}
    double error(double, double, int) const { return 0.0; }
    double step_limit(double, double, double, int) const {
        return std::numeric_limits<double>::infinity();
    }
    std::optional<nlohmann::json> state() const { return std::nullopt; }
    void read_state(const nlohmann::json&) {}
    void describe(io::Json&) const {}
};

template <class K>
concept BodyMotionKind = requires(const K& k, K& m, const MotionInput& in, const BodyLoad& load,
                                  const std::array<double, 3>& gravity, geometry::Vec3& v,
                                  const nlohmann::json& state, io::Json& description) {
    { K::kName } -> std::convertible_to<const char*>;
    { K::kBoundary } -> std::convertible_to<bool>;
    { K::kIntegrated } -> std::convertible_to<bool>;
    { K::make(in, std::string()) } -> std::same_as<K>;
    { k.collects_loads() } -> std::same_as<bool>;
    { k.load_reference(0.0) } -> std::same_as<geometry::Vec3>;
    { k.frame(0.0, 2).place(std::size_t{0}, v, v, v) } -> std::same_as<bool>;
    { k.regolith_power(load, 0.0, 2) } -> std::same_as<double>;
    m.save_start();
    m.restore_start();
    m.rates(1, load, gravity, 0.0, 2);  // stage 1, 2 or 3 (SSP-RK3: into 2), time t [s]
    m.update(0.0, false, 0.0, 2);       // dt [s], corrector?, time of the new state [s]
    { k.error(0.0, 0.0, 2) } -> std::same_as<double>;           // dt [s], h [m]
    { k.step_limit(0.0, 0.0, 0.0, 2) } -> std::same_as<double>;  // courant, h [m], t [s]
    { k.state() } -> std::same_as<std::optional<nlohmann::json>>;
    m.read_state(state);
    k.describe(description);
};

// Soil and elastic solids: SPH particles the integrator moves, not a boundary.
struct DynamicMotion : StillBody {
    static constexpr const char* kName = "dynamic";
    static constexpr bool kBoundary = false;
    static DynamicMotion make(const MotionInput& in, const std::string& where);
};

// Walls and floors: boundary particles that never move.
struct FixedMotion : StillBody {
    static constexpr const char* kName = "fixed";
    static constexpr bool kBoundary = true;
    static FixedMotion make(const MotionInput& in, const std::string& where);
};

}  // namespace regosph
