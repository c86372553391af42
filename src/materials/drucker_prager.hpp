// Drucker-Prager elastic-plastic regolith (Bui et al. 2008; Schaefer et al. 2017 section 2).
// The whole Cauchy stress is integrated in time; there is no equation of state.
// Free functions of (parameters, state, strain rate) so that each is unit-testable.
#pragma once

#include "core/tensor.hpp"

namespace regosph {

// Material parameters as a user gives them. Angles in radians.
struct DruckerPrager {
    double density = 0.0;          // reference bulk density [kg/m^3]
    double bulk_modulus = 0.0;     // K [Pa]
    double shear_modulus = 0.0;    // mu [Pa]
    double friction_angle = 0.0;   // phi [rad], in [0, pi/2)
    double cohesion = 0.0;         // c [Pa], >= 0
    double dilatancy_angle = 0.0;  // psi [rad], in [0, phi]
};

// Drucker-Prager constants alpha_phi and k_c.
struct DruckerPragerConstants {
    double alpha_phi = 0.0;  // [-]
    double k_c = 0.0;        // [Pa]
};

// dim == 2: plane strain fit (Schaefer 2017 eq. 13, Bui 2008 eq. 9).
// dim == 3: the Mohr-Coulomb outer (triaxial-compression) cone,
//           alpha = 2 sin(phi) / (sqrt(3) (3 - sin(phi))), k = 6 c cos(phi) / (sqrt(3) (3 - sin(phi))).
DruckerPragerConstants drucker_prager_constants(double friction_angle, double cohesion, int dim);

// Elastic P-wave speed c_p = sqrt((K + 4 mu / 3) / rho) [m/s] (SPEC.md section 3).
double elastic_wave_speed(const DruckerPrager& m);

// Yield function f = sqrt(J2) + alpha_phi I1 - k_c (Schaefer 2017 eq. 11) [Pa].
double yield_function(const DruckerPragerConstants& dp, const SymTensor& sigma);

// Constitutive stress rate without the rotation terms (Schaefer 2017 eqs. 19-20) and the
// plastic multiplier rate lambda_dot [1/s]; plastic flow when f >= 0 and lambda_dot > 0.
struct PlasticStressRate {
    SymTensor rate{};          // [Pa/s]
    double lambda_dot = 0.0;   // [1/s]
    bool yielding = false;
};
PlasticStressRate drucker_prager_stress_rate(const DruckerPrager& m,
                                             const DruckerPragerConstants& dp,
                                             const SymTensor& sigma, const SymTensor& strain_rate);

// Bui's corrections after every stress update, in this order (SPEC.md section 3):
// tension cracking (move an over-apex state to the apex), then stress scaling back onto
// the yield surface. Returns true when either correction changed sigma.
bool drucker_prager_return(const DruckerPragerConstants& dp, SymTensor& sigma);

}  // namespace regosph
