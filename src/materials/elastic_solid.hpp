// Elastic solid: Murnaghan equation of state for the pressure and Hooke's law for the
// deviatoric stress, integrated with the Jaumann rate (SPEC.md section 4; Schaefer et al.
// 2017 eqs. 22 and 30; Gray, Monaghan & Swift 2001). The particle stores the full Cauchy stress
// sigma = -p I + S (tension positive): the deviator S is integrated in time, and the isotropic
// part is replaced by -p(rho) after every stage update.
// Per-material numerical options: Monaghan's (2000) artificial stress against the tensile
// instability, and XSPH velocity smoothing of the position update (Monaghan 1989).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "materials/constitutive_model.hpp"

namespace regosph {

// Parameters, and the model's members of the ConstitutiveModel interface
// (constitutive_model.hpp); the equations are the free functions below.
struct ElasticSolid {
    double density = 0.0;          // rho0, reference density [kg/m^3]
    double bulk_modulus = 0.0;     // K0, bulk modulus at zero pressure [Pa]
    double shear_modulus = 0.0;    // mu [Pa]; 0 gives a Murnaghan fluid
    double murnaghan_n = 1.0;      // n of the Murnaghan EoS [-]; 1 gives p = c0^2 (rho - rho0)
    double artificial_stress = 0.0;           // epsilon of Monaghan (2000) [-]; 0 = off
    double artificial_stress_exponent = 4.0;  // n of f_ab^n (Monaghan 2000) [-]
    double xsph = 0.0;             // epsilon of the XSPH position rate [-]; 0 = dx/dt = v

