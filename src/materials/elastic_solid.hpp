// Elastic solid: Murnaghan equation of state for the pressure and Hooke's law for the
// deviatoric stress, integrated with the Jaumann rate (SPEC.md section 4; Schaefer et al.
// 2017 eqs. 22 and 30; Gray, Monaghan & Swift 2001). The particle stores the full Cauchy stress
// sigma = -p I + S (tension positive): the deviator S is integrated in time, and the isotropic
// part is replaced by -p(rho) after every stage update.
// Per-material numerical options: Monaghan's (2000) artificial stress against the tensile
// instability, and XSPH velocity smoothing of the position update (Monaghan 1989).
#pragma once

#include <optional>
#include <string>

#include "sph/tensor.hpp"

namespace regosph {

struct ElasticSolid {
    double density = 0.0;          // rho0, reference density [kg/m^3]
    double bulk_modulus = 0.0;     // K0, bulk modulus at zero pressure [Pa]
    double shear_modulus = 0.0;    // mu [Pa]; 0 gives a Murnaghan fluid
    double murnaghan_n = 1.0;      // n of the Murnaghan EoS [-]; 1 gives p = c0^2 (rho - rho0)
    double artificial_stress = 0.0;           // epsilon of Monaghan (2000) [-]; 0 = off
    double artificial_stress_exponent = 4.0;  // n of f_ab^n (Monaghan 2000) [-]
    double xsph = 0.0;             // epsilon of the XSPH position rate [-]; 0 = dx/dt = v
};

// Murnaghan EoS p = (K0 / n) ((rho / rho0)^n - 1) [Pa] (SPEC.md section 4).
double murnaghan_pressure(const ElasticSolid& m, double rho);

// Bulk sound speed c = sqrt(dp/drho) = sqrt(K0 (rho / rho0)^(n-1) / rho0) [m/s] (SPEC.md 4).
double murnaghan_sound_speed(const ElasticSolid& m, double rho);

// Longitudinal (P-wave) speed c_p = sqrt(c(rho)^2 + 4 mu / (3 rho)) [m/s]; at rho0 this is
// sqrt((K0 + 4 mu / 3) / rho0), the speed of a plane compression wave in the solid. The
// Courant limit uses it (the fastest signal the solid carries).
double elastic_wave_speed(const ElasticSolid& m, double rho);
double elastic_wave_speed(const ElasticSolid& m);  // at rho0

// Hooke's deviatoric stress rate 2 mu (eps_dot - tr(eps_dot) / 3 I) [Pa/s] (SPEC.md section 4),
// without the rotation terms. In 2D plane strain eps_dot_zz = 0, so the zz rate is
// -2 mu tr(eps_dot) / 3: the deviator is three-dimensional.
SymTensor hooke_deviatoric_rate(const ElasticSolid& m, const SymTensor& strain_rate);

// Replace the isotropic part of sigma by -p(rho): sigma = dev(sigma) - p(rho) I.
void apply_equation_of_state(const ElasticSolid& m, double rho, SymTensor& sigma);

// Monaghan (2000) artificial stress R of one particle [Pa m^6/kg^2]: in the principal frame of
// sigma, R'_k = -epsilon sigma'_k / rho^2 for a tensile principal stress sigma'_k > 0 and 0
// otherwise, rotated back (Gray, Monaghan & Swift 2001 eqs. 4.5-4.7). dim == 2 uses the
// in-plane 2x2 block (closed form; the zz components of R stay 0), dim == 3 all of sigma.
SymTensor artificial_stress(double epsilon, const SymTensor& sigma, double rho, int dim);

// Bulk and shear modulus [Pa] from exactly two of bulk modulus K, shear modulus mu, Young's
// modulus E and Poisson's ratio nu (isotropic linear elasticity). Throws
// std::invalid_argument naming the material and the field when the combination is not two of
// them or does not give K > 0, mu >= 0 (e.g. nu outside (-1, 0.5)).
struct ElasticModuli {
    double bulk_modulus = 0.0;   // K [Pa]
    double shear_modulus = 0.0;  // mu [Pa]
};
ElasticModuli elastic_moduli(const std::string& material, std::optional<double> bulk_modulus,
                             std::optional<double> shear_modulus,
                             std::optional<double> youngs_modulus,
                             std::optional<double> poisson_ratio);

}  // namespace regosph
