// Drucker-Prager elastic-plastic regolith (Bui et al. 2008; Schaefer et al. 2017 section 2).
// The whole Cauchy stress is integrated in time; there is no equation of state.
// Free functions of (parameters, state, strain rate) so that each is unit-testable.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "materials/constitutive_model.hpp"
#include "materials/elasticity.hpp"

namespace regosph {

// Drucker-Prager constants alpha_phi and k_c.
struct DruckerPragerConstants {
    double alpha_phi = 0.0;  // [-]
    double k_c = 0.0;        // [Pa]
};

// Material parameters as a user gives them (angles in radians), and the model's members of
// the ConstitutiveModel interface (constitutive_model.hpp).
struct DruckerPrager {
    double density = 0.0;          // reference bulk density [kg/m^3]
    double bulk_modulus = 0.0;     // K [Pa]
    double shear_modulus = 0.0;    // mu [Pa]
    double friction_angle = 0.0;   // phi [rad], in [0, pi/2)
    double cohesion = 0.0;         // c [Pa], >= 0
    double dilatancy_angle = 0.0;  // psi [rad], in [0, phi]
    // Linear (K and G constant) or Houlsby's pressure-dependent law, whose moduli at p_r are
    // bulk_modulus and shear_modulus (elasticity.hpp).
    Elasticity elasticity{};
    // Monaghan's (2000) artificial stress against the tensile instability of cohesive soil
    // (SPEC.md section 4): epsilon [-], 0 = off, and the exponent n of f_ab^n [-].
    double artificial_stress = 0.0;
    double artificial_stress_exponent = 4.0;
    // Derived by prepare(dim) from phi and c, not a user parameter.
    DruckerPragerConstants yield_surface{};
    // Derived by prepare(dim) for linear elasticity: c_p [m/s] (elastic_wave_speed), which the
    // Courant limit of every particle and stage asks for; 0 before prepare and for Houlsby's
    // law, whose wave speed follows the stress.
    double p_wave_speed = 0.0;

