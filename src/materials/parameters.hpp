// Materials from the parameters a setup gives: angles in degrees, and the elastic moduli as
// any admissible pair (e.g. bulk modulus and Poisson's ratio). These are the conversions the
// Python constructors rs.DruckerPrager / rs.ElasticSolid / rs.Rigid perform; each returns a
// validated Material in the SI units with radians that the models use.
#pragma once

#include <optional>
#include <string>

#include "materials/material.hpp"

namespace regosph {

// Drucker-Prager regolith as a user gives it. Exactly one of shear_modulus and poisson_ratio.
struct DruckerPragerInput {
    double density = 0.0;                 // [kg/m^3]
    double bulk_modulus = 0.0;            // K [Pa]
    std::optional<double> shear_modulus;  // mu [Pa]
    std::optional<double> poisson_ratio;  // nu [-]: mu = 3K(1 - 2nu) / (2(1 + nu))
    double friction_angle_deg = 0.0;      // phi [deg]
    double cohesion = 0.0;                // c [Pa]
    double dilatancy_angle_deg = 0.0;     // psi [deg]
    double artificial_stress = 0.0;       // Monaghan (2000) epsilon [-]
    double artificial_stress_exponent = 4.0; // n of f_ab^n [-]
    double viscosity_sound_speed = 0.0;   // [m/s], 0 = the material's own wave speed
    bool kernel_correction = false;       // Material::kernel_correction
    Elasticity elasticity{};              // linear, or Houlsby's with K and mu at p_r
};


// Elastic solid as a user gives it. Exactly two of the four moduli (see elastic_moduli).
struct ElasticSolidInput {
    double density = 0.0;                  // rho0 [kg/m^3]
    std::optional<double> bulk_modulus;    // K0 [Pa]
    std::optional<double> shear_modulus;   // mu [Pa]
    std::optional<double> youngs_modulus;  // E [Pa]
    std::optional<double> poisson_ratio;   // nu [-]
    double murnaghan_n = 1.0;              // [-]
    double viscosity_sound_speed = 0.0;    // [m/s]
    double artificial_stress = 0.0;        // Monaghan (2000) epsilon [-]
    double artificial_stress_exponent = 4.0;
    double xsph = 0.0;                     // XSPH epsilon [-]
    bool kernel_correction = false;        // Material::kernel_correction
};

// mu(I) regolith as a user gives it. Exactly one of shear_modulus and poisson_ratio.
struct MuIRheologyInput {
    double density = 0.0;                   // [kg/m^3]
    double bulk_modulus = 0.0;              // K [Pa]
    std::optional<double> shear_modulus;    // G [Pa]
    std::optional<double> poisson_ratio;    // nu [-]
    double static_friction = 0.0;           // mu_s [-]
    double limit_friction = 0.0;            // mu_2 [-]
    double reference_inertial_number = 0.0; // I_0 [-]
    double grain_diameter = 0.0;            // d [m]
    double grain_density = 0.0;             // rho_s [kg/m^3]
    double cohesion = 0.0;                  // [Pa]
    double viscosity_sound_speed = 0.0;     // [m/s], 0 = the material's own wave speed
    bool kernel_correction = false;         // Material::kernel_correction
    Elasticity elasticity{};                // linear, or Houlsby's with K and G at p_r
};

// Mohr-Coulomb regolith as a user gives it. Exactly one of shear_modulus and poisson_ratio.
struct MohrCoulombInput {
    double density = 0.0;                    // [kg/m^3]
    double bulk_modulus = 0.0;               // K [Pa]
    std::optional<double> shear_modulus;     // G [Pa]
    std::optional<double> poisson_ratio;     // nu [-]
    double friction_angle_deg = 0.0;         // phi [deg]
    double cohesion = 0.0;                   // c [Pa]
    double dilatancy_angle_deg = 0.0;        // psi [deg]
    std::optional<double> tensile_strength;  // Rankine cut-off sigma_t [Pa]; none: no cut-off
    double tensile_softening_strain = 0.0;   // [-]
    double artificial_stress = 0.0;          // Monaghan (2000) epsilon [-]
    double artificial_stress_exponent = 4.0; // n of f_ab^n [-]
    double viscosity_sound_speed = 0.0;      // [m/s], 0 = the material's own wave speed
    bool kernel_correction = false;          // Material::kernel_correction
    Elasticity elasticity{};                 // linear, or Houlsby's with K and G at p_r
};

// Porous regolith (porosity_coupling.hpp) as a user gives it: the soil's parameters
// (DruckerPragerInput, MohrCoulombInput) at the initial porosity, whose bulk density is
// grain_density (1 - porosity), and the epsilon-alpha crush curve (porosity.hpp).
template <class SoilInput>
struct PorousInput {
    SoilInput soil;                       // its density is ignored: it follows from the two below
    double grain_density = 0.0;           // rho_s [kg/m^3]
    double porosity = 0.0;                // phi0 [-], in [0, 1)
    double elastic_strain = 0.0;          // eps_e [-], <= 0
    double kappa = 0.0;                   // [-], in (0, 1]
    double transition_distension = 1.0;   // alpha_x [-], in [1, 1 / (1 - porosity)]
};
using PorousDruckerPragerInput = PorousInput<DruckerPragerInput>;
using PorousMohrCoulombInput = PorousInput<MohrCoulombInput>;

// A boundary material as a user gives it: the contact properties (rigid.hpp) all together or
// none: youngs_modulus, restitution and friction are then required.
struct RigidInput {
    double density = 0.0;                  // [kg/m^3]
    std::optional<double> youngs_modulus;  // E [Pa]
    double poisson_ratio = 0.25;           // nu [-]
    std::optional<double> restitution;     // e [-]
    std::optional<double> friction;        // mu [-]
    double slip_velocity = 1e-3;           // [m/s]
};

// Each throws std::invalid_argument naming the material and the field (validate()).
Material make_material(const std::string& name, const DruckerPragerInput& in);
Material make_material(const std::string& name, const ElasticSolidInput& in);
Material make_material(const std::string& name, const MuIRheologyInput& in);
Material make_material(const std::string& name, const MohrCoulombInput& in);
Material make_material(const std::string& name, const PorousDruckerPragerInput& in);
Material make_material(const std::string& name, const PorousMohrCoulombInput& in);
Material make_material(const std::string& name, const Rigid& in);
Material make_material(const std::string& name, const RigidInput& in);

}  // namespace regosph
