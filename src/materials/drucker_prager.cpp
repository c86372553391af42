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
    return hooke_wave_speed(m.bulk_modulus, m.shear_modulus, m.density);
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

// Schaefer 2017 eqs. 19-20 with the elastic tangent D (drucker_prager_stress_rate). Coupled:
// D has Houlsby's rank-one term coupling sigma (sigma : x), which adds to a : D : eps_dot,
// a : D : b and D : b the terms in a : sigma = alpha_phi I1 + sqrt(J2) and
// b : sigma = 3 sin(psi) I1 + sqrt(J2) (S : S / (2 sqrt(J2)) = sqrt(J2)). Not coupled: Hooke's
// D, the operations of eqs. 19-20 as printed.
template <bool Coupled>
StressRate plastic_stress_rate(const ElasticTangent& D, double dilatancy_angle,
                               const DruckerPragerConstants& dp, const SymTensor& sigma,
                               const SymTensor& eps_dot) {
    const double K = D.bulk;
    const double mu = D.shear;
    const double tr_eps = trace(eps_dot);

    StressRate out;
    out.rate = hooke_stress_rate(K, mu, eps_dot);
    double sigma_eps = 0.0;  // sigma : eps_dot [W/m^3]
    if constexpr (Coupled) {
        sigma_eps = double_dot(sigma, eps_dot);
        for (int c = 0; c < kSymComponents; ++c) out.rate[c] += D.coupling * sigma_eps * sigma[c];
    }

    const double I1 = trace(sigma);
    const SymTensor S = deviator(sigma);
    const double sqrt_j2 = std::sqrt(0.5 * double_dot(S, S));
    const double f = sqrt_j2 + dp.alpha_phi * I1 - dp.k_c;
    const double scale = sqrt_j2 + std::abs(dp.alpha_phi * I1) + dp.k_c;
    if (f < -kOnSurface * scale) return out;  // elastic

    // Without the call for psi = 0 (non-dilatant soil, the usual case; this runs for every
    // plastic particle and stage).
    const double sin_psi = dilatancy_angle == 0.0 ? 0.0 : std::sin(dilatancy_angle);
    const bool has_deviator = sqrt_j2 > kTinyDeviator * (scale + K);
    const double mu_over_sqrt_j2 = has_deviator ? mu / sqrt_j2 : 0.0;
    // Schaefer 2017 eq. 20: a : D : eps_dot over a : D : b
    double loading = 3.0 * K * dp.alpha_phi * tr_eps + mu_over_sqrt_j2 * double_dot(S, eps_dot);
    double stiffness = 27.0 * K * dp.alpha_phi * sin_psi + mu;
    double b_sigma = 0.0;  // b : sigma [Pa]
    if constexpr (Coupled) {
        const double deviatoric = has_deviator ? sqrt_j2 : 0.0;
        const double a_sigma = dp.alpha_phi * I1 + deviatoric;
        b_sigma = 3.0 * sin_psi * I1 + deviatoric;
        loading += D.coupling * a_sigma * sigma_eps;
        stiffness += D.coupling * a_sigma * b_sigma;
    }
    const double lambda_dot = loading / stiffness;
    if (lambda_dot <= 0.0) return out;  // elastic unloading from the surface

    // Plastic corrector of eq. 19: - lambda_dot D : b = - lambda_dot (9 K sin(psi) I + mu / sqrt(J2) S)
    for (int c = 0; c < kSymComponents; ++c) out.rate[c] -= lambda_dot * mu_over_sqrt_j2 * S[c];
    for (int c = XX; c <= ZZ; ++c) out.rate[c] -= lambda_dot * 9.0 * K * sin_psi;
    if constexpr (Coupled)
        for (int c = 0; c < kSymComponents; ++c)
            out.rate[c] -= lambda_dot * D.coupling * b_sigma * sigma[c];
    // sigma : eps_dot^p of the flow just applied (without a deviator only its volumetric part).
    out.dissipation = lambda_dot * ((has_deviator ? sqrt_j2 : 0.0) + 3.0 * sin_psi * I1);
    out.lambda_dot = lambda_dot;
    out.yielding = true;
    return out;
}
}  // namespace

StressRate drucker_prager_stress_rate(const DruckerPrager& m, const DruckerPragerConstants& dp,
                                      const SymTensor& sigma, const SymTensor& eps_dot) {
    if (m.elasticity.linear())
        return plastic_stress_rate<false>({m.bulk_modulus, m.shear_modulus}, m.dilatancy_angle,
                                          dp, sigma, eps_dot);
    return plastic_stress_rate<true>(
        houlsby_tangent(m.elasticity, m.bulk_modulus, m.shear_modulus, sigma), m.dilatancy_angle,
        dp, sigma, eps_dot);
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
    checks::artificial_stress(material, artificial_stress, artificial_stress_exponent);
    regosph::validate(elasticity, material);
}

void DruckerPrager::prepare(int dim) {
    yield_surface = drucker_prager_constants(friction_angle, cohesion, dim);
    p_wave_speed = elasticity.linear() ? elastic_wave_speed(*this) : 0.0;
}

DruckerPrager DruckerPrager::scaled(double r) const {
    DruckerPrager out = *this;
    out.bulk_modulus *= r;
    out.shear_modulus *= r;
    out.cohesion *= r;
    out.yield_surface.k_c *= r;          // k_c is linear in c
    out.p_wave_speed *= std::sqrt(r);    // at the same density
    return out;
}

double DruckerPrager::reference_wave_speed() const { return elastic_wave_speed(*this); }

bool DruckerPrager::correct(MaterialState& state, double /*dt*/) const {
    return drucker_prager_return(yield_surface, state.sigma);
}

double DruckerPrager::strain_energy(double rho, const SymTensor& sigma) const {
    return elastic_energy_density(elasticity, bulk_modulus, shear_modulus, sigma) / rho;
}

std::vector<ModelParameter> DruckerPrager::parameters() const {
    std::vector<ModelParameter> out = {{"density_kg_m3", density},           {"bulk_modulus_Pa", bulk_modulus},
            {"shear_modulus_Pa", shear_modulus},  {"friction_angle_deg", radians_to_degrees(friction_angle)},
            {"cohesion_Pa", cohesion},            {"dilatancy_angle_deg", radians_to_degrees(dilatancy_angle)}};
    append_parameters(elasticity, out);
    append_artificial_stress(artificial_stress, artificial_stress_exponent, out);
    return out;
}

}  // namespace regosph
