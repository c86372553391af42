#include "materials/drucker_prager.hpp"

#include <cmath>
#include <numbers>

#include "core/units.hpp"

namespace regosph {

DruckerPragerConstants drucker_prager_constants(double phi, double c, int dim) {
    if (dim == 2) {
        const double t = std::tan(phi);
        const double d = std::sqrt(9.0 + 12.0 * t * t);
        return {t / d, 3.0 * c / d};
    }
    const double s = std::sin(phi);
    const double d = std::sqrt(3.0) * (3.0 - s);
    return {2.0 * s / d, 6.0 * c * std::cos(phi) / d};
}

double elastic_wave_speed(const DruckerPrager& m) {
    return std::sqrt((m.bulk_modulus + 4.0 * m.shear_modulus / 3.0) / m.density);
}

double yield_function(const DruckerPragerConstants& dp, const SymTensor& sigma) {
    return std::sqrt(second_invariant(sigma)) + dp.alpha_phi * trace(sigma) - dp.k_c;
}

namespace {
// sqrt(J2) below this fraction of the stress scale counts as zero deviator (the apex), where
// S / sqrt(J2) is undefined and the deviatoric plastic terms vanish.
constexpr double kTinyDeviator = 1e-12;
// f >= -kOnSurface * scale counts as "on the yield surface": the stress scaling puts a state
// exactly on it up to round-off.
constexpr double kOnSurface = 1e-9;
}  // namespace

StressRate drucker_prager_stress_rate(const DruckerPrager& m, const DruckerPragerConstants& dp,
                                      const SymTensor& sigma, const SymTensor& eps_dot) {
    const double K = m.bulk_modulus;
    const double mu = m.shear_modulus;
    const double tr_eps = trace(eps_dot);

    // Hooke: 2 mu eps_dot + (K - 2 mu / 3) tr(eps_dot) I  (Schaefer 2017 eq. 19, first terms)
    StressRate out;
    const double lame = K - 2.0 * mu / 3.0;
    for (int c = 0; c < kSymComponents; ++c) out.rate[c] = 2.0 * mu * eps_dot[c];
    for (int c = XX; c <= ZZ; ++c) out.rate[c] += lame * tr_eps;

    const double I1 = trace(sigma);
    const SymTensor S = deviator(sigma);
    const double sqrt_j2 = std::sqrt(0.5 * double_dot(S, S));
    const double f = sqrt_j2 + dp.alpha_phi * I1 - dp.k_c;
    const double scale = sqrt_j2 + std::abs(dp.alpha_phi * I1) + dp.k_c;
    if (f < -kOnSurface * scale) return out;  // elastic

    // Without the call for psi = 0 (non-dilatant soil, the usual case; this runs for every
    // plastic particle and stage).
    const double sin_psi = m.dilatancy_angle == 0.0 ? 0.0 : std::sin(m.dilatancy_angle);
    const bool has_deviator = sqrt_j2 > kTinyDeviator * (scale + K);
    const double mu_over_sqrt_j2 = has_deviator ? mu / sqrt_j2 : 0.0;
    // Schaefer 2017 eq. 20
    const double lambda_dot =
        (3.0 * K * dp.alpha_phi * tr_eps + mu_over_sqrt_j2 * double_dot(S, eps_dot)) /
        (27.0 * K * dp.alpha_phi * sin_psi + mu);
    if (lambda_dot <= 0.0) return out;  // elastic unloading from the surface

    // Plastic corrector of eq. 19: - lambda_dot (9 K sin(psi) I + mu / sqrt(J2) S)
    for (int c = 0; c < kSymComponents; ++c) out.rate[c] -= lambda_dot * mu_over_sqrt_j2 * S[c];
    for (int c = XX; c <= ZZ; ++c) out.rate[c] -= lambda_dot * 9.0 * K * sin_psi;
    // sigma : eps_dot^p of the flow just applied (without a deviator only its volumetric part).
    out.dissipation = lambda_dot * ((has_deviator ? sqrt_j2 : 0.0) + 3.0 * sin_psi * I1);
    out.lambda_dot = lambda_dot;
    out.yielding = true;
    return out;
}

double hooke_strain_energy(double K, double mu, const SymTensor& sigma) {
    const SymTensor S = deviator(sigma);
    const double p = -trace(sigma) / 3.0;
    return double_dot(S, S) / (4.0 * mu) + p * p / (2.0 * K);
}

void DruckerPrager::validate(const std::string& material) const {
    checks::positive(material, "density", density, "kg/m^3");
    checks::positive(material, "bulk_modulus", bulk_modulus, "Pa");
    checks::positive(material, "shear_modulus", shear_modulus, "Pa");
    const double phi = friction_angle;
    if (!(std::isfinite(phi) && phi >= 0.0 && phi < std::numbers::pi / 2))
        checks::fail(material, "friction_angle", radians_to_degrees(phi), "deg must lie in [0, 90) deg");
    checks::non_negative(material, "cohesion", cohesion, "Pa");
    const double psi = dilatancy_angle;
    if (!(std::isfinite(psi) && psi >= 0.0 && psi <= phi))
        checks::fail(material, "dilatancy_angle", radians_to_degrees(psi), "deg must lie in [0, friction_angle] deg");
    if (phi == 0.0 && cohesion == 0.0)
        checks::fail(material, "cohesion", 0.0,
                     "Pa with friction_angle 0: the material would have no strength");
}

void DruckerPrager::prepare(int dim) {
    yield_surface = drucker_prager_constants(friction_angle, cohesion, dim);
    p_wave_speed = elastic_wave_speed(*this);
}

StressRate DruckerPrager::stress_rate(const MaterialState& state, const SymTensor& strain_rate,
                                      const Spin& /*spin*/) const {
    return drucker_prager_stress_rate(*this, yield_surface, state.sigma, strain_rate);
}

bool DruckerPrager::correct(MaterialState& state, double /*dt*/) const {
    return drucker_prager_return(yield_surface, state.sigma);
}

double DruckerPrager::strain_energy(double rho, const SymTensor& sigma) const {
    return hooke_strain_energy(bulk_modulus, shear_modulus, sigma) / rho;
}

std::vector<ModelParameter> DruckerPrager::parameters() const {
    return {{"density_kg_m3", density},           {"bulk_modulus_Pa", bulk_modulus},
            {"shear_modulus_Pa", shear_modulus},  {"friction_angle_deg", radians_to_degrees(friction_angle)},
            {"cohesion_Pa", cohesion},            {"dilatancy_angle_deg", radians_to_degrees(dilatancy_angle)}};
}

}  // namespace regosph