    static constexpr const char* kName = "ElasticSolid";
    static constexpr bool kBoundaryOnly = false;
    static constexpr bool kPlastic = false;
    void validate(const std::string& material) const;
    void prepare(int /*dim*/) {}
    double wave_speed(const MaterialState& state) const;  // P-wave speed at its density [m/s]
    // wave_speed for a run of particles in one vectorised sweep (wave_speeds, material.hpp).
    template <class Value>
    void wave_speed_range(const PointRun<Value>& run, double* speed) const;
    StressRate stress_rate(const MaterialState& state, const SymTensor& strain_rate,
                           const Spin& spin) const;
    bool correct(MaterialState& state, double dt) const;  // the EoS; never plastic
    // correct() for a run of particles in one vectorised sweep (correct_stresses, material.hpp).
    void correct_range(const PointRun<double>& run, double dt, std::uint8_t* corrected) const;
    double strain_energy(double rho, const SymTensor& sigma) const;  // [J/kg], see below
    PairOptions pair_options() const { return {artificial_stress, artificial_stress_exponent, xsph}; }
    std::vector<ModelParameter> parameters() const;
};

// The functions below run once per particle and evaluation or stage; they are inline, and a
// whole-number Murnaghan exponent (n = 1 for the rubber rings, n = 6 for the brushes, SPEC.md
// section 8) is multiplied out instead of calling std::pow.

// x^n [-]: by repeated squaring for a whole number 0 <= n <= 64, else std::pow.
inline double murnaghan_power(double x, double n) {
    if (!(n >= 0.0 && n <= 64.0 && n == std::floor(n))) return std::pow(x, n);
    double result = 1.0;
    for (auto k = static_cast<unsigned>(n); k != 0; k >>= 1) {
        if (k & 1u) result *= x;
        x *= x;
    }
    return result;
}

// x^n with x = rho / rho0 for `count` <= kMurnaghanBlock particles, murnaghan_power's
// operations lane by lane (hence the same bits) as array sweeps that vectorise: one sweep per
// bit of a whole-number n instead of a loop per particle.
constexpr std::size_t kMurnaghanBlock = 64;
[[gnu::always_inline]] inline void murnaghan_powers(const double* rho, double density, double n,
                                                   double* power, std::size_t count) {
    std::array<double, kMurnaghanBlock> x;  // x^(2^k)
#pragma omp simd
    for (std::size_t i = 0; i < count; ++i) {
        x[i] = rho[i] / density;
        power[i] = 1.0;
    }
    const bool whole = n >= 0.0 && n <= 64.0 && n == std::floor(n);
    for (auto k = whole ? static_cast<unsigned>(n) : 0u; k != 0; k >>= 1) {
        if (k & 1u) {
#pragma omp simd
            for (std::size_t i = 0; i < count; ++i) power[i] *= x[i];
        }
#pragma omp simd
        for (std::size_t i = 0; i < count; ++i) x[i] *= x[i];
    }
    if (!whole)
        for (std::size_t i = 0; i < count; ++i) power[i] = std::pow(x[i], n);
}

// Murnaghan EoS p = (K0 / n) (x^n - 1) [Pa] (SPEC.md section 4), from x^n = (rho / rho0)^n.
inline double murnaghan_pressure_of_power(const ElasticSolid& m, double x_to_n) {
    return m.bulk_modulus / m.murnaghan_n * (x_to_n - 1.0);
}
inline double murnaghan_pressure(const ElasticSolid& m, double rho) {
    return murnaghan_pressure_of_power(m, murnaghan_power(rho / m.density, m.murnaghan_n));
}

// Square of the bulk sound speed, c^2 = dp/drho = K0 (rho / rho0)^(n-1) / rho0 [m^2/s^2], from
// x^(n-1) = (rho / rho0)^(n-1) or from rho.
inline double murnaghan_sound_speed_squared_of_power(const ElasticSolid& m, double x_to_n1) {
    return m.bulk_modulus * x_to_n1 / m.density;
}
inline double murnaghan_sound_speed_squared(const ElasticSolid& m, double rho) {
    return murnaghan_sound_speed_squared_of_power(
        m, murnaghan_power(rho / m.density, m.murnaghan_n - 1.0));
}

// Bulk sound speed c = sqrt(dp/drho) = sqrt(K0 (rho / rho0)^(n-1) / rho0) [m/s] (SPEC.md 4).
inline double murnaghan_sound_speed(const ElasticSolid& m, double rho) {
    return std::sqrt(murnaghan_sound_speed_squared(m, rho));
}

// Longitudinal (P-wave) speed c_p = sqrt(c(rho)^2 + 4 mu / (3 rho)) [m/s]; at rho0 this is
// sqrt((K0 + 4 mu / 3) / rho0), the speed of a plane compression wave in the solid. The
// Courant limit uses it (the fastest signal the solid carries). From x^(n-1) or from rho:
inline double elastic_wave_speed_of_power(const ElasticSolid& m, double rho, double x_to_n1) {
    return std::sqrt(murnaghan_sound_speed_squared_of_power(m, x_to_n1) +
                     4.0 * m.shear_modulus / (3.0 * rho));
}
inline double elastic_wave_speed(const ElasticSolid& m, double rho) {
    return elastic_wave_speed_of_power(m, rho, murnaghan_power(rho / m.density, m.murnaghan_n - 1.0));
}
inline double elastic_wave_speed(const ElasticSolid& m) { return elastic_wave_speed(m, m.density); }
inline double ElasticSolid::wave_speed(const MaterialState& state) const {
    return elastic_wave_speed(*this, state.rho);
}

// wave_speed for `count` particles in sweeps that vectorise (wave_speeds, material.hpp).
// Always inlined, like correct_range and murnaghan_powers: their callers are compiled without
// errno semantics (CMakeLists.txt), but the linker keeps one out-of-line copy of an inline
// function, taken from any file that compiles one, and a copy from a file with errno
// semantics computes its square roots as scalar calls.
template <class Value>
[[gnu::always_inline]] inline void ElasticSolid::wave_speed_range(const PointRun<Value>& run,
                                                                  double* speed) const {
    const double* const rho = run.rho;
    const std::size_t count = run.count;
    // A local copy of the parameters: the stores to `speed` might otherwise alias them, and
    // GCC vectorises the sweep only with the parameters in registers.
    const ElasticSolid solid = *this;
    for (std::size_t first = 0; first < count; first += kMurnaghanBlock) {
        const std::size_t m = std::min(kMurnaghanBlock, count - first);
        const double* const block_rho = rho + first;
        double* const block_speed = speed + first;
        std::array<double, kMurnaghanBlock> power;  // x^(n-1)
        murnaghan_powers(block_rho, density, murnaghan_n - 1.0, power.data(), m);
#pragma omp simd
        for (std::size_t i = 0; i < m; ++i)
            block_speed[i] = elastic_wave_speed_of_power(solid, block_rho[i], power[i]);
    }
}

// Hooke's deviatoric stress rate 2 mu (eps_dot - tr(eps_dot) / 3 I) [Pa/s] (SPEC.md section 4),
// without the rotation terms. In 2D plane strain eps_dot_zz = 0, so the zz rate is
// -2 mu tr(eps_dot) / 3: the deviator is three-dimensional.
inline SymTensor hooke_deviatoric_rate(const ElasticSolid& m, const SymTensor& strain_rate) {
    const SymTensor e = deviator(strain_rate);
    SymTensor rate;
    for (int c = 0; c < kSymComponents; ++c) rate[c] = 2.0 * m.shear_modulus * e[c];
    return rate;
}

// Replace the isotropic part of sigma by -p(rho): sigma = dev(sigma) - p(rho) I.
inline void apply_equation_of_state(const ElasticSolid& m, double rho, SymTensor& sigma) {
    const double shift = trace(sigma) / 3.0 + murnaghan_pressure(m, rho);  // old mean + p
    for (int c = XX; c <= ZZ; ++c) sigma[c] -= shift;
}

// The pressure follows from the density (EoS) after the stage update; only the deviator has
// a rate. The Murnaghan solid stiffens under compression.
inline StressRate ElasticSolid::stress_rate(const MaterialState& /*state*/,
                                            const SymTensor& strain_rate,
                                            const Spin& /*spin*/) const {
    return {hooke_deviatoric_rate(*this, strain_rate), 0.0, false};
}

inline bool ElasticSolid::correct(MaterialState& state, double /*dt*/) const {
    apply_equation_of_state(*this, state.rho, state.sigma);
    return false;
}

// The same equation of state as array sweeps that vectorise, particle for particle the same
// operations in the same order (hence the same bits). Only the diagonal changes.
[[gnu::always_inline]] inline void ElasticSolid::correct_range(const PointRun<double>& run,
                                                               double /*dt*/,
                                                               std::uint8_t* corrected) const {
    const ElasticSolid solid = *this;  // the parameters in registers (wave_speed_range)
    const double* const rho = run.rho;
    const std::size_t count = run.count;
    double* const xx = run.stress[XX];
    double* const yy = run.stress[YY];
    double* const zz = run.stress[ZZ];
    for (std::size_t first = 0; first < count; first += kMurnaghanBlock) {
        const std::size_t m = std::min(kMurnaghanBlock, count - first);
        std::array<double, kMurnaghanBlock> power;  // x^n
        murnaghan_powers(rho + first, density, murnaghan_n, power.data(), m);
#pragma omp simd
        for (std::size_t i = 0; i < m; ++i) {
            const std::size_t a = first + i;
            // apply_equation_of_state: the old mean stress + p.
            const double shift = (xx[a] + yy[a] + zz[a]) / 3.0 +
                                 murnaghan_pressure_of_power(solid, power[i]);
            xx[a] -= shift;
            yy[a] -= shift;
            zz[a] -= shift;
            corrected[a] = 0;
        }
    }
}

// Murnaghan energy per unit mass, e(rho) = integral from rho0 to rho of p(rho') / rho'^2 drho'
// [J/kg] (the work of the EoS pressure, de/dt = p / rho^2 drho/dt). With x = rho / rho0:
//   e = K0 / (n rho0) [ (x^(n-1) - 1) / (n - 1) + 1/x - 1 ],  n != 1,
//   e = K0 / rho0 [ ln x + 1/x - 1 ],                           n == 1,
// near x = 1 as its Taylor series (the closed forms cancel to O((x-1)^2)).
double murnaghan_energy(const ElasticSolid& m, double rho);

// Stored energy per unit mass: murnaghan_energy plus the Hooke deviator's S:S / (4 mu rho)
// [J/kg] (dS/dt = 2 mu dev(eps_dot), so d/dt S:S / (4 mu) = S : eps_dot); a fluid (mu = 0)
// stores none in shear.
inline double ElasticSolid::strain_energy(double rho, const SymTensor& sigma) const {
    const SymTensor S = deviator(sigma);
    const double shear = shear_modulus > 0.0 ? double_dot(S, S) / (4.0 * shear_modulus * rho) : 0.0;
    return murnaghan_energy(*this, rho) + shear;
}

// Monaghan (2000) artificial stress R of one particle [Pa m^6/kg^2]: in the principal frame of
// sigma, R'_k = -epsilon sigma'_k / rho^2 for a tensile principal stress sigma'_k > 0 and 0
// otherwise, rotated back (Gray, Monaghan & Swift 2001 eqs. 4.5-4.7). dim == 2 uses the
// in-plane 2x2 block (closed form; the zz components of R stay 0), dim == 3 all of sigma.
SymTensor artificial_stress(double epsilon, const SymTensor& sigma, double rho, int dim);

// The in-plane components xx, yy, xy of R for dim == 2 from those of sigma: the formula of
// artificial_stress without branches (both sides of each choice computed, one selected), so
// that a loop over particles vectorises (the pair loop's staging, equations.cpp).
struct PlaneTensor {
    double xx = 0.0, yy = 0.0, xy = 0.0;
};
// R'_k of one principal stress: Monaghan (2000) corrects only tensile principal stresses.
[[gnu::always_inline]] inline double principal_correction(double epsilon, double principal,
                                                        double inv_rho2) {
    return principal > 0.0 ? -epsilon * principal * inv_rho2 : 0.0;
}
[[gnu::always_inline]] inline PlaneTensor artificial_stress_plane(double epsilon, double s_xx,
                                                                   double s_yy, double s_xy,
                                                                   double rho) {
    // No tensile principal stress when the in-plane block is negative semidefinite
    // (Sylvester's criterion): R = 0, as in a body at rest with sigma = 0.
    // (& rather than &&: no branch, which vectorises.)
    const bool compressive =
        (s_xx <= 0.0) & (s_yy <= 0.0) & (s_xx * s_yy - s_xy * s_xy >= 0.0);
    const double inv_rho2 = 1.0 / (rho * rho);
    // Principal stresses m +- radius at the angle theta with cos(2 theta) = d / radius,
    // sin(2 theta) = sigma_xy / radius (Gray et al. 2001 eq. 4.5).
    const double mean = 0.5 * (s_xx + s_yy);
    const double d = 0.5 * (s_xx - s_yy);
    const double radius = std::sqrt(d * d + s_xy * s_xy);  // no overflow below 1e150 Pa
    const double cos2 = radius > 0.0 ? d / radius : 1.0;
    const double sin2 = radius > 0.0 ? s_xy / radius : 0.0;
    const double r1 = principal_correction(epsilon, mean + radius, inv_rho2);
    const double r2 = principal_correction(epsilon, mean - radius, inv_rho2);
    // Back to the x-y frame (Gray et al. 2001 eq. 4.7): cos^2 = (1 + cos2) / 2, ...
    const double xx = 0.5 * ((1.0 + cos2) * r1 + (1.0 - cos2) * r2);
    const double yy = 0.5 * ((1.0 - cos2) * r1 + (1.0 + cos2) * r2);
    const double xy = 0.5 * sin2 * (r1 - r2);
    return {compressive ? 0.0 : xx, compressive ? 0.0 : yy, compressive ? 0.0 : xy};
}

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

static_assert(ConstitutiveModel<ElasticSolid>);

}  // namespace regosph
