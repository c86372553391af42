// Porosity and compaction: the epsilon-alpha model (Wuennemann, Collins & Melosh 2006, Icarus
// 180, 514, "W06"; Collins, Melosh & Wuennemann 2011, Int. J. Impact Eng. 38, 434, "C11") as a
// piece any strength law can carry (porosity_coupling.hpp attaches it to Drucker-Prager and
// Mohr-Coulomb).
//
// State: the distension alpha = rho_s / rho >= 1 (rho_s the density of the matrix, the grains;
// porosity phi = 1 - 1 / alpha) and the volumetric strain eps_v = ln(V / V0), the time integral
// of tr(eps_dot) (negative in compression), two history variables of the model.
//
// The crush curve alpha(eps_v) (W06, with C11's names): elastic regime alpha = alpha0
// for eps_v >= eps_e; exponential compaction alpha = alpha0 exp(kappa (eps_v - eps_e)) down to
// the transition distension alpha_x (at eps_x); a power law
// alpha = 1 + (alpha_x - 1) ((eps_c - eps_v) / (eps_c - eps_x))^2 from there to full
// compaction, alpha = 1, at eps_c = eps_x - 2 (alpha_x - 1) / (kappa alpha_x), the strain at
// which the power law meets alpha = 1 with the slope of the exponential, dalpha/deps =
// kappa alpha_x, at eps_x (the curve is C1). Compaction is irreversible (W06:
// alpha stays on unloading): alpha = min(alpha, alpha(eps_v)) is the compaction update, and a
// state unloaded from the curve compacts again only where its strain passes the curve's,
// crush_curve_strain(alpha) (the curve's inverse).
//
// Coupling to the matrix (C11; Carroll & Holt 1972): the stress in the matrix is alpha
// times the bulk stress, sigma_s = alpha sigma. A strength law homogeneous of degree one in the
// stress and the matrix's moduli K_s, G_s and cohesion give the porous bulk K_s / alpha,
// G_s / alpha and c_s / alpha with the matrix's friction angle. The crush is a plastic
// volumetric strain d ln(alpha) (negative) that the matrix does not carry: the matrix stress
// relaxes by K_s d ln(alpha) on its diagonal (compaction_stress_update), and its work,
// -p d ln(alpha) per unit bulk volume, is dissipated.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "core/tensor.hpp"

namespace regosph {

// The crush curve's parameters (W06's symbols) and the strains derived from them.
struct CrushCurve {
    double initial_distension = 1.0;     // alpha0 = 1 / (1 - phi0) [-], >= 1
    double elastic_strain = 0.0;         // eps_e [-], <= 0: end of the elastic regime
    double kappa = 0.0;                  // kappa [-], in (0, 1]: exponential compaction rate
    double transition_distension = 1.0;  // alpha_x [-], in [1, alpha0]: exponential -> power law
    double transition_strain = 0.0;      // eps_x [-], derived (make_crush_curve)
    double compaction_strain = 0.0;      // eps_c [-], derived: alpha = 1 beyond it
};

// The curve with its derived strains eps_x = eps_e + ln(alpha_x / alpha0) / kappa and
// eps_c = eps_x - 2 (alpha_x - 1) / (kappa alpha_x). Unchecked: check_crush_curve says why a
// set of parameters is not a curve.
CrushCurve make_crush_curve(double initial_distension, double elastic_strain, double kappa,
                            double transition_distension);

// Throws std::invalid_argument "material '<name>': <field> = <value> <rule>" for parameters
// that make no crush curve.
void check_crush_curve(const std::string& material, const CrushCurve& c);

// The distension alpha0 = 1 / (1 - phi) of a porosity phi in [0, 1) [-].
inline double distension_of_porosity(double porosity) { return 1.0 / (1.0 - porosity); }

// alpha(eps_v) on the crush curve (W06) [-].
inline double crush_curve_distension(const CrushCurve& c, double eps_v) {
    if (eps_v >= c.elastic_strain) return c.initial_distension;
    if (eps_v >= c.transition_strain)
        return c.initial_distension * std::exp(c.kappa * (eps_v - c.elastic_strain));
    if (eps_v <= c.compaction_strain) return 1.0;
    const double s = (eps_v - c.compaction_strain) / (c.transition_strain - c.compaction_strain);
    return 1.0 + (c.transition_distension - 1.0) * s * s;
}

// The curve's inverse: the strain eps_v at which the curve has distension alpha, for
// 1 < alpha <= alpha0 (eps_e at alpha0, eps_c at alpha = 1) [-].
inline double crush_curve_strain(const CrushCurve& c, double alpha) {
    if (alpha >= c.initial_distension) return c.elastic_strain;
    if (alpha >= c.transition_distension)
        return c.elastic_strain + std::log(alpha / c.initial_distension) / c.kappa;
    if (alpha <= 1.0) return c.compaction_strain;
    return c.compaction_strain + (c.transition_strain - c.compaction_strain) *
                                     std::sqrt((alpha - 1.0) / (c.transition_distension - 1.0));
}

// The compaction update: the distension after the strain has reached eps_v from a state of
// distension alpha, min(alpha, alpha(eps_v)) (compaction is irreversible, W06).
inline double compacted_distension(const CrushCurve& c, double alpha, double eps_v) {
    return std::min(alpha, crush_curve_distension(c, eps_v));
}

// The bulk stress after a crush from distension alpha to alpha_new <= alpha: the matrix stress
// alpha sigma loses the plastic volumetric strain ln(alpha_new / alpha) (its diagonal gains
// -K_s ln(alpha_new / alpha), tension positive: compression relaxes), and the bulk stress is
// the matrix's divided by alpha_new (C11). matrix_bulk_modulus K_s [Pa].
inline SymTensor compaction_stress_update(double matrix_bulk_modulus, double alpha,
                                          double alpha_new, const SymTensor& sigma) {
    const double relief = -matrix_bulk_modulus * std::log(alpha_new / alpha);
    SymTensor out;
    for (int c = 0; c < kSymComponents; ++c) out[c] = alpha * sigma[c];
    for (int c = XX; c <= ZZ; ++c) out[c] += relief;
    for (int c = 0; c < kSymComponents; ++c) out[c] /= alpha_new;
    return out;
}

}  // namespace regosph
