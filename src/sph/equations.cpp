#include "sph/equations.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#include "parallel/threads.hpp"
#include "sph/gradient_correction.hpp"
#include "sph/kernel.hpp"
#include "sph/pair_selection.hpp"
#include "sph/pair_terms.hpp"
#include "sph/pair_traversal.hpp"
#include "sph/rhs_terms.hpp"
#include "sph/sleep_regions.hpp"
#include "sph/wall_terms.hpp"
#include "core/name_table.hpp"
#include "core/tensor.hpp"

// A function compiled without GCC's loop and straight-line (SLP) vectorisers; other compilers
// ignore it.
#if defined(__GNUC__) && !defined(__clang__)
#define REGOSPH_NO_VECTORISE __attribute__((optimize("no-tree-vectorize")))
#else
#define REGOSPH_NO_VECTORISE
#endif

// This file is compiled twice: as itself, with everything but the 3D pair loops, and through
// equations_3d.cpp, with the 3D pair loops only (derivatives_3d). Each dimension has 40 loop
// variants (rhs::Shape); in one unit they took ~6 CPU-minutes of the sanitizer's build, one
// core's worth while the other waited.
#ifndef REGOSPH_PAIR_LOOPS_DIM
#define REGOSPH_PAIR_LOOPS_DIM 2
#endif

