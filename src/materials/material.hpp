// Run-time choice of constitutive model per body (never by compile-time switches).
// A new model is a new alternative of `Model` plus its case in material.cpp and in the
// stress-rate dispatch of src/sph/equations.cpp.
#pragma once

#include <string>
#include <variant>

#include "materials/drucker_prager.hpp"
#include "materials/elastic_solid.hpp"

namespace regosph {

// Material of bodies whose particles are boundary particles (fixed walls, prescribed-motion
// tools): only its density is used, to give the particles their volume m / rho.
struct Rigid {
    double density = 0.0;  // [kg/m^3]
};

using Model = std::variant<DruckerPrager, ElasticSolid, Rigid>;

struct Material {
    std::string name;
    Model model;
    // Sound speed used in the artificial viscosity (Schaefer 2017 eq. 35) [m/s]. Zero means the
    // material's own elastic wave speed; the source used a fixed 600 m/s for the collapse.
    double viscosity_sound_speed = 0.0;
};

double reference_density(const Material& m);    // [kg/m^3]
double elastic_wave_speed(const Material& m);    // [m/s] at the reference density, 0 for Rigid
double viscosity_sound_speed(const Material& m); // [m/s], the c of eq. 35

// Throws std::invalid_argument naming the material and the offending field, e.g.
// "material 'soil': friction_angle = 95 deg must lie in [0, 90) deg".
void validate(const Material& m);

}  // namespace regosph
