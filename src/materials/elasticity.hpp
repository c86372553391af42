// Elasticity of the soil models (DruckerPrager, MuIRheology; any strength law may hold one):
// linear (Hooke's law with constant K and G, Schaefer 2017 eq. 19) or the pressure-dependent
// hyperelastic law of Houlsby, Amorosi & Rojas (2005), Geotechnique 55, 383, whose moduli grow
// as (p / p_r)^n. The strength law calls elastic_tangent / elastic_stress_rate for its stress
// rate, elastic_energy_density for its strain_energy and p_wave_modulus for its wave speed.
//
// Houlsby's law, in its stress-based (complementary energy) form. With p = -tr(sigma)/3,
// J2 = S:S/2 and the reference moduli K_r, G_r (the model's bulk and shear moduli, at
// p = p_r):
//     W*(sigma) = P^2 / ((1 - n)(2 - n) K(P)),   K(P) = K_r (P / p_r)^n,   G(P) = G_r (P / p_r)^n,
//     P^2 = pbar^2 + p_min^2,   pbar^2 = p^2 + (1 - n) (K_r / G_r) J2
// (with q^2 = 3 J2, pbar^2 = p^2 + (1 - n) K_r q^2 / (3 G_r): the factor on q^2 that gives the
// shear modulus G_r (p / p_r)^n at isotropic stress; the floor pressure p_min keeps W* smooth
// and the stiffness finite at zero stress). The
// elastic strain is eps = dW*/dsigma = (-p I / 3 + (1 - n) K_r / (2 G_r) S) / ((1 - n) K(P)),
// and its inverse Hessian is the tangent (Sherman-Morrison on the rank-one term of d eps/dsigma):
//     sigma_dot = (1 - n) K(P) tr(eps_dot) I + 2 G(P) dev(eps_dot) + c sigma (sigma : eps_dot),
//     c = n (1 - n) K(P) / (P^2 - n pbar^2).
// At isotropic stress p >> p_min this is K = K_r (p / p_r)^n and G = G_r (p / p_r)^n exactly;
// n = 0 is Hooke's law. The stored energy W = sigma : eps - W* (the Legendre transform), less
// its value at zero stress, is (elastic_energy_density), with w(x) = x^2 / ((1 - n)(2 - n) K(x)),
//     W(sigma) = pbar^2 / ((1 - n) K(P)) - (w(P) - w(p_min)),
// and dW/dt = sigma : eps_dot for every stress path: a closed strain cycle returns the energy
// and the stress, up to the time integration's error (tests/cpp/test_elasticity.cpp). W* is
// even in p: tension (p < 0) stiffens as compression does, which the strength laws' tension
// cut-offs leave to cohesive soil only (|p| <= c cot(phi)).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "materials/constitutive_model.hpp"

namespace regosph {

enum class ElasticityLaw : std::uint8_t { linear, houlsby };

// The law and its parameters; the moduli K_r and G_r belong to the model (its bulk_modulus
// and shear_modulus), and are the moduli at p = p_r for Houlsby's law.
struct Elasticity {
    ElasticityLaw law = ElasticityLaw::linear;
    double reference_pressure = 0.0;  // p_r [Pa] > 0 (Houlsby)
    double exponent = 0.0;            // n [-] in [0, 1) (Houlsby)
    double floor_pressure = 0.0;      // p_min [Pa] > 0 (Houlsby)

