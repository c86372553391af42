// Run-time choice of constitutive model per body (never by compile-time switches).
// `Model` is the registry of models: a new model is its own files (constitutive_model.hpp
// says what they provide) plus one alternative here. material.cpp is the only place that
// dispatches on `Model` (with the inline dispatchers below); every other layer calls these
// functions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
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
// correct_stress for `count` particles of material m: rho and stress point at the first one's
// entries; corrected[i] = 1 where the correction changed the stress plastically, else 0;
// stress components from `components` on (the out-of-plane shears in 2D) are left alone. A model
// with a member correct_range computes the same bits for every particle in one sweep (the
// elastic solid's equation of state, vectorised); the others run correct() particle by particle.
inline void correct_stresses(const Material& m, const double* rho,
                             const std::array<double*, kSymComponents>& stress,
                             std::uint8_t* corrected, std::size_t count, int components) {
    std::visit(
        [&](const auto& model) {
            if constexpr (requires { model.correct_range(rho, stress, corrected, count); }) {
                model.correct_range(rho, stress, corrected, count);
            } else {
                for (std::size_t i = 0; i < count; ++i) {
                    // All six read (in 2D xz and yz are zero): a partly written tensor would
                    // reach the vector loads of the constitutive code.
                    SymTensor sigma;
                    for (int c = 0; c < kSymComponents; ++c) sigma[c] = stress[c][i];
                    corrected[i] = model.correct(rho[i], sigma) ? 1 : 0;
                    for (int c = 0; c < components; ++c) stress[c][i] = sigma[c];
                }
            }
        },
        m.model);
}
inline double wave_speed(const Material& m, double rho) {
    return std::visit([rho](const auto& model) { return model.wave_speed(rho); }, m.model);
}
// wave_speed for `count` particles of material m (rho and speed point at the first one's
// entries): a model's member wave_speed_range gives the same bits in one sweep, else particle
// by particle.
inline void wave_speeds(const Material& m, const double* rho, double* speed, std::size_t count) {
    std::visit(
        [&](const auto& model) {
            if constexpr (requires { model.wave_speed_range(rho, speed, count); })
                model.wave_speed_range(rho, speed, count);
            else
                for (std::size_t i = 0; i < count; ++i) speed[i] = model.wave_speed(rho[i]);
        },
        m.model);
}
// Stored elastic energy per unit mass [J/kg] (the model's strain_energy).
inline double strain_energy(const Material& m, double rho, const SymTensor& sigma) {
    return std::visit([&](const auto& model) { return model.strain_energy(rho, sigma); }, m.model);
}

}  // namespace regosph
