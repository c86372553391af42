// Porous Drucker-Prager regolith: the soil of drucker_prager.hpp with the epsilon-alpha porosity
// of porosity.hpp (Wuennemann, Collins & Melosh 2006; Collins, Melosh & Wuennemann 2011).
//
// The user's elastic moduli, cohesion and density are the bulk's at the initial porosity phi0
// (alpha0 = 1 / (1 - phi0)); the matrix (grains) has alpha0 times them (K_s = alpha0 K,
// G_s = alpha0 G, c_s = alpha0 c, rho_s = alpha0 rho), and at distension alpha the bulk has the
// matrix's divided by alpha (the matrix stress is alpha times the bulk stress, Collins et al.
// 2011): K alpha0 / alpha, G alpha0 / alpha, c alpha0 / alpha, the same friction and
// dilatancy angles (the Drucker-Prager cone is homogeneous of degree one in the stress). So a
// bed compacts, stiffens and strengthens together, and the P-wave speed
// sqrt((K_s + 4 G_s / 3) / (alpha rho)) = sqrt((K_s + 4 G_s / 3) / rho_s) follows the matrix's.
//
// Each stage: the stress rate is Drucker-Prager's (Schaefer 2017 eqs. 19-20) with the moduli at
// the particle's distension and the volumetric strain integrates tr(eps_dot); the correction then
// crushes (compacted_distension, compaction_stress_update: the matrix loses the plastic
// volumetric strain ln(alpha_new / alpha)) and applies Bui's corrections with the cohesion at
// the new distension. The crush counts as plastic work in the energy budget (a correction that
// changes the stress: AdaptiveHeun::correction_work), with the stored energy at the particle's
// distension (strain_energy(state)).
#pragma once

#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "materials/constitutive_model.hpp"
#include "materials/drucker_prager.hpp"
#include "materials/porosity.hpp"

namespace regosph {

struct PorousDruckerPrager {
    double density = 0.0;  // bulk density at the initial porosity [kg/m^3] (= soil.density)
    DruckerPrager soil;    // the bulk's law at the initial porosity (moduli, strength)
    CrushCurve crush;      // the epsilon-alpha crush curve (its alpha0: the initial distension)

    // The order of history(), in which state.history holds them.
    static constexpr int kDistension = 0;
    static constexpr int kVolumetricStrain = 1;

    static constexpr const char* kName = "PorousDruckerPrager";
    static constexpr bool kBoundaryOnly = false;
    static constexpr bool kPlastic = true;
    // distension alpha (initially alpha0) and volumetric_strain eps_v (initially 0).
    std::vector<HistoryVariable> history() const;
    void validate(const std::string& material) const;
    void prepare(int dim) { soil.prepare(dim); }
    double wave_speed(const MaterialState& state) const;  // [m/s], at the particle's distension
    StressRate stress_rate(const MaterialState& state, const SymTensor& strain_rate,
                           const Spin& spin) const;
    // Crush, then Bui's corrections at the new distension; true when either changed sigma.
    bool correct(MaterialState& state, double dt) const;
    // At the initial distension [J/kg]; strain_energy(state) at the particle's.
    double strain_energy(double rho, const SymTensor& sigma) const;
    // Hooke's energy of the bulk moduli at distension alpha, alpha / alpha0 hooke(K, G, sigma)
    // / rho [J/kg]: the matrix's energy hooke(K_s, G_s, alpha sigma) per unit matrix mass, whose
    // rate is the matrix's stress power (the crush's work is not stored).
    double strain_energy(const MaterialState& state) const;
    PairOptions pair_options() const { return {}; }
    std::vector<ModelParameter> parameters() const;
};

static_assert(ConstitutiveModel<PorousDruckerPrager>);

}  // namespace regosph
