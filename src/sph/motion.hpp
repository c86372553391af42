// Prescribed-motion (kinematic) bodies: placing their particles at each stage time, and which
// loads to collect for them (the loads themselves come from the pair loop, body_loads.hpp).
// Kinematic particles are boundary particles: they take part in the regolith's equations like
// wall particles (density and stress extrapolated, Adami et al. 2012) and have no time-step
// limit of their own (SPEC.md section 6).
#pragma once

#include <array>
#include <vector>

#include "core/particles.hpp"
#include "geometry/body.hpp"
#include "sph/body_loads.hpp"

namespace regosph {

bool has_kinematic_bodies(const std::vector<Body>& bodies);

// Sets the position and velocity of every particle of a kinematic body to its prescribed
// value at time t [s] and its acceleration into wall_acceleration [m/s^2] (resized to the
// particle count; zero for every other particle).
void place_kinematic_bodies(ParticleSet& p, const std::vector<Body>& bodies, double t,
                            std::array<std::vector<double>, 3>& wall_acceleration);

// The loads to collect in an evaluation at time t [s]: those of the kinematic bodies, with
// torques about their pivots at t (what a motor must deliver).
LoadRequest kinematic_load_request(const std::vector<Body>& bodies, double t);

}  // namespace regosph
