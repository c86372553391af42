// Porous regolith: a strength law (Drucker-Prager, drucker_prager.hpp; Mohr-Coulomb,
// mohr_coulomb.hpp) with the epsilon-alpha porosity of porosity.hpp (Wuennemann, Collins &
// Melosh 2006; Collins, Melosh & Wuennemann 2011), one model for either law.
//
// The user's elastic moduli, cohesion (and tensile strength), and density are the bulk's at the
// initial porosity phi0 (alpha0 = 1 / (1 - phi0)); the matrix (grains) has alpha0 times them
// (K_s = alpha0 K, G_s = alpha0 G, c_s = alpha0 c, rho_s = alpha0 rho), and at distension alpha
// the bulk has the matrix's divided by alpha (the matrix stress is alpha times the bulk
// stress, Collins et al. 2011): K alpha0 / alpha, G alpha0 / alpha, c alpha0 / alpha, the same
// friction and dilatancy angles (both strength surfaces are homogeneous of degree one in the
// stress and the strengths). So a bed compacts, stiffens and strengthens together, and the
// P-wave speed sqrt((K_s + 4 G_s / 3) / (alpha rho)) = sqrt((K_s + 4 G_s / 3) / rho_s) follows
// the matrix's. The soil law gives its bulk at alpha0 / alpha times its moduli and strengths
// as Soil::scaled(r).
//
// Each stage: the stress rate is the soil's with the moduli at the particle's distension and
// the volumetric strain integrates tr(eps_dot); the correction then crushes
// (compacted_distension, compaction_stress_update: the matrix loses the plastic volumetric
// strain ln(alpha_new / alpha)) and applies the soil's return with the strengths at the new
// distension. The crush counts as plastic work in the energy budget (a correction that changes
// the stress: AdaptiveHeun::correction_work), with the stored energy at the particle's
// distension (strain_energy(state)). History: the distension and the volumetric strain, then
// the soil's own (Mohr-Coulomb's tensile plastic strain with a cut-off).
#pragma once

#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "materials/constitutive_model.hpp"
#include "materials/drucker_prager.hpp"
#include "materials/mohr_coulomb.hpp"
#include "materials/porosity.hpp"

namespace regosph {

// The model name of a porous soil in run.json.
template <class Soil>
inline constexpr const char* kPorousName = nullptr;
template <>
inline constexpr const char* kPorousName<DruckerPrager> = "PorousDruckerPrager";
template <>
inline constexpr const char* kPorousName<MohrCoulomb> = "PorousMohrCoulomb";

template <class Soil>
struct Porous {
    double density = 0.0;  // bulk density at the initial porosity [kg/m^3] (= soil.density)
    Soil soil;             // the bulk's law at the initial porosity (moduli, strength)
    CrushCurve crush;      // the epsilon-alpha crush curve (its alpha0: the initial distension)

    // The order of history(), in which state.history holds them; the soil's follow.
    static constexpr int kDistension = 0;
    static constexpr int kVolumetricStrain = 1;
    static constexpr int kSoilHistory = 2;

    static constexpr const char* kName = kPorousName<Soil>;
    static constexpr bool kBoundaryOnly = false;
    static constexpr bool kPlastic = true;
    // distension alpha (initially alpha0), volumetric_strain eps_v (initially 0), the soil's.
    std::vector<HistoryVariable> history() const;
    void validate(const std::string& material) const;
    void prepare(int dim) { soil.prepare(dim); }
    double wave_speed(const MaterialState& state) const;  // [m/s], at the particle's distension
    StressRate stress_rate(const MaterialState& state, const SymTensor& strain_rate,
                           const Spin& spin) const;
    // Crush, then the soil's return at the new distension; true when either changed sigma.
    bool correct(MaterialState& state, double dt) const;
    // At the initial distension [J/kg]; strain_energy(state) at the particle's.
    double strain_energy(double rho, const SymTensor& sigma) const {
        return soil.strain_energy(rho, sigma);
    }
    // Hooke's energy of the bulk moduli at distension alpha, alpha / alpha0 hooke(K, G, sigma)
    // / rho [J/kg]: the matrix's energy hooke(K_s, G_s, alpha sigma) per unit matrix mass, whose
    // rate is the matrix's stress power (the crush's work is not stored).
    double strain_energy(const MaterialState& state) const {
        return state.history[kDistension] / crush.initial_distension *
               soil.strain_energy(state.rho, state.sigma);
    }
    PairOptions pair_options() const { return soil.pair_options(); }
    std::vector<ModelParameter> parameters() const;

private:
    // The state as the soil sees it: its own history variables.
    static MaterialState soil_state(const MaterialState& state) {
        MaterialState s = state;
        s.history = state.history + kSoilHistory;
        return s;
    }
};

using PorousDruckerPrager = Porous<DruckerPrager>;
using PorousMohrCoulomb = Porous<MohrCoulomb>;

extern template struct Porous<DruckerPrager>;
extern template struct Porous<MohrCoulomb>;
static_assert(ConstitutiveModel<PorousDruckerPrager>);
static_assert(ConstitutiveModel<PorousMohrCoulomb>);

}  // namespace regosph
