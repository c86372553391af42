// Global quantities of the dynamic particles, for the diagnostics time series and tests.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "core/particles.hpp"
#include "materials/material.hpp"
#include "sph/energy_budget.hpp"

namespace regosph {

// Energies in [J], per metre of depth in 2D ([J/m]).
struct Diagnostics {
    double mass = 0.0;                           // [kg] (per metre of depth in 2D)
    double kinetic_energy = 0.0;                 // [J]
    std::array<double, 3> momentum{0, 0, 0};     // [kg m/s]
    double max_speed = 0.0;                      // [m/s]
    std::size_t yielding = 0;                    // particles that flowed plastically
    std::size_t dynamic_particles = 0;
    // Energy budget (energy_budget.hpp): the energies of the state, the cumulative terms since
    // the start of the run, and the residual: the budget's total minus its initial value.
    double potential_energy = 0.0;               // -sum m g . x, zero at the origin [J]
    double strain_energy = 0.0;                  // sum m e(rho, sigma) [J]
    double plastic_dissipation = 0.0;            // [J]
    double viscous_dissipation = 0.0;            // artificial viscosity [J]
    double wall_dissipation = 0.0;               // [J]
    double artificial_stress_dissipation = 0.0;  // [J]
    double riemann_dissipation = 0.0;            // Riemann solver (PhysicsParameters) [J]
    double body_work = 0.0;                      // of kinematic and rigid bodies [J]
    double energy_residual = 0.0;                // [J]
};

// Over the owned particles of every rank (collective under MPI): the state's quantities, and
// the energy budget's terms from `budget` (materials indexed like p.material, gravity [m/s^2]).
Diagnostics compute_diagnostics(const ParticleSet& p, const std::vector<Material>& materials,
                                const std::array<double, 3>& gravity, const EnergyBudget& budget);

}  // namespace regosph
