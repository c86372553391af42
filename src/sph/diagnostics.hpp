// Global quantities of the dynamic particles, for the diagnostics time series and tests.
#pragma once

#include <array>
#include <cstddef>

#include "core/particles.hpp"

namespace regosph {

struct Diagnostics {
    double mass = 0.0;                           // [kg] (per metre of depth in 2D)
    double kinetic_energy = 0.0;                 // [J]
    std::array<double, 3> momentum{0, 0, 0};     // [kg m/s]
    double max_speed = 0.0;                      // [m/s]
    std::size_t yielding = 0;                    // particles that flowed plastically
    std::size_t dynamic_particles = 0;
};

// Over the owned particles of every rank (collective under MPI).
Diagnostics compute_diagnostics(const ParticleSet& p);

}  // namespace regosph
