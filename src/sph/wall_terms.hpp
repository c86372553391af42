// The pair terms of the walls' laws and of the loads on bodies, in runs that collect loads
// (rhs::Shape::Loads): the reaction of each pair force on the body of its boundary partner
// (body_loads.hpp), and the free-slip and Coulomb walls of pair_terms.hpp (the wall normal, the
// wall's relative velocity in the strain rate along the normal only, and the limit of the
// tangential wall force). Composed into the right-hand side's pair loop by equations.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/particles.hpp"
#include "sph/body_loads.hpp"
#include "sph/equations.hpp"
#include "sph/rhs_terms.hpp"

namespace regosph::rhs {

// Where the loads of one dynamic particle on bodies go, and the bodies' wall laws.
struct LoadSink {
    const std::int32_t* body_of;   // per particle (record index): body collected, -1 = none
    const std::array<double, 3>* reference;  // per body: torque reference point [m]
    std::int64_t id_a;             // of the dynamic particle
    std::vector<LoadShare>* shares;
    const double* wall_friction;   // per body: mu_w >= 0 of a slip wall, < 0 no-slip
    std::size_t n_friction;        // entries of wall_friction
    const std::int32_t* body_of_wall;  // per particle: its body (p.body)
    bool any_slip;                 // some body has free-slip or Coulomb walls
};

// Adds a force F [N] acting at r [m] from the body's reference point to a load share: F to its
// force, r x F to its torque.
inline void add_to_share(LoadShare& share, const double (&f)[3], const double (&r)[3]) {
    for (int d = 0; d < 3; ++d) share.force[d] += f[d];
    share.torque[0] += r[1] * f[2] - r[2] * f[1];
    share.torque[1] += r[2] * f[0] - r[0] * f[2];
    share.torque[2] += r[0] * f[1] - r[1] * f[0];
}

// The wall normal at dynamic particle a from its free-slip / Coulomb wall partners (see
// pair_terms.hpp): n = -sum_b V_b grad_a W_ab normalised; false when it has none. first_wall:
// the first such partner met.
template <int Dim, class R>
bool wall_normal(const double* rec, const double* rec_a, std::span<const std::uint32_t> partners,
                 double (&n)[Dim], std::uint32_t& first_wall) {
    bool any = false;
    for (int d = 0; d < Dim; ++d) n[d] = 0.0;
    for (const std::uint32_t b : partners) {
        const double* rec_b = rec + static_cast<std::size_t>(b) * R::stride;
        if (!(rec_b[R::wall_mu] >= 0.0)) continue;  // not a slip wall
        double dx[Dim], r2 = 0.0;
        for (int d = 0; d < Dim; ++d) {
            dx[d] = rec_a[R::x + d] - rec_b[R::x + d];
            r2 += dx[d] * dx[d];
        }
        const double h_ab = 0.5 * (rec_a[R::h] + rec_b[R::h]);
        if (!interacts(r2, h_ab)) continue;  // in the pair list's margin
        if (!any) first_wall = b;
        const double g = rec_b[R::volume] * kernel::gradient_factor<Dim>(std::sqrt(r2), h_ab);
        for (int d = 0; d < Dim; ++d) n[d] += g * dx[d];
        any = true;
    }
    double norm2 = 0.0;
    for (int d = 0; d < Dim; ++d) norm2 += n[d] * n[d];
    if (!(norm2 > 0.0)) return false;
    // grad_a W_ab = W'(r) / r dx with W' < 0 points from a to b: the outward normal is minus it.
    const double inv = -1.0 / std::sqrt(norm2);
    for (int d = 0; d < Dim; ++d) n[d] *= inv;
    return any;
}

// What the loads take of one block's pairs, lane by lane: the partner's mass m_b, the momentum
// term t and the artificial stress's weight m_b f^n and term t^art (zero without it), and the
// partner's wall law mu (>= 0 on a slip wall within the support).
template <int Dim>
struct BlockForces {
    alignas(64) double mass[kBlock], weight[kBlock], mu[kBlock];
    alignas(64) double momentum[Dim][kBlock], art[Dim][kBlock];
};

// The slip walls' force on a dynamic particle, summed lane by lane over its blocks
// (block_loads): per unit mass [m/s^2], and mu_w times its normal part.
template <int Dim>
struct WallSums {
    double force[Dim][kBlock] = {};
    double limit[kBlock] = {};
};

// After one block: the pair forces m_b t + m_b f^n t^art per unit m_a [m/s^2], their reaction
// on the collected bodies: particle b of a body feels -m_a times it, with torque
// (x_b - x_ref) x F, a new share starting whenever the body changes along the row; and with slip
// walls next to a (`slip`, n: the wall normal at a) the slip-wall partners' force on a and mu_w
// times its normal part, summed lane by lane into `walls`. Out of line:
// inlined into the pair loop, these scalar loops kept GCC from vectorising the loop in 3D.
template <int Dim, class R>
[[gnu::noinline]] void block_loads(const double* rec, const std::uint32_t* block, double m_a,
                                   const BlockForces<Dim>& f, bool slip, const double (&n)[Dim],
                                   const LoadSink& sink, WallSums<Dim>& walls) {
    double pair_force[Dim][kBlock];
    for (std::size_t k = 0; k < kBlock; ++k)
        for (int i = 0; i < Dim; ++i)
            pair_force[i][k] = f.mass[k] * f.momentum[i][k] + f.weight[k] * f.art[i][k];
    for (std::size_t k = 0; k < kBlock; ++k) {
        const std::int32_t body = sink.body_of[block[k]];
        if (body < 0) continue;
        std::vector<LoadShare>& out = *sink.shares;
        if (out.empty() || out.back().id != sink.id_a || out.back().body != body)
            out.push_back(LoadShare{sink.id_a, body, {}, {}});
        const double* x_b = rec + static_cast<std::size_t>(block[k]) * R::stride + R::x;
        double force[3] = {0.0, 0.0, 0.0}, r[3] = {0.0, 0.0, 0.0};
        for (int d = 0; d < Dim; ++d) {
            force[d] = -m_a * pair_force[d][k];
            r[d] = x_b[d] - sink.reference[body][d];
        }
        if constexpr (Dim == 2) r[2] = -sink.reference[body][2];
        add_to_share(out.back(), force, r);
    }
    if (!slip) return;
    for (std::size_t k = 0; k < kBlock; ++k) {
        if (!(f.mu[k] >= 0.0)) continue;
        double f_n = 0.0;
        for (int i = 0; i < Dim; ++i) {
            walls.force[i][k] += pair_force[i][k];
            f_n += pair_force[i][k] * n[i];
        }
        walls.limit[k] += f.mu[k] * f_n;
    }
}

// After the Coulomb limit changed particle a's wall force by (scale - 1) F_t, the shares of
// the slip bodies among the loads change by the reaction, in proportion to their own
// tangential parts; the extra force acts at x_a (within h of the wall).
template <int Dim>
void limit_load_shares(const LoadSink& sink, const double* xa, const double (&n)[Dim],
                       double scale) {
    std::vector<LoadShare>& out = *sink.shares;
    for (auto it = out.rbegin(); it != out.rend() && it->id == sink.id_a; ++it) {
        const auto body = static_cast<std::size_t>(it->body);
        if (!(body < sink.n_friction && sink.wall_friction[body] >= 0.0)) continue;
        double F[Dim], fn[Dim];
        for (int d = 0; d < Dim; ++d) F[d] = it->force[d];
        pair_terms::along<Dim>(F, n, fn);
        double dF[3] = {0.0, 0.0, 0.0}, r[3] = {0.0, 0.0, 0.0};
        for (int d = 0; d < Dim; ++d) {
            dF[d] = (scale - 1.0) * (F[d] - fn[d]);
            r[d] = xa[d] - sink.reference[body][d];
        }
        if constexpr (Dim == 2) r[2] = -sink.reference[body][2];
        add_to_share(*it, dF, r);
    }
}

// The wall normal at dynamic particle a (wall_normal), found once per particle before its
// pair loop and given to the two wall terms below.
template <int Dim>
struct SlipWalls {
    bool slip = false;        // a has slip-wall partners
    double n[Dim] = {};       // the wall normal at a
    std::uint32_t first_wall = 0;
};
template <class S>
SlipWalls<S::Dim> slip_walls(const double* rec, const double* rec_a,
                             std::span<const std::uint32_t> partners, bool any_slip) {
    SlipWalls<S::Dim> w;
    w.slip = any_slip && wall_normal<S::Dim, Record<S>>(rec, rec_a, partners, w.n, w.first_wall);
    return w;
}

// The soil's contact with walls, tools and bodies (InterfaceLaw, body_loads.hpp), decided pair
// by pair from the normal stress across the interface,
//   sigma_nn = n . (sigma_a / rho_a^2 + sigma_b / rho_b^2) . n  against
//   sigma_adh (1 / rho_a^2 + 1 / rho_b^2),
// with sigma_adh the partner's limit (its body's adhesion; +inf for a bonded body), and from
// whether the pair opens, v_ab . x_ab > 0. An opening pair out of contact drops out of every term
// after this one (its kernel gradient and dv . grad become 0: no continuity, strain rate,
// momentum, artificial stress, load or pair work):
// - 'unilateral' (tension_limit): sigma_nn is not compressive beyond the limit (>=):
//   Signorini's conditions pair by pair.
// - 'tension_cut' (normal_limit): sigma_nn is tensile beyond the limit (>): the interface has
//   opened, and a pair at zero stress (a free surface, a cracked toe) keeps its no-slip grip.
//   A closing pair in tension on a no-slip wall keeps its kinematic terms, so that a particle
//   that arrives in tension presses on the wall as it comes (without them it passed through a
//   floor), but its momentum carries no stress (stress_free), only the dissipation.
// n is the wall normal where the partner is a slip wall (SlipWalls: a Coulomb or free-slip
// wall, whose normal the run knows; its closing pairs are in contact as they are) and the
// pair's direction x_ab / r otherwise. Along the wall normal a block sliding under its weight is
// compressed across the interface whatever its shear; along an oblique pair the same shear
// reads as tension, and cutting those pairs took part of the friction away. The test reads the
// present state only (no history: restarts need nothing of it), so a contact at rest under
// compression is the bonded one. Runs first in the composition, in runs with a unilateral or
// tension-cut wall (Shape::Unilateral).
template <class S>
struct WallSeparation {
    static constexpr int Dim = S::Dim;
    using R = Record<S>;
    double sa[R::kStress];
    double rho2_a = 0.0;
    bool slip = false;    // a has slip-wall partners, whose normal is n
    double n[Dim] = {};
    explicit WallSeparation(const SlipWalls<Dim>& walls) : slip(walls.slip) {
        for (int d = 0; d < Dim; ++d) n[d] = walls.n[d];
    }
    void begin(const ParticleA<S>& a) {
        for (int t = 0; t < R::kStress; ++t) sa[t] = a.at(R::stress + t);
        rho2_a = a.at(R::rho) * a.at(R::rho);
    }
    template <class P>
    void add(P& pair) {
        if (!pair.any_wall) return;  // no wall pair to free or cut
        const Vec8 zero = kernel::splat<Vec8>(0.0);
        // r^2 sigma_nn: along the pair, x_ab . (s_a + s_b) . x_ab, s = sigma / rho^2 (sigma L /
        // rho^2 with the pre-pass).
        Vec8 normal = zero;
        for (int i = 0; i < Dim; ++i)
            for (int j = 0; j < Dim; ++j)
                normal += pair.dx[i] * pair.dx[j] * stress_sum(pair, i, j);
        if constexpr (S::Loads) {
            if (slip) {
                Vec8 along_wall = zero;
                for (int i = 0; i < Dim; ++i)
                    for (int j = 0; j < Dim; ++j)
                        along_wall += (n[i] * n[j]) * stress_sum(pair, i, j);
                const Mask8 slip_wall = pair.wall && pair.field(R::wall_mu) >= 0.0;
                normal = slip_wall ? along_wall * pair.r * pair.r : normal;
            }
        }
        // Both sides times rho_a^2 rho_b^2 r^2: no division.
        const Vec8 rho2_b = pair.field(R::rho) * pair.field(R::rho);
        const Vec8 weighted = normal * rho2_a * rho2_b;
        const Vec8 scale = (rho2_a + rho2_b) * pair.r * pair.r;
        const Mask8 opening = pair.vr > 0.0;
        const Vec8 torn_at = pair.field(R::normal_limit) * scale;
        const Mask8 torn = weighted > torn_at;
        const Mask8 free =
            pair.wall && opening && (weighted >= pair.field(R::tension_limit) * scale || torn);
        for (int d = 0; d < Dim; ++d) pair.grad[d] = free ? zero : pair.grad[d];
        pair.dv_dot_grad = free ? zero : pair.dv_dot_grad;
        // A closing pair in tension beyond the limit keeps its kinematic terms (as it arrives
        // its compression must build) but carries no stress (no-slip walls only: a slip wall's
        // closing pairs are in contact as they are).
        Mask8 cut = pair.wall && !opening && torn;
        if constexpr (S::Loads)
            if (slip) cut = cut && pair.field(R::wall_mu) < 0.0;
        pair.stress_free = cut;
    }

private:
    template <class P>
    Vec8 stress_sum(const P& pair, int i, int j) const {
        const int slot = S::Prepass ? i * Dim + j : pair_terms::packed_slot<Dim>[i][j];
        return sa[slot] + pair.field(R::stress + slot);
    }
};

// A slip-wall partner's relative velocity enters the strain rate along the wall normal only,
// (dv . n) n: hands on the partner's wall law (mu_wall) and the relative velocity of the strain
// rate (dv_strain), so it runs before VelocityGradient.
template <class S>
struct WallProjection {
    static constexpr int Dim = S::Dim;
    double n[Dim];
    explicit WallProjection(const SlipWalls<Dim>& walls) {
        for (int d = 0; d < Dim; ++d) n[d] = walls.n[d];
    }
    void begin(const ParticleA<S>&) {}
    template <class P>
    void add(P& pair) {
        if (!pair.any_wall) return;  // mu_wall stays -1, dv_strain dv
        const Vec8 none = kernel::splat<Vec8>(-1.0);
        pair.mu_wall = pair.inside && pair.wall ? pair.field(Record<S>::wall_mu) : none;
        Vec8 normal[Dim];
        pair_terms::along<Dim>(pair.dv, n, normal);
        for (int d = 0; d < Dim; ++d)
            pair.dv_strain[d] = pair.mu_wall >= 0.0 ? normal[d] : pair.dv[d];
    }
};

// The walls' laws and the loads on bodies. Per block, the pair forces (momentum and artificial
// stress, handed on by the terms before it) go to the loads of the bodies and to the slip
// walls' force on a (so it runs after Momentum; its call per block comes last, where few values
// are live). After the pair loop (take, after Momentum's): a free-slip wall's tangential force
// is removed from the acceleration; a Coulomb wall's is limited over the whole contact
// (apply_coulomb_limit).
template <class S>
struct WallFriction {
    static constexpr int Dim = S::Dim;
    using R = Record<S>;
    const double* rec;
    const LoadSink& sink;
    SlipWalls<Dim> walls;
    // The sums live outside the composition: block_loads, out of line, writes them, and an
    // object whose address an out-of-line call receives is reloaded from memory after every
    // call, the composition's accumulators with it. For the same reason the calls get copies
    // of the normal and the position.
    WallSums<Dim>& sums;
    double m_a = 0.0, xa[Dim] = {}, va[Dim] = {};
    WallFriction(const double* records, const LoadSink& s, const SlipWalls<Dim>& w,
                 WallSums<Dim>& wall_sums)
        : rec(records), sink(s), walls(w), sums(wall_sums) {}
    void begin(const ParticleA<S>& a) {
        m_a = a.at(R::mass);
        for (int d = 0; d < Dim; ++d) {
            xa[d] = a.at(R::x + d);
            va[d] = a.at(R::v + d);
        }
    }
    template <class P>
    void add(P& pair) {
        // Loads are collected from boundary partners only, and slip walls are boundaries.
        if (!pair.any_wall) return;
        BlockForces<Dim> f;
        traversal::store8(f.mass, pair.m_b);
        traversal::store8(f.weight, Vec8(pair.m_b * pair.fn));
        traversal::store8(f.mu, pair.mu_wall);
        for (int i = 0; i < Dim; ++i) {
            traversal::store8(f.momentum[i], pair.t[i]);
            traversal::store8(f.art[i], pair.ta[i]);
        }
        double n[Dim];
        for (int d = 0; d < Dim; ++d) n[d] = walls.n[d];
        block_loads<Dim, R>(rec, pair.partners, m_a, f, walls.slip, n, sink, sums);
    }
    void take(const double*, PairSums<Dim>& s) const;
};

// A dynamic particle next to a Coulomb wall: the wall's force on it per unit mass [m/s^2],
// split along the wall normal.
struct CoulombContact {
    std::size_t a;
    std::int32_t body;
    double fn;
    double ft[3];
    double v_wall[3];  // the wall's velocity next to a [m/s] (its first slip wall particle)
};

template <class S>
void WallFriction<S>::take(const double*, PairSums<Dim>& s) const {
    if (!walls.slip) return;
    double n[Dim], x_a[Dim];
    for (int d = 0; d < Dim; ++d) {
        n[d] = walls.n[d];
        x_a[d] = xa[d];
    }
    double F[Dim] = {}, limit = 0.0, corr[Dim];
    for (std::size_t k = 0; k < kBlock; ++k) {
        for (int i = 0; i < Dim; ++i) F[i] += sums.force[i][k];
        limit += sums.limit[k];
    }
    const double* const rec_wall = rec + static_cast<std::size_t>(walls.first_wall) * R::stride;
    for (int i = 0; i < Dim; ++i) s.wall_v[i] = rec_wall[R::v + i];
    if (rec_wall[R::wall_mu] > 0.0) {
        // Coulomb: limited over the whole contact with the body after the pair loop
        // (apply_coulomb_limit).
        s.coulomb_body = sink.body_of_wall[walls.first_wall];
        double fn[Dim];
        pair_terms::along<Dim>(F, n, fn);
        for (int i = 0; i < Dim; ++i) {
            s.wall_fn += F[i] * n[i];
            s.wall_ft[i] = F[i] - fn[i];
        }
    } else {  // free-slip: no tangential part at all
        const double scale = pair_terms::coulomb_correction<Dim>(F, n, limit, corr);
        for (int i = 0; i < Dim; ++i) {
            s.acc[i] += corr[i];
            s.slip_power += corr[i] * (va[i] - s.wall_v[i]);
        }
        if (sink.shares) limit_load_shares<Dim>(sink, x_a, n, scale);
    }
}

// Coulomb's law over the whole contact of each Coulomb wall (pair_terms.hpp): the tangential
// forces of the particles on it, sum m_a |F_t|, may reach mu_w max(sum m_a F_n, 0); beyond, each
// particle's F_t is scaled by the same factor. The sums run in particle-id order on every rank
// (sum_load_shares); the loads of collected bodies take the reaction, acting at x_a.
void apply_coulomb_limit(const ParticleSet& p, const LoadRequest& request,
                         std::vector<CoulombContact>& contacts, Derivatives& out);

}  // namespace regosph::rhs