    bool linear() const { return law == ElasticityLaw::linear; }
    bool operator==(const Elasticity&) const = default;
};

// Houlsby's law with moduli proportional to (p / p_r)^n above p_min.
Elasticity houlsby_elasticity(double reference_pressure, double exponent, double floor_pressure);

// "linear" or "Houlsby" (run.json "elasticity").
const char* elasticity_name(const Elasticity& e);
// What is wrong with e, naming the field ("exponent = 1.5 must lie in [0, 1) ..."); empty if
// nothing.
std::string elasticity_error(const Elasticity& e);
// Throws std::invalid_argument naming the material and the field ("material 'soil':
// elasticity.exponent = ...").
void validate(const Elasticity& e, const std::string& material);
// Its entries of the model's description in run.json; none for linear elasticity.
void append_parameters(const Elasticity& e, std::vector<ModelParameter>& out);

// The tangent D of sigma_dot = D : eps_dot at a stress:
// D : x = 2 shear x + (bulk - 2 shear / 3) tr(x) I + coupling sigma (sigma : x).
struct ElasticTangent {
    double bulk = 0.0;      // [Pa]
    double shear = 0.0;     // [Pa]
    double coupling = 0.0;  // [1/Pa]
};

// The hypoelastic Hooke rate 2 mu eps_dot + (K - 2 mu / 3) tr(eps_dot) I (Schaefer 2017 eq. 19,
// first terms) [Pa/s], without the rotation terms. Inline: every stress rate of every particle
// and stage starts with it.
inline SymTensor hooke_stress_rate(double K, double mu, const SymTensor& eps_dot) {
    SymTensor rate;
    const double lame = K - 2.0 * mu / 3.0;
    const double tr_eps = trace(eps_dot);
    for (int c = 0; c < kSymComponents; ++c) rate[c] = 2.0 * mu * eps_dot[c];
    for (int c = XX; c <= ZZ; ++c) rate[c] += lame * tr_eps;
    return rate;
}

// Elastic energy per unit volume of the Hooke law of eq. 19 (Bui 2008 eq. 19),
// w = S:S / (4 mu) + p^2 / (2 K) with p = -I1 / 3 [J/m^3]: with dS/dt = 2 mu dev(eps_dot^e) and
// dp/dt = -K tr(eps_dot^e), dw/dt = S : eps_dot^e - p tr(eps_dot^e) = sigma : eps_dot^e (the
// Jaumann terms do no work, S : (W S - S W) = 0).
double hooke_strain_energy(double bulk_modulus, double shear_modulus, const SymTensor& sigma);

// Houlsby's law (the header's equations) at stress sigma [Pa] with reference moduli K_r, G_r.
// pbar^2 [Pa^2].
inline double houlsby_pbar_squared(const Elasticity& e, double K_r, double G_r,
                                   const SymTensor& sigma) {
    const double p = -trace(sigma) / 3.0;
    return p * p + (1.0 - e.exponent) * (K_r / G_r) * second_invariant(sigma);
}
// (P / p_r)^n [-] from P^2 [Pa^2]: the moduli's factor K(P) / K_r. Two square roots for
// n = 1/2 (the default), else std::pow: the stress rate and the wave speed pay it per particle
// and stage.
inline double houlsby_stiffness_scale(const Elasticity& e, double P2) {
    if (e.exponent == 0.5) return std::sqrt(std::sqrt(P2) / e.reference_pressure);
    return std::pow(P2 / (e.reference_pressure * e.reference_pressure), 0.5 * e.exponent);
}
// The tangent at sigma.
inline ElasticTangent houlsby_tangent(const Elasticity& e, double K_r, double G_r,
                                      const SymTensor& sigma) {
    const double n = e.exponent;
    const double pbar2 = houlsby_pbar_squared(e, K_r, G_r, sigma);
    const double P2 = pbar2 + e.floor_pressure * e.floor_pressure;
    const double scale = houlsby_stiffness_scale(e, P2);
    const double K = K_r * scale;  // K(P)
    return {(1.0 - n) * K, G_r * scale, n * (1.0 - n) * K / (P2 - n * pbar2)};
}
// W*(sigma) [J/m^3], the complementary energy whose gradient is the elastic strain.
double houlsby_complementary_energy(const Elasticity& e, double K_r, double G_r,
                                    const SymTensor& sigma);
// eps(sigma) = dW*/dsigma [-], the elastic strain from the zero-stress state (tension positive).
SymTensor houlsby_elastic_strain(const Elasticity& e, double K_r, double G_r,
                                 const SymTensor& sigma);

// The elastic part of a model's constitutive law, for its elasticity e and moduli K, G [Pa].
inline ElasticTangent elastic_tangent(const Elasticity& e, double K, double G,
                                      const SymTensor& sigma) {
    return e.linear() ? ElasticTangent{K, G, 0.0} : houlsby_tangent(e, K, G, sigma);
}
// D : eps_dot [Pa/s] without the rotation terms.
inline SymTensor tangent_stress_rate(const ElasticTangent& D, const SymTensor& sigma,
                                     const SymTensor& eps_dot) {
    SymTensor rate = hooke_stress_rate(D.bulk, D.shear, eps_dot);
    const double c = D.coupling * double_dot(sigma, eps_dot);
    for (int k = 0; k < kSymComponents; ++k) rate[k] += c * sigma[k];
    return rate;
}
inline SymTensor elastic_stress_rate(const Elasticity& e, double K, double G,
                                     const SymTensor& sigma, const SymTensor& eps_dot) {
    if (e.linear()) return hooke_stress_rate(K, G, eps_dot);
    return tangent_stress_rate(houlsby_tangent(e, K, G, sigma), sigma, eps_dot);
}
// Stored elastic energy per unit volume [J/m^3], zero at zero stress.
double elastic_energy_density(const Elasticity& e, double K, double G, const SymTensor& sigma);
// The P-wave modulus M [Pa] of the wave speed sqrt(M / rho): K + 4 G / 3 for linear elasticity;
// for Houlsby's law the largest eigenvalue of the acoustic tensor over all directions m is at
// most (1 - n) K(P) + 4 G(P) / 3 + c max_m |sigma m|^2, and |sigma m| <= |p| + 2 sqrt(J2 / 3)
// (the largest principal deviator); equal to K(p) + 4 G(p) / 3 at isotropic stress p >> p_min.
inline double p_wave_modulus(const Elasticity& e, double K, double G, const SymTensor& sigma) {
    if (e.linear()) return K + 4.0 * G / 3.0;
    const ElasticTangent D = houlsby_tangent(e, K, G, sigma);
    const double s = std::abs(trace(sigma)) / 3.0 + 2.0 * std::sqrt(second_invariant(sigma) / 3.0);
    return D.bulk + 4.0 * D.shear / 3.0 + D.coupling * s * s;
}

// The P-wave speed c_p = sqrt((K + 4 G / 3) / rho) [m/s] (SPEC.md section 3).
inline double hooke_wave_speed(double K, double G, double rho) {
    return std::sqrt((K + 4.0 * G / 3.0) / rho);
}

// A soil's P-wave speed [m/s] at density rho and stress sigma: for linear elasticity its
// reference speed at rho0, for Houlsby's law sqrt(M(sigma) / rho) (p_wave_modulus).
inline double soil_wave_speed(const Elasticity& e, double K, double G, double rho0, double rho,
                              const SymTensor& sigma) {
    if (e.linear()) return hooke_wave_speed(K, G, rho0);
    return std::sqrt(p_wave_modulus(e, K, G, sigma) / rho);
}

}  // namespace regosph