namespace regosph {

#if REGOSPH_PAIR_LOOPS_DIM == 2
MaterialTable::MaterialTable(const std::vector<Material>& mats, int dim,
                             const HistoryColumns& history) {
    for (const Material& m : mats) {
        materials.push_back(prepared(m, dim));
        history_columns.push_back(regosph::history_columns(m, history));
        history_index.emplace_back(history.size(), -1);
        for (std::size_t i = 0; i < history_columns.back().size(); ++i)
            history_index.back()[static_cast<std::size_t>(history_columns.back()[i])] =
                static_cast<int>(i);
        viscosity_speed.push_back(viscosity_sound_speed(m));
        const PairOptions o = pair_options(m);
        artificial_stress.push_back(o.artificial_stress);
        artificial_stress_exponent.push_back(o.artificial_stress_exponent);
        xsph.push_back(o.xsph);
        kernel_correction.push_back(m.kernel_correction ? 1 : 0);
        // The hourglass control's stiffness for materials that cannot yield: in plastic flow
        // the partners change and an accumulated acceleration holds the flow back
        // (docs/guide/physics.md).
        shear_modulus.push_back(plastic(m) ? 0.0 : regosph::shear_modulus(m));
        can_yield.push_back(plastic(m) ? 1 : 0);
        any_artificial_stress = any_artificial_stress || artificial_stress.back() > 0.0;
        any_xsph = any_xsph || xsph.back() > 0.0;
        any_kernel_correction = any_kernel_correction || m.kernel_correction;
        any_plastic = any_plastic || plastic(m);
    }
    sleep_column = history.find(kSleepStateName);
    switch_column = history.find(kSwitchColumn);
    for (int d = 0; d < 3; ++d) hourglass_column[d] = history.find(kHourglassColumns[d]);
    // One whole-number exponent for every material with artificial stress?
    double common = 0.0;
    bool same = true;
    for (std::size_t m = 0; m < mats.size(); ++m) {
        if (!(artificial_stress[m] > 0.0)) continue;
        same = same && (common == 0.0 || common == artificial_stress_exponent[m]);
        common = artificial_stress_exponent[m];
    }
    if (same && common >= 1.0 && common <= 15.0 && common == std::floor(common))
        artificial_stress_power = static_cast<int>(common);
}

void Derivatives::resize(std::size_t n, bool position_rate, std::size_t history_columns) {
    for (auto& c : dx) {
        if (position_rate)
            c.assign(n, 0.0);
        else
            std::vector<double>().swap(c);
    }
    for (auto& c : dv) c.assign(n, 0.0);
    drho.assign(n, 0.0);
    for (auto& c : dstress) c.assign(n, 0.0);
    dplastic.assign(n, 0.0);
    dhistory.assign(history_columns, std::vector<double>(n, 0.0));
    for (auto& c : power) c.assign(n, 0.0);
    stress_power.assign(n, 0.0);
    loads.clear();
    yielding.assign(n, 0);
    dt_limit.assign(n, std::numeric_limits<double>::infinity());
    plastic_written = false;
}
#endif

namespace {

// Functions in a namespace `vectorised` are the loops whose code must be vector code
// (tests/check_vectorised.py checks each of them in the compiled library): the pair loops of
// every run shape (pair_chunk, with gather inlined into it: out of line, the per-particle
// call and the copy of its sums cost a few per cent of a pair loop) and the staging's sweeps.

using rhs::PairSums;
using rhs::Record;

// The record's stress slot in runs with the gradient pre-pass: P = sigma L / rho^2 in full
// (row-major) from L and f of the pre-pass (`pre`), and Balsara's f.
template <int Dim>
void write_corrected_stress(const ParticleSet& p, std::size_t i, const double* pre,
                            double inv_rho, double* P, double& f) {
    static constexpr int kSym[3][3] = {{XX, XY, XZ}, {XY, YY, YZ}, {XZ, YZ, ZZ}};
    for (int r = 0; r < Dim; ++r)
        for (int c = 0; c < Dim; ++c) {
            double s = 0.0;
            for (int k = 0; k < Dim; ++k) s += p.stress[kSym[r][k]][i] * pre[k * Dim + c];
            P[r * Dim + c] = s * inv_rho * inv_rho;
        }
    f = pre[Dim * Dim];
}

// G = 1 / shape(dp / h) of particle i for the artificial stress (write_record), from its rest
// spacing dp. The staging takes it for a whole chunk of particles before it writes their
// records, in a sweep that vectorises in 2D (3D: std::cbrt has no vector form here)
// (a particle's own square root and divisions would otherwise stall each record).
template <int Dim>
[[gnu::always_inline]] inline double rest_kernel_factor(const ParticleSet& p,
                                                        const std::vector<double>& rho0,
                                                        std::size_t i) {
    const bool boundary = p.kind[i] == ParticleKind::boundary;
    // Both densities loaded, one selected: GCC does not vectorise a load from a selected
    // address.
    const double rho_now = p.rho[i], rho_rest = rho0[p.material[i]];
    const double rest_volume = p.mass[i] / (boundary ? rho_now : rho_rest);
    const double dp = Dim == 2 ? std::sqrt(rest_volume) : std::cbrt(rest_volume);
    const double w = kernel::shape(dp / p.h[i]);
    return w > 0.0 ? 1.0 / w : 0.0;
}

// Particles per claim of the staging pass (~0.1 us each).
constexpr std::size_t kStageChunk = 256;

// Monaghan's artificial stress R (artificial_stress, elastic_solid.hpp) of a chunk of particles
// of the staging pass, in the record's slots (pair_terms::packed_component): art[t][i - first].
template <int Dim>
using ChunkArtificialStress = std::array<std::array<double, kStageChunk>, pair_terms::kPackedSize<Dim>>;

namespace vectorised {

// R of particles [first, last) in 2D: one sweep over artificial_stress_plane, the closed form
// without branches (0 where the material has no artificial stress).
// (maybe_unused: equations_3d.cpp does not call it.)
[[gnu::noinline, maybe_unused]] void plane_artificial_stress(const ParticleSet& p,
                                                             const MaterialTable& mt,
                                                             std::size_t first, std::size_t last,
                                                             ChunkArtificialStress<2>& art) {
#pragma omp simd
    for (std::size_t i = first; i < last; ++i) {
        const double eps = mt.artificial_stress[p.material[i]];
        const PlaneTensor r = artificial_stress_plane(eps, p.stress[XX][i], p.stress[YY][i],
                                                      p.stress[XY][i], p.rho[i]);
        const bool on = eps > 0.0;
        art[0][i - first] = on ? r.xx : 0.0;
        art[1][i - first] = on ? r.yy : 0.0;
        art[2][i - first] = on ? r.xy : 0.0;
    }
}

}  // namespace vectorised

// R of particles [first, last) whose material has one (epsilon > 0), else 0: in 2D one sweep
// (vectorised::plane_artificial_stress), in 3D particle by particle (an eigen-decomposition
// where sigma has a tensile principal stress).
template <int Dim>
void stage_artificial_stress(const ParticleSet& p, const MaterialTable& mt, std::size_t first,
                             std::size_t last, ChunkArtificialStress<Dim>& art) {
    if constexpr (Dim == 2) {
        vectorised::plane_artificial_stress(p, mt, first, last, art);
    } else {
        for (std::size_t i = first; i < last; ++i) {
            const double eps = mt.artificial_stress[p.material[i]];
            SymTensor r{};
            if (eps > 0.0) {
                SymTensor sigma;
                for (int c = 0; c < kSymComponents; ++c) sigma[c] = p.stress[c][i];
                r = artificial_stress(eps, sigma, p.rho[i], Dim);
            }
            for (int t = 0; t < 6; ++t) art[t][i - first] = r[pair_terms::packed_component<Dim>[t]];
        }
    }
}

// Writes the record of particle i, and for the artificial stress without a common exponent
// its per-particle data. Monaghan's artificial stress (Gray, Monaghan & Swift 2001):
//   m_b (R_a + R_b) f_ab^n . grad_a W_ab,  f_ab = W(r_ab, h) / W(dp, h),
// dp the initial particle spacing. Here dp is the particle's rest spacing V^(1/dim): V = m / rho0
// with its material's reference density for a dynamic particle (its volume in the initial
// lattice, constant in time), V = m / rho for a boundary particle (whose volume is fixed,
// extrapolate_boundary); G = 1 / shape(dp / h) (0 if dp reaches the support; the argument g,
// from rest_kernel_factor), so that
// f_ab = shape(q_ab) G for a uniformly filled body. With a common exponent n the record
// holds R G^n and the pair takes (R_a G_a^n + R_b G_b^n) shape(q_ab)^n, which is the
// formula above whenever G_a = G_b; otherwise f_ab = shape(q_ab) (G_a + G_b) / 2.
template <class S>
void write_record(const ParticleSet& p, const MaterialTable& mt, std::size_t i, double g,
                  const double* art, std::size_t art_stride, StagedParticles& st) {
    using R = Record<S>;
    constexpr int Dim = S::Dim;
    double* const rec = st.record.data() + i * R::stride;
    const bool boundary = p.kind[i] == ParticleKind::boundary;
    const int mat = p.material[i];
    const double inv_rho = 1.0 / p.rho[i];
    for (int d = 0; d < Dim; ++d) {
        rec[R::x + d] = p.x[d][i];
        rec[R::v + d] = p.v[d][i];
    }
    rec[R::h] = p.h[i];
    rec[R::rho] = p.rho[i];
    rec[R::mass] = p.mass[i];
    rec[R::volume] = p.mass[i] * inv_rho;
    rec[R::sound_speed] = boundary ? 0.0 : mt.viscosity_speed[mat];
    if constexpr (S::Walls) rec[R::kind] = static_cast<double>(p.kind[i]);
    if constexpr (S::Unilateral) {
        const auto body = static_cast<std::size_t>(p.body[i]);
        rec[R::tension_limit] = !boundary                         ? 0.0  // not read
                                : body < st.tension_limit.size() ? st.tension_limit[body]
                                                                 : st.default_tension_limit;
        rec[R::normal_limit] = !boundary                        ? 0.0  // not read
                               : body < st.normal_limit.size() ? st.normal_limit[body]
                                                               : st.default_normal_limit;
    }
    if constexpr (R::kMaterial) rec[R::material] = mat;
    if constexpr (S::Loads) rec[R::wall_mu] = -1.0;  // stage_load_body: the walls' law
    if constexpr (S::Prepass) {
        const double* row = st.prepass.data() + i * prepass_stride(Dim);
        write_corrected_stress<Dim>(p, i, row, inv_rho, rec + R::stress, rec[R::balsara]);
        if constexpr (R::kReconstruction) {
            std::copy(row + prepass_velocity_gradient(Dim),
                      row + prepass_velocity_gradient(Dim) + Dim * Dim, rec + R::grad_v);
            rec[R::body] = p.body[i];
            for (int t = 0; t < R::kTensor; ++t)
                rec[R::plain_stress + t] =
                    p.stress[pair_terms::packed_component<Dim>[t]][i] * inv_rho * inv_rho;
            std::copy(row + prepass_stress_gradient(Dim),
                      row + prepass_stress_gradient(Dim) + Dim * R::kTensor, rec + R::grad_stress);
        }
    } else
        for (int t = 0; t < R::kTensor; ++t)
            rec[R::stress + t] =
                p.stress[pair_terms::packed_component<Dim>[t]][i] * inv_rho * inv_rho;
    if constexpr (!S::ArtStress) return;
    for (int t = 0; t < R::kTensor; ++t) rec[R::art + t] = 0.0;
    const double eps = mt.artificial_stress[mat];
    const int power = mt.artificial_stress_power;
    if (power == 0) {
        st.n_art[i] = eps > 0.0 ? mt.artificial_stress_exponent[mat] : 0.0;
        st.inv_w_rest[i] = g;
    }
    if (eps > 0.0) {
        double scale = 1.0;  // G^n
        for (int k = 0; k < power; ++k) scale *= g;
        for (int t = 0; t < R::kTensor; ++t) rec[R::art + t] = art[t * art_stride] * scale;
    }
}

// Room for the records of all particles, halo copies included (they are partners); returns
// each material's reference density (write_record).
template <class S>
std::vector<double> size_staging(const ParticleSet& p, const MaterialTable& mt, bool loads,
                                 StagedParticles& st) {
    const std::size_t n = p.size();
    using R = Record<S>;
    st.record_size = R::stride;
    st.record.resize(n * R::stride);
    if (mt.any_artificial_stress && mt.artificial_stress_power == 0) {
        st.n_art.resize(n);
        st.inv_w_rest.resize(n);
    }
    if (loads) st.load_body.resize(n);
    std::vector<double> rho0(mt.materials.size());
    for (std::size_t m = 0; m < rho0.size(); ++m) rho0[m] = reference_density(mt.materials[m]);
    return rho0;
}

// The body whose load particle i's pair forces count towards (its own, for a boundary
// particle of a collected body; -1 otherwise), and its wall law (Record::wall_mu). Halo copies
// included.
template <class R>
void stage_load_body(const ParticleSet& p, const LoadRequest& request, std::size_t i,
                     StagedParticles& st) {
    const auto body = static_cast<std::size_t>(p.body[i]);
    const bool wall = p.kind[i] == ParticleKind::boundary;
    const bool collected = wall && body < request.collect.size() && request.collect[body] != 0;
    st.load_body[i] = collected ? p.body[i] : -1;
    const bool slips = wall && body < request.wall_friction.size() &&
                       request.wall_friction[body] >= 0.0;
    if (slips) st.record[i * R::stride + R::wall_mu] = request.wall_friction[body];
}

// f_ab^n of a block's lanes for the artificial stress without a common whole exponent:
// f_ab = shape(q_ab) (G_a + G_b) / 2 with n_ab = max(n_a, n_b) (write_record), from the first
// pass's distance (2 h_ab beyond the support and on the padding, where f is 0 and the pair's
// gradient is 0 anyway).
template <class R, class View>
void artificial_stress_weights(const StagedParticles& st, std::size_t a, const View& view,
                               const rhs::PairGeometry& geo, double (&fn_pow)[kBlock]) {
    const double h_a = st.record[a * R::stride + R::h];
    for (std::size_t k = 0; k < kBlock; ++k) {
        const std::uint32_t b = view.partners[k];
        const double h_ab = 0.5 * (h_a + view.first[R::h][k]);
        const double f = kernel::shape(geo.r[k] / h_ab) * 0.5 *
                         (st.inv_w_rest[a] + st.inv_w_rest[b]);
        fn_pow[k] = std::pow(f, std::max(st.n_art[a], st.n_art[b]));
    }
}

namespace vectorised {

// The pair sums of dynamic particle a: the run's pair terms (rhs_terms.hpp, wall_terms.hpp),
// composed in the order they run within a block, over its pair list (pair_traversal.hpp).
// `margin_blocks`: where the blocks of the list that hold only entries of its margin and
// padding begin (NeighbourList::margin_blocks).
template <class S>
[[gnu::always_inline]] inline PairSums<S::Dim> gather(
    const StagedParticles& st, const MaterialTable& mt, std::size_t a, int material_a,
    std::span<const std::uint32_t> partners, std::size_t margin_blocks,
    const PhysicsParameters& pp, const rhs::LoadSink& sink) {
    constexpr int Dim = S::Dim;
    using R = Record<S>;
    const double* const rec = st.record.data();
    const rhs::ParticleA<S> pa{rec + a * R::stride};
    double xa[Dim], va[Dim];
    for (int d = 0; d < Dim; ++d) {
        xa[d] = pa.at(R::x + d);
        va[d] = pa.at(R::v + d);
    }
    const double h_a = pa.at(R::h), rho_a = pa.at(R::rho);

    alignas(64) double fn_pow[kBlock] = {};  // f_ab^n without a common whole exponent
    // The run's terms in the order they run within a block (rhs_terms.hpp, wall_terms.hpp).
    rhs::SlipWalls<Dim> walls;
    if constexpr (S::Loads) walls = rhs::slip_walls<S>(rec, pa.rec, partners, sink.any_slip);
    rhs::WallSums<Dim> wall_sums;
    auto terms = rhs::compose(
        rhs::term_if<S::Unilateral, rhs::WallSeparation<S>>(walls),
        rhs::term<rhs::Continuity<S>>(),
        rhs::term_if<S::Loads, rhs::WallProjection<S>>(walls),
        rhs::term_if<S::Riemann, rhs::RiemannStressJump<S>>(
            pp.riemann_stress_jump != PhysicsParameters::StressJump::none &&
                mt.can_yield[material_a],
            pp.riemann_stress_jump == PhysicsParameters::StressJump::continuity_and_strain_rate,
            pp.riemann_reconstruction),
        rhs::term<rhs::VelocityGradient<S>>(),
        rhs::term_if<!S::Riemann, rhs::ArtificialViscosity<S>>(pp.av_alpha, pp.av_beta),
        rhs::term_if<S::Riemann, rhs::RiemannDissipation<S>>(
            pp.riemann_limiter, pp.riemann_limiter_floor,
            pp.riemann_pairs == PhysicsParameters::RiemannPairs::separating,
            pp.riemann_reconstruction),
        rhs::term_if<S::Riemann, rhs::DensityDiffusion<S>>(
            mt.can_yield[material_a] ? pp.density_diffusion : 0.0),
        rhs::term_if<R::kReconstruction, rhs::HourglassControl<S>>(pp.hourglass_control > 0.0),
        rhs::term_if<S::ArtStress, rhs::ArtificialStress<S>>(mt.artificial_stress_power,
                                                             fn_pow),
        rhs::term<rhs::Momentum<S>>(), rhs::term<rhs::PairWork<S>>(),
        rhs::term_if<S::Xsph, rhs::Xsph<S>>(),
        rhs::term_if<S::Loads, rhs::WallFriction<S>>(rec, sink, walls, wall_sums));
    terms.begin(pa);

    const bool pow_weights = S::ArtStress && mt.artificial_stress_power == 0;
    traversal::walk_pairs<Dim, R, rhs::PairGeometry>(
        rec, partners, margin_blocks, xa, h_a,
        [&](const double (&blk)[R::stride][kBlock], rhs::PairGeometry& geo) {
            rhs::pair_geometry<Dim, R>(blk, xa, h_a, rho_a, pp.av_epsilon, geo);
        },
        [&](const auto& view, const rhs::PairGeometry& geo) {
            if (pow_weights) artificial_stress_weights<R>(st, a, view, geo, fn_pow);
            rhs::PairBlock<S, std::remove_cvref_t<decltype(view.field)>> pair(
                view.field, view.partners, pa, xa, va, geo);
            terms.add(pair);
        });
    PairSums<Dim> s;
    terms.take(s);
    return s;
}

}  // namespace vectorised

// Strain rate (sym L) and spin (antisym L) of a velocity gradient; plane strain keeps the
// out-of-plane rates zero.
template <int Dim>
void strain_and_spin(const double (&L)[Dim][Dim], SymTensor& eps, Spin& w) {
    eps = {};
    w = {};
    eps[XX] = L[0][0];
    eps[YY] = L[1][1];
    eps[XY] = 0.5 * (L[0][1] + L[1][0]);
    w[0] = 0.5 * (L[0][1] - L[1][0]);
    if constexpr (Dim == 3) {
        eps[ZZ] = L[2][2];
        eps[XZ] = 0.5 * (L[0][2] + L[2][0]);
        eps[YZ] = 0.5 * (L[1][2] + L[2][1]);
        w[1] = 0.5 * (L[0][2] - L[2][0]);
        w[2] = 0.5 * (L[1][2] - L[2][1]);
    }
}

// The part of the dynamic particles' Courant signal speed (finish_particle) that does not
// depend on their pair sums: the material's wave speed at rho_a plus |v_a| [m/s], for
// particles [first, last) into base[a - first] (0 for the particles that are not dynamic). Taken
// for a whole chunk before its pair sums, in sweeps that vectorise (wave_speeds per run of one
// material), so that the divisions and square roots of neighbouring particles overlap. The same
// operations in the same order as one particle at a time: the same bits.
template <int Dim>
void signal_without_viscosity(const ParticleSet& p, const MaterialTable& mt, std::size_t first,
                              std::size_t last, double* base) {
    std::fill(base, base + (last - first), 0.0);
    for_each_material_run(p, first, last, [&](std::size_t a, std::size_t b) {
        const int mat = p.material[a];
        wave_speeds(mt.materials[mat], point_run(p, mt.history_columns[mat], a, b - a),
                    base + (a - first));
#pragma omp simd
        for (std::size_t c = a; c < b; ++c) {
            double speed2 = 0.0;
            for (int d = 0; d < Dim; ++d) speed2 += p.v[d][c] * p.v[d][c];
            base[c - first] += std::sqrt(speed2);
        }
    });
}

// The rate of particle a's Morris & Monaghan switch f (PhysicsParameters::av_switch) at the
// velocity divergence div_v [1/s], into its history column (after the models' rates, which
// leave a column that is not theirs at zero).
void switch_rate(const ParticleSet& p, const MaterialTable& mt, std::size_t a, double div_v,
                 Derivatives& out) {
    const auto column = static_cast<std::size_t>(mt.switch_column);
    const double f = p.history.values[column][a];
    const double tau = 0.5 * p.h[a] / (kSwitchDecay * mt.viscosity_speed[p.material[a]]);
    out.dhistory[column][a] = -(f - kSwitchFloor) / tau + std::max(-div_v, 0.0) * (1.0 - f);
}

// Particle a's columns of the energy budget (energy_budget.hpp): the stress power
// V sigma : eps_dot, the part of the pair work the particle's own deformation accounts for,
// leaves the walls' share. (Scalar code as finish_particle, into which it inlines.)
template <int Dim, bool Walls, bool Riemann>
REGOSPH_NO_VECTORISE inline void write_powers(const ParticleSet& p, const MaterialTable& mt,
                                              std::size_t a, const PairSums<Dim>& s,
                                              const SymTensor& sigma, const SymTensor& eps,
                                              const StressRate& r, Derivatives& out) {
    const double m_a = p.mass[a], volume = m_a / p.rho[a];
    const double stress_power = volume * double_dot(sigma, eps);
    out.stress_power[a] = stress_power;
    if (mt.any_plastic) {  // else zero (MaterialTable::any_plastic)
        out.dplastic[a] = r.lambda_dot;
        out.yielding[a] = r.yielding ? 1 : 0;
        out.power[kPlasticPower][a] = volume * r.dissipation;
    }
    out.power[kViscousPower][a] = Riemann ? 0.0 : m_a * s.viscous;  // the scheme's column
    out.power[kRiemannPower][a] = Riemann ? m_a * s.viscous : 0.0;
    // The hourglass control's work is the scheme's too (PhysicsParameters::hourglass_control).
    if (mt.hourglass_column[0] >= 0)
        for (int d = 0; d < Dim; ++d)
            out.power[kRiemannPower][a] -=
                m_a * p.history.values[static_cast<std::size_t>(mt.hourglass_column[d])][a] *
                p.v[d][a];
    // Without walls the dynamic pairs' terms cancel in the sum over the particles: zero.
    out.power[kWallPower][a] =
        Walls ? -(m_a * s.work + stress_power + m_a * s.viscous) - m_a * s.slip_power : 0.0;
    out.power[kArtificialStressPower][a] = -m_a * s.art_work;
}

// The hourglass control's history rate (PhysicsParameters::hourglass_control),
// d a_hg / dt = xi (mu / rho) sum_b V_b F_ab (v_ab - (G_a + G_b) x_ab / 2), and its step
// limit: the control is a spring on the hourglass modes, a mode v_b = -v_a of a's partners
// oscillates at omega^2 = 2 xi (mu / rho) |sum_b V_b F_ab|, and the explicit Heun step lets it
// grow from omega dt ~ 1 (the 1D wave of tests/cpp/test_elastic.cpp grew at omega dt = 1.2
// and was stable at 0.9): dt <= 2 C / omega, 0.6 / omega at C = 0.3.
template <int Dim>
void hourglass_rate_and_limit(const ParticleSet& p, const MaterialTable& mt,
                              const PhysicsParameters& pp, std::size_t a, const PairSums<Dim>& s,
                              Derivatives& out) {
    const double stiffness = pp.hourglass_control * mt.shear_modulus[p.material[a]] / p.rho[a];
    for (int d = 0; d < Dim; ++d)
        out.dhistory[static_cast<std::size_t>(mt.hourglass_column[d])][a] =
            stiffness * s.hourglass[d];
    const double omega2 = 2.0 * stiffness * std::abs(s.hourglass_stiffness);
    if (omega2 > 0.0)
        out.dt_limit[a] = std::min(out.dt_limit[a], 2.0 * pp.courant / std::sqrt(omega2));
}

// Rates of dynamic particle a from its pair sums: acceleration, position rate, density rate,
// the material's stress rate with the Jaumann terms, and its Courant limit, given the part of
// the signal speed without the viscosity's (signal_without_viscosity). `correction`: the
// kernel correction L_a (row-major) when a's material uses it, else nullptr.
// Scalar code (REGOSPH_NO_VECTORISE): vectorised, the loops over the six stress components
// here read with vector loads values just stored one at a time, and such a load waits until
// those stores leave the core (a failed store-to-load forwarding) at every particle; as scalar
// code the function is 20-35 % cheaper, with the same results to the bit.
template <int Dim, bool Xsph, bool Walls, bool Riemann>
REGOSPH_NO_VECTORISE
void finish_particle(const ParticleSet& p, const MaterialTable& mt, const PhysicsParameters& pp,
                     std::size_t a, const PairSums<Dim>& s, const double* correction,
                     double signal_base, Derivatives& out) {
    const int mat = p.material[a];
    const bool hourglass = mt.hourglass_column[0] >= 0;
    for (int d = 0; d < Dim; ++d) {
        out.dv[d][a] = s.acc[d] + pp.gravity[d];
        if (hourglass)
            out.dv[d][a] += p.history.values[static_cast<std::size_t>(mt.hourglass_column[d])][a];
        // Position rate: v, plus the XSPH term eps sum_b (m_b / rhobar_ab) (v_b - v_a) W_ab.
        if constexpr (Xsph) out.dx[d][a] = p.v[d][a] + mt.xsph[mat] * s.xsph[d];
    }
    SymTensor eps;
    Spin w;
    if (correction) {
        // Corrected velocity gradient G L^T, and continuity as -rho tr(G L^T)
        // (gradient_correction.hpp).
        double G[Dim][Dim] = {}, div = 0.0;
        for (int i = 0; i < Dim; ++i)
            for (int j = 0; j < Dim; ++j)
                for (int k = 0; k < Dim; ++k) G[i][j] += s.grad_v[i][k] * correction[j * Dim + k];
        for (int d = 0; d < Dim; ++d) div += G[d][d];
        out.drho[a] = -p.rho[a] * div;
        strain_and_spin<Dim>(G, eps, w);
    } else {
        out.drho[a] = p.rho[a] * s.div_sum;
        strain_and_spin<Dim>(s.grad_v, eps, w);
    }
    if constexpr (Riemann) out.drho[a] += s.density_diffusion;
    // The state is written once, in place: a copy of a tensor just written by scalar stores
    // would be read back by vector loads that wait for those stores.
    std::array<double, kMaxHistoryVariables> history;
    MaterialState state;
    state.rho = p.rho[a];
    for (int c = 0; c < stress_components(Dim); ++c) state.sigma[c] = p.stress[c][a];
    // The model's history variables from their columns (MaterialTable::history_columns); a
    // run without any (out.dhistory empty) skips their lookups.
    const bool any_history = !out.dhistory.empty();
    if (any_history) {
        const std::vector<int>& columns = mt.history_columns[mat];
        for (std::size_t i = 0; i < columns.size(); ++i)
            history[i] = p.history.values[static_cast<std::size_t>(columns[i])][a];
        state.history = history.data();
    }
    const SymTensor& sigma = state.sigma;
    const StressRate r = stress_rate(mt.materials[mat], state, eps, w);
    // Jaumann rate (eq. 22): constitutive rate plus sigma R^T + R sigma.
    const SymTensor rot = jaumann_rotation_term(sigma, w);
    for (int c = 0; c < stress_components(Dim); ++c) out.dstress[c][a] = r.rate[c] + rot[c];
    // Every column's rate: the model's for its own variables, zero for the others.
    if (any_history) {
        const std::vector<int>& index = mt.history_index[mat];
        for (std::size_t k = 0; k < out.dhistory.size(); ++k) {
            const int i = index[k];
            out.dhistory[k][a] = i >= 0 ? r.history_rate[static_cast<std::size_t>(i)] : 0.0;
        }
    }
    if (pp.av_switch) switch_rate(p, mt, a, trace(eps), out);

    write_powers<Dim, Walls, Riemann>(p, mt, a, s, sigma, eps, r, out);

    // Courant condition with the artificial-viscosity signal speed (Monaghan 1992):
    // dt <= C h / (c + |v| + 1.2 (alpha c_visc + beta max|nu|)); with the Riemann solver
    // (bounded by the acoustic impedance's damping) c + |v| + the largest jump.
    const double signal = signal_base + (Riemann ? s.max_nu : 1.2 * (pp.av_alpha *
                                         mt.viscosity_speed[mat] + pp.av_beta * s.max_nu));
    const double courant = signal > 0.0 ? pp.courant * p.h[a] / signal
                                        : std::numeric_limits<double>::infinity();
    out.dt_limit[a] = std::min(courant, r.dt_limit);
    if (hourglass) hourglass_rate_and_limit<Dim>(p, mt, pp, a, s, out);
}

// Particles per claim of the pair loop (~0.3-5 us each).
constexpr std::size_t kPairChunk = 32;

// The records of particles [first, last) of the staging pass (halo copies included): the
// chunk's rest kernel factors and artificial stresses first, in sweeps that vectorise, then
// each record (write_record) and, with loads, each particle's body and wall law.
template <class S>
void stage_chunk(const ParticleSet& p, const MaterialTable& mt, const std::vector<double>& rho0,
                 const LoadRequest* request, std::size_t first, std::size_t last,
                 StagedParticles& st) {
    std::array<double, kStageChunk> g{};  // rest_kernel_factor
    ChunkArtificialStress<S::Dim> art;
    if constexpr (S::ArtStress) {
#pragma omp simd
        for (std::size_t i = first; i < last; ++i)
            g[i - first] = rest_kernel_factor<S::Dim>(p, rho0, i);
        stage_artificial_stress<S::Dim>(p, mt, first, last, art);
    }
    for (std::size_t i = first; i < last; ++i) {
        write_record<S>(p, mt, i, g[i - first], &art[0][i - first], kStageChunk, st);
        if constexpr (S::Loads) stage_load_body<Record<S>>(p, *request, i, st);
    }
}

// A distinct address per shape: the record layout of a staging (StagedParticles::asleep_layout).
template <class S>
inline constexpr char kLayoutTag = 0;

// The staging pass's chunk [first, last) in a run with sleeping regions (`states`, the sleep
// states): an owned particle whose record was staged while it slept (`keep` and its
// StagedParticles::asleep_staged flag) and that still sleeps keeps that record, and so does a
// wall as it was at the last evaluation (StagedParticles::unchanged_walls); the others are
// staged, each run of them as a chunk of its own (a record is a function of its particle's
// state alone: the same records as one chunk); then the flags for the next evaluation.
template <class S>
void stage_chunk_awake(const ParticleSet& p, const MaterialTable& mt,
                       const std::vector<double>& rho0, const LoadRequest* request,
                       const double* states, bool keep, std::size_t first, std::size_t last,
                       StagedParticles& st) {
    const std::size_t n = p.owned();
    std::uint8_t* const flags = st.asleep_staged.data();
    const std::uint8_t* const walls = st.unchanged_walls;
    const auto kept = [&](std::size_t i) {
        return keep && i < n &&
               ((flags[i] != 0 && asleep(states, i)) || (walls && walls[i] == 2));
    };
    for_each_run(first, last, kept, [&](std::size_t a, std::size_t e) {
        stage_chunk<S>(p, mt, rho0, request, a, e, st);
    });
    for (std::size_t i = first; i < std::min(last, n); ++i) flags[i] = asleep(states, i) ? 1 : 0;
}

// What one thread's pair loops hand on to the end of the evaluation: its shares of the loads
// and its particles next to Coulomb walls.
struct ThreadLoads {
    std::vector<LoadShare> shares;
    std::vector<rhs::CoulombContact> contacts;
};

// The pair loops of the owned particles [first, last): each dynamic particle's pair sums
// (gather) and rates (finish_particle); returns the smallest Courant limit among them.
namespace vectorised {

template <class S>
[[gnu::noinline]] double pair_chunk(const ParticleSet& p, const NeighbourList& nl,
                                    const MaterialTable& mt, const PhysicsParameters& pp,
                                    const LoadRequest* request, bool any_slip, std::size_t first,
                                    std::size_t last, ThreadLoads& mine, Derivatives& out) {
    constexpr int Dim = S::Dim;
    const StagedParticles& st = out.staged;
    double dt_min = std::numeric_limits<double>::infinity();
    std::array<double, kPairChunk> signal_base;  // signal_without_viscosity
    signal_without_viscosity<Dim>(p, mt, first, last, signal_base.data());
    const double* sleeping = sleep_states(p, mt, pp);  // its rates are not read (integrated_kinds)
    for (std::size_t a = first; a < last; ++a) {
        if (p.kind[a] != ParticleKind::dynamic || asleep(sleeping, a)) {
            out.dt_limit[a] = std::numeric_limits<double>::infinity();  // no limit of its own
            // No energy of its own (out is reused: after a migration a dynamic particle's
            // powers could sit at this index).
            for (auto& c : out.power) c[a] = 0.0;
            out.stress_power[a] = 0.0;
            continue;
        }
        const rhs::LoadSink sink{st.load_body.data(),
                                 S::Loads ? request->reference.data() : nullptr, p.id[a],
                                 &mine.shares, S::Loads ? request->wall_friction.data() : nullptr,
                                 S::Loads ? request->wall_friction.size() : 0, p.body.data(),
                                 any_slip};
        const PairSums<Dim> s = vectorised::gather<S>(st, mt, a, p.material[a], nl.partners(a),
                                                      nl.margin_blocks(a), pp, sink);
        const bool corrected = S::Prepass && mt.kernel_correction[p.material[a]];
        finish_particle<Dim, S::Xsph, S::Walls, S::Riemann>(
            p, mt, pp, a, s, corrected ? st.prepass.data() + a * prepass_stride(Dim) : nullptr,
            signal_base[a - first], out);
        dt_min = std::min(dt_min, out.dt_limit[a]);
        if (S::Loads && s.coulomb_body >= 0) {
            rhs::CoulombContact c{a, s.coulomb_body, s.wall_fn, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
            for (int d = 0; d < Dim; ++d) {
                c.ft[d] = s.wall_ft[d];
                c.v_wall[d] = s.wall_v[d];
            }
            mine.contacts.push_back(c);
        }
    }
    return dt_min;
}

}  // namespace vectorised

// One parallel region per evaluation: the records of all particles (halo included), then,
// once they are complete, the pair loop of every owned dynamic particle, with the smallest
// Courant limit as a min-reduction (exact, so the same on any number of threads). Each thread
// stages and then runs the pair loops of its own part of the particles
// (NeighbourList::partition), the part it updates in the integrator's loops too, and then
// helps with what is left of the others' (parallel::ChunkQueue). The records are complete when
// every staged chunk is done (an atomic count, not a barrier: a thread that joins the region
// late finds its part staged by the others and does not hold them up).
template <class S>
void derivatives_impl(const ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                      const PhysicsParameters& pp, const LoadRequest* request,
                      const HaloRefresh& refresh, const StagePrologue& prologue,
                      Derivatives& out) {
    const std::size_t n = p.owned();  // halo particles are partners only
    StagedParticles& st = out.staged;
    const std::vector<double> rho0 = size_staging<S>(p, mt, S::Loads, st);
    // The pre-pass reads every partner's state: the prologue's work comes first.
    if constexpr (S::Prepass) {
        if (prologue) {
#pragma omp parallel for schedule(dynamic, 1) \
    num_threads(parallel::threads_for(n, parallel::kMinCheapItems))
            for (std::size_t first = 0; first < n; first += kStageChunk)
                prologue(first, std::min(n, first + kStageChunk));
        }
        gradient_prepass(p, nl, mt, pp, st.prepass, refresh);
    }
    const bool any_slip = S::Loads && std::any_of(request->wall_friction.begin(),
                                                  request->wall_friction.end(),
                                                  [](double mu) { return mu >= 0.0; });
    // Sleeping regions: records staged while their particles slept may be kept (not with the
    // pre-pass: a particle's L follows its partners).
    const double* states = S::Prepass ? nullptr : sleep_states(p, mt, pp);
    const bool keep = states && st.asleep_layout == &kLayoutTag<S> && st.asleep_staged.size() == n;
    st.asleep_staged.resize(states ? n : 0);
    st.asleep_layout = &kLayoutTag<S>;
    std::vector<ThreadLoads> loads;
    double dt_min = std::numeric_limits<double>::infinity();
    const parallel::Partition& part = nl.partition(p);
    parallel::ChunkQueue staging(part, p.size(), kStageChunk), pairs(part, n, kPairChunk);
    std::atomic<std::size_t> staged{0};
#pragma omp parallel num_threads(part.team()) reduction(min : dt_min)
    {
        staging.run([&](std::size_t first, std::size_t last) {
            if (!S::Prepass && prologue && first < n) prologue(first, std::min(last, n));
            if (states)
                stage_chunk_awake<S>(p, mt, rho0, request, states, keep, first, last, st);
            else
                stage_chunk<S>(p, mt, rho0, request, first, last, st);
            staged.fetch_add(last - first, std::memory_order_release);
        });
        parallel::wait_for(staged, staging.total());
        ThreadLoads mine;
        pairs.run([&](std::size_t first, std::size_t last) {
            dt_min = std::min(
                dt_min, vectorised::pair_chunk<S>(p, nl, mt, pp, request, any_slip, first, last, mine, out));
        });
        if constexpr (S::Loads) {
#pragma omp critical
            loads.push_back(std::move(mine));
        }
    }
    out.dt_min = dt_min;
    if constexpr (S::Loads) {
        std::vector<LoadShare> all;
        std::vector<rhs::CoulombContact> contacts;
        for (ThreadLoads& t : loads) {
            all.insert(all.end(), t.shares.begin(), t.shares.end());
            contacts.insert(contacts.end(), t.contacts.begin(), t.contacts.end());
        }
        out.loads = sum_load_shares(all, request->collect.size());
        rhs::apply_coulomb_limit(p, *request, contacts, out);
    }
}

// Calls fn(std::true_type) or fn(std::false_type): a run-time choice turned into a template
// argument of the pair loop.
template <class Fn>
void with_flag(bool on, Fn&& fn) {
    if (on)
        fn(std::true_type{});
    else
        fn(std::false_type{});
}

// The pair loop for the options of this run: a run without an option takes a loop that does
// not contain it.
template <int Dim>
void derivatives_for_options(const ParticleSet& p, const NeighbourList& nl,
                             const MaterialTable& mt, const PhysicsParameters& pp,
                             const LoadRequest* request, const HaloRefresh& refresh, bool walls,
                             const StagePrologue& prologue, Derivatives& out) {
    const bool prepass = runs_gradient_prepass(mt, pp);
    const bool riemann = pp.dissipation == PhysicsParameters::Dissipation::riemann;
    const bool unilateral = out.staged.separation;  // stage_tension_limits
    with_flag(riemann, [&](auto rie) {
    with_flag(mt.any_artificial_stress, [&](auto art) {
        with_flag(mt.any_xsph, [&](auto xsph) {
            with_flag(request != nullptr, [&](auto loads) {
                with_flag(prepass, [&](auto pre) {
                    // Loads are collected on walls: a run with loads takes the loop with walls.
                    with_flag(walls || request != nullptr, [&](auto w) {
                    with_flag((walls || request != nullptr) && unilateral, [&](auto uni) {
                        // (decay: the outer flags are references in this inner lambda)
                        constexpr bool kLoads = std::decay_t<decltype(loads)>::value;
                        constexpr bool kWalls = std::decay_t<decltype(w)>::value;
                        constexpr bool kUnilateral = decltype(uni)::value;
                        if constexpr ((kWalls || !kLoads) && (kWalls || !kUnilateral))
                            derivatives_impl<rhs::Shape<Dim, std::decay_t<decltype(art)>::value,
                                                        std::decay_t<decltype(xsph)>::value,
                                                        kLoads,
                                                        std::decay_t<decltype(pre)>::value,
                                                        kWalls,
                                                        std::decay_t<decltype(rie)>::value,
                                                        kUnilateral>>(
                                p, nl, mt, pp, request, refresh, prologue, out);
                    });
                    });
                });
            });
        });
    });
    });
}

}  // namespace

#if REGOSPH_PAIR_LOOPS_DIM == 3
void derivatives_3d(const ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                    const PhysicsParameters& pp, const LoadRequest* request,
                    const HaloRefresh& refresh, bool walls, const StagePrologue& prologue,
                    Derivatives& out) {
    derivatives_for_options<3>(p, nl, mt, pp, request, refresh, walls, prologue, out);
}
#else
// The 3D pair loops (equations_3d.cpp).
void derivatives_3d(const ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                    const PhysicsParameters& pp, const LoadRequest* request,
                    const HaloRefresh& refresh, bool walls, const StagePrologue& prologue,
                    Derivatives& out);

namespace {
using Dissipation = PhysicsParameters::Dissipation;
using RiemannPairs = PhysicsParameters::RiemannPairs;
constexpr std::pair<Dissipation, const char*> kDissipationNames[] = {
    {Dissipation::monaghan, "monaghan"}, {Dissipation::riemann, "riemann"}};
constexpr std::pair<RiemannPairs, const char*> kRiemannPairsNames[] = {
    {RiemannPairs::approaching, "approaching"}, {RiemannPairs::separating, "separating"}};
using StressJump = PhysicsParameters::StressJump;
constexpr std::pair<StressJump, const char*> kStressJumpNames[] = {
    {StressJump::none, "none"},
    {StressJump::continuity, "continuity"},
    {StressJump::continuity_and_strain_rate, "continuity_and_strain_rate"}};
constexpr std::pair<WallContact, const char*> kWallContactNames[] = {
    {WallContact::bonded, "bonded"},
    {WallContact::unilateral, "unilateral"},
    {WallContact::tension_cut, "tension_cut"}};
}  // namespace

const char* dissipation_name(Dissipation d) { return name_of<Dissipation>(kDissipationNames, d); }

Dissipation dissipation_from_name(const std::string& name) {
    return from_name<Dissipation>(kDissipationNames, name, "physics.dissipation", "a scheme");
}

const char* riemann_pairs_name(RiemannPairs r) { return name_of<RiemannPairs>(kRiemannPairsNames, r); }

RiemannPairs riemann_pairs_from_name(const std::string& name) {
    return from_name<RiemannPairs>(kRiemannPairsNames, name, "physics.riemann_pairs", "a choice");
}

const char* stress_jump_name(StressJump j) { return name_of<StressJump>(kStressJumpNames, j); }

StressJump stress_jump_from_name(const std::string& name) {
    return from_name<StressJump>(kStressJumpNames, name, "physics.riemann_stress_jump",
                                 "a choice");
}

const char* wall_contact_name(WallContact c) { return name_of<WallContact>(kWallContactNames, c); }

WallContact wall_contact_from_name(const std::string& name, const std::string& field) {
    return from_name<WallContact>(kWallContactNames, name, field, "a contact law");
}

// Each body's InterfaceLaw::tension_limit and normal_limit and the run's defaults, and whether
// some is finite (StagedParticles::separation).
static void stage_tension_limits(const PhysicsParameters& pp, std::span<const InterfaceLaw> laws,
                          StagedParticles& st) {
    st.default_tension_limit = pp.interface_law().tension_limit();
    st.default_normal_limit = pp.interface_law().normal_limit();
    st.separation = std::isfinite(st.default_tension_limit) ||
                    std::isfinite(st.default_normal_limit);
    st.tension_limit.resize(laws.size());
    st.normal_limit.resize(laws.size());
    for (std::size_t b = 0; b < laws.size(); ++b) {
        st.tension_limit[b] = laws[b].tension_limit();
        st.normal_limit[b] = laws[b].normal_limit();
        st.separation = st.separation || std::isfinite(st.tension_limit[b]) ||
                        std::isfinite(st.normal_limit[b]);
    }
}

void compute_derivatives(const ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                         const PhysicsParameters& pp, Derivatives& out,
                         const LoadRequest* loads, const HaloRefresh& refresh, bool walls,
                         const StagePrologue& prologue, std::span<const InterfaceLaw> interfaces) {
    if (!nl.has_pairs(p))
        throw std::logic_error("compute_derivatives: the neighbour list has no pair lists for "
                               "this particle set (NeighbourList::select_pairs after build)");
    if (out.drho.size() != p.size() || out.dx[0].empty() == mt.any_xsph ||
        out.dhistory.size() != p.history.size())
        out.resize(p.size(), mt.any_xsph, p.history.size());
    if (!mt.any_plastic && out.plastic_written) {  // finish_particle leaves them as they are
        out.dplastic.assign(p.size(), 0.0);
        out.yielding.assign(p.size(), 0);
        out.power[kPlasticPower].assign(p.size(), 0.0);
    }
    out.plastic_written = mt.any_plastic;
    if (loads && loads->collect.size() != loads->reference.size())
        throw std::invalid_argument("compute_derivatives: load request with " +
                                    std::to_string(loads->collect.size()) + " bodies but " +
                                    std::to_string(loads->reference.size()) + " reference points");
    // The list counted the owned boundary particles at its build (a halo copy's owner finds
    // it among its own).
    if (!walls && nl.walls() > 0)
        throw std::logic_error("compute_derivatives: walls = false, but the particle set has "
                               "boundary particles");
    stage_tension_limits(pp, interfaces, out.staged);
    if (p.dim == 2)
        derivatives_for_options<2>(p, nl, mt, pp, loads, refresh, walls, prologue, out);
    else
        derivatives_3d(p, nl, mt, pp, loads, refresh, walls, prologue, out);
}
#endif

}  // namespace regosph
