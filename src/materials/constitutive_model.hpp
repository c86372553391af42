// What every constitutive model provides (Spheral's Physics.hh idea, reduced to a material):
// its parameters and their validation, its history variables, the stress rate, the correction
// after each stage update (return mapping or equation of state), its wave speed and its
// description for run.json. A model is a small value type satisfying ConstitutiveModel; `Model`
// in material.hpp lists the models, and material.cpp is the one place that dispatches on it.
//
// The integrator (sph/integrator.hpp, Heun's method) steps the stress and the history
// variables with their rates, so a model works in two phases at every stage:
// - stress_rate(state, strain_rate, spin): at the state of the particle (density, stress and
//   so pressure, its history variables) and its velocity gradient, the constitutive stress
//   rate (the caller adds the Jaumann terms), the rates of its history variables, its plastic
//   multiplier rate and dissipation, and a time-step limit of its own where its law has one
//   (a rate-dependent law's relaxation time);
// - correct(state, dt): after the stage's update by dt, a return to the admissible set or an
//   equation of state, which may change the stress and the history variables.
// wave_speed(state) is its fastest signal at the current state (the Courant limit).
//
// A new model needs: its own header (and source) in src/materials/, ending with
// static_assert(ConstitutiveModel<...>); its include and one alternative in `Model`
// (material.hpp); its Python constructor (python/bind_materials.cpp, with an input struct in
// parameters.hpp/.cpp where users give its parameters in another form) and its name in
// python/regosph/__init__.py. Nothing in src/sph, src/io or src/parallel changes: its history
// variables become fields of the particle set (core/history.hpp) that are integrated,
// checkpointed, exchanged in halos and written to snapshots with the others.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/history.hpp"
#include "core/tensor.hpp"

