#include "materials/mu_i_rheology.hpp"

#include <limits>


namespace regosph {

std::vector<HistoryVariable> MuIRheology::history() const {
    return {{"friction_coefficient", "-",
             "mu of the mu(I) return, following mu(I) over the inertial time", static_friction},
            {"open_volume_strain", "-",
             "volumetric strain by which the grains are apart, beyond the apex", 0.0}};
}

void MuIRheology::validate(const std::string& material) const {
    checks::positive(material, "density", density, "kg/m^3");
    checks::positive(material, "bulk_modulus", bulk_modulus, "Pa");
    checks::positive(material, "shear_modulus", shear_modulus, "Pa");
    checks::non_negative(material, "static_friction", static_friction, "-");
    if (!(limit_friction > static_friction && std::isfinite(limit_friction)))
        checks::fail(material, "limit_friction", limit_friction,
                     "must be finite and above static_friction");
    checks::positive(material, "reference_inertial_number", reference_inertial_number, "-");
    checks::positive(material, "grain_diameter", grain_diameter, "m");
    checks::positive(material, "grain_density", grain_density, "kg/m^3");
    checks::non_negative(material, "cohesion", cohesion, "Pa");
    regosph::validate(elasticity, material);
}

double shear_rate(const SymTensor& strain_rate) {
    const SymTensor d = deviator(strain_rate);
    return std::sqrt(2.0 * double_dot(d, d));
}

double mu_of_i(const MuIRheology& m, double gamma_dot, double pressure) {
    // I / (I_0 + I) = gamma_dot d / (I_0 sqrt(p / rho_s) + gamma_dot d)
    const double flow = gamma_dot * m.grain_diameter;
    const double confinement =
        m.reference_inertial_number * std::sqrt(std::max(pressure, 0.0) / m.grain_density);
    const double denom = confinement + flow;
    const double share = denom > 0.0 ? flow / denom : 0.0;
    return m.static_friction + (m.limit_friction - m.static_friction) * share;
}

StressRate MuIRheology::stress_rate(const MaterialState& state, const SymTensor& strain_rate,
                                    const Spin& /*spin*/) const {
    StressRate out;
    // Disconnected (Dunatunga & Kamrin 2015): the grains first close their opening, without
    // stress, before a compression loads them.
    const bool disconnected = state.history[kOpenVolumeStrain] > 0.0;
    const SymTensor loading = disconnected ? deviator(strain_rate) : strain_rate;
    out.rate = elastic_stress_rate(elasticity, bulk_modulus, shear_modulus, state.sigma, loading);
    if (disconnected) out.history_rate[kOpenVolumeStrain] = trace(strain_rate);
    // dmu/dt = (mu(I) - mu) / t_i, 1 / t_i = sqrt(p / rho_s) / d (no relaxation without
    // pressure, where the cone has shrunk to its apex anyway).
    const double p = state.pressure();
    const double inv_t = std::sqrt(std::max(p, 0.0) / grain_density) / grain_diameter;
    out.history_rate[kFriction] =
        (mu_of_i(*this, shear_rate(strain_rate), p) - state.history[kFriction]) * inv_t;
    out.dt_limit = inv_t > 0.0 ? 1.0 / inv_t : std::numeric_limits<double>::infinity();
    return out;
}

bool mu_i_return(double mu, double cohesion, SymTensor& sigma, double* apex_shift) {
    bool changed = false;
    // Tension: beyond the apex p = -c / mu (only reached with mu > 0, as c >= 0) the mean
    // stress moves to it (a cohesionless material: p = 0).
    const double p = -trace(sigma) / 3.0;
    if (apex_shift) *apex_shift = 0.0;
    if (mu * p + cohesion < 0.0) {
        const double apex = -cohesion / mu;
        for (int c = XX; c <= ZZ; ++c) sigma[c] += p - apex;
        if (apex_shift) *apex_shift = apex - p;
        changed = true;
    }
    const double mean = trace(sigma) / 3.0;
    const double limit = std::max(mu * -mean + cohesion, 0.0);
    const double sqrt_j2 = std::sqrt(second_invariant(sigma));
    if (sqrt_j2 > limit) {
        const double r = limit / sqrt_j2;
        for (int c = XX; c <= ZZ; ++c) sigma[c] = mean + r * (sigma[c] - mean);
        for (int c = XY; c <= YZ; ++c) sigma[c] *= r;
        changed = true;
    }
    return changed;
}

bool MuIRheology::correct(MaterialState& state, double /*dt*/) const {
    double& opening = state.history[kOpenVolumeStrain];
    bool changed = false;
    if (opening < 0.0) {
        // The stage closed the opening and compressed by -opening beyond it: that part loads.
        const SymTensor closing{opening / 3.0, opening / 3.0, opening / 3.0, 0.0, 0.0, 0.0};
        const SymTensor d = elastic_stress_rate(elasticity, bulk_modulus, shear_modulus,
                                                state.sigma, closing);
        for (int k = 0; k < kSymComponents; ++k) state.sigma[k] += d[k];
        opening = 0.0;
        changed = true;
    }
    double apex_shift = 0.0;
    changed |= mu_i_return(state.history[kFriction], cohesion, state.sigma, &apex_shift);
    if (apex_shift > 0.0) {
        // The pressure taken off at the apex, as the volumetric strain by which the grains part.
        const double bulk = elastic_tangent(elasticity, bulk_modulus, shear_modulus,
                                            state.sigma).bulk;
        opening += apex_shift / bulk;
    }
    return changed;
}

double MuIRheology::strain_energy(double rho, const SymTensor& sigma) const {
    return elastic_energy_density(elasticity, bulk_modulus, shear_modulus, sigma) / rho;
}

std::vector<ModelParameter> MuIRheology::parameters() const {
    std::vector<ModelParameter> out = {{"density_kg_m3", density}, {"bulk_modulus_Pa", bulk_modulus},
            {"shear_modulus_Pa", shear_modulus}, {"static_friction", static_friction},
            {"limit_friction", limit_friction},
            {"reference_inertial_number", reference_inertial_number},
            {"grain_diameter_m", grain_diameter}, {"grain_density_kg_m3", grain_density},
            {"cohesion_Pa", cohesion}};
    append_parameters(elasticity, out);
    return out;
}

}  // namespace regosph
