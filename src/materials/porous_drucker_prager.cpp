#include "materials/porous_drucker_prager.hpp"

#include <cmath>

namespace regosph {

std::vector<HistoryVariable> PorousDruckerPrager::history() const {
    return {{"distension", "-", "alpha = rho_s / rho of the epsilon-alpha porosity (>= 1)",
             crush.initial_distension},
            {"volumetric_strain", "-", "eps_v = ln(V / V0), the time integral of tr(eps_dot)",
             0.0}};
}

void PorousDruckerPrager::validate(const std::string& material) const {
    soil.validate(material);
    if (density != soil.density)
        checks::fail(material, "density", density, "kg/m^3 differs from the soil's");
    check_crush_curve(material, crush);
}

double PorousDruckerPrager::wave_speed(const MaterialState& state) const {
    const double alpha = state.history[kDistension];
    const double c0 = soil.wave_speed(state);  // at the initial distension and density
    // (K + 4 G / 3) / rho scales as alpha0 / (alpha rho)
    return c0 * std::sqrt(crush.initial_distension * soil.density / (alpha * state.rho));
}

StressRate PorousDruckerPrager::stress_rate(const MaterialState& state,
                                            const SymTensor& strain_rate,
                                            const Spin& /*spin*/) const {
    const double r = crush.initial_distension / state.history[kDistension];
    DruckerPrager now = soil;
    now.bulk_modulus *= r;
    now.shear_modulus *= r;
    const DruckerPragerConstants dp{soil.yield_surface.alpha_phi, soil.yield_surface.k_c * r};
    StressRate out = drucker_prager_stress_rate(now, dp, state.sigma, strain_rate);
    out.history_rate[kVolumetricStrain] = trace(strain_rate);
    return out;
}

bool PorousDruckerPrager::correct(MaterialState& state, double /*dt*/) const {
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
    const DruckerPragerConstants dp{soil.yield_surface.alpha_phi,
                                    soil.yield_surface.k_c * crush.initial_distension / alpha};
    return drucker_prager_return(dp, state.sigma) || changed;
}

double PorousDruckerPrager::strain_energy(double rho, const SymTensor& sigma) const {
    return soil.strain_energy(rho, sigma);
}

double PorousDruckerPrager::strain_energy(const MaterialState& state) const {
    return state.history[kDistension] / crush.initial_distension *
           soil.strain_energy(state.rho, state.sigma);
}

std::vector<ModelParameter> PorousDruckerPrager::parameters() const {
    std::vector<ModelParameter> out = soil.parameters();
    const double alpha0 = crush.initial_distension;
    out.push_back({"porosity", 1.0 - 1.0 / alpha0});
    out.push_back({"grain_density_kg_m3", alpha0 * density});
    out.push_back({"elastic_strain", crush.elastic_strain});
    out.push_back({"kappa", crush.kappa});
    out.push_back({"transition_distension", crush.transition_distension});
    return out;
}

}  // namespace regosph