namespace regosph {

// The most history variables one model may declare (StressRate::history_rate).
inline constexpr std::size_t kMaxHistoryVariables = 4;

// A particle's state as its model sees it: density, stress and the model's own history
// variables (in the order of its history(); null for a model without).
struct MaterialState {
    double rho = 0.0;                 // [kg/m^3]
    SymTensor sigma{};                // Cauchy stress [Pa], tension positive
    double* history = nullptr;
    double pressure() const { return -trace(sigma) / 3.0; }  // [Pa], compression positive
};

// `count` consecutive particles of one material as the per-material sweeps see them: pointers
// to the first one's entries (Value: double, or const double where they only read them).
template <class Value>
struct PointRun {
    const double* rho = nullptr;
    std::array<Value*, kSymComponents> stress{};
    std::array<Value*, kMaxHistoryVariables> history{};  // the model's, in its order
    std::size_t history_count = 0;
    std::size_t count = 0;
    // The stress components the run's dimension carries (stress_components: the in-plane ones
    // and zz in 2D, all six in 3D); the others are zero and a model leaves them so.
    int components = kSymComponents;
};

// Particle i of a run (all six stress components: in 2D xz and yz are zero, and a partly
// written tensor would reach the vector loads of the constitutive code); `history` receives
// the history variables, which state.history points at.
template <class Value>
MaterialState material_state(const PointRun<Value>& run, std::size_t i,
                             std::array<double, kMaxHistoryVariables>& history) {
    MaterialState s;
    s.rho = run.rho[i];
    for (int c = 0; c < kSymComponents; ++c) s.sigma[c] = run.stress[c][i];
    for (std::size_t k = 0; k < run.history_count; ++k) history[k] = run.history[k][i];
    s.history = history.data();
    return s;
}

// Constitutive stress rate without the rotation terms (the Jaumann terms are added by the
// caller, Schaefer 2017 eq. 22), with the plastic multiplier rate of plastic models, the rates
// of the model's history variables and the step its law allows.
struct StressRate {
    SymTensor rate{};         // [Pa/s]
    double lambda_dot = 0.0;  // plastic multiplier rate [1/s]; 0 for elastic models
    bool yielding = false;    // plastic loading in this evaluation
    // Plastic dissipation rate sigma : eps_dot^p [W/m^3] (>= 0 for associated flow); 0 for
    // elastic models. The energy budget integrates it (sph/energy_budget.hpp).
    double dissipation = 0.0;
    // d/dt of each history variable, in the order of the model's history() [unit/s].
    std::array<double, kMaxHistoryVariables> history_rate{};
    // The largest step the law allows at this state [s] (with the Courant limit, the
    // smaller one holds); +inf: no limit of its own.
    double dt_limit = std::numeric_limits<double>::infinity();
};

// Per-material numerical options of the SPH pair terms (SPEC.md section 4).
struct PairOptions {
    double artificial_stress = 0.0;           // Monaghan (2000) epsilon [-]; 0 = off
    double artificial_stress_exponent = 0.0;  // n of f_ab^n [-]
    double xsph = 0.0;                        // XSPH epsilon [-]; 0 = off
};

// One entry of a model's description in run.json; the unit is part of the key
// (e.g. "cohesion_Pa", "friction_angle_deg").
struct ModelParameter {
    std::string key;
    double value = 0.0;
};

template <class M>
concept ConstitutiveModel =
    requires(const M& m, M& prepared, const std::string& material, int dim, double rho,
             const SymTensor& sigma, const MaterialState& now, MaterialState& state,
             const SymTensor& strain_rate, const Spin& spin, double dt) {
        { M::kName } -> std::convertible_to<std::string_view>;  // "model" in run.json
        // Particles of this model are boundary particles only (walls, tools): no stress rate.
        { M::kBoundaryOnly } -> std::convertible_to<bool>;
        // Whether it can deform plastically; if not, its StressRate's lambda_dot, yielding and
        // dissipation are always zero and correct() never reports yielding.
        { M::kPlastic } -> std::convertible_to<bool>;
        { m.density } -> std::convertible_to<double>;  // reference density [kg/m^3]
        m.validate(material);  // throws std::invalid_argument naming the material and field
        prepared.prepare(dim);  // derived constants for a run of this dimension
        { m.wave_speed(now) } -> std::convertible_to<double>;  // for the Courant limit [m/s]
        { m.stress_rate(now, strain_rate, spin) } -> std::same_as<StressRate>;
        // After a stage update of density, stress and history by dt [s]: returns true when it
        // changed the stress plastically (counts as yielding).
        { m.correct(state, dt) } -> std::same_as<bool>;
        // Stored elastic energy per unit mass at density rho and stress sigma [J/kg], the
        // potential whose rate is sigma : eps_dot^e / rho (the energy budget's strain energy).
        { m.strain_energy(rho, sigma) } -> std::convertible_to<double>;
        { m.pair_options() } -> std::same_as<PairOptions>;
        { m.parameters() } -> std::same_as<std::vector<ModelParameter>>;
    };
// Optional:
// - history(): its history variables, std::vector<HistoryVariable> of at most
//   kMaxHistoryVariables (none without it);
// - reference_wave_speed(): for a model whose wave speed follows its stress, the speed at its
//   reference state (elastic_wave_speed and the artificial viscosity's c, material.hpp);
// - an `elasticity` member (elasticity.hpp): run.json names its law (elasticity(Material));
// - correct_range and wave_speed_range, which do what correct and wave_speed do for a run of
//   particles (PointRun, material.hpp) at once, to the bit, in sweeps that vectorise
//   (correct_stresses and wave_speeds; ElasticSolid has them).

// Checks shared by the models' validate(): each throws std::invalid_argument of the form
// "material '<name>': <field> = <value> <rule>".
namespace checks {
[[noreturn]] void fail(const std::string& material, const std::string& field, double value,
                       const std::string& rule);
void positive(const std::string& material, const char* field, double v, const char* unit);
void non_negative(const std::string& material, const char* field, double v, const char* unit);
void in_range(const std::string& material, const char* field, double v, double lo, double hi);
// A soil's artificial stress (PairOptions): epsilon >= 0 (0 = off) and exponent n > 0.
void artificial_stress(const std::string& material, double epsilon, double exponent);
}  // namespace checks

// A soil's artificial stress in its run.json description, recorded only when it is on.
void append_artificial_stress(double epsilon, double exponent, std::vector<ModelParameter>& out);

}  // namespace regosph
