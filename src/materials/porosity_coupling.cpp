#include "materials/porosity_coupling.hpp"

#include <cmath>

namespace regosph {

template <class Soil>
std::vector<HistoryVariable> Porous<Soil>::history() const {
    std::vector<HistoryVariable> out{
        {"distension", "-", "alpha = rho_s / rho of the epsilon-alpha porosity (>= 1)",
         crush.initial_distension},
        {"volumetric_strain", "-", "eps_v = ln(V / V0), the time integral of tr(eps_dot)", 0.0}};
    if constexpr (requires { soil.history(); })
        for (const HistoryVariable& v : soil.history()) out.push_back(v);
    return out;
}

template <class Soil>
void Porous<Soil>::validate(const std::string& material) const {
    soil.validate(material);
    if (density != soil.density)
        checks::fail(material, "density", density, "kg/m^3 differs from the soil's");
    check_crush_curve(material, crush);
}

template <class Soil>
double Porous<Soil>::wave_speed(const MaterialState& state) const {
    const double alpha = state.history[kDistension];
    const double c0 = soil.wave_speed(soil_state(state));  // at the initial distension
    // (K + 4 G / 3) / rho scales as alpha0 / (alpha rho)
    return c0 * std::sqrt(crush.initial_distension * soil.density / (alpha * state.rho));
}

template <class Soil>
StressRate Porous<Soil>::stress_rate(const MaterialState& state, const SymTensor& strain_rate,
                                     const Spin& spin) const {
    const double r = crush.initial_distension / state.history[kDistension];
    StressRate out = soil.scaled(r).stress_rate(soil_state(state), strain_rate, spin);
    // The soil's history rates move behind the porosity's.
    for (std::size_t k = kMaxHistoryVariables; k-- > kSoilHistory;)
        out.history_rate[k] = out.history_rate[k - kSoilHistory];
    out.history_rate[kDistension] = 0.0;
    out.history_rate[kVolumetricStrain] = trace(strain_rate);
    return out;
}

template <class Soil>
bool Porous<Soil>::correct(MaterialState& state, double dt) const {
    double& alpha = state.history[kDistension];
    const double compacted =
        compacted_distension(crush, alpha, state.history[kVolumetricStrain]);
    bool changed = false;
    if (compacted < alpha) {
        const double matrix_bulk_modulus = crush.initial_distension * soil.bulk_modulus;
        state.sigma = compaction_stress_update(matrix_bulk_modulus, alpha, compacted, state.sigma);
        alpha = compacted;
        changed = true;
    }
    MaterialState own = soil_state(state);
    const bool returned = soil.scaled(crush.initial_distension / alpha).correct(own, dt);
    state.sigma = own.sigma;
    return returned || changed;
}

template <class Soil>
std::vector<ModelParameter> Porous<Soil>::parameters() const {
    std::vector<ModelParameter> out = soil.parameters();
    const double alpha0 = crush.initial_distension;
    out.push_back({"porosity", 1.0 - 1.0 / alpha0});
    out.push_back({"grain_density_kg_m3", alpha0 * density});
    out.push_back({"elastic_strain", crush.elastic_strain});
    out.push_back({"kappa", crush.kappa});
    out.push_back({"transition_distension", crush.transition_distension});
    return out;
}

template struct Porous<DruckerPrager>;
template struct Porous<MohrCoulomb>;

}  // namespace regosph
