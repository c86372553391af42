// The SPH pair terms of Schaefer et al. (2017) section 3 and SPEC.md sections 2 and 4, one
// small function per equation. Every consumer calls these: the term objects of the right-hand
// side (rhs_terms.hpp, wall_terms.hpp), and through them the loads on bodies (body_loads.hpp),
// which are the reaction to exactly the pair forces below. They are branch-free and inline, and
// the callers pass in reciprocals they compute together (one division per pair). They take one
// pair (T = double) or a block of eight (T = an 8-lane vector; kernel.hpp, splat); the
// partner's packed tensors come through an accessor, slot -> T.
//
// Conventions: pair (a, b), dx = x_a - x_b, dv = v_a - v_b, grad = grad_a W_ab, rho_sum =
// rho_a + rho_b; symmetric tensors in packed form (packed_slot).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "sph/kernel.hpp"

namespace regosph::pair_terms {

// Slot of tensor entry (i, j) in the packed storage of a symmetric tensor: the in-plane
// components xx, yy, xy in 2D (plane strain: the pair terms never read the zz row), all six
// in Voigt order xx, yy, zz, xy, xz, yz in 3D.
template <int Dim>
inline constexpr int packed_slot[3][3] = {
    {0, Dim == 2 ? 2 : 3, 4}, {Dim == 2 ? 2 : 3, 1, 5}, {4, 5, 2}};
template <int Dim>
inline constexpr int kPackedSize = Dim == 2 ? 3 : 6;
// The TensorComponent (core/particles.hpp: XX 0, YY 1, ZZ 2, XY 3, XZ 4, YZ 5) of each slot.
template <int Dim>
inline constexpr int packed_component[6] = {0, 1, Dim == 2 ? 3 : 2, 3, 4, 5};

// Continuity (eq. 31): drho_a/dt = rho_a sum_b V_b (v_a - v_b) . grad_a W_ab. The pair's share
// of the sum, V_b dv . grad [1/s]; the caller multiplies the sum by rho_a.
template <class T>
inline T continuity(T volume_b, T dv_dot_grad) {
    return volume_b * dv_dot_grad;
}

// Velocity gradient for the strain and rotation rates (eqs. 38 and 23):
// L_ij = sum_b (m_b / rho_a) (v_b - v_a)_i d_j W_ab [1/s]. The pair's share, with
// w = -m_b / rho_a.
template <int Dim, class T>
inline void velocity_gradient(T w, const T (&dv)[Dim], const T (&grad)[Dim], T (&L)[Dim][Dim]) {
    for (int i = 0; i < Dim; ++i)
        for (int j = 0; j < Dim; ++j) L[i][j] = w * dv[i] * grad[j];
}

// Monaghan's viscosity (eqs. 35-36). nu_ab = h_ab (v_ab . x_ab) / (r^2 + eps_v h_ab^2) [m/s],
// given inv = 1 / ((r^2 + eps_v h^2) rho_sum).
template <class T>
inline T viscosity_nu(T h_ab, T vr, T rho_sum, T inv) {
    return h_ab * vr * rho_sum * inv;
}

// Monaghan's viscosity Pi_ab (eq. 35) for an approaching pair [m^5/(kg s^2)]:
//   Pi_ab = (-alpha cbar_ab nu_ab + beta nu_ab^2) / rhobar_ab,
// cbar_ab = (c_a + c_b) / 2, rhobar_ab = (rho_a + rho_b) / 2. 1 / rhobar_ab is passed as its
// factors, 2 denom inv with inv = 1 / (denom (rho_a + rho_b)) (viscosity_nu), the pair's one
// reciprocal. The caller sets Pi_ab = 0 for receding pairs (v_ab . x_ab >= 0).
template <class T>
inline T viscosity_pi(double alpha, double beta, double c_a, T c_b, T nu, T denom, T inv) {
    return (-alpha * 0.5 * (c_a + c_b) + beta * nu) * nu * 2.0 * denom * inv;
}

// The dissipative part of the acoustic Riemann solver between particles a and b (Zhang, Hu &
// Adams 2017, J. Comput. Phys. 335, 605, eqs. 15 and 20) as a Pi_ab of eq. 37
// [m^5/(kg s^2)]: its interface pressure carries Z_ab beta (U_L - U_R) / 2 with
// Z_ab = 2 rho_a c_a rho_b c_b / (rho_a c_a + rho_b c_b) and the momentum takes 2 P* / (rho_a
// rho_b), so that Pi_ab = 2 c_a c_b beta jump / (rho_a c_a + rho_b c_b), with the velocity jump
// across the interface jump = U_L - U_R = -v_ab . x_ab / r (> 0 approaching) and the
// low-dissipation limiter beta = min(eta max(jump, 0) / cbar, 1), cbar = (c_a + c_b) / 2.
// beta jump = min(2 eta jump^2, jump c_sum) / c_sum: quadratic in the jump, whatever the sound
// speed, below cbar / eta, the acoustic impedance's linear damping above. The caller passes
// the jump regularised as Monaghan's nu (-v_ab . x_ab r / (r^2 + eps h^2)) and sets Pi_ab = 0
// for receding pairs. A floor beta_0 in [0, 1] (PhysicsParameters::riemann_limiter_floor),
// beta = max(beta_0, min(eta jump / cbar, 1)), makes the damping of small jumps linear again.
// inv_zc: 1 / ((rho_a c_a + rho_b c_b) (c_a + c_b)), the pair's one division (PairBlock), which
// the stress jump shares.
template <class T>
inline T riemann_pi(double eta, double floor, double c_a, T c_b, T jump, T inv_zc) {
    const T c_sum = c_a + c_b;
    const T acoustic = jump * c_sum;
    const T quadratic = 2.0 * eta * jump * jump;
    const T limited = acoustic < quadratic ? acoustic : quadratic;
    const T linear = floor * acoustic;
    return 2.0 * c_a * c_b * (limited < linear ? linear : limited) * inv_zc;
}

// Momentum (eq. 37) per unit m_b: [sigma_a / rho_a^2 + sigma_b / rho_b^2 - Pi_ab I] . grad_a W_ab
// [m/s^2 per kg]; s_a and s_b are sigma / rho^2 in packed form, b's slot k as s_b(k).
// dv_a/dt gets m_b times this, and the particle b (of a body) feels -m_a m_b times it.
// Full: s_a and s_b are full Dim x Dim matrices (row-major), sigma L / rho^2 with the kernel
// correction L of each particle: the variational form of Bonet & Lok (1999),
// [sigma_a L_a / rho_a^2 + sigma_b L_b / rho_b^2 - Pi_ab I] . grad_a W_ab
// (gradient_correction.hpp), the same arithmetic as above when L = I.
template <int Dim, bool Full = false, class T, class Slot>
inline void momentum(const double* s_a, Slot s_b, T pi_ab, const T (&grad)[Dim], T (&t)[Dim]) {
    for (int i = 0; i < Dim; ++i) {
        t[i] = -pi_ab * grad[i];
        for (int j = 0; j < Dim; ++j) {
            const int slot = Full ? i * Dim + j : packed_slot<Dim>[i][j];
            t[i] += (s_a[slot] + s_b(slot)) * grad[j];
        }
    }
}

// The work rate of a pair term t (per unit m_a m_b) on the pair's relative motion,
// v_ab . t [W/kg^2]: what the pair exchanges with the energy budget (energy_budget.hpp).
template <int Dim, class T>
inline T pair_work(const T (&dv)[Dim], const T (&t)[Dim]) {
    T w = kernel::splat<T>(0.0);
    for (int i = 0; i < Dim; ++i) w += dv[i] * t[i];
    return w;
}

// Monaghan's (2000) artificial stress per unit m_b f_ab^n: (R_a + R_b) . grad_a W_ab, R in
// packed form [Pa m^6/kg^2] (Gray, Monaghan & Swift 2001 eq. 4.3), R_b's slot k as r_b(k).
// dv_a/dt gets m_b f_ab^n times this.
template <int Dim, class T, class Slot>
inline void artificial_stress(const double* r_a, Slot r_b, const T (&grad)[Dim], T (&t)[Dim]) {
    for (int i = 0; i < Dim; ++i) {
        t[i] = kernel::splat<T>(0.0);
        for (int j = 0; j < Dim; ++j) {
            const int slot = packed_slot<Dim>[i][j];
            t[i] += (r_a[slot] + r_b(slot)) * grad[j];
        }
    }
}

// f_ab^n for a whole exponent n < 16 given by its bits, from w = f_ab, multiplied out without
// a branch.
template <class T>
inline T whole_power(T w, bool bit1, bool bit2, bool bit4, bool bit8) {
    const T w2 = w * w, w4 = w2 * w2, w8 = w4 * w4, one = kernel::splat<T>(1.0);
    return (bit1 ? w : one) * (bit2 ? w2 : one) * (bit4 ? w4 : one) * (bit8 ? w8 : one);
}

// XSPH (Monaghan 1989): weight m_b W_ab / rhobar_ab [-] of the neighbour's velocity, for
// neighbours of the same material (same = 1, else 0); 2 inv denom = 2 / rho_sum. The position
// rate of a is v_a + eps sum_b weight (v_b - v_a).
template <class T>
inline T xsph_weight(T same, T m_b, T w_ab, T inv, T denom) {
    return same * m_b * w_ab * 2.0 * inv * denom;
}

// Wall friction of a boundary body (free-slip or Coulomb; no-slip walls take none of this).
// A dynamic particle a next to such a wall finds the wall's outward normal n from the wall
// particles around it, n = sum_b V_b grad_a W_ab / |...| (the gradient of the wall's colour
// function, which points from the wall into the regolith). Then:
// - the relative velocity of a wall pair enters the velocity gradient only along n, (dv . n) n:
//   the wall constrains the normal motion, not the tangential one (no shear from the wall in
//   the strain rate; continuity and viscosity depend on the central part only anyway);
// - the wall's total pair force on a, F (momentum and artificial stress, summed over the wall
//   particles), keeps its normal part F_n = (F . n) n; its tangential part F_t is removed on a
//   free-slip wall (mu_w = 0, also a symmetry plane) and limited by Coulomb's law on a
//   frictional one: over the whole contact of the body, sum m_a |F_t| <= mu_w max(sum m_a
//   F . n, 0), every F_t scaled by the same factor beyond it (equations.cpp,
//   apply_coulomb_limit). The limit is taken over the contact rather than per particle because
//   the wall forces of single particles also carry the regolith's own stress, with normal parts
//   of both signs; per particle, a sliding block took 0.56 of its weight as friction at
//   mu_w = 0.3. This is the frictional wall of SPH granular-flow models (e.g. Chambon et al.
//   2011, J. Non-Newtonian Fluid Mech. 166) applied to the wall particles of Adami et al.
//   (2012); a body with several separate contacts shares one limit among them.

// The part of v along the unit vector n, (v . n) n.
template <int Dim, class T>
inline void along(const T (&v)[Dim], const double (&n)[Dim], T (&out)[Dim]) {
    T dot = kernel::splat<T>(0.0);
    for (int d = 0; d < Dim; ++d) dot += v[d] * n[d];
    for (int d = 0; d < Dim; ++d) out[d] = dot * n[d];
}

// The change of a wall force F that the Coulomb limit makes, (scale - 1) F_t, given the
// allowed tangential magnitude `limit` = mu_w (F . n) (<= 0: none allowed); returns scale.
template <int Dim>
inline double coulomb_correction(const double (&F)[Dim], const double (&n)[Dim], double limit,
                                 double (&corr)[Dim]) {
    double fn[Dim];
    along<Dim>(F, n, fn);
    double ft[Dim], ft2 = 0.0;
    for (int d = 0; d < Dim; ++d) {
        ft[d] = F[d] - fn[d];
        ft2 += ft[d] * ft[d];
    }
    const double allowed = std::max(limit, 0.0);
    const double ft_norm = std::sqrt(ft2);
    const double scale = ft_norm > allowed ? allowed / ft_norm : 1.0;
    for (int d = 0; d < Dim; ++d) corr[d] = (scale - 1.0) * ft[d];
    return scale;
}

}  // namespace regosph::pair_terms
