// The gradient pre-pass of the right-hand side: per-particle quantities that the pair loop
// needs for both partners of a pair, computed from each particle's own neighbours before it.
// Two numerics options use it, both off by default (docs/guide/physics.md):
//
// * Kernel gradient correction (per material, Material::kernel_correction): the first-order
//   consistent kernel gradient of Randles & Libersky (1996, CMAME 139, 375) and Bonet & Lok
//   (1999, CMAME 180, 97). For particle a,
//       M_a = sum_b (m_b / rho_a) grad_a W_ab (x) (x_b - x_a),   L_a = M_a^-1,
//   with the weights m_b / rho_a of the velocity gradient (Schaefer 2017 eq. 38) and every
//   partner that gradient sums over: dynamic particles of any material and wall particles
//   (their mass and extrapolated density), so that next to a wall the wall's particles fill
//   the support as they do for the velocity gradient. The corrected gradient L_a grad_a W_ab
//   makes the velocity gradient exact for every linear field, at free surfaces and corners
//   too: sum_b (m_b / rho_a) (v_b - v_a) (x) L_a grad_a W_ab = A for v = A x + c.
//   Where it enters (equations.cpp):
//     - velocity gradient (strain and rotation rates): G_a L_a^T, G_a the sum of eq. 38;
//     - continuity: drho_a/dt = -rho_a tr(G_a L_a^T), so that the density (hence an elastic
//       solid's pressure) and the volumetric strain rate of the stress agree, and a linear
//       field gives -rho_a div v exactly;
//     - momentum: the variational form of Bonet & Lok (1999, section 4), the force that does
//       the work of the corrected velocity gradient,
//           dv_a/dt = sum_b m_b (sigma_a L_a / rho_a^2 + sigma_b L_b / rho_b^2) grad_a W_ab,
//       antisymmetric in a and b (linear momentum exact), and, as sum_b m_b (x_b - x_a) (x)
//       L_a grad_a W_ab = rho_a I, angular momentum exact too;
//     - the artificial viscosity and the artificial stress keep the plain gradient (the
//       viscosity then stays a central force).
//   L = I for particles whose material does not use the option and for wall particles, and
//   wherever M_a cannot be inverted safely: det M_a <= 0 (an isolated particle, a single row
//   of particles, a tangle) or |L_a|_F > kMaxCorrectionNorm (L_a would amplify some gradient
//   more than that: a particle with few neighbours). Lattice corners give |L|_F = 4-7 (2D
//   square / hexagonal, 3D cubic), a strip two particles thick up to 8.5, so every particle
//   of a lattice body at least two rows thick is corrected.
//
// * Balsara's (1995, J. Comput. Phys. 121, 357) switch (PhysicsParameters::av_balsara): the
//   viscosity Pi_ab of eq. 35 is multiplied by (f_a + f_b) / 2,
//       f_a = |div v_a| / (|div v_a| + |curl v_a| + kBalsaraEpsilon c_a / h_a),
//   from the velocity gradient of this pre-pass (corrected where the material is), c_a the
//   viscosity sound speed and h_a the support radius. A pure compression keeps f = 1 (full
//   viscosity in shocks and impacts), a rotation or shear f ~ 0. A wall partner takes f_a.
//   Computed afresh in every evaluation: no state, so restarts stay exact. With Morris &
//   Monaghan's switch (PhysicsParameters::av_switch) f is multiplied by the particle's switch
//   value, its history column clamped to [kSwitchFloor, 1] (1 for walls and halo rows before
//   their refresh).
//
// * The Riemann solver's linear reconstruction (PhysicsParameters::riemann_reconstruction):
//   each dynamic particle's velocity gradient G_a L_a^T with its own correction L_a = M_a^-1
//   (whether or not its material applies the kernel correction elsewhere; L = I where M_a
//   fails the criterion above), exact for every linear velocity field, at free surfaces too,
//   so that the reconstructed jump of a linear field is zero there as well. Walls keep G = 0.
//   With the stress jump too (PhysicsParameters::riemann_stress_jump), each dynamic
//   particle's stress gradient, d sigma_t / d x_j = sum_k S_tk L_jk with
//   S_tk = sum_b (m_b / rho_a) (sigma_t,b - sigma_t,a) d_k W_ab and the same L_a, so that the
//   jump of the reconstructed normal stresses (RiemannStressJump) of a linear stress field is
//   zero at free surfaces too: there the geostatic gradient alone would drive the plain jump.
#pragma once

