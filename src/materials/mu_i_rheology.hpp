// mu(I) rheology of dense granular flow (Jop, Forterre & Pouliquen 2006, Nature 441, 727) as an
// elastic-plastic regolith, in the form of Chrono's continuum granular model (Hu et al. 2021,
// CMAME 385, 114022): a hypoelastic Hooke stress (the Jaumann terms added by the caller) and,
// after every stage update, a radial return of the deviator onto sqrt(J2) <= mu p + c, with the
// friction coefficient mu of the inertial number I = gamma_dot d / sqrt(p / rho_s).
//
// A correction sees no strain rate (constitutive_model.hpp), so the friction the return uses is
// a history variable, mu, which follows mu(I) of the present strain rate and pressure over the
// grains' inertial time t_i = d / sqrt(p / rho_s): dmu/dt = (mu(I) - mu) / t_i. In steady flow
// mu = mu(I) exactly; the lag is the microscopic rearrangement time the rheology itself is
// built on, and its explicit integration asks for dt <= t_i (StressRate::dt_limit).
//
// Beyond the apex the grains part (the disconnected state of Dunatunga & Kamrin 2015, J. Fluid
// Mech. 779, 483): the pressure the return takes off is kept as the open volume strain
// e_o = delta_p / K, and a compression first closes it, without stress, before it loads the
// grains. Without that memory every expansion at the apex would be lost and every compression
// after it would load a looser packing: particle-scale jostling of a sheared layer would pump
// its volume up by itself.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "materials/constitutive_model.hpp"
#include "materials/elasticity.hpp"

namespace regosph {

struct MuIRheology {
    double density = 0.0;                   // reference bulk density [kg/m^3]
    double bulk_modulus = 0.0;              // K [Pa]
    double shear_modulus = 0.0;             // G [Pa]
    double static_friction = 0.0;           // mu_s [-]: below it no flow
    double limit_friction = 0.0;            // mu_2 [-], > mu_s: the friction as I -> infinity
    double reference_inertial_number = 0.0; // I_0 [-]: mu = (mu_s + mu_2) / 2 at I = I_0
    double grain_diameter = 0.0;            // d [m]
    double grain_density = 0.0;             // rho_s [kg/m^3]
    double cohesion = 0.0;                  // c [Pa] >= 0 (Chrono's cohesion_coeff)
    // Linear (K and G constant) or Houlsby's pressure-dependent law, whose moduli at p_r are
    // bulk_modulus and shear_modulus (elasticity.hpp).
    Elasticity elasticity{};

    static constexpr const char* kName = "MuIRheology";
    static constexpr bool kBoundaryOnly = false;
    static constexpr bool kPlastic = true;
    // Its history variables: the friction coefficient of the return, initially mu_s, and the
    // open volume strain e_o >= 0, initially 0.
    static constexpr int kFriction = 0;
    static constexpr int kOpenVolumeStrain = 1;
    std::vector<HistoryVariable> history() const;
    void validate(const std::string& material) const;
    void prepare(int /*dim*/) {}
    // c_p [m/s] at the state; at zero stress, or at p_r for Houlsby.
    double wave_speed(const MaterialState& s) const { return soil_wave_speed(*this, s.rho, s.sigma); }
    double reference_wave_speed() const { return soil_reference_wave_speed(*this); }
    StressRate stress_rate(const MaterialState& state, const SymTensor& strain_rate,
                           const Spin& spin) const;
    // Closes the opening a stage overshot, then the radial return onto sqrt(J2) <= mu p + c with
    // the history's mu; the apex's pressure shift opens the grains.
    bool correct(MaterialState& state, double dt) const;
    double strain_energy(double rho, const SymTensor& sigma) const;  // [J/kg]
    PairOptions pair_options() const { return {}; }
    std::vector<ModelParameter> parameters() const;
};

// The shear rate of Jop et al. (2006), |gamma_dot| = sqrt(2 eps_dot' : eps_dot') [1/s].
double shear_rate(const SymTensor& strain_rate);

// mu(I) = mu_s + (mu_2 - mu_s) / (I_0 / I + 1) at shear rate gamma_dot [1/s] and pressure p [Pa],
// I = gamma_dot d / sqrt(p / rho_s), written without dividing by p (mu_2 at p <= 0 with flow,
// mu_s without).
double mu_of_i(const MuIRheology& m, double gamma_dot, double pressure);

// The radial return (Hu et al. 2021): tension beyond the apex p = -c / mu moves to it, then the
// deviator is scaled to sqrt(J2) = mu p + c where it exceeds it. Returns true when either changed
// sigma; apex_shift (when given) receives the pressure added at the apex [Pa] (>= 0).
bool mu_i_return(double mu, double cohesion, SymTensor& sigma, double* apex_shift = nullptr);

static_assert(ConstitutiveModel<MuIRheology>);

}  // namespace regosph
