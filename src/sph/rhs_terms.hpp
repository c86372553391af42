// The pair terms of the SPH right-hand side as composable objects (SPEC.md section 2, Schaefer
// et al. 2017 section 3): what each reads of a partner's record, what it accumulates, and how
// its sums reach the particle's rates. The equations themselves are the small functions of
// pair_terms.hpp; the walk over the pair list is pair_traversal.hpp; equations.cpp composes
// the terms a run needs (RhsTerms) and turns their sums into rates (finish_particle).
//
// A term is a struct with
//   begin(a)          particle a's own values, before its first block (ParticleA);
//   add(pair)         one block of eight pairs on Vec8 lanes (PairBlock), accumulating into
//                     its own lane sums and handing values on to the terms after it;
//   kRows, rows(r)    its lane sums, which the composition adds pairwise (lane_sums);
//   take(s, sums)     its summed rows (and any other reduction) into the particle's PairSums;
// the last three only where the term has sums of its own.
// Terms run in the order of the composition within a block; each has sums of its own, so that
// only what a term hands on (PairBlock) orders them. Terms hold no references to each other.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/particles.hpp"
#include "sph/kernel.hpp"
#include "sph/pair_terms.hpp"
#include "sph/pair_traversal.hpp"

namespace regosph::rhs {

using traversal::Mask8;
using traversal::Vec8;

// The compile-time shape of a run's pair loop: its dimension and which optional terms it has.
// ArtStress: a material with Monaghan's artificial stress; Xsph: a material with XSPH; Loads:
// loads on bodies are collected (and walls may have friction); Prepass: the gradient pre-pass
// (kernel correction or Balsara's switch, gradient_correction.hpp); Walls: the run has boundary
// particles (partners of another kind); Riemann: the Riemann solver's dissipation
// (RiemannDissipation) in place of Monaghan's viscosity; Unilateral: the walls' unilateral
// contact (WallSeparation; with Walls only). A run without an option takes a loop without its
// term: even a term that returns at once costs the collapse's pair loop ~10 % (its registers
// and the block's code layout), so options are template flags, not run-time tests.
template <int Dim_, bool ArtStress_, bool Xsph_, bool Loads_, bool Prepass_, bool Walls_,
          bool Riemann_ = false, bool Unilateral_ = false>
struct Shape {
    static_assert(Walls_ || !Unilateral_, "the unilateral contact is a law of the walls");
    static constexpr int Dim = Dim_;
    static constexpr bool ArtStress = ArtStress_, Xsph = Xsph_, Loads = Loads_,
                          Prepass = Prepass_, Walls = Walls_, Riemann = Riemann_,
                          Unilateral = Unilateral_;
};

// A particle's record (traversal::walk_pairs reads x and h, the terms the rest): the fields
// the run's terms read, by name, SI units. A symmetric tensor is packed
// (pair_terms::packed_slot): in-plane xx, yy, xy in 2D, all six in Voigt order in 3D.
template <class S>
struct Record {
    static constexpr int Dim = S::Dim;
    static constexpr int kTensor = pair_terms::kPackedSize<Dim>;
    // sigma / rho^2, or with the pre-pass sigma L / rho^2 as a full Dim x Dim matrix.
    static constexpr int kStress = S::Prepass ? Dim * Dim : kTensor;
    static constexpr int x = 0;                   // position [m], Dim entries
    static constexpr int h = Dim;                 // support radius [m]
    static constexpr int v = Dim + 1;             // velocity [m/s], Dim entries
    static constexpr int rho = 2 * Dim + 1;       // density [kg/m^3]
    static constexpr int mass = rho + 1;          // [kg]
    static constexpr int volume = rho + 2;        // m / rho [m^3]
    static constexpr int sound_speed = rho + 3;   // the viscosity's c [m/s] (walls: unused)
    // The optional fields, -1 where the run lacks them. In runs with walls: partner kind
    // (ParticleKind: 0 dynamic, 1 boundary); with a unilateral wall (Unilateral): a boundary
    // partner's tension limit, the tensile normal stress an opening pair with it carries
    // (InterfaceLaw::tension_limit; +inf: bonded), and its normal limit, the tensile normal
    // stress any pair with it carries (InterfaceLaw::normal_limit; +inf: no cut) [Pa].
    static constexpr int kind = S::Walls ? sound_speed + 1 : -1;
    static constexpr int tension_limit = S::Unilateral ? sound_speed + 2 : -1;
    static constexpr int normal_limit = S::Unilateral ? sound_speed + 3 : -1;
    static constexpr int after_kind = sound_speed + 1 + (S::Walls ? 1 : 0) +
                                      (S::Unilateral ? 2 : 0);
    // Material index, for XSPH and the density diffusion (neighbours of the same material).
    static constexpr bool kMaterial = S::Xsph || S::Riemann;
    static constexpr int material = kMaterial ? after_kind : -1;
    static constexpr int after_material = after_kind + (kMaterial ? 1 : 0);
    // Wall law of a boundary partner in runs with loads: mu_w >= 0 of a free-slip (0) or
    // Coulomb wall, -1 for a no-slip wall and for dynamic particles.
    static constexpr int wall_mu = S::Loads ? after_material : -1;
    static constexpr int stress = after_material + (S::Loads ? 1 : 0);  // kStress entries
    static constexpr int art = S::ArtStress ? stress + kStress : -1;  // artificial stress R
    static constexpr int balsara =                                     // Balsara's f [-]
        S::Prepass ? stress + kStress + (S::ArtStress ? kTensor : 0) : -1;
    // The velocity gradient of the Riemann solver's reconstruction (row-major, Dim x Dim;
    // zero without it) [1/s].
    static constexpr bool kReconstruction = S::Prepass && S::Riemann;
    static constexpr int grad_v = kReconstruction ? balsara + 1 : -1;
    static constexpr int body = kReconstruction ? grad_v + Dim * Dim : -1;  // Body index
    // sigma / rho^2 packed as without the pre-pass (RiemannStressJump reads it): `stress`
    // itself, or with the pre-pass (which holds sigma L there) a copy after the body index.
    static constexpr int plain_stress = kReconstruction ? body + 1 : S::Prepass ? -1 : stress;
    // The stress gradient of the stress jump's reconstruction, d sigma_t / d x_j at
    // t * Dim + j, t a packed slot (zero without it) [Pa/m].
    static constexpr int grad_stress = kReconstruction ? plain_stress + kTensor : -1;
    static constexpr int size = stress + kStress + (S::ArtStress ? kTensor : 0) +
                                (S::Prepass ? 1 : 0) +
                                (kReconstruction ? Dim * Dim + 1 + kTensor + Dim * kTensor : 0);
    static constexpr int stride = (size + 7) / 8 * 8;
        static_assert(x + Dim <= 8 && h < 8 && rho < 8, "the first pass reads x, h and rho");
};

// Particle a as the terms see it: its record.
template <class S>
struct ParticleA {
    using R = Record<S>;
    const double* rec;  // a's record
    double at(int f) const { return rec[f]; }
};

// The distance and the one division of the pairs of a block (the first pass). r = |x_a - x_b|,
// with the padding (b = a, r = 0) and the lanes beyond the support set to r = 2 h_ab, where
// every kernel factor is 0 (so a lane's `inside` is read back from r, PairBlock). denom:
// r^2 + eps h_ab^2, the viscosity's regularised r^2 (eq. 36). one_div:
// 1 / (h_ab r denom (rho_a + rho_b)): the reciprocal that gives both the kernel's 1 / (h r) and
// the viscosity's 1 / (denom (rho_a + rho_b)), one division per pair where divisions bound the
// loop.
struct PairGeometry {
    alignas(64) double r[kBlock];
    alignas(64) double denom[kBlock];
    alignas(64) double one_div[kBlock];
};

template <int Dim, class R>
inline void pair_geometry(const double (&blk)[R::stride][kBlock], const double (&xa)[Dim],
                          double h_a, double rho_a, double av_epsilon, PairGeometry& geo) {
#pragma omp simd
    for (std::size_t k = 0; k < kBlock; ++k) {
        double r2 = 0.0;
        for (int d = 0; d < Dim; ++d) {
            const double dx = xa[d] - blk[R::x + d][k];
            r2 += dx * dx;
        }
        const double h_ab = 0.5 * (h_a + blk[R::h][k]);
        const bool inside = interacts(r2, h_ab);
        const double r = inside ? std::sqrt(r2) : 2.0 * h_ab;
        const double rho_sum = rho_a + blk[R::rho][k];
        const double denom = (inside ? r2 : r * r) + av_epsilon * h_ab * h_ab;
        geo.r[k] = r;
        geo.denom[k] = denom;
        geo.one_div[k] = 1.0 / (h_ab * r * denom * rho_sum);
    }
}

// One block of eight pairs (a, b_k) on Vec8 lanes: what every term may read, computed once
// (convention of pair_terms.hpp: dx = x_a - x_b, dv = v_a - v_b, grad = grad_a W_ab), and
// the values terms hand on to the terms after them.
template <class S, class Field>
struct PairBlock {
    static constexpr int Dim = S::Dim;
    using R = Record<S>;
    const Field& field;  // field(offset): the partners' record field, one lane each
    const std::uint32_t* partners;  // the block's eight record indices
    Mask8 inside;        // within the support (not beyond it, not the padding; NaN: inside)
    Vec8 dx[Dim], h_ab, r, rho_sum, m_b;
    Vec8 denom;          // r^2 + eps h_ab^2
    Vec8 inv;            // 1 / (denom rho_sum)
    kernel::PairFactors<Vec8> kf;
    Vec8 grad[Dim], dv[Dim], vr, dv_dot_grad;
    Mask8 wall;          // the partner is a boundary particle (false in runs without walls)
    // Some lane's partner is: most blocks have none, and the walls' terms leave those alone.
    bool any_wall;
    // With the Riemann solver: the partner's sound speed (a wall partner, which has none of
    // its own, takes c_a), 1 / ((rho_a c_a + rho_b c_b) (c_a + c_b)) and 1 / r, from the
    // first pass's one division (one_div) where it can serve.
    Vec8 c_b, inv_zc, inv_r;
    // Handed on: the relative velocity that enters the strain rate (WallProjection projects it
    // on a slip wall's normal) and the partner's wall law mu_wall, the viscosity Pi_ab, the
    // momentum term t per unit m_b, the artificial stress's weight f^n and term, and whether
    // WallSeparation found a closing wall pair in tension (its momentum carries no stress).
    Vec8 dv_strain[Dim], mu_wall, pi, t[Dim], fn, ta[Dim];
    // With the Riemann solver's pre-pass (Record::kReconstruction), handed on by
    // RiemannDissipation: v_ab - (G_a + G_b) x_ab / 2, the relative velocity that the
    // velocity gradients do not describe.
    Vec8 dv_residual[Dim];
    Mask8 stress_free;

