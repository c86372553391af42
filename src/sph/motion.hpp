// Prescribed-motion (kinematic) bodies: placing their particles at each stage time, and the
// force and torque the dynamic particles exert on them (what a tool designer sizes a motor
// from). Kinematic particles are boundary particles: they take part in the regolith's
// equations like wall particles (density and stress extrapolated, Adami et al. 2012) and have
// no time-step limit of their own (SPEC.md section 6).
#pragma once

#include <array>
#include <vector>

#include "geometry/body.hpp"
#include "sph/equations.hpp"
#include "sph/neighbours.hpp"
#include "core/particles.hpp"

namespace regosph {

bool has_kinematic_bodies(const std::vector<Body>& bodies);

// Sets the position and velocity of every particle of a kinematic body to its prescribed
// value at time t [s] and its acceleration into wall_acceleration [m/s^2] (resized to the
// particle count; zero for every other particle).
void place_kinematic_bodies(ParticleSet& p, const std::vector<Body>& bodies, double t,
                            std::array<std::vector<double>, 3>& wall_acceleration);

// Load of the dynamic particles on one body: force [N] (2D: per unit depth, [N/m]) and torque
// about the body's pivot at the current time [N m] (2D: [N m/m] = [N], z component).
struct BodyLoad {
    std::array<double, 3> force{0.0, 0.0, 0.0};
    std::array<double, 3> torque{0.0, 0.0, 0.0};
};

// Loads on every body (entries of non-kinematic bodies stay zero), from the momentum equation
// (Schaefer 2017 eq. 37) summed over the pairs (a dynamic, b of the body): the force on the
// body is the reaction to what its particles exert on the dynamic ones,
//   F = - sum_{a, b} m_a m_b [sigma_a / rho_a^2 + sigma_b / rho_b^2 - Pi_ab I] . grad_a W_ab,
// and the torque is sum_b (x_b - pivot(t)) x F_b. The boundary values (density, stress) must
// be current (extrapolate_boundary). Deterministic: independent of the thread count.
// Collective under MPI: the sums run over every rank's particles.
std::vector<BodyLoad> kinematic_body_loads(const ParticleSet& p, const NeighbourList& nl,
                                           const MaterialTable& mt, const PhysicsParameters& pp,
                                           const std::vector<Body>& bodies, double t);

}  // namespace regosph
