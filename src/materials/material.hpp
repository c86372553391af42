// Run-time choice of constitutive model per body (never by compile-time switches).
// `Model` is the registry of models: a new model is its own files (constitutive_model.hpp
// says what they provide) plus one alternative here. material.cpp is the only place that
// dispatches on `Model` (with the inline dispatchers below); every other layer calls these
// functions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/particles.hpp"
#include "materials/constitutive_model.hpp"
#include "materials/drucker_prager.hpp"
#include "materials/elastic_solid.hpp"
#include "materials/mohr_coulomb.hpp"
#include "materials/mu_i_rheology.hpp"
#include "materials/porosity_coupling.hpp"
#include "materials/rigid.hpp"

namespace regosph {

using Model = std::variant<DruckerPrager, ElasticSolid, Rigid, MuIRheology, PorousDruckerPrager,
                           MohrCoulomb, PorousMohrCoulomb>;

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
// [m/s] at the reference state (reference density, no stress, initial history; a model with
// pressure-dependent moduli gives its reference_wave_speed(), at its reference pressure),
// 0 for Rigid
double elastic_wave_speed(const Material& m);
// The model's elasticity (elasticity.hpp), nullopt for a model without the choice.
std::optional<Elasticity> elasticity(const Material& m);
double viscosity_sound_speed(const Material& m);   // [m/s], the c of eq. 35
double shear_modulus(const Material& m);  // [Pa], 0 for a model without one
PairOptions pair_options(const Material& m);
std::vector<ModelParameter> model_parameters(const Material& m);  // run.json description
// The model's history variables (none for a model without history()).
std::vector<HistoryVariable> history_variables(const Material& m);
// Throws std::invalid_argument naming the material for more than kMaxHistoryVariables or a
// name that is empty, holds '/' or is a particle field's (or was, in older files).
void check_history_variables(const std::string& material,
                             const std::vector<HistoryVariable>& variables);
// Adds a column for each of m's history variables (checked) to `columns` of a set of
// `particles` particles; a name declared before shares its column.
void register_history(const Material& m, HistoryColumns& columns, std::size_t particles);
// The columns of m's history variables in `columns`, in the model's order; throws
// std::logic_error for one not registered (register_history).
std::vector<int> history_columns(const Material& m, const HistoryColumns& columns);

// Particles [a, a + count) of p, one material whose history variables are in `columns`
// (history_columns).
template <class P>
auto point_run(P& p, const std::vector<int>& columns, std::size_t a, std::size_t count) {
    using Value = std::conditional_t<std::is_const_v<P>, const double, double>;
    PointRun<Value> run;
    run.rho = p.rho.data() + a;
    for (int c = 0; c < kSymComponents; ++c) run.stress[c] = p.stress[c].data() + a;
    run.history_count = columns.size();
    for (std::size_t i = 0; i < columns.size(); ++i)
        run.history[i] = p.history.values[static_cast<std::size_t>(columns[i])].data() + a;
    run.count = count;
    run.components = stress_components(p.dim);
    return run;
}

// The constitutive law of a prepared material (see ConstitutiveModel). Inline: they run per
// particle and stage, and ElasticSolid's members inline into them.
inline StressRate stress_rate(const Material& m, const MaterialState& state,
                              const SymTensor& strain_rate, const Spin& spin) {
    return std::visit(
        [&](const auto& model) { return model.stress_rate(state, strain_rate, spin); }, m.model);
}
inline bool correct_stress(const Material& m, MaterialState& state, double dt) {
    return std::visit([&](const auto& model) { return model.correct(state, dt); }, m.model);
}
// correct_stress after a stage update by dt [s] for a run of particles of material m;
// corrected[i] = 1 where the correction changed the stress plastically, else 0; stress
// components from `components` on (the out-of-plane shears in 2D) are left alone. A model with
// a member correct_range computes the same bits for every particle in one sweep (the elastic
// solid's equation of state, vectorised); the others run correct() particle by particle.
inline void correct_stresses(const Material& m, const PointRun<double>& run, double dt,
                             std::uint8_t* corrected, int components) {
    std::visit(
        [&](const auto& model) {
            if constexpr (requires { model.correct_range(run, dt, corrected); }) {
                model.correct_range(run, dt, corrected);
            } else {
                for (std::size_t i = 0; i < run.count; ++i) {
                    std::array<double, kMaxHistoryVariables> history;
                    MaterialState s = material_state(run, i, history);
                    corrected[i] = model.correct(s, dt) ? 1 : 0;
                    for (int c = 0; c < components; ++c) run.stress[c][i] = s.sigma[c];
                    for (std::size_t k = 0; k < run.history_count; ++k)
                        run.history[k][i] = history[k];
                }
            }
        },
        m.model);
}
inline double wave_speed(const Material& m, const MaterialState& state) {
    return std::visit([&](const auto& model) { return model.wave_speed(state); }, m.model);
}
// wave_speed for a run of particles of material m into speed[0, run.count): a model's member
// wave_speed_range gives the same bits in one sweep, else particle by particle.
// Out of line: one call per run of particles, and tests/check_vectorised.py checks its sweep
// under this name.
inline void wave_speeds(const Material& m, const PointRun<const double>& run, double* speed) {
    std::visit(
        [&](const auto& model) __attribute__((noinline)) {
            if constexpr (requires { model.wave_speed_range(run, speed); }) {
                model.wave_speed_range(run, speed);
            } else {
                for (std::size_t i = 0; i < run.count; ++i) {
                    std::array<double, kMaxHistoryVariables> history;
                    speed[i] = model.wave_speed(material_state(run, i, history));
                }
            }
        },
        m.model);
}
// Stored elastic energy per unit mass [J/kg] (the model's strain_energy) at the reference
// state of its history variables.
inline double strain_energy(const Material& m, double rho, const SymTensor& sigma) {
    return std::visit([&](const auto& model) { return model.strain_energy(rho, sigma); }, m.model);
}
// Whether m's stored energy depends on its history variables (a member strain_energy(state)).
bool energy_depends_on_history(const Material& m);
// The same at a particle's state: a model whose stored energy depends on its history variables
// (the porous soil's distension) has a member strain_energy(state); the others' is that of
// (rho, sigma).
inline double strain_energy(const Material& m, const MaterialState& state) {
    return std::visit(
        [&](const auto& model) {
            if constexpr (requires { model.strain_energy(state); })
                return model.strain_energy(state);
            else
                return model.strain_energy(state.rho, state.sigma);
        },
        m.model);
}

}  // namespace regosph