    PairBlock(const Field& f, const std::uint32_t* block, const ParticleA<S>& a,
              const double (&xa)[Dim], const double (&va)[Dim], const PairGeometry& geo)
        : field(f), partners(block) {
        const Vec8 zero = kernel::splat<Vec8>(0.0);
        for (int d = 0; d < Dim; ++d) dx[d] = xa[d] - field(R::x + d);
        h_ab = 0.5 * (a.at(R::h) + field(R::h));
        r = traversal::load8(geo.r);
        inside = !(r >= 2.0 * h_ab);
        rho_sum = a.at(R::rho) + field(R::rho);
        denom = traversal::load8(geo.denom);
        const Vec8 one_div = traversal::load8(geo.one_div);
        inv = one_div * (h_ab * r);
        kf = kernel::pair_factors<Dim>(r, h_ab, Vec8(one_div * denom * rho_sum));
        vr = zero;
        dv_dot_grad = zero;
        for (int d = 0; d < Dim; ++d) {
            grad[d] = kf.gradient * dx[d];
            dv[d] = va[d] - field(R::v + d);
            vr += dv[d] * dx[d];
            dv_dot_grad += dv[d] * grad[d];
            dv_strain[d] = dv[d];
        }
        m_b = field(R::mass);
        if constexpr (S::Walls)
            wall = field(R::kind) == static_cast<double>(ParticleKind::boundary);
        else
            wall = zero != zero;
        any_wall = S::Walls && traversal::any_lane(wall);
        if constexpr (S::Riemann) {
            const double c_a = a.at(R::sound_speed);
            c_b = wall ? zero + c_a : field(R::sound_speed);
            // Where every partner has a's sound speed (one material, or its walls), Zc is
            // c_a^2 (rho_a + rho_b) 2 and 1 / (rho_a + rho_b) = inv denom: no division.
            if (traversal::any_lane(c_b != c_a))
                inv_zc = 1.0 / ((a.at(R::rho) * c_a + field(R::rho) * c_b) * (c_a + c_b));
            else
                inv_zc = inv * denom * (0.5 / (c_a * c_a));
            inv_r = one_div * (h_ab * denom * rho_sum);
        }
        mu_wall = zero - 1.0;
        pi = zero;
        fn = zero;
        stress_free = zero != zero;
        for (int d = 0; d < Dim; ++d) t[d] = ta[d] = zero;
    }
};

// The sums a dynamic particle gathers over its neighbours, summed over the lanes.
template <int Dim>
struct PairSums {
    double acc[Dim] = {};          // momentum, eq. 37 without gravity [m/s^2]
    double div_sum = 0.0;          // sum_b V_b (v_a - v_b) . grad_a W_ab  [1/s]
    double grad_v[Dim][Dim] = {};  // L_ij = sum_b (m_b / rho_a) (v_b - v_a)_i d_j W_ab  [1/s]
    double max_nu = 0.0;           // max |nu_ab| (Riemann: max jump) of approaching pairs [m/s]
    double xsph[Dim] = {};         // sum_b (m_b / rhobar_ab) (v_b - v_a) W_ab, same material [m/s]
    double density_diffusion = 0.0;  // delta-SPH's D_a (DensityDiffusion) [kg/(m^3 s)]
    // sum_b V_b F_ab (v_ab - (G_a + G_b) x_ab / 2) over a's own body (HourglassControl) [1/s^2],
    // and sum_b V_b F_ab over the same partners, the control's stiffness per unit xi mu / rho
    // [1/m^2] (negative: F_ab = (1 / r) dW / dr < 0)
    double hourglass[Dim] = {};
    double hourglass_stiffness = 0.0;
    // Energy budget (energy_budget.hpp), per unit m_a [W/kg], w = 1/2 for a dynamic partner
    // and 1 for a wall: the pair work sum_b w m_b v_ab . t_ab of the momentum term, its
    // viscous part sum_b w m_b Pi_ab v_ab . grad_a W_ab and the artificial stress's work
    // sum_b w m_b f^n v_ab . t^art_ab; and the power of a free-slip correction relative to
    // the wall, corr . (v_a - v_wall).
    double work = 0.0, viscous = 0.0, art_work = 0.0, slip_power = 0.0;
    // Next to a Coulomb wall (mu_w > 0): its body, and the normal and tangential parts of the
    // wall's force on a per unit mass [m/s^2], for the limit over the whole contact.
    std::int32_t coulomb_body = -1;
    double wall_fn = 0.0;
    double wall_ft[Dim] = {};
    double wall_v[Dim] = {};  // velocity of the first slip wall particle met [m/s]
};

// ---- The terms ----------------------------------------------------------------------------

// Continuity (eq. 31): sum_b V_b (v_a - v_b) . grad_a W_ab; finish_particle multiplies by rho_a.
template <class S>
struct Continuity {
    static constexpr int kRows = 1;
    Vec8 div;
    void begin(const ParticleA<S>&) { div = kernel::splat<Vec8>(0.0); }
    template <class P>
    void add(P& pair) {
        div += pair_terms::continuity(pair.field(Record<S>::volume), pair.dv_dot_grad);
    }
    void rows(const Vec8** r) const { r[0] = &div; }
    void take(const double* s, PairSums<S::Dim>& out) const { out.div_sum = s[0]; }
};

// Velocity gradient for the strain and rotation rates (eqs. 38 and 23), from the relative
// velocity as it enters the strain rate (pair.dv_strain).
template <class S>
struct VelocityGradient {
    static constexpr int Dim = S::Dim;
    static constexpr int kRows = Dim * Dim;
    Vec8 grad_v[Dim][Dim];
    double inv_rho_a = 0.0;
    void begin(const ParticleA<S>& a) {
        inv_rho_a = 1.0 / a.at(Record<S>::rho);
        for (auto& row : grad_v)
            for (auto& g : row) g = kernel::splat<Vec8>(0.0);
    }
    template <class P>
    void add(P& pair) {
        Vec8 L[Dim][Dim];
        pair_terms::velocity_gradient<Dim>(Vec8(-pair.m_b * inv_rho_a), pair.dv_strain,
                                           pair.grad, L);
        for (int i = 0; i < Dim; ++i)
            for (int j = 0; j < Dim; ++j) grad_v[i][j] += L[i][j];
    }
    void rows(const Vec8** r) const {
        for (int i = 0; i < Dim; ++i)
            for (int j = 0; j < Dim; ++j) r[i * Dim + j] = &grad_v[i][j];
    }
    void take(const double* s, PairSums<Dim>& out) const {
        for (int i = 0; i < Dim; ++i)
            for (int j = 0; j < Dim; ++j) out.grad_v[i][j] = s[i * Dim + j];
    }
};

// Monaghan's artificial viscosity (eqs. 35-36) for approaching pairs: Pi_ab, handed to the
// momentum term, and the largest |nu_ab| for the Courant limit. A boundary partner has no sound
// speed of its own (its model is rigid): the pair uses c_a. With Balsara's switch Pi_ab is
// scaled by (f_a + f_b) / 2, a wall partner taking f_a.
template <class S>
struct ArtificialViscosity {
    double alpha, beta;  // eq. 35
    double c_a = 0.0, f_a = 1.0;
    Vec8 max_nu;
    ArtificialViscosity(double alpha_, double beta_) : alpha(alpha_), beta(beta_) {}
    void begin(const ParticleA<S>& a) {
        c_a = a.at(Record<S>::sound_speed);
        if constexpr (S::Prepass) f_a = a.at(Record<S>::balsara);
        max_nu = kernel::splat<Vec8>(0.0);
    }
    template <class P>
    void add(P& pair) {
        using R = Record<S>;
        const Vec8 zero = kernel::splat<Vec8>(0.0);
        const Vec8 c_field = pair.field(R::sound_speed);
        const Vec8 c_b = pair.wall ? zero + c_a : c_field;
        const Vec8 nu = pair_terms::viscosity_nu(pair.h_ab, pair.vr, pair.rho_sum, pair.inv);
        const Vec8 pi_approaching =
            pair_terms::viscosity_pi(alpha, beta, c_a, c_b, nu, pair.denom, pair.inv);
        const Mask8 approaching = pair.inside && pair.vr < 0.0;
        Vec8 pi_ab = approaching ? pi_approaching : zero;
        if constexpr (S::Prepass)
            pi_ab *= 0.5 * (f_a + (pair.wall ? zero + f_a : pair.field(R::balsara)));
        pair.pi = pi_ab;
        const Vec8 larger = max_nu < -nu ? -nu : max_nu;  // std::max(max_nu, -nu)
        max_nu = approaching ? larger : max_nu;
    }
    void take(const double*, PairSums<S::Dim>& out) const {
        alignas(64) double lanes[kBlock];
        traversal::store8(lanes, max_nu);
        for (std::size_t k = 0; k < kBlock; ++k) out.max_nu = std::max(out.max_nu, lanes[k]);
    }
};

// The Riemann solver's dissipation (Zhang, Hu & Adams 2017; pair_terms::riemann_pi) for the
// pairs its limiter damps: Pi_ab, handed to the momentum term like Monaghan's, and the largest
// velocity jump for the Courant limit. The jump is U_L - U_R = -v_ab . x_ab / r of approaching
// pairs (the paper's), or with `separating` (PhysicsParameters::riemann_pairs) v_ab . x_ab / r
// of separating pairs, with Pi_ab < 0 (SPHinXsys's sign). With `reconstruct`
// (PhysicsParameters::riemann_reconstruction) the jump is that of the linearly reconstructed
// velocities at the pair's midpoint, v_ab - (G_a + G_b) x_ab / 2 in place of v_ab (G from the
// gradient pre-pass), and a pair is damped only where it closes (or opens) itself too, so that
// either way Pi_ab v_ab . grad_a W_ab >= 0. With the pre-pass it hands that residual on. The
// limiter's floor (PhysicsParameters::riemann_limiter_floor, with `reconstruct` only) damps
// that particle-scale residual linearly.
// A boundary partner has no sound speed of its own: the pair uses c_a, with the wall's
// extrapolated density.
template <class S>
struct RiemannDissipation {
    using R = Record<S>;
    double eta;        // the limiter's coefficient
    double floor;      // the limiter's floor beta_0
    double sign;       // +1: approaching pairs are damped, -1: separating ones
    bool reconstruct;  // PhysicsParameters::riemann_reconstruction
    double c_a = 0.0;
    double grad_a[R::kReconstruction ? S::Dim * S::Dim : 1] = {};
    Vec8 max_jump;
    RiemannDissipation(double eta_, double floor_, bool separating, bool reconstruct_)
        : eta(eta_), floor(floor_), sign(separating ? -1.0 : 1.0), reconstruct(reconstruct_) {}
    void begin(const ParticleA<S>& a) {
        c_a = a.at(R::sound_speed);
        if constexpr (R::kReconstruction)
            for (int k = 0; k < S::Dim * S::Dim; ++k) grad_a[k] = a.at(R::grad_v + k);
        max_jump = kernel::splat<Vec8>(0.0);
    }
    // (v_ab - (G_a + G_b) x_ab / 2) . x_ab, the reconstructed jump's numerator; hands on
    // the residual v_ab - (G_a + G_b) x_ab / 2.
    template <class P>
    Vec8 reconstructed_vr(P& pair) const {
        constexpr int Dim = S::Dim;
        Vec8 vr = kernel::splat<Vec8>(0.0);
        for (int i = 0; i < Dim; ++i) {
            Vec8 dv = pair.dv[i];
            for (int j = 0; j < Dim; ++j)
                dv -= 0.5 * (grad_a[i * Dim + j] + pair.field(R::grad_v + i * Dim + j)) *
                      pair.dx[j];
            pair.dv_residual[i] = dv;
            vr += dv * pair.dx[i];
        }
        return vr;
    }
    template <class P>
    void add(P& pair) {
        const Vec8 zero = kernel::splat<Vec8>(0.0);
        Vec8 closing = sign * pair.vr;  // < 0 for the damped pairs
        Mask8 damped = pair.inside && closing < 0.0;
        if constexpr (R::kReconstruction) {
            const Vec8 closing_reconstructed = sign * reconstructed_vr(pair);
            if (reconstruct) {
                closing = closing_reconstructed;
                damped = damped && closing < 0.0;
            }
        }
        // The jump, regularised as nu (eq. 36): -closing r / (r^2 + eps h^2) = -nu / h_ab.
        const Vec8 jump = -closing * pair.r * pair.rho_sum * pair.inv;
        const Vec8 pi_damped =
            pair_terms::riemann_pi(eta, floor, c_a, pair.c_b, jump, pair.inv_zc);
        pair.pi = damped ? sign * pi_damped : zero;
        const Vec8 larger = max_jump < jump ? jump : max_jump;  // std::max(max_jump, jump)
        max_jump = damped ? larger : max_jump;
    }
    void take(const double*, PairSums<S::Dim>& out) const {
        alignas(64) double lanes[kBlock];
        traversal::store8(lanes, max_jump);
        for (std::size_t k = 0; k < kBlock; ++k) out.max_nu = std::max(out.max_nu, lanes[k]);
    }
};

// The normal-stress jump of the acoustic Riemann solver (Zhang, Hu & Adams 2017, eq. 19: the
// interface velocity U* = (U_L + U_R) / 2 + (P_L - P_R) / (2 rhobar cbar); SPHinXsys's
// DissipativeUJump) for a stress-carrying material: along e = x_ab / r the pair's Riemann problem
// is that of the normal stress, P = -e . sigma . e, so the relative velocity gains (P_a - P_b) /
// Zbar e, Zbar = (rho_a c_a + rho_b c_b) / 2. A particle pressed harder than its neighbour expands
// against it: particle-scale stress noise relaxes at the acoustic rate, while a smooth stress field
// (jumps of order h grad sigma) is left almost alone. Not limited (the velocity-jump part is). It
// enters a's density rate and, with `strain_rate` (PhysicsParameters::StressJump), a's strain rate;
// its work on the stress there, sum_b m_b dU (dW/dr) e . (sigma_a / rho_a^2) . e per unit m_a (with
// the kernel correction sigma_a L_a, as in a's corrected strain rate), is a loss (sum over the
// pairs of -(P_a - P_b)^2 dW/dr / (Zbar rho^2) >= 0), handed to the budget with the scheme's
// (PairSums::viscous). In the density rate only it does no work: the soil's stress is integrated
// from its strain rate, the density sets its particles' volumes. A wall partner enters with its
// extrapolated density and stress and a's sound speed (it has none of its own): a particle pressed
// harder than the wall extrapolates from its neighbours relaxes towards them, as against a soil
// partner; without it a wall row's jump is balanced on one side only. Not across a wall pair that
// WallSeparation frees or leaves stress-free. Only for a particle a whose material can yield
// (`on`): in an elastic solid the jump damps the waves like a viscosity of order rho c h
// (docs/guide/physics.md); the solids' remedy is the hourglass control. Reads sigma / rho^2
// (Record::plain_stress), with or without the gradient pre-pass. With the linear reconstruction
// (`reconstruct`, PhysicsParameters::riemann_reconstruction) the jump is that of the stresses
// reconstructed at the pair's midpoint from each side's stress gradient (Record::grad_stress),
// limited by the plain jump (minmod): a linear stress field has no jump, at a free surface either,
// where the plain jump of the geostatic gradient is one-sided (tests/cpp/test_equations.cpp).
template <class S>
struct RiemannStressJump {
    static constexpr int Dim = S::Dim;
    static constexpr int kRows = 2;
    using R = Record<S>;
    static constexpr int kGrad = R::kReconstruction ? Dim * R::kTensor : 1;
    bool on;
    bool strain_rate;  // the jump enters a's velocity gradient too
    bool reconstruct;  // PhysicsParameters::riemann_reconstruction
    double sa[R::kTensor];
    double sm[R::kStress];  // a's stress as the momentum term reads it (with the pre-pass)
    double grad_a[kGrad] = {};  // a's stress gradient, with the reconstruction
    double rho_a = 0.0, c_a = 0.0;
    Vec8 div, loss;
    RiemannStressJump(bool on_, bool strain_rate_, bool reconstruct_)
        : on(on_), strain_rate(strain_rate_), reconstruct(reconstruct_) {}
    void begin(const ParticleA<S>& a) {
        for (int t = 0; t < R::kTensor; ++t) sa[t] = a.at(R::plain_stress + t);
        for (int t = 0; t < R::kStress; ++t) sm[t] = a.at(R::stress + t);
        if constexpr (R::kReconstruction)
            for (int k = 0; k < kGrad; ++k) grad_a[k] = a.at(R::grad_stress + k);
        rho_a = a.at(R::rho);
        c_a = a.at(R::sound_speed);
        div = loss = kernel::splat<Vec8>(0.0);
    }
    // P_a - P_b of the stresses reconstructed at the pair's midpoint, sigma_a - (x_ab . grad)
    // sigma_a / 2 and sigma_b + (x_ab . grad) sigma_b / 2 (a wall partner, which has no
    // gradient of its own, with a's), in place of sigma_a and sigma_b, from `plain`, the jump
    // of sigma_a and sigma_b.
    template <class P>
    Vec8 reconstructed_jump(P& pair, const Vec8 (&e)[Dim], Vec8 plain) const {
        Vec8 eet[R::kTensor];  // the weight of each packed slot in e . sigma . e
        for (int t = 0; t < R::kTensor; ++t) eet[t] = kernel::splat<Vec8>(0.0);
        for (int i = 0; i < Dim; ++i)
            for (int j = 0; j < Dim; ++j) eet[pair_terms::packed_slot<Dim>[i][j]] += e[i] * e[j];
        Vec8 jump = plain;
        for (int t = 0; t < R::kTensor; ++t) {
            Vec8 dsigma = kernel::splat<Vec8>(0.0);  // (x_ab . grad) (sigma_a + sigma_b) / 2
            for (int j = 0; j < Dim; ++j) {
                const double ga = grad_a[t * Dim + j];
                const Vec8 gb = pair.field(R::grad_stress + t * Dim + j);
                dsigma += 0.5 * (ga + (pair.wall ? kernel::splat<Vec8>(ga) : gb)) * pair.dx[j];
            }
            jump += eet[t] * dsigma;  // P = -e . sigma . e
        }
        return jump;
    }
    template <class P>
    void add(P& pair) {
        if (!on) return;
        const Vec8 zero = kernel::splat<Vec8>(0.0);
        Vec8 e[Dim];
        for (int d = 0; d < Dim; ++d) e[d] = pair.dx[d] * pair.inv_r;
        Vec8 snn_a = zero, snn_b = zero;  // e . (sigma / rho^2) . e
        for (int i = 0; i < Dim; ++i)
            for (int j = 0; j < Dim; ++j) {
                const int slot = pair_terms::packed_slot<Dim>[i][j];
                const Vec8 ee = e[i] * e[j];
                snn_a += ee * sa[slot];
                snn_b += ee * pair.field(R::plain_stress + slot);
            }
        const Vec8 rho_b = pair.field(R::rho);
        // P_a - P_b, P = -e . sigma . e.
        Vec8 jump = snn_b * rho_b * rho_b - snn_a * (rho_a * rho_a);
        if constexpr (R::kReconstruction) {
            if (reconstruct) {
                // The smaller of the plain and the reconstructed jump where they agree in sign,
                // else none (minmod): a linear field has none, noise keeps its own, and the
                // loss stays >= 0.
                const Vec8 rec = reconstructed_jump(pair, e, jump);
                const Vec8 smaller = jump * jump < rec * rec ? jump : rec;
                jump = jump * rec > 0.0 ? smaller : zero;
            }
        }
        // 1 / Zbar = 2 / (rho_a c_a + rho_b c_b).
        const Vec8 inv_zbar = 2.0 * (c_a + pair.c_b) * pair.inv_zc;
        // (P_a - P_b) / Zbar
        const Vec8 du = pair.inside && !pair.stress_free ? jump * inv_zbar : zero;
        // e . grad_a W: zero for a wall pair out of contact (WallSeparation clears its grad).
        Vec8 dw_dr = zero;
        for (int d = 0; d < Dim; ++d) dw_dr += e[d] * pair.grad[d];
        div += pair.field(R::volume) * du * dw_dr;
        if (!strain_rate) return;
        // The loss is the jump's share of a's stress power, so with the stress as the momentum
        // term has it: e . (sigma_a L_a / rho_a^2) . grad_a W under the kernel correction
        // (the strain rate is then corrected too), snn_a dW/dr otherwise.
        Vec8 e_s_grad = snn_a * dw_dr;  // grad_a W = e dW/dr
        if constexpr (S::Prepass) {
            e_s_grad = zero;
            for (int i = 0; i < Dim; ++i)
                for (int j = 0; j < Dim; ++j) e_s_grad += e[i] * sm[i * Dim + j] * pair.grad[j];
        }
        for (int d = 0; d < Dim; ++d) pair.dv_strain[d] += du * e[d];
        loss += pair.m_b * du * e_s_grad;
    }
    void rows(const Vec8** r) const {
        r[0] = &div;
        r[1] = &loss;
    }
    void take(const double* s, PairSums<S::Dim>& out) const {
        out.div_sum += s[0];
        out.viscous += s[1];
    }
};

// delta-SPH density diffusion (Molteni & Colagrossi 2009, Comput. Phys. Commun. 180, 861,
// eq. 9): D_a = 2 delta h cbar sum_b V_b (rho_a - rho_b) x_ab . grad_a W_ab / r^2, with the
// smoothing length h = h_ab / 2 of the cubic spline whose support is h_ab, cbar_ab the pair's
// mean sound speed and r^2 regularised as in eq. 36 (denom). Antisymmetric in a and b, so that
// sum_a V_a D_a = 0; zero for a uniform density. Between dynamic particles of one material
// that can yield (`on`): a wall's extrapolated density is no neighbour's, a density jump
// between materials is real, and in an elastic solid, whose stress is integrated, the
// diffused density is a volume change the stress never sees (the discs of
// validation/disc_contact lose 18 % of their energy by 5 ms with delta = 0.1, 0.4 % without
// it). Its rate is added to the density rate
// (finish_particle); it does no work on the velocities.
template <class S>
struct DensityDiffusion {
    static constexpr int kRows = 1;
    double delta;  // 0 where a's material cannot yield
    double c_a = 0.0, rho_a = 0.0, material_a = 0.0;
    Vec8 sum;
    explicit DensityDiffusion(double delta_) : delta(delta_) {}
    void begin(const ParticleA<S>& a) {
        sum = kernel::splat<Vec8>(0.0);
        rho_a = a.at(Record<S>::rho);
        c_a = a.at(Record<S>::sound_speed);
        material_a = a.at(Record<S>::material);
    }
    template <class P>
    void add(P& pair) {
        using R = Record<S>;
        if (delta == 0.0) return;
        const Vec8 zero = kernel::splat<Vec8>(0.0);
        Vec8 x_dot_grad = zero;
        for (int d = 0; d < S::Dim; ++d) x_dot_grad += pair.dx[d] * pair.grad[d];
        // 2 delta (h_ab / 2) (c_a + c_b) / 2 = delta h_ab (c_a + c_b) / 2.
        const Vec8 coefficient = 0.5 * delta * pair.h_ab * (c_a + pair.field(R::sound_speed));
        // 1 / denom = rho_sum / (denom rho_sum).
        const Vec8 term = coefficient * pair.field(R::volume) * (rho_a - pair.field(R::rho)) *
                          x_dot_grad * (pair.rho_sum * pair.inv);
        const Mask8 same_material = !pair.wall && pair.field(R::material) == material_a;
        sum += same_material ? term : zero;
    }
    void rows(const Vec8** r) const { r[0] = &sum; }
    void take(const double* s, PairSums<S::Dim>& out) const { out.density_diffusion = s[0]; }
};

// The hourglass control's sums (PhysicsParameters::hourglass_control):
// sum_b V_b F_ab (v_ab - (G_a + G_b) x_ab / 2) over the dynamic partners of a's own body, with
// the residual handed on by RiemannDissipation, and sum_b V_b F_ab over the same partners;
// finish_particle turns the first into the rate of a's hourglass acceleration and the second
// into the control's step limit. Off: adds nothing.
template <class S>
struct HourglassControl {
    using R = Record<S>;
    static constexpr int Dim = S::Dim;
    static constexpr int kRows = Dim + 1;
    bool on;
    double body_a = 0.0;
    Vec8 sum[Dim + 1];
    explicit HourglassControl(bool on_) : on(on_) {}
    void begin(const ParticleA<S>& a) {
        body_a = a.at(R::body);
        for (auto& c : sum) c = kernel::splat<Vec8>(0.0);
    }
    template <class P>
    void add(P& pair) {
        if (!on) return;
        const Vec8 zero = kernel::splat<Vec8>(0.0);
        const Mask8 same_body = pair.inside && !pair.wall && pair.field(R::body) == body_a;
        const Vec8 weight = same_body ? pair.field(R::volume) * pair.kf.gradient : zero;
        for (int d = 0; d < Dim; ++d) sum[d] += weight * pair.dv_residual[d];
        sum[Dim] += weight;
    }
    void rows(const Vec8** r) const {
        for (int d = 0; d <= Dim; ++d) r[d] = &sum[d];
    }
    void take(const double* s, PairSums<Dim>& out) const {
        for (int d = 0; d < Dim; ++d) out.hourglass[d] = s[d];
        out.hourglass_stiffness = s[Dim];
    }
};

// Momentum (eq. 37): m_b [sigma_a / rho_a^2 + sigma_b / rho_b^2 - Pi_ab I] . grad_a W_ab, or
// with the kernel correction the variational form with sigma L / rho^2 (gradient_correction.hpp),
// plus the artificial stress's m_b f^n t^art where the run has it. A closing wall pair in
// tension (WallSeparation's stress_free) keeps only the dissipation, -Pi_ab grad_a W_ab. Hands
// on t (per unit m_b) to the loads and the energy budget.
template <class S>
struct Momentum {
    static constexpr int Dim = S::Dim;
    static constexpr int kRows = Dim;
    double sa[Record<S>::kStress];
    Vec8 acc[Dim];
    void begin(const ParticleA<S>& a) {
        for (int t = 0; t < Record<S>::kStress; ++t) sa[t] = a.at(Record<S>::stress + t);
        for (auto& c : acc) c = kernel::splat<Vec8>(0.0);
    }
    template <class P>
    void add(P& pair) {
        pair_terms::momentum<Dim, S::Prepass>(
            sa, [&](int slot) { return pair.field(Record<S>::stress + slot); }, pair.pi,
            pair.grad, pair.t);
        if constexpr (S::Unilateral)
            for (int i = 0; i < Dim; ++i)
                pair.t[i] = pair.stress_free ? -pair.pi * pair.grad[i] : pair.t[i];
        for (int i = 0; i < Dim; ++i) acc[i] += pair.m_b * pair.t[i];
        // The artificial stress handed on (ArtificialStress runs before this term), added
        // after the momentum in the same lanes.
        if constexpr (S::ArtStress) {
            const Vec8 weight = pair.m_b * pair.fn;
            for (int i = 0; i < Dim; ++i) acc[i] += weight * pair.ta[i];
        }
    }
    void rows(const Vec8** r) const {
        for (int i = 0; i < Dim; ++i) r[i] = &acc[i];
    }
    void take(const double* s, PairSums<Dim>& out) const {
        for (int i = 0; i < Dim; ++i) out.acc[i] = s[i];
    }
};

// Monaghan's (2000) artificial stress, m_b f_ab^n (R_a + R_b) . grad_a W_ab (Gray, Monaghan &
// Swift 2001 eq. 4.3): hands on f^n and t^art, which Momentum adds to the acceleration.
// f_ab^n: with a common whole exponent n the records hold R G^n (staging, write_record) and the
// pair multiplies shape(q)^n out; otherwise `fn_extra` holds f_ab^n of each lane, computed per
// pair before the block (ArtificialStressWeights). R is zero under compression, so only tension
// is corrected.
template <class S>
struct ArtificialStress {
    static constexpr int Dim = S::Dim;
    bool bit1, bit2, bit4, bit8;
    double whole_weight;  // 1 with a common whole exponent, else 0
    double ra[Record<S>::kTensor];
    const double* fn_extra;  // f_ab^n per lane without a common whole exponent (else zeros)
    ArtificialStress(int power, const double* extra)
        : bit1(power & 1), bit2(power & 2), bit4(power & 4), bit8(power & 8),
          whole_weight(power > 0 ? 1.0 : 0.0), ra{}, fn_extra(extra) {}
    void begin(const ParticleA<S>& a) {
        for (int t = 0; t < Record<S>::kTensor; ++t) ra[t] = a.at(Record<S>::art + t);
    }
    template <class P>
    void add(P& pair) {
        // A blend rather than a select of the two ways: GCC 12 does not vectorise the loop with
        // that select on top of the bit selects.
        pair.fn = pair_terms::whole_power(kernel::shape(pair.kf.q), bit1, bit2, bit4, bit8) *
                      whole_weight +
                  traversal::load8(fn_extra);
        pair_terms::artificial_stress<Dim>(
            ra, [&](int slot) { return pair.field(Record<S>::art + slot); }, pair.grad, pair.ta);
    }
};

// The energy budget's pair work (energy_budget.hpp): the momentum term's work on the pair's
// relative motion (runs with walls; without them the dynamic pairs' work cancels in the sum),
// its viscous part, and the artificial stress's work. A wall partner's share is whole, a dynamic
// one's half.
template <class S>
struct PairWork {
    static constexpr int Dim = S::Dim;
    static constexpr int kRows = 3;
    Vec8 work, visc, art_work;
    void begin(const ParticleA<S>&) { work = visc = art_work = kernel::splat<Vec8>(0.0); }
    template <class P>
    void add(P& pair) {
        const Vec8 share = S::Walls && pair.wall ? pair.m_b : 0.5 * pair.m_b;
        if constexpr (S::Walls) work += share * pair_terms::pair_work<Dim>(pair.dv, pair.t);
        visc += share * pair.pi * pair.dv_dot_grad;
        if constexpr (S::ArtStress)
            art_work += share * pair.fn * pair_terms::pair_work<Dim>(pair.dv, pair.ta);
    }
    void rows(const Vec8** r) const {
        r[0] = &work;
        r[1] = &visc;
        r[2] = &art_work;
    }
    void take(const double* s, PairSums<Dim>& out) const {
        out.work = s[0];
        out.viscous += s[1];  // RiemannStressJump's loss may be there
        out.art_work = s[2];
    }
};

// XSPH (Monaghan 1989): sum_b (m_b / rhobar_ab) (v_b - v_a) W_ab over the neighbours of the
// same material; finish_particle multiplies by the material's epsilon.
template <class S>
struct Xsph {
    static constexpr int Dim = S::Dim;
    static constexpr int kRows = Dim;
    double material_a = 0.0;
    Vec8 xsph[Dim];
    void begin(const ParticleA<S>& a) {
        material_a = a.at(Record<S>::material);
        for (auto& c : xsph) c = kernel::splat<Vec8>(0.0);
    }
    template <class P>
    void add(P& pair) {
        const Vec8 zero = kernel::splat<Vec8>(0.0), one = kernel::splat<Vec8>(1.0);
        Vec8 w_ab = kernel::normalisation<Dim>(1.0) * kernel::shape(pair.kf.q);  // W(r, h)
        for (int d = 0; d < Dim; ++d) w_ab *= pair.kf.inv_h;
        const Mask8 same_material = pair.field(Record<S>::material) == material_a;
        const Vec8 same = same_material && !pair.wall ? one : zero;
        const Vec8 w = pair_terms::xsph_weight(same, pair.m_b, w_ab, pair.inv, pair.denom);
        for (int d = 0; d < Dim; ++d) xsph[d] -= w * pair.dv[d];  // dv = v_a - v_b
    }
    void rows(const Vec8** r) const {
        for (int i = 0; i < Dim; ++i) r[i] = &xsph[i];
    }
    void take(const double* s, PairSums<Dim>& out) const {
        for (int i = 0; i < Dim; ++i) out.xsph[i] = s[i];
    }
};

// ---- Composition --------------------------------------------------------------------------

// The lane sums of a term: its kRows, 0 for a term without sums of its own.
template <class T>
constexpr int rows_of() {
    if constexpr (requires { T::kRows; })
        return T::kRows;
    else
        return 0;
}

// The terms of a Composition, each built in place by its maker (TermMaker): a term is returned
// as a prvalue straight into its member, never copied. Copies of the accumulators (several
// hundred bytes per particle) cost a few per cent of the pair loop.
template <class... Terms>
struct TermList {
    template <class F>
    void each(F&&) {}
};
template <class Head, class... Rest>
struct TermList<Head, Rest...> {
    Head head;
    TermList<Rest...> rest;
    template <class Make, class... Makes>
        requires(std::remove_cvref_t<Make>::kArguments > 0)
    explicit TermList(Make&& make, Makes&&... makes)
        : head(make()), rest(std::forward<Makes>(makes)...) {}
    // A term without arguments is default-initialised, not zeroed: its begin() sets its sums.
    template <class Make, class... Makes>
        requires(std::remove_cvref_t<Make>::kArguments == 0)
    explicit TermList(Make&&, Makes&&... makes) : rest(std::forward<Makes>(makes)...) {}
    template <class F>
    [[gnu::always_inline]] void each(F&& f) {
        f(head);
        rest.each(f);
    }
    template <class T>
    T& get() {
        if constexpr (std::is_same_v<T, Head>)
            return head;
        else
            return rest.template get<T>();
    }
};

// A run's terms, in the order they run within a block. The lane sums of all of them are added
// in one call (lane_sums), each row on its own: the order of the rows changes no result.
// rows() and take() are optional: a term that only hands values on has neither.
template <class... Terms>
struct Composition {
    // The terms themselves, not references: accumulators that nothing else points at stay in
    // registers across the blocks.
    TermList<Terms...> terms;
    static constexpr int kRows = (rows_of<Terms>() + ... + 0);