    static constexpr const char* kName = "DruckerPrager";
    static constexpr bool kBoundaryOnly = false;
    static constexpr bool kPlastic = true;
    void validate(const std::string& material) const;
    void prepare(int dim);
    double wave_speed(const MaterialState& state) const;  // c_p at the state [m/s]
    double reference_wave_speed() const;  // c_p at zero stress, or at p_r for Houlsby [m/s]
    StressRate stress_rate(const MaterialState& state, const SymTensor& strain_rate,
                           const Spin& spin) const;
    // Bui's corrections (drucker_prager_return), whatever the step.
    bool correct(MaterialState& state, double dt) const;
    // correct() for a run of particles in one vectorised sweep (correct_stresses, material.hpp).
    void correct_range(const PointRun<double>& run, double dt, std::uint8_t* corrected) const;
    double strain_energy(double rho, const SymTensor& sigma) const;  // [J/kg], elastic_energy_density / rho
    PairOptions pair_options() const {
        return {.artificial_stress = artificial_stress,
                .artificial_stress_exponent = artificial_stress_exponent};
    }
    std::vector<ModelParameter> parameters() const;
    // The law with r times its moduli and cohesion, prepared constants included: a porous
    // bulk at distension alpha, r = alpha0 / alpha (porosity_coupling.hpp).
    DruckerPrager scaled(double r) const;
};

// dim == 2: plane strain fit (Schaefer 2017 eq. 13, Bui 2008 eq. 9).
// dim == 3: the Mohr-Coulomb outer (triaxial-compression) cone,
//           alpha = 2 sin(phi) / (sqrt(3) (3 - sin(phi))), k = 6 c cos(phi) / (sqrt(3) (3 - sin(phi))).
DruckerPragerConstants drucker_prager_constants(double friction_angle, double cohesion, int dim);

// Elastic P-wave speed c_p = sqrt((K + 4 mu / 3) / rho) [m/s] (SPEC.md section 3) at the
// reference density, with the moduli K and mu (at p_r for Houlsby's law).
double elastic_wave_speed(const DruckerPrager& m);

// Inline: the Courant limit asks for it per particle and stage. Houlsby's law: at the
// particle's stress and density, sqrt(M(sigma) / rho) (p_wave_modulus).
inline double DruckerPrager::wave_speed(const MaterialState& state) const {
    if (p_wave_speed > 0.0) return p_wave_speed;
    return soil_wave_speed(elasticity, bulk_modulus, shear_modulus, density, state.rho, state.sigma);
}

// Yield function f = sqrt(J2) + alpha_phi I1 - k_c (Schaefer 2017 eq. 11) [Pa].
double yield_function(const DruckerPragerConstants& dp, const SymTensor& sigma);

// Constitutive stress rate without the rotation terms (Schaefer 2017 eqs. 19-20) and the
// plastic multiplier rate lambda_dot [1/s]; plastic flow when f >= 0 and lambda_dot > 0. Its
// dissipation is sigma : eps_dot^p with the flow direction of the plastic potential g,
// eps_dot^p = lambda_dot dg/dsigma = lambda_dot (S / (2 sqrt(J2)) + 3 sin(psi) I) (Bui 2008
// eqs. 21-22): lambda_dot (sqrt(J2) + 3 sin(psi) I1) [W/m^3]. The elastic tangent D is the
// model's elasticity at sigma; eqs. 19-20 are the general elastic-plastic rate
// D : eps_dot - lambda_dot D : b, lambda_dot = (a : D : eps_dot) / (a : D : b) with a = df/dsigma
// and b = dg/dsigma, written out for Hooke's D.
StressRate drucker_prager_stress_rate(const DruckerPrager& m, const DruckerPragerConstants& dp,
                                      const SymTensor& sigma, const SymTensor& strain_rate);

// Inline: the pair loop's rates call it for every particle and stage through std::visit.
inline StressRate DruckerPrager::stress_rate(const MaterialState& state,
                                             const SymTensor& strain_rate,
                                             const Spin& /*spin*/) const {
    return drucker_prager_stress_rate(*this, yield_surface, state.sigma, strain_rate);
}

// Bui's corrections after every stress update, in this order (SPEC.md section 3):
// tension cracking (move an over-apex state to the apex), then stress scaling back onto
// the yield surface. Returns true when either correction changed sigma. Inline: correct()
// and the sweep of correct_range run the same operations, hence the same bits.
[[gnu::always_inline]] inline bool drucker_prager_return(const DruckerPragerConstants& dp, SymTensor& sigma) {
    bool changed = false;
    // 1. Tension cracking (Bui 2008 eq. 33): beyond the apex, alpha_phi I1 - k_c > 0, shift
    //    the hydrostatic stress back to the apex I1 = k_c / alpha_phi. A cohesionless material
    //    (alpha_phi > 0, k_c = 0) has its apex at zero mean stress.
    if (dp.alpha_phi > 0.0) {
        const double I1 = trace(sigma);
        if (dp.alpha_phi * I1 - dp.k_c > 0.0) {
            const double shift = (I1 - dp.k_c / dp.alpha_phi) / 3.0;
            for (int c = XX; c <= ZZ; ++c) sigma[c] -= shift;
            changed = true;
        }
    }
    // 2. Stress scaling (Bui 2008 eq. 34): bring sqrt(J2) back to k_c - alpha_phi I1.
    const double I1 = trace(sigma);
    const double limit = dp.k_c - dp.alpha_phi * I1;
    const double sqrt_j2 = std::sqrt(second_invariant(sigma));
    if (sqrt_j2 > limit) {
        const double r = limit > 0.0 ? limit / sqrt_j2 : 0.0;
        const double mean = I1 / 3.0;
        for (int c = XX; c <= ZZ; ++c) sigma[c] = mean + r * (sigma[c] - mean);
        for (int c = XY; c <= YZ; ++c) sigma[c] *= r;
        changed = true;
    }
    return changed;
}

// correct() for a run of particles in one sweep that vectorises (correct_stresses). The
// first `Written` stress components are written back: in 2D the out-of-plane shears are zero
// and left alone, as correct_stresses leaves them.
template <int Written>
[[gnu::always_inline]] inline void drucker_prager_return_sweep(const DruckerPragerConstants& dp,
                                                               const PointRun<double>& run,
                                                               std::uint8_t* corrected) {
    const std::array<double*, kSymComponents> stress = run.stress;
#pragma omp simd
    for (std::size_t i = 0; i < run.count; ++i) {
        SymTensor sigma;
        for (int c = 0; c < kSymComponents; ++c) sigma[c] = stress[c][i];
        corrected[i] = drucker_prager_return(dp, sigma) ? 1 : 0;
        for (int c = 0; c < Written; ++c) stress[c][i] = sigma[c];
    }
}

inline void DruckerPrager::correct_range(const PointRun<double>& run, double /*dt*/,
                                         std::uint8_t* corrected) const {
    const DruckerPragerConstants dp = yield_surface;  // in registers for the sweep
    if (run.components == kSymComponents)
        drucker_prager_return_sweep<kSymComponents>(dp, run, corrected);
    else
        drucker_prager_return_sweep<XZ>(dp, run, corrected);
}

static_assert(ConstitutiveModel<DruckerPrager>);

}  // namespace regosph
