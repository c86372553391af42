// Run-time choice of constitutive model per body (never by compile-time switches).
// `Model` is the registry of models: a new model is its own files (constitutive_model.hpp
// says what they provide) plus one alternative here. material.cpp is the only place that
// dispatches on `Model` (with the inline dispatchers below); every other layer calls these
// functions.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "materials/constitutive_model.hpp"
#include "materials/drucker_prager.hpp"
#include "materials/elastic_solid.hpp"
#include "materials/rigid.hpp"

namespace regosph {

using Model = std::variant<DruckerPrager, ElasticSolid, Rigid>;

struct Material {
    std::string name;
    Model model;
    // Sound speed used in the artificial viscosity (Schaefer 2017 eq. 35) [m/s]. Zero means the
    // material's own elastic wave speed; the source used a fixed 600 m/s for the collapse.
    double viscosity_sound_speed = 0.0;
    // First-order consistent kernel gradient (Randles & Libersky 1996, Bonet & Lok 1999) in the
    // pair terms of this material's particles (src/sph/gradient_correction.hpp); off by
    // default. Numerics, like the viscosity sound speed: every dynamic model may use it.
    bool kernel_correction = false;
};

// Throws std::invalid_argument naming the material and the offending field, e.g.
// "material 'soil': friction_angle = 95 deg must lie in [0, 90) deg".
void validate(const Material& m);
// A copy whose model holds its derived constants for a run of dimension dim (2 or 3).
Material prepared(const Material& m, int dim);

const char* model_name(const Material& m);      // "DruckerPrager", ... (run.json "model")
bool boundary_only(const Material& m);          // only fixed or kinematic bodies may use it
bool plastic(const Material& m);                // can yield (ConstitutiveModel::kPlastic)
double reference_density(const Material& m);    // [kg/m^3]
double elastic_wave_speed(const Material& m);   // [m/s] at the reference density, 0 for Rigid
inline double wave_speed(const Material& m, double rho);  // [m/s] at density rho (Courant)
double viscosity_sound_speed(const Material& m);   // [m/s], the c of eq. 35
PairOptions pair_options(const Material& m);
std::vector<ModelParameter> model_parameters(const Material& m);  // run.json description

// The constitutive law of a prepared material (see ConstitutiveModel). Inline: they run per
// particle and stage, and ElasticSolid's members inline into them.
inline StressRate stress_rate(const Material& m, const SymTensor& sigma,
                              const SymTensor& strain_rate) {
    return std::visit([&](const auto& model) { return model.stress_rate(sigma, strain_rate); },
                      m.model);
}
inline bool correct_stress(const Material& m, double rho, SymTensor& sigma) {
    return std::visit([&](const auto& model) { return model.correct(rho, sigma); }, m.model);
}
inline double wave_speed(const Material& m, double rho) {
    return std::visit([rho](const auto& model) { return model.wave_speed(rho); }, m.model);
}
// Stored elastic energy per unit mass [J/kg] (the model's strain_energy).
inline double strain_energy(const Material& m, double rho, const SymTensor& sigma) {
    return std::visit([&](const auto& model) { return model.strain_energy(rho, sigma); }, m.model);
}

}  // namespace regosph
