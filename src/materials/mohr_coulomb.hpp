// Mohr-Coulomb elastic-plastic regolith with a Rankine tension cut-off: a strength that is true
// on every stress path (triaxial compression and extension, plane strain), where a
// Drucker-Prager cone matches Mohr-Coulomb on one path only (docs/guide/physics.md, "Strength
// surfaces").
//
// The Hooke stress rate is integrated (the Jaumann terms added by the caller) and, after every
// stage update, the stress returns to the admissible set by the closest-point projection in
// principal stresses of de Souza Neto, Peric & Owen (2008, "Computational Methods for
// Plasticity", section 8.2): the trial stress and its return share their principal directions
// (isotropic elasticity), the yield surface's planes are linear in the principal stresses, and
// so the return onto one plane, an edge (the triaxial corners) or the apex is a linear system in
// the plastic multipliers. The corners are resolved exactly: no rounding (Abbo & Sloan 1995)
// is needed, and the failure ratio sigma_1 / sigma_3 = (1 + sin phi) / (1 - sin phi) holds on
// every path.
//
// With principal stresses sigma_1 >= sigma_2 >= sigma_3 (tension positive):
//   Mohr-Coulomb  f = (sigma_1 - sigma_3) + (sigma_1 + sigma_3) sin phi - 2 c cos phi <= 0,
//     plastic potential g = (sigma_1 - sigma_3) + (sigma_1 + sigma_3) sin psi (dilatancy psi);
//   Rankine       f_t = sigma_1 - sigma_t(kappa) <= 0 (associated), where the tensile strength
//     softens linearly with the tensile plastic strain kappa (its history variable) to zero over
//     tensile_softening_strain (0: brittle, the strength is lost at the first crack).
// The softening is explicit over a step: the return uses sigma_t of the step's start.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "materials/constitutive_model.hpp"
#include "materials/elasticity.hpp"

namespace regosph {

// The yield and potential constants of one evaluation.
struct MohrCoulombSurface {
    double sin_phi = 0.0, sin_psi = 0.0;
    double two_c_cos_phi = 0.0;  // 2 c cos(phi) [Pa]
    double tensile_strength = -1.0;  // sigma_t [Pa]; < 0: no cut-off
    double bulk_modulus = 0.0, shear_modulus = 0.0;  // [Pa], the return's elastic metric
    bool prepared = false;  // set by mohr_coulomb_constants: the fields above hold the model's
};

struct MohrCoulomb {
    double density = 0.0;          // reference bulk density [kg/m^3]
    double bulk_modulus = 0.0;     // K [Pa]
    double shear_modulus = 0.0;    // G [Pa]
    double friction_angle = 0.0;   // phi [rad], in [0, pi/2)
    double cohesion = 0.0;         // c [Pa], >= 0
    double dilatancy_angle = 0.0;  // psi [rad], in [0, phi]
    // Rankine cut-off: sigma_1 <= tensile_strength [Pa], which softens over
    // tensile_softening_strain [-]. A negative tensile_strength means no cut-off (the
    // Mohr-Coulomb apex c cot(phi) bounds the tension).
    double tensile_strength = -1.0;
    double tensile_softening_strain = 0.0;
    // Monaghan's (2000) artificial stress against the tensile instability of cohesive soil
    // (PairOptions; elastic_solid.hpp): epsilon [-] (0 = off) and the exponent n of f_ab^n.
    double artificial_stress = 0.0;
    double artificial_stress_exponent = 4.0;
    // Linear (K and G constant) or Houlsby's pressure-dependent law, whose moduli at p_r are
    // bulk_modulus and shear_modulus (elasticity.hpp). The return's energy metric takes K and G.
    Elasticity elasticity{};
    // Derived by prepare(dim): the constants of the return (mohr_coulomb_constants), which
    // every particle and stage asks for.
    MohrCoulombSurface surface{};

    static constexpr const char* kName = "MohrCoulomb";
    static constexpr bool kBoundaryOnly = false;
    static constexpr bool kPlastic = true;
    bool has_cut_off() const { return tensile_strength >= 0.0; }
    // With the cut-off: the tensile plastic strain kappa [-], initially 0.
    std::vector<HistoryVariable> history() const;
    void validate(const std::string& material) const;
    void prepare(int /*dim*/);
    // c_p [m/s] at the state; at zero stress, or at p_r for Houlsby.
    double wave_speed(const MaterialState& s) const { return soil_wave_speed(*this, s.rho, s.sigma); }
    double reference_wave_speed() const { return soil_reference_wave_speed(*this); }
    StressRate stress_rate(const MaterialState& state, const SymTensor& strain_rate,
                           const Spin& spin) const;
    // The closest-point return (mohr_coulomb_return) with the current tensile strength; adds
    // the tensile plastic strain to the history.
    bool correct(MaterialState& state, double dt) const;
    // correct() for a run of particles: the elastic test of every particle in one sweep that
    // vectorises, the return for those outside (correct_stresses, material.hpp); same bits.
    void correct_range(const PointRun<double>& run, double dt, std::uint8_t* corrected) const;
    double strain_energy(double rho, const SymTensor& sigma) const;  // [J/kg]
    PairOptions pair_options() const {
        return {.artificial_stress = artificial_stress,
                .artificial_stress_exponent = artificial_stress_exponent};
    }
    std::vector<ModelParameter> parameters() const;
    // The law with r times its moduli, cohesion and tensile strength, prepared constants
    // included: a porous bulk at distension alpha, r = alpha0 / alpha (porosity_coupling.hpp).
    MohrCoulomb scaled(double r) const;
};

// What a return did: whether it changed the stress, and the plastic multipliers of the Rankine
// planes summed (the tensile plastic strain increment) [-].
struct MohrCoulombReturn {
    bool changed = false;
    double tensile_plastic_strain = 0.0;
};

// The constants of phi, psi, c and the cut-off (trigonometric functions of the angles).
MohrCoulombSurface mohr_coulomb_constants(const MohrCoulomb& m);
// The surface at tensile plastic strain kappa: the prepared constants with the softened cut-off.
MohrCoulombSurface mohr_coulomb_surface(const MohrCoulomb& m, double tensile_plastic_strain);

// Largest value of the Mohr-Coulomb function f and of the Rankine function f_t [Pa] at sigma
// (the admissible set is f <= 0 and f_t <= 0).
std::array<double, 2> mohr_coulomb_functions(const MohrCoulombSurface& s, const SymTensor& sigma);

// Returns sigma to the admissible set (the closest point in the elastic energy norm, with the
// flow rule of psi). Stresses inside the cone inscribed in the Mohr-Coulomb pyramid and below
// the cut-off are left untouched without a spectral decomposition.
MohrCoulombReturn mohr_coulomb_return(const MohrCoulombSurface& s, SymTensor& sigma);

static_assert(ConstitutiveModel<MohrCoulomb>);

}  // namespace regosph
