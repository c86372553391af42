// Bodies: named groups of particles sharing a material and a kind of motion.
#pragma once

#include <cstdint>
#include <string>

namespace regosph {

enum class Motion : std::uint8_t {
    dynamic,  // particles integrated in time (regolith)
    fixed,    // boundary particles that never move (walls, floors)
};

struct Body {
    std::string name;
    std::int32_t material = 0;
    Motion motion = Motion::dynamic;
    double spacing = 0.0;           // lattice spacing the body was filled with [m]
    double smoothing_length = 0.0;  // kernel support radius of its particles [m]
    std::size_t particle_count = 0;
};

}  // namespace regosph