    template <class... Makes>
    explicit Composition(Makes&&... makes) : terms(std::forward<Makes>(makes)...) {}

    template <class T>
    T& get() {
        return terms.template get<T>();
    }

    void begin(const auto& a) {
        terms.each([&](auto& t) { t.begin(a); });
    }
    template <class P>
    void add(P& pair) {
        terms.each([&](auto& t) { t.add(pair); });
    }
    // Inlined into the pair loop: out of line (GCC's choice once the Riemann solver's rows are
    // there) it is a call through the PLT per particle.
    template <int Dim>
    [[gnu::always_inline]] void take(PairSums<Dim>& out) {
        alignas(64) double lanes[kRows > 0 ? kRows : 1][kBlock];
        const double* ptr[kRows > 0 ? kRows : 1];
        double sums[kRows > 0 ? kRows : 1];
        int at = 0;
        terms.each([&](auto& t) {
            using T = std::remove_cvref_t<decltype(t)>;
            if constexpr (rows_of<T>() > 0) {
                const Vec8* rows[rows_of<T>()];
                t.rows(rows);
                for (int j = 0; j < rows_of<T>(); ++j, ++at) {
                    traversal::store8(lanes[at], *rows[j]);
                    ptr[at] = lanes[at];
                }
            }
        });
        if constexpr (kRows > 0) lane_sums(ptr, sums);
        at = 0;
        terms.each([&](auto& t) {
            using T = std::remove_cvref_t<decltype(t)>;
            if constexpr (requires { t.take(sums, out); }) t.take(sums + at, out);
            at += rows_of<T>();
        });
    }
};

// The maker of a term T from its constructor's arguments (an lvalue by reference, a
// temporary by value): Composition builds T in place from it.
template <class T, class... Args>
struct TermMaker {
    using Term = T;
    static constexpr std::size_t kArguments = sizeof...(Args);
    std::tuple<Args...> args;
    T operator()() {
        return std::apply([](auto&... a) { return T(a...); }, args);
    }
};
template <class T, class... Args>
TermMaker<T, Args...> term(Args&&... args) {
    return {std::tuple<Args...>(std::forward<Args>(args)...)};
}
// term<T>(args...) where On holds, no term otherwise.
template <bool On, class T, class... Args>
auto term_if(Args&&... args) {
    if constexpr (On)
        return std::make_tuple(term<T>(std::forward<Args>(args)...));
    else
        return std::tuple<>();
}

template <class T, class... Args>
std::tuple<TermMaker<T, Args...>> as_makers(TermMaker<T, Args...> m) {
    return {m};
}
template <class... Makers>
std::tuple<Makers...> as_makers(std::tuple<Makers...> m) {
    return m;
}

// compose(term<A>(...), term_if<Flag, B>(...), ...): the terms in that order, B only where
// Flag holds, each built in place; get<T>() reaches a term afterwards.
template <class... Pieces>
auto compose(Pieces... pieces) {
    return std::apply(
        [](auto&&... m) {
            return Composition<typename std::remove_cvref_t<decltype(m)>::Term...>(m...);
        },
        std::tuple_cat(as_makers(pieces)...));
}

}  // namespace regosph::rhs
