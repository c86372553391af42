// Bodies: named groups of particles sharing a material and a kind of motion.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "geometry/kinematics.hpp"
#include "geometry/rigid_body.hpp"

namespace regosph {

enum class Motion : std::uint8_t {
    dynamic,    // particles integrated in time (regolith, free elastic solids)
    fixed,      // boundary particles that never move (walls, floors)
    kinematic,  // boundary particles of a tool that follows prescribed motion (brush, tray)
    rigid,      // boundary particles of a rigid body that the regolith's loads move (anchor,
                // lander, cobble), with any degree of freedom optionally prescribed
};

const char* motion_name(Motion m);
// The Motion a setup names: "dynamic", "fixed", "kinematic" or "rigid". Throws
// std::invalid_argument listing the accepted names ("free" is ambiguous, and refused with a
// pointer to "dynamic" and "rigid").
Motion parse_motion(const std::string& name);

// Bodies whose loads the pair loop collects: kinematic tools (for the motor) and rigid bodies
// (their equations of motion).
bool collects_loads(Motion m);

// Throws std::invalid_argument naming `where` when a wall friction mu >= 0 (not no-slip) is
// given to a body that is not a wall (a dynamic body).
void check_wall_friction(Motion m, double mu, const std::string& where);

struct Body {
    std::string name;
    std::int32_t material = 0;
    Motion motion = Motion::dynamic;
    double spacing = 0.0;           // lattice spacing the body was filled with [m]
    double smoothing_length = 0.0;  // kernel support radius of its particles [m]
    std::size_t particle_count = 0;
    std::int64_t first_id = 0;      // its particles have ids first_id, first_id + 1, ...
    // Kinematic bodies: the prescribed motion and every particle's position at t = 0 (indexed
    // by id - first_id), from which its position at any time follows exactly.
    geometry::Kinematics kinematics;
    std::vector<geometry::Vec3> reference_positions;
    // Rigid bodies: mass properties, applied loads, constraints and state.
    geometry::RigidBody rigid;
    // Boundary bodies: friction of their wall particles against the regolith, a Coulomb
    // coefficient mu_w >= 0 (0: free-slip) or < 0 for no-slip, the default (pair_terms.hpp).
    double wall_friction = -1.0;
};

}  // namespace regosph