#include <cmath>
#include <vector>

#include "core/particles.hpp"
#include "sph/equations.hpp"
#include "sph/neighbours.hpp"

namespace regosph {

// Largest Frobenius norm of an applied correction L [-] (see above).
inline constexpr double kMaxCorrectionNorm = 10.0;
// eps' of Balsara's switch [-]: keeps f finite where div v = curl v = 0 (Balsara 1995 uses
// 1e-4 with the conventional h, half regosph's support radius).
inline constexpr double kBalsaraEpsilon = 1e-4;

// Per particle, stride 2 dim^2 + 1 + dim p doubles (p = 3 packed stress components in 2D,
// 6 in 3D: pair_terms::packed_slot): L (row-major), then Balsara's f (1 without the switch),
// then the velocity gradient G_ij = d v_i / d x_j [1/s] of the Riemann solver's
// reconstruction (row-major; zero without it), then the stress gradient d sigma_t / d x_j
// [Pa/m] at t dim + j (t a packed slot; zero without the stress jump's reconstruction).
constexpr int prepass_stride(int dim) { return 2 * dim * dim + 1 + dim * (dim == 2 ? 3 : 6); }
constexpr int prepass_velocity_gradient(int dim) { return dim * dim + 1; }
constexpr int prepass_stress_gradient(int dim) { return 2 * dim * dim + 1; }

// L = M^-1 when M passes the criterion above (returns true), else L = I (returns false).
template <int Dim>
bool correction_matrix(const double (&M)[Dim][Dim], double (&L)[Dim][Dim]) {
    double det, inv[Dim][Dim];
    if constexpr (Dim == 2) {
        det = M[0][0] * M[1][1] - M[0][1] * M[1][0];
        inv[0][0] = M[1][1], inv[0][1] = -M[0][1], inv[1][0] = -M[1][0], inv[1][1] = M[0][0];
    } else {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {  // cofactor C_ji: the adjugate's (i, j) entry
                const int j1 = (j + 1) % 3, j2 = (j + 2) % 3, i1 = (i + 1) % 3, i2 = (i + 2) % 3;
                inv[i][j] = M[j1][i1] * M[j2][i2] - M[j1][i2] * M[j2][i1];
            }
        det = M[0][0] * inv[0][0] + M[0][1] * inv[1][0] + M[0][2] * inv[2][0];
    }
    double norm2 = 0.0;
    for (int i = 0; i < Dim; ++i)
        for (int j = 0; j < Dim; ++j) {
            inv[i][j] /= det;
            norm2 += inv[i][j] * inv[i][j];
        }
    const bool ok = det > 0.0 && norm2 <= kMaxCorrectionNorm * kMaxCorrectionNorm;
    for (int i = 0; i < Dim; ++i)
        for (int j = 0; j < Dim; ++j) L[i][j] = ok ? inv[i][j] : (i == j ? 1.0 : 0.0);
    return ok;
}

// Balsara's f [-] of a velocity gradient G_ij = d v_i / d x_j [1/s], with the viscosity sound
// speed c [m/s] and support radius h [m].
template <int Dim>
double balsara_factor(const double (&G)[Dim][Dim], double c, double h) {
    double div = 0.0;
    for (int d = 0; d < Dim; ++d) div += G[d][d];
    double curl2 = (G[1][0] - G[0][1]) * (G[1][0] - G[0][1]);
    if constexpr (Dim == 3)
        curl2 += (G[2][1] - G[1][2]) * (G[2][1] - G[1][2]) + (G[0][2] - G[2][0]) * (G[0][2] - G[2][0]);
    const double den = std::abs(div) + std::sqrt(curl2) + kBalsaraEpsilon * c / h;
    return den > 0.0 ? std::abs(div) / den : 1.0;
}

// The pre-pass: out gets prepass_stride(dim) doubles per particle (owned and halo). The owned
// dynamic particles get L and f from their neighbours; then `refresh` (under MPI) brings
// those of the dynamic halo copies from their owners. Walls keep L = I and f = 1 (the pair
// loop gives a wall partner the f of the dynamic particle).
void gradient_prepass(const ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                      const PhysicsParameters& pp, std::vector<double>& out,
                      const HaloRefresh& refresh);

}  // namespace regosph
