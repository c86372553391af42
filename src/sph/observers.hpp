// Observers: how many particles (and how much mass) of a material lie inside a region, e.g.
// the interior of a sampling tray, which may move with a kinematic body.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/particles.hpp"
#include "geometry/shapes.hpp"
#include "sph/body.hpp"

namespace regosph {

struct Observer {
    std::string name;
    geometry::ShapePtr region;  // at t = 0; it moves with `body` when that body is kinematic
    std::int32_t material = -1; // count dynamic particles of this material only; -1: any
    std::int32_t body = -1;     // body the region is attached to; -1: fixed in space
};

struct ObserverReading {
    std::int64_t count = 0;  // dynamic particles inside the region
    double mass = 0.0;       // their mass [kg] (2D: per unit depth [kg/m])
};

// Reads every observer at time t [s]: a particle is inside when its position, carried back
// to the t = 0 frame of the observer's body (Kinematics::to_reference), lies in the region.
// Serial, so that the mass sums do not depend on the thread count. Collective under MPI.
std::vector<ObserverReading> read_observers(const ParticleSet& p,
                                            const std::vector<Observer>& observers,
                                            const std::vector<Body>& bodies, double t);

}  // namespace regosph
