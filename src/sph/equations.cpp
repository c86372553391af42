#include "sph/equations.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sph/kernel.hpp"
#include "core/tensor.hpp"

namespace regosph {

MaterialTable::MaterialTable(const std::vector<Material>& mats, int dim) : materials(mats) {
    for (const Material& m : mats) {
        DruckerPragerConstants c{};
        if (const auto* dp = std::get_if<DruckerPrager>(&m.model))
            c = drucker_prager_constants(dp->friction_angle, dp->cohesion, dim);
        drucker_prager.push_back(c);
        wave_speed.push_back(elastic_wave_speed(m));
        viscosity_speed.push_back(viscosity_sound_speed(m));
        const auto* es = std::get_if<ElasticSolid>(&m.model);
        artificial_stress.push_back(es ? es->artificial_stress : 0.0);
        artificial_stress_exponent.push_back(es ? es->artificial_stress_exponent : 0.0);
        xsph.push_back(es ? es->xsph : 0.0);
        any_artificial_stress = any_artificial_stress || artificial_stress.back() > 0.0;
        any_xsph = any_xsph || xsph.back() > 0.0;
    }
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

void Derivatives::resize(std::size_t n, bool position_rate) {
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
    yielding.assign(n, 0);
    dt_limit.assign(n, std::numeric_limits<double>::infinity());
}

namespace {

// Sums a dynamic particle gathers over its neighbours.
template <int Dim>
struct PairSums {
    double acc[Dim] = {};          // momentum, eq. 37 without gravity [m/s^2]
    double div_sum = 0.0;          // sum_b V_b (v_a - v_b) . grad_a W_ab  [1/s]
    double grad_v[Dim][Dim] = {};  // L_ij = sum_b (m_b / rho_a) (v_b - v_a)_i d_j W_ab  [1/s]
    double max_nu = 0.0;           // max |nu_ab| of approaching pairs [m/s]
    double xsph[Dim] = {};         // sum_b (m_b / rhobar_ab) (v_b - v_a) W_ab, same material [m/s]
};

// Layout of a particle's record in StagedParticles::record: field offsets in doubles. A
// symmetric tensor keeps its in-plane components in 2D (xx, yy, xy), all six in 3D (Voigt
// order); kSlot gives the slot of entry (i, j).
// ArtStress: the run has a material with artificial stress; otherwise the record ends before
// R (6 doubles less per particle in 3D).
template <int Dim, bool ArtStress>
struct Record {
    static constexpr int kTensor = Dim == 2 ? 3 : 6;
    static constexpr int x = 0;                   // position [m], Dim entries
    static constexpr int h = Dim;                 // support radius [m]
    static constexpr int v = Dim + 1;             // velocity [m/s], Dim entries
    static constexpr int rho = 2 * Dim + 1;       // [kg/m^3]
    static constexpr int mass = rho + 1;          // [kg]
    static constexpr int volume = rho + 2;        // m / rho [m^3]
    static constexpr int c_visc = rho + 3;        // viscosity sound speed [m/s], < 0: boundary
    static constexpr int key = rho + 4;           // XSPH partner key [-]
    static constexpr int stress = rho + 5;        // sigma / rho^2 [Pa m^6/kg^2], kTensor entries
    static constexpr int art = stress + kTensor;  // artificial stress R [Pa m^6/kg^2], kTensor
    static constexpr int size = ArtStress ? art + kTensor : art;
    static constexpr int kSlot[3][3] = {{0, Dim == 2 ? 2 : 3, 4}, {Dim == 2 ? 2 : 3, 1, 5}, {4, 5, 2}};
    static constexpr int kComponent[6] = {XX, YY, Dim == 2 ? XY : ZZ, XY, XZ, YZ};
};

// Whether a and b interact: 0 < r_ab < h_ab. A NaN distance counts as interacting, so that
// a broken state propagates into the derivatives (and the step is rejected).
// Written without a branch (&, not &&): a third of the Verlet list's entries are skin.
inline bool interacts(double r2, double h_ab) { return !(r2 >= h_ab * h_ab) & (r2 != 0.0); }

// The pair loop takes the interacting neighbours of a in blocks of kBlock, the last one
// padded with a itself (r = 0, which the support test turns into exact zeros). A block is one
// branch-free loop that the compiler vectorises (`omp simd`): the kernel's two branches, the
// viscosity of approaching pairs and the support test are selects, and every field of a
// neighbour is gathered from its record. Lane k keeps its own partial sums (neighbours k,
// k + kBlock, ...), and the lanes are added in lane order at the end: the sums of a particle
// are a fixed function of its neighbour row, the same on any number of threads.
constexpr std::size_t kBlock = 8;

// Writes the record of particle i, and for the artificial stress without a common exponent
// its per-particle data. Monaghan's artificial stress (Gray, Monaghan & Swift 2001):
//   m_b (R_a + R_b) f_ab^n . grad_a W_ab,  f_ab = W(r_ab, h) / W(dp, h),
// dp the initial particle spacing. Here dp is the particle's rest spacing V^(1/dim): V = m / rho0
// with its material's reference density for a dynamic particle (its volume in the initial
// lattice, constant in time), V = m / rho for a boundary particle (whose volume is fixed,
// extrapolate_boundary); G = 1 / shape(dp / h) (0 if dp reaches the support), so that
// f_ab = shape(q_ab) G for a uniformly filled body. With a common exponent n the record
// holds R G^n and the pair takes (R_a G_a^n + R_b G_b^n) shape(q_ab)^n, which is the
// formula above whenever G_a = G_b; otherwise f_ab = shape(q_ab) (G_a + G_b) / 2.
template <int Dim, bool ArtStress>
void write_record(const ParticleSet& p, const MaterialTable& mt, const std::vector<double>& rho0,
                  std::size_t i, StagedParticles& st) {
    using R = Record<Dim, ArtStress>;
    double* const rec = st.record.data() + i * R::size;
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
    rec[R::c_visc] = boundary ? -1.0 : mt.viscosity_speed[mat];
    rec[R::key] = boundary ? -1.0 : mat;
    for (int t = 0; t < R::kTensor; ++t)
        rec[R::stress + t] = p.stress[R::kComponent[t]][i] * inv_rho * inv_rho;
    if constexpr (!ArtStress) return;
    for (int t = 0; t < R::kTensor; ++t) rec[R::art + t] = 0.0;
    const double eps = mt.artificial_stress[mat];
    const int power = mt.artificial_stress_power;
    const double rest_volume = p.mass[i] / (boundary ? p.rho[i] : rho0[mat]);
    const double dp = Dim == 2 ? std::sqrt(rest_volume) : std::cbrt(rest_volume);
    const double w = kernel::shape(dp / p.h[i]);
    const double g = w > 0.0 ? 1.0 / w : 0.0;
    if (power == 0) {
        st.n_art[i] = eps > 0.0 ? mt.artificial_stress_exponent[mat] : 0.0;
        st.inv_w_rest[i] = g;
    }
    if (eps > 0.0) {
        SymTensor sigma;
        for (int c = 0; c < kSymComponents; ++c) sigma[c] = p.stress[c][i];
        const SymTensor r = artificial_stress(eps, sigma, p.rho[i], Dim);
        double scale = 1.0;  // G^n
        for (int k = 0; k < power; ++k) scale *= g;
        for (int t = 0; t < R::kTensor; ++t) rec[R::art + t] = r[R::kComponent[t]] * scale;
    }
}

// Copies the entries of `row` that interact with particle a to `out`, in row order (every
// entry is written, the count advances when the pair interacts), pads the last block with a
// itself and returns the number of interacting ones. The Verlet list's skin entries and
// coincident particles never reach the pair terms.
template <int Dim>
std::uint32_t select_interacting(const ParticleSet& p, std::size_t a,
                                 std::span<const std::uint32_t> row, std::uint32_t* out) {
    constexpr std::size_t kChunk = 64;
    const double* x[Dim];
    double xa[Dim];
    for (int d = 0; d < Dim; ++d) {
        x[d] = p.x[d].data();
        xa[d] = x[d][a];
    }
    const double* const h = p.h.data();
    const double h_a = h[a];
    std::uint32_t count = 0;
    for (std::size_t base = 0; base < row.size(); base += kChunk) {
        const std::size_t len = std::min(kChunk, row.size() - base);
        std::uint32_t keep[kChunk];
#pragma omp simd
        for (std::size_t k = 0; k < len; ++k) {
            const std::uint32_t b = row[base + k];
            double r2 = 0.0;
            for (int d = 0; d < Dim; ++d) r2 += (xa[d] - x[d][b]) * (xa[d] - x[d][b]);
            keep[k] = interacts(r2, 0.5 * (h_a + h[b])) ? 1 : 0;
        }
        for (std::size_t k = 0; k < len; ++k) {
            out[count] = row[base + k];
            count += keep[k];
        }
    }
    for (std::uint32_t k = count; k % kBlock != 0; ++k) out[k] = static_cast<std::uint32_t>(a);
    return count;
}

// The records of all particles, halo copies included (they are partners).
template <int Dim, bool ArtStress>
void stage_particles(const ParticleSet& p, const MaterialTable& mt, StagedParticles& st) {
    const std::size_t n = p.size();
    // The pair loop indexes records with 32-bit signed integers (gathers with 32-bit indices).
    using R = Record<Dim, ArtStress>;
    if (n >= std::size_t{0x7fffffff} / R::size)
        throw std::length_error("compute_derivatives: too many particles on one rank for the "
                                "32-bit record index");
    st.record_size = R::size;
    st.record.resize(n * R::size);
    if (mt.any_artificial_stress && mt.artificial_stress_power == 0) {
        st.n_art.resize(n);
        st.inv_w_rest.resize(n);
    }
    std::vector<double> rho0(mt.materials.size());
    for (std::size_t m = 0; m < rho0.size(); ++m) rho0[m] = reference_density(mt.materials[m]);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
        write_record<Dim, ArtStress>(p, mt, rho0, i, st);
    }
}

// ArtStress / Xsph: whether the run has a material with Monaghan's artificial stress / XSPH;
// without them the pair loop contains neither term.
template <int Dim, bool ArtStress, bool Xsph>
PairSums<Dim> gather(const StagedParticles& st, const MaterialTable& mt, std::size_t a,
                     std::span<const std::uint32_t> partners, const PhysicsParameters& pp) {
    using R = Record<Dim, ArtStress>;
    const double* const rec = st.record.data();
    const double* const rec_a = rec + a * R::size;
    const double rho_a = rec_a[R::rho];
    const double inv_rho_a = 1.0 / rho_a;
    const double h_a = rec_a[R::h];
    const double c_a = rec_a[R::c_visc];
    const double key_a = rec_a[R::key];
    double xa[Dim], va[Dim], sa[R::kTensor], ra[R::kTensor];
    for (int d = 0; d < Dim; ++d) {
        xa[d] = rec_a[R::x + d];
        va[d] = rec_a[R::v + d];
    }
    for (int t = 0; t < R::kTensor; ++t) {
        sa[t] = rec_a[R::stress + t];
        if constexpr (ArtStress) ra[t] = rec_a[R::art + t];
    }

    // f_ab^n: multiplied out from the bits of a common whole exponent, or (power 0) by
    // std::pow with n_ab = max(n_a, n_b) before the vectorised loop.
    const int power = mt.artificial_stress_power;
    const bool bit1 = power & 1, bit2 = power & 2, bit4 = power & 4, bit8 = power & 8;
    const double whole_weight = power > 0 ? 1.0 : 0.0;
    double fn_pow[kBlock] = {};

    // Partial sums per lane.
    double acc[Dim][kBlock] = {}, div[kBlock] = {}, grad_v[Dim][Dim][kBlock] = {},
           max_nu[kBlock] = {}, xsph[Dim][kBlock] = {};
    for (std::size_t base = 0; base < partners.size(); base += kBlock) {
        if (ArtStress && power == 0) {
            for (std::size_t k = 0; k < kBlock; ++k) {
                const std::uint32_t b = partners[base + k];
                const std::int32_t ib = static_cast<std::int32_t>(b) * R::size;  // record of b
                double r2 = 0.0;
                for (int d = 0; d < Dim; ++d)
                    r2 += (xa[d] - rec[ib + R::x + d]) * (xa[d] - rec[ib + R::x + d]);
                const double h_ab = 0.5 * (h_a + rec[ib + R::h]);
                const double f = kernel::shape(std::sqrt(r2) / h_ab) * 0.5 *
                                 (st.inv_w_rest[a] + st.inv_w_rest[b]);
                fn_pow[k] = std::pow(f, std::max(st.n_art[a], st.n_art[b]));
            }
        }
#pragma omp simd
        for (std::size_t k = 0; k < kBlock; ++k) {
            const std::uint32_t b = partners[base + k];
            const std::int32_t ib = static_cast<std::int32_t>(b) * R::size;  // record of b
            double dx[Dim];
            double r2 = 0.0;
            for (int d = 0; d < Dim; ++d) {
                dx[d] = xa[d] - rec[ib + R::x + d];
                r2 += dx[d] * dx[d];
            }
            const double h_ab = 0.5 * (h_a + rec[ib + R::h]);
            // The padding (b = a, r = 0) gets r = 2 h: every kernel factor is 0 there.
            const bool inside = interacts(r2, h_ab);
            const double r = inside ? std::sqrt(r2) : 2.0 * h_ab;
            const double rho_sum = rho_a + rec[ib + R::rho];
            // One division gives 1 / (h r) for the kernel and 1 / ((r^2 + eps h^2) rhobar) for
            // the viscosity.
            const double denom = (inside ? r2 : r * r) + pp.av_epsilon * h_ab * h_ab;
            const double hr = h_ab * r;
            const double one_div = 1.0 / (hr * denom * rho_sum);
            const double inv = one_div * hr;  // 1 / (denom rho_sum)
            const kernel::PairFactors kf =
                kernel::pair_factors<Dim>(r, h_ab, one_div * denom * rho_sum);
            double grad[Dim], dv[Dim];
            double vr = 0.0, dv_dot_grad = 0.0;
            for (int d = 0; d < Dim; ++d) {
                grad[d] = kf.gradient * dx[d];  // grad_a W_ab
                dv[d] = va[d] - rec[ib + R::v + d];
                vr += dv[d] * dx[d];
                dv_dot_grad += dv[d] * grad[d];
            }
            const double m_b = rec[ib + R::mass];

            // Continuity (eq. 31); the factor rho_a is applied by the caller.
            div[k] += rec[ib + R::volume] * dv_dot_grad;

            // Velocity gradient for the strain and rotation rates (eqs. 38 and 23).
            const double w_v = -m_b * inv_rho_a;
            for (int i = 0; i < Dim; ++i)
                for (int j = 0; j < Dim; ++j) grad_v[i][j][k] += w_v * dv[i] * grad[j];

            // Artificial viscosity (eqs. 35-36), approaching pairs only. A boundary partner has
            // no sound speed of its own (its model is rigid): the pair uses c_a.
            // nu = h vr / (r^2 + eps h^2), Pi = (-alpha cbar nu + beta nu^2) / rhobar.
            const double c_b = rec[ib + R::c_visc] < 0.0 ? c_a : rec[ib + R::c_visc];
            const double nu = h_ab * vr * rho_sum * inv;
            const double pi_approaching =
                (-pp.av_alpha * 0.5 * (c_a + c_b) + pp.av_beta * nu) * nu * 2.0 * denom * inv;
            const bool approaching = inside && vr < 0.0;
            const double pi_ab = approaching ? pi_approaching : 0.0;
            max_nu[k] = approaching ? std::max(max_nu[k], -nu) : max_nu[k];

            // Momentum (eq. 37): m_b [sigma_a / rho_a^2 + sigma_b / rho_b^2 - Pi_ab I] . grad_a W_ab
            for (int i = 0; i < Dim; ++i) {
                double t = -pi_ab * grad[i];
                for (int j = 0; j < Dim; ++j) {
                    const int slot = R::kSlot[i][j];
                    t += (sa[slot] + rec[ib + R::stress + slot]) * grad[j];
                }
                acc[i][k] += m_b * t;
            }

            // Monaghan (2000) artificial stress, m_b (R_a + R_b) f_ab^n . grad_a W_ab (see
            // stage_particles for f_ab and the G^n in R). R is zero for compressive principal
            // stresses, so only tension is corrected.
            if constexpr (ArtStress) {
                const double w = kernel::shape(kf.q);
                // A blend rather than a select of the two ways: GCC 12 does not vectorise the
                // loop with that select on top of the bit selects.
                const double w2 = w * w, w4 = w2 * w2, w8 = w4 * w4;
                const double fn_whole =
                    (bit1 ? w : 1.0) * (bit2 ? w2 : 1.0) * (bit4 ? w4 : 1.0) * (bit8 ? w8 : 1.0);
                const double fn = fn_whole * whole_weight + fn_pow[k];
                for (int i = 0; i < Dim; ++i) {
                    double t = 0.0;
                    for (int j = 0; j < Dim; ++j) {
                        const int slot = R::kSlot[i][j];
                        t += (ra[slot] + rec[ib + R::art + slot]) * grad[j];
                    }
                    acc[i][k] += m_b * fn * t;
                }
            }

            // XSPH (Monaghan 1989): velocity of the neighbours of the same material, weighted
            // by m_b W_ab / rhobar_ab; the caller multiplies by the material's epsilon.
            if constexpr (Xsph) {
                double w_ab = kernel::normalisation<Dim>(1.0) * kernel::shape(kf.q);  // W(r, h)
                for (int d = 0; d < Dim; ++d) w_ab *= kf.inv_h;
                const double same = rec[ib + R::key] == key_a ? 1.0 : 0.0;
                const double w = same * m_b * w_ab * 2.0 * inv * denom;  // 2 / (rho_a + rho_b)
                for (int d = 0; d < Dim; ++d) xsph[d][k] -= w * dv[d];  // dv = v_a - v_b
            }
        }
    }

    PairSums<Dim> s;
    for (std::size_t k = 0; k < kBlock; ++k) {
        for (int i = 0; i < Dim; ++i) {
            s.acc[i] += acc[i][k];
            for (int j = 0; j < Dim; ++j) s.grad_v[i][j] += grad_v[i][j][k];
            if constexpr (Xsph) s.xsph[i] += xsph[i][k];
        }
        s.div_sum += div[k];
        s.max_nu = std::max(s.max_nu, max_nu[k]);
    }
    return s;
}

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

template <int Dim, bool ArtStress, bool Xsph>
void derivatives_impl(const ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                      const PhysicsParameters& pp, Derivatives& out) {
    const std::size_t n = p.owned();  // halo particles are partners only
    StagedParticles& st = out.staged;
    stage_particles<Dim, ArtStress>(p, mt, st);  // records of all particles, halo included

#pragma omp parallel
    {
    // The interacting neighbours of one particle, selected just before its pair loop (a
    // buffer per thread rather than a list per particle: memory of large 3D runs).
    std::vector<std::uint32_t> selected;
#pragma omp for schedule(dynamic, 256)
    for (std::size_t a = 0; a < n; ++a) {
        if (p.kind[a] != ParticleKind::dynamic) {
            out.dt_limit[a] = std::numeric_limits<double>::infinity();  // no limit of its own
            continue;
        }
        // The interacting neighbours, padded to whole blocks.
        const std::span<const std::uint32_t> row = nl.row(a);
        selected.resize(row.size() + kBlock);
        const std::uint32_t count = select_interacting<Dim>(p, a, row, selected.data());
        const std::size_t n_partners = (count + kBlock - 1) / kBlock * kBlock;
        const std::span<const std::uint32_t> partners(selected.data(), n_partners);
        const PairSums<Dim> s = gather<Dim, ArtStress, Xsph>(st, mt, a, partners, pp);
        const int mat = p.material[a];

        double speed2 = 0.0;
        for (int d = 0; d < Dim; ++d) {
            out.dv[d][a] = s.acc[d] + pp.gravity[d];
            speed2 += p.v[d][a] * p.v[d][a];
            // Position rate: v, plus the XSPH term eps sum_b (m_b / rhobar_ab) (v_b - v_a) W_ab.
            if constexpr (Xsph) out.dx[d][a] = p.v[d][a] + mt.xsph[mat] * s.xsph[d];
        }
        out.drho[a] = p.rho[a] * s.div_sum;

        SymTensor eps;
        Spin w;
        strain_and_spin<Dim>(s.grad_v, eps, w);
        SymTensor sigma;
        for (int c = 0; c < kSymComponents; ++c) sigma[c] = p.stress[c][a];

        SymTensor rate{};
        double lambda_dot = 0.0;
        bool yielding = false;
        double wave_speed = mt.wave_speed[mat];
        const Model& model = mt.materials[mat].model;
        if (const auto* dp = std::get_if<DruckerPrager>(&model)) {
            const PlasticStressRate r =
                drucker_prager_stress_rate(*dp, mt.drucker_prager[mat], sigma, eps);
            rate = r.rate;
            lambda_dot = r.lambda_dot;
            yielding = r.yielding;
        } else if (const auto* es = std::get_if<ElasticSolid>(&model)) {
            // Hooke's deviatoric rate; the pressure follows from the density (EoS) after the
            // stage update. The Murnaghan solid stiffens under compression.
            rate = hooke_deviatoric_rate(*es, eps);
            wave_speed = elastic_wave_speed(*es, p.rho[a]);
        }
        // Jaumann rate (eq. 22): constitutive rate plus sigma R^T + R sigma.
        const SymTensor rot = jaumann_rotation_term(sigma, w);
        for (int c = 0; c < kSymComponents; ++c) out.dstress[c][a] = rate[c] + rot[c];
        out.dplastic[a] = lambda_dot;
        out.yielding[a] = yielding ? 1 : 0;

        // Courant condition with the artificial-viscosity signal speed (Monaghan 1992):
        // dt <= C h / (c + |v| + 1.2 (alpha c_visc + beta max|nu|)).
        const double signal = wave_speed + std::sqrt(speed2) +
                              1.2 * (pp.av_alpha * mt.viscosity_speed[mat] + pp.av_beta * s.max_nu);
        out.dt_limit[a] = signal > 0.0 ? pp.courant * p.h[a] / signal
                                       : std::numeric_limits<double>::infinity();
    }
    }  // omp parallel
}

template <int Dim>
void derivatives_for_options(const ParticleSet& p, const NeighbourList& nl,
                             const MaterialTable& mt, const PhysicsParameters& pp,
                             Derivatives& out) {
    const bool as = mt.any_artificial_stress, xs = mt.any_xsph;
    if (as && xs)
        derivatives_impl<Dim, true, true>(p, nl, mt, pp, out);
    else if (as)
        derivatives_impl<Dim, true, false>(p, nl, mt, pp, out);
    else if (xs)
        derivatives_impl<Dim, false, true>(p, nl, mt, pp, out);
    else
        derivatives_impl<Dim, false, false>(p, nl, mt, pp, out);
}

}  // namespace

void compute_derivatives(const ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                         const PhysicsParameters& pp, Derivatives& out) {
    if (out.drho.size() != p.size() || out.dx[0].empty() == mt.any_xsph)
        out.resize(p.size(), mt.any_xsph);
    if (p.dim == 2)
        derivatives_for_options<2>(p, nl, mt, pp, out);
    else
        derivatives_for_options<3>(p, nl, mt, pp, out);
}

namespace {
template <int Dim>
void extrapolate_impl(ParticleSet& p, const NeighbourList& nl, const PhysicsParameters& pp,
                      const std::array<std::vector<double>, 3>* wall_acc) {
    const std::size_t n = p.owned();  // halo walls get their values from their owners
#pragma omp parallel for schedule(dynamic, 256)
    for (std::size_t w = 0; w < n; ++w) {
        if (p.kind[w] != ParticleKind::boundary) continue;
        double g_rel[Dim];  // g - a_w
        for (int d = 0; d < Dim; ++d)
            g_rel[d] = pp.gravity[d] - (wall_acc ? (*wall_acc)[d][w] : 0.0);
        double sum_w = 0.0, sum_rho = 0.0, sum_head = 0.0;
        SymTensor sum_sigma{};
        for (const std::uint32_t f : nl.row(w)) {
            double r2 = 0.0, g_dot_r = 0.0;
            for (int d = 0; d < Dim; ++d) {
                const double dx = p.x[d][w] - p.x[d][f];
                r2 += dx * dx;
                g_dot_r += g_rel[d] * dx;
            }
            const double h_wf = 0.5 * (p.h[w] + p.h[f]);
            if (r2 >= h_wf * h_wf) continue;
            const double W = kernel::value<Dim>(std::sqrt(r2), h_wf);
            sum_w += W;
            sum_rho += p.rho[f] * W;
            sum_head += p.rho[f] * g_dot_r * W;
            for (int c = 0; c < kSymComponents; ++c) sum_sigma[c] += p.stress[c][f] * W;
        }
        const double volume = p.mass[w] / p.rho[w];
        if (sum_w > 0.0) {
            for (int c = 0; c < kSymComponents; ++c) p.stress[c][w] = sum_sigma[c] / sum_w;
            for (int c = XX; c <= ZZ; ++c) p.stress[c][w] -= sum_head / sum_w;
            p.rho[w] = sum_rho / sum_w;
            p.mass[w] = p.rho[w] * volume;
        } else {
            for (int c = 0; c < kSymComponents; ++c) p.stress[c][w] = 0.0;
        }
    }
}
}  // namespace

void extrapolate_boundary(ParticleSet& p, const NeighbourList& nl, const PhysicsParameters& pp,
                          const std::array<std::vector<double>, 3>* wall_acceleration) {
    if (p.dim == 2)
        extrapolate_impl<2>(p, nl, pp, wall_acceleration);
    else
        extrapolate_impl<3>(p, nl, pp, wall_acceleration);
}

}  // namespace regosph
