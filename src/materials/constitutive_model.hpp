// What every constitutive model provides (Spheral's Physics.hh idea, reduced to a material):
// its parameters and their validation, the stress rate, the correction after each stage
// update (return mapping or equation of state), its wave speed and its description for
// run.json. A model is a small value type satisfying ConstitutiveModel; `Model` in
// material.hpp lists the models, and material.cpp is the one place that dispatches on it.
//
// A new model needs: its own header and source in src/materials/ (parameters + the members
// below), one alternative in `Model` (material.hpp), and its Python constructor in
// python/ (bindings + the regosph package). Nothing in src/sph, src/io or src/parallel changes.
#pragma once

#include <concepts>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.hpp"

namespace regosph {

// Constitutive stress rate without the rotation terms (the Jaumann terms are added by the
// caller, Schaefer 2017 eq. 22), with the plastic multiplier rate of plastic models.
struct StressRate {
    SymTensor rate{};         // [Pa/s]
    double lambda_dot = 0.0;  // plastic multiplier rate [1/s]; 0 for elastic models
    bool yielding = false;    // plastic loading in this evaluation
    // Plastic dissipation rate sigma : eps_dot^p [W/m^3] (>= 0 for associated flow); 0 for
    // elastic models. The energy budget integrates it (sph/energy_budget.hpp).
    double dissipation = 0.0;
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
             const SymTensor& sigma, const SymTensor& strain_rate, SymTensor& state) {
        { M::kName } -> std::convertible_to<std::string_view>;  // "model" in run.json
        // Particles of this model are boundary particles only (walls, tools): no stress rate.
        { M::kBoundaryOnly } -> std::convertible_to<bool>;
        // Whether it can deform plastically; if not, its StressRate's lambda_dot, yielding and
        // dissipation are always zero and correct() never reports yielding.
        { M::kPlastic } -> std::convertible_to<bool>;
        { m.density } -> std::convertible_to<double>;  // reference density [kg/m^3]
        m.validate(material);  // throws std::invalid_argument naming the material and field
        prepared.prepare(dim);  // derived constants for a run of this dimension
        { m.wave_speed(rho) } -> std::convertible_to<double>;  // for the Courant limit [m/s]
        { m.stress_rate(sigma, strain_rate) } -> std::same_as<StressRate>;
        // After a stage update of density and stress: returns true when it changed sigma
        // plastically (counts as yielding).
        { m.correct(rho, state) } -> std::same_as<bool>;
        // Stored elastic energy per unit mass at density rho and stress sigma [J/kg], the
        // potential whose rate is sigma : eps_dot^e / rho (the energy budget's strain energy).
        { m.strain_energy(rho, sigma) } -> std::convertible_to<double>;
        { m.pair_options() } -> std::same_as<PairOptions>;
        { m.parameters() } -> std::same_as<std::vector<ModelParameter>>;
    };
// Optional: members correct_range and wave_speed_range, which do what correct and wave_speed
// do for many particles at once, to the bit, in sweeps that vectorise (material.hpp,
// correct_stresses and wave_speeds; ElasticSolid has them).

// Checks shared by the models' validate(): each throws std::invalid_argument of the form
// "material '<name>': <field> = <value> <rule>".
namespace checks {
[[noreturn]] void fail(const std::string& material, const std::string& field, double value,
                       const std::string& rule);
void positive(const std::string& material, const char* field, double v, const char* unit);
void non_negative(const std::string& material, const char* field, double v, const char* unit);
void in_range(const std::string& material, const char* field, double v, double lo, double hi);
}  // namespace checks

}  // namespace regosph
