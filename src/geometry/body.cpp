#include "geometry/body.hpp"

#include <stdexcept>

namespace regosph {

Motion parse_motion(const std::string& name) {
    if (name == "dynamic" || name == "free") return Motion::dynamic;
    if (name == "fixed") return Motion::fixed;
    if (name == "kinematic") return Motion::kinematic;
    throw std::invalid_argument("motion: '" + name +
                                "' is not one of 'dynamic' (alias 'free'), 'fixed', 'kinematic'");
}

}  // namespace regosph
