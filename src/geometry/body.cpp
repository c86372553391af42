#include "geometry/body.hpp"

#include <stdexcept>

namespace regosph {

const char* motion_name(Motion m) {
    switch (m) {
        case Motion::dynamic: return "dynamic";
        case Motion::fixed: return "fixed";
        case Motion::kinematic: return "kinematic";
        case Motion::rigid: return "rigid";
    }
    return "?";
}

Motion parse_motion(const std::string& name) {
    if (name == "dynamic") return Motion::dynamic;
    if (name == "fixed") return Motion::fixed;
    if (name == "kinematic") return Motion::kinematic;
    if (name == "rigid") return Motion::rigid;
    if (name == "free")
        throw std::invalid_argument(
            "motion: 'free' is ambiguous and no longer accepted: use 'dynamic' for a deformable "
            "body of SPH particles (regolith, elastic solid) or 'rigid' for a rigid body that "
            "the regolith moves");
    throw std::invalid_argument("motion: '" + name +
                                "' is not one of 'dynamic', 'fixed', 'kinematic', 'rigid'");
}

void check_wall_friction(Motion m, double mu, const std::string& where) {
    if (m == Motion::dynamic && mu >= 0.0)
        throw std::invalid_argument(where + "wall_friction: only boundary bodies (fixed, "
                                    "kinematic, rigid) are walls; a dynamic body's contacts "
                                    "follow its material");
}

bool collects_loads(Motion m) { return m == Motion::kinematic || m == Motion::rigid; }

}  // namespace regosph
