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
#include "core/tensor.hpp"

// A function compiled without GCC's loop and straight-line (SLP) vectorisers; other compilers
// ignore it.
#if defined(__GNUC__) && !defined(__clang__)
#define REGOSPH_NO_VECTORISE __attribute__((optimize("no-tree-vectorize")))
#else
#define REGOSPH_NO_VECTORISE
#endif

namespace regosph {

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
        any_artificial_stress = any_artificial_stress || artificial_stress.back() > 0.0;
        any_xsph = any_xsph || xsph.back() > 0.0;
        any_kernel_correction = any_kernel_correction || m.kernel_correction;
        any_plastic = any_plastic || plastic(m);
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

namespace {

// Sums a dynamic particle gathers over its neighbours.
template <int Dim>
struct PairSums {
    double acc[Dim] = {};          // momentum, eq. 37 without gravity [m/s^2]
    double div_sum = 0.0;          // sum_b V_b (v_a - v_b) . grad_a W_ab  [1/s]
    double grad_v[Dim][Dim] = {};  // L_ij = sum_b (m_b / rho_a) (v_b - v_a)_i d_j W_ab  [1/s]
    double max_nu = 0.0;           // max |nu_ab| of approaching pairs [m/s]
    double xsph[Dim] = {};         // sum_b (m_b / rhobar_ab) (v_b - v_a) W_ab, same material [m/s]
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

// Layout of a particle's record in StagedParticles::record: field offsets in doubles. A
// symmetric tensor is stored packed (pair_terms::packed_slot): its in-plane components in 2D
// (xx, yy, xy), all six in 3D (Voigt order).
// ArtStress: the run has a material with artificial stress; otherwise the record ends before
// R (6 doubles less per particle in 3D). Prepass: the run uses the gradient pre-pass
// (gradient_correction.hpp); the stress slot then holds sigma L / rho^2, a full Dim x Dim
// matrix (row-major), and the record ends with Balsara's f.
template <int Dim, bool ArtStress, bool Prepass = false>
struct Record {
    static constexpr int kTensor = pair_terms::kPackedSize<Dim>;
    static constexpr int kStress = Prepass ? Dim * Dim : kTensor;
    static constexpr int x = 0;                   // position [m], Dim entries
    static constexpr int h = Dim;                 // support radius [m]
    static constexpr int v = Dim + 1;             // velocity [m/s], Dim entries
    static constexpr int rho = 2 * Dim + 1;       // [kg/m^3]
    static constexpr int mass = rho + 1;          // [kg]
    static constexpr int volume = rho + 2;        // m / rho [m^3]
    static constexpr int c_visc = rho + 3;        // viscosity sound speed [m/s], < 0: boundary
    // XSPH partner key [-]: the material index of a dynamic particle; for a wall particle -1,
    // or -2 - mu_w on a free-slip / Coulomb wall (evaluations with loads; the pair loop reads
    // the friction from the record it gathers anyway).
    static constexpr int key = rho + 4;
    static constexpr int stress = rho + 5;        // sigma / rho^2 [Pa m^6/kg^2], kStress entries
    static constexpr int art = stress + kStress;  // artificial stress R [Pa m^6/kg^2], kTensor
    static constexpr int balsara = ArtStress ? art + kTensor : art;  // Balsara's f [-]
    static constexpr int size = Prepass ? balsara + 1 : balsara;
    // Doubles from one record to the next: whole cache lines (8 doubles), so that a block of
    // partners' records is read with aligned vector loads and transposed (load_block).
    static constexpr int stride = (size + 7) / 8 * 8;
    static constexpr int kComponent[6] = {XX, YY, Dim == 2 ? XY : ZZ, XY, XZ, YZ};
};

// The eight lanes of a block of the pair loop as one value of GCC's vector extensions
// (kernel.hpp: the pair terms take it as their lane type T): one AVX-512 register, two AVX2
// ones, or whatever the target has, GCC splitting each operation. (GCC's own type rather than
// __m512d, whose may_alias attribute a template argument would drop; the two convert into each
// other.)
using Vec8 = double __attribute__((vector_size(8 * sizeof(double))));
static_assert(kBlock == 8, "one Vec8 per block");
inline Vec8 load8(const double* lanes) {
    Vec8 v;
    std::memcpy(&v, lanes, sizeof v);
    return v;
}
inline void store8(double* lanes, const Vec8& v) { std::memcpy(lanes, &v, sizeof v); }

#if defined(__AVX512F__)

// Fields g0 .. g0 + 7 of the eight records `block`, field f in out[f - g0] (lane k: record
// block[k]): each record's eight fields read with one aligned 512-bit load and transposed in
// registers (unpack, then two rounds of permutations). GCC 12 knows this project's CPU only as
// znver3, whose tuning never emits gather instructions (bench/README.md, "Sixth round").
template <int Stride>
inline void transpose_group(const double* rec, const std::uint32_t* block, int g0,
                            Vec8 (&out)[8]) {
    static_assert(Stride % 8 == 0, "records are whole cache lines");
    static_assert(kBlock == 8, "the transpose takes eight records");
    const __m512i lo2 = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
    const __m512i hi2 = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    const __m512i lo4 = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
    const __m512i hi4 = _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15);
    __m512d row[8];
    for (int k = 0; k < 8; ++k)
        row[k] = _mm512_load_pd(rec + static_cast<std::size_t>(block[k]) * Stride + g0);
    // Pairs of lanes: t[2j] holds fields 0, 2, 4, 6 of records 2j and 2j + 1, t[2j + 1]
    // fields 1, 3, 5, 7. (The masked forms with every lane selected: the plain ones start from
    // an undefined vector, which GCC 12 reports as maybe uninitialised.)
    __m512d t[8];
    for (int j = 0; j < 4; ++j) {
        t[2 * j] = _mm512_mask_unpacklo_pd(row[2 * j], 0xff, row[2 * j], row[2 * j + 1]);
        t[2 * j + 1] = _mm512_mask_unpackhi_pd(row[2 * j], 0xff, row[2 * j], row[2 * j + 1]);
    }
    // Quads of lanes: u[4i + m] holds fields m' and m' + 4 of records 4i .. 4i + 3, with
    // m' = 0, 2, 1, 3 for m = 0, 1, 2, 3.
    __m512d u[8];
    for (int i = 0; i < 2; ++i) {
        u[4 * i + 0] = _mm512_permutex2var_pd(t[4 * i], lo2, t[4 * i + 2]);
        u[4 * i + 1] = _mm512_permutex2var_pd(t[4 * i], hi2, t[4 * i + 2]);
        u[4 * i + 2] = _mm512_permutex2var_pd(t[4 * i + 1], lo2, t[4 * i + 3]);
        u[4 * i + 3] = _mm512_permutex2var_pd(t[4 * i + 1], hi2, t[4 * i + 3]);
    }
    static constexpr int kField[4] = {0, 2, 1, 3};
    for (int m = 0; m < 4; ++m) {
        out[kField[m]] = _mm512_permutex2var_pd(u[m], lo4, u[4 + m]);
        out[kField[m] + 4] = _mm512_permutex2var_pd(u[m], hi4, u[4 + m]);
    }
}
#endif

// Copies fields 0 .. To - 1 of the records of the kBlock partners `block` into
// blk[field][lane] (a transpose): with AVX-512 the first pass of the pair loop takes the first
// eight (positions, h, velocities, density, ...) and its second pass transposes the others
// into registers itself (transpose_group), elsewhere all. Exact copies either way: the results
// do not depend on the path.
template <int Stride, int To = Stride>
inline void load_block(const double* rec, const std::uint32_t* block,
                       double (&blk)[Stride][kBlock]) {
    static_assert(Stride % 8 == 0 && To % 8 == 0, "records are whole cache lines");
#if defined(__AVX512F__)
    for (int g = 0; g < To; g += 8) {
        Vec8 fields[8];
        transpose_group<Stride>(rec, block, g, fields);
        for (int f = 0; f < 8; ++f) _mm512_store_pd(blk[g + f], fields[f]);
    }
#elif defined(__AVX2__)
    // Without AVX-512 (AVX2: bench/README.md, twelfth round), four records at a time: each
    // group of four fields is read with one aligned 256-bit load per record (a record is whole
    // cache lines) and transposed in registers, pairs by unpacking, then halves by 128-bit
    // permutations.
    static_assert(kBlock % 4 == 0, "the transpose takes four records");
    for (std::size_t k0 = 0; k0 < kBlock; k0 += 4) {
        const double* r[4];
        for (std::size_t k = 0; k < 4; ++k)
            r[k] = rec + static_cast<std::size_t>(block[k0 + k]) * Stride;
        for (int g = 0; g < To; g += 4) {
            const __m256d a = _mm256_load_pd(r[0] + g), b = _mm256_load_pd(r[1] + g);
            const __m256d c = _mm256_load_pd(r[2] + g), d = _mm256_load_pd(r[3] + g);
            // Fields 0 and 2 (even) or 1 and 3 (odd) of records a, b and of c, d.
            const __m256d ab_even = _mm256_unpacklo_pd(a, b), ab_odd = _mm256_unpackhi_pd(a, b);
            const __m256d cd_even = _mm256_unpacklo_pd(c, d), cd_odd = _mm256_unpackhi_pd(c, d);
            _mm256_store_pd(&blk[g][k0], _mm256_permute2f128_pd(ab_even, cd_even, 0x20));
            _mm256_store_pd(&blk[g + 1][k0], _mm256_permute2f128_pd(ab_odd, cd_odd, 0x20));
            _mm256_store_pd(&blk[g + 2][k0], _mm256_permute2f128_pd(ab_even, cd_even, 0x31));
            _mm256_store_pd(&blk[g + 3][k0], _mm256_permute2f128_pd(ab_odd, cd_odd, 0x31));
        }
    }
#else
    for (std::size_t k = 0; k < kBlock; ++k) {
        const double* r = rec + static_cast<std::size_t>(block[k]) * Stride;
        for (int f = 0; f < To; ++f) blk[f][k] = r[f];
    }
#endif
}

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
// records, in a sweep that vectorises in 2D (3D: std::cbrt has no vector form here), where
// inside write_record each particle waited for its own square root and divisions
// (bench/README.md, "Twenty-second and twenty-third rounds").
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
// of the staging pass, in the record's components (Record::kComponent): art[t][i - first].
template <int Dim>
using ChunkArtificialStress = std::array<std::array<double, kStageChunk>, pair_terms::kPackedSize<Dim>>;

// R of particles [first, last) whose material has one (epsilon > 0), else 0. In 2D one sweep
// that vectorises (artificial_stress_plane, the closed form without branches); in 3D particle
// by particle (an eigen-decomposition where sigma has a tensile principal stress).
template <int Dim>
void stage_artificial_stress(const ParticleSet& p, const MaterialTable& mt, std::size_t first,
                             std::size_t last, ChunkArtificialStress<Dim>& art) {
    if constexpr (Dim == 2) {
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
    } else {
        using R = Record<Dim, true, false>;
        for (std::size_t i = first; i < last; ++i) {
            const double eps = mt.artificial_stress[p.material[i]];
            SymTensor r{};
            if (eps > 0.0) {
                SymTensor sigma;
                for (int c = 0; c < kSymComponents; ++c) sigma[c] = p.stress[c][i];
                r = artificial_stress(eps, sigma, p.rho[i], Dim);
            }
            for (int t = 0; t < R::kTensor; ++t) art[t][i - first] = r[R::kComponent[t]];
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
template <int Dim, bool ArtStress, bool Prepass>
void write_record(const ParticleSet& p, const MaterialTable& mt, std::size_t i, double g,
                  const double* art, std::size_t art_stride, StagedParticles& st) {
    using R = Record<Dim, ArtStress, Prepass>;
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
    rec[R::c_visc] = boundary ? -1.0 : mt.viscosity_speed[mat];
    rec[R::key] = boundary ? -1.0 : mat;
    if constexpr (Prepass)
        write_corrected_stress<Dim>(p, i, st.prepass.data() + i * prepass_stride(Dim), inv_rho,
                                    rec + R::stress, rec[R::balsara]);
    else
        for (int t = 0; t < R::kTensor; ++t)
            rec[R::stress + t] = p.stress[R::kComponent[t]][i] * inv_rho * inv_rho;
    if constexpr (!ArtStress) return;
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
template <int Dim, bool ArtStress, bool Prepass>
std::vector<double> size_staging(const ParticleSet& p, const MaterialTable& mt, bool loads,
                                 StagedParticles& st) {
    const std::size_t n = p.size();
    using R = Record<Dim, ArtStress, Prepass>;
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
// particle of a collected body; -1 otherwise), and its wall friction. Halo copies included.
template <class R>
void stage_load_body(const ParticleSet& p, const LoadRequest& request, std::size_t i,
                     StagedParticles& st) {
    const auto body = static_cast<std::size_t>(p.body[i]);
    const bool wall = p.kind[i] == ParticleKind::boundary;
    const bool collected = wall && body < request.collect.size() && request.collect[body] != 0;
    st.load_body[i] = collected ? p.body[i] : -1;
    const bool slips = wall && body < request.wall_friction.size() &&
                       request.wall_friction[body] >= 0.0;
    if (slips) st.record[i * R::stride + R::key] = -2.0 - request.wall_friction[body];
}

// Where the loads of one dynamic particle on bodies go (body_loads.hpp), for the pair loops
// that collect them.
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

// The wall normal at dynamic particle a from its free-slip / Coulomb wall partners (see
// pair_terms.hpp): n = sum_b V_b grad_a W_ab normalised; false when it has none.
template <int Dim, class R>
bool wall_normal(const StagedParticles& st, const double* rec_a,
                 std::span<const std::uint32_t> partners, double (&n)[Dim],
                 std::uint32_t& first_wall) {
    bool any = false;
    for (int d = 0; d < Dim; ++d) n[d] = 0.0;
    for (const std::uint32_t b : partners) {
        const double* rec_b = st.record.data() + static_cast<std::size_t>(b) * R::stride;
        if (!(rec_b[R::key] <= -2.0)) continue;  // not a slip wall (Record::key)
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
        for (int d = 0; d < 3; ++d) it->force[d] += dF[d];
        it->torque[0] += r[1] * dF[2] - r[2] * dF[1];
        it->torque[1] += r[2] * dF[0] - r[0] * dF[2];
        it->torque[2] += r[0] * dF[1] - r[1] * dF[0];
    }
}

// Adds the reaction to the pair forces m_a m_b t of one block of partners on the bodies that
// are collected: particle b of a body feels -m_a m_b t, with torque (x_b - x_ref) x F. A new
// share starts whenever the body changes along the row.
template <int Dim, class R>
void add_load_shares(const double* rec, const std::uint32_t* block, double m_a,
                     const double (&pair_force)[Dim][kBlock], const LoadSink& sink) {
    for (std::size_t k = 0; k < kBlock; ++k) {
        const std::int32_t body = sink.body_of[block[k]];
        if (body < 0) continue;
        std::vector<LoadShare>& out = *sink.shares;
        if (out.empty() || out.back().id != sink.id_a || out.back().body != body)
            out.push_back(LoadShare{sink.id_a, body, {}, {}});
        LoadShare& share = out.back();
        const double* x_b = rec + static_cast<std::size_t>(block[k]) * R::stride + R::x;
        double f[3] = {0.0, 0.0, 0.0}, r[3] = {0.0, 0.0, 0.0};
        for (int d = 0; d < Dim; ++d) {
            f[d] = -m_a * pair_force[d][k];
            r[d] = x_b[d] - sink.reference[body][d];
        }
        if constexpr (Dim == 2) r[2] = -sink.reference[body][2];
        for (int d = 0; d < 3; ++d) share.force[d] += f[d];
        share.torque[0] += r[1] * f[2] - r[2] * f[1];
        share.torque[1] += r[2] * f[0] - r[0] * f[2];
        share.torque[2] += r[0] * f[1] - r[1] * f[0];
    }
}

// The pair terms of a block that the loads on bodies take (evaluations with loads; block_loads),
// kept apart from the partial sums (LaneSums) so that collecting loads leaves the arithmetic of
// the sums (and so the results) unchanged.
template <int Dim, class V>
struct LoadTerms {
    V mass{}, momentum[Dim]{}, art_weight{}, art[Dim]{}, mu{};
};

// After the pair terms of one block, in evaluations with loads: the lanes' pair forces
// m_b [momentum + f^n artificial stress] [m/s^2], their reaction on the collected bodies
// (add_load_shares), and with slip walls next to a (`slip`, n: the wall normal at a) the
// slip-wall partners' share (lanes with mu = mu_w >= 0): their sum on a and mu_w times
// their normal parts, lane by lane, for the Coulomb limit after the pair loop (outside the
// vectorised loop, whose sums stay as they are without slip walls). Out of line: inlined
// after the vectorised loop, these loops left that loop scalar in 3D (GCC 12; bench/README.md,
// "Seventeenth round").
template <int Dim, class R>
[[gnu::noinline]] void block_loads(const double* rec, const std::uint32_t* block, double m_a,
                                   const LoadTerms<Dim, Vec8>& terms, bool slip,
                                   const double (&n)[Dim], const LoadSink& sink,
                                   double (&wall_force)[Dim][kBlock],
                                   double (&wall_limit)[kBlock]) {
    alignas(64) double lane_mass[kBlock], lane_momentum[Dim][kBlock], lane_art_weight[kBlock],
        lane_art[Dim][kBlock], lane_mu[kBlock];
    store8(lane_mass, terms.mass);
    store8(lane_art_weight, terms.art_weight);
    store8(lane_mu, terms.mu);
    for (int i = 0; i < Dim; ++i) {
        store8(lane_momentum[i], terms.momentum[i]);
        store8(lane_art[i], terms.art[i]);
    }
    double pair_force[Dim][kBlock];
    for (std::size_t k = 0; k < kBlock; ++k)
        for (int i = 0; i < Dim; ++i)
            pair_force[i][k] = lane_mass[k] * lane_momentum[i][k] +
                               lane_art_weight[k] * lane_art[i][k];
    add_load_shares<Dim, R>(rec, block, m_a, pair_force, sink);
    if (!slip) return;
    for (std::size_t k = 0; k < kBlock; ++k) {
        if (!(lane_mu[k] >= 0.0)) continue;
        double f_n = 0.0;
        for (int i = 0; i < Dim; ++i) {
            wall_force[i][k] += pair_force[i][k];
            f_n += pair_force[i][k] * n[i];
        }
        wall_limit[k] += lane_mu[k] * f_n;
    }
}

// A dynamic particle next to a Coulomb wall: the wall's force on it per unit mass [m/s^2],
// split along the wall normal.
struct CoulombContact {
    std::size_t a;
    std::int32_t body;
    double fn;
    double ft[3];
    double v_wall[3];  // the wall's velocity next to a [m/s] (its first slip wall particle)
};

// Coulomb's law over the whole contact of each Coulomb wall (pair_terms.hpp): the tangential
// forces of the particles on it, sum m_a |F_t|, may reach mu_w max(sum m_a F_n, 0); beyond, each
// particle's F_t is scaled by the same factor. The sums run in particle-id order on every rank
// (sum_load_shares); the loads of collected bodies take the reaction, acting at x_a.
void apply_coulomb_limit(const ParticleSet& p, const LoadRequest& request,
                         std::vector<CoulombContact>& contacts, Derivatives& out) {
    const std::size_t n_bodies = request.wall_friction.size();
    if (std::none_of(request.wall_friction.begin(), request.wall_friction.end(),
                     [](double mu) { return mu > 0.0; }))
        return;
    std::vector<LoadShare> sums;
    for (const CoulombContact& c : contacts) {
        LoadShare s{p.id[c.a], c.body, {}, {}};
        s.force[0] = p.mass[c.a] * c.fn;
        s.force[1] = p.mass[c.a] * std::sqrt(c.ft[0] * c.ft[0] + c.ft[1] * c.ft[1] + c.ft[2] * c.ft[2]);
        sums.push_back(s);
    }
    const std::vector<BodyLoad> totals = sum_load_shares(sums, n_bodies);  // collective
    std::vector<double> scale(n_bodies, 1.0);
    for (std::size_t b = 0; b < n_bodies; ++b) {
        const double allowed = request.wall_friction[b] * std::max(totals[b].force[0], 0.0);
        const double tangential = totals[b].force[1];
        if (tangential > allowed) scale[b] = allowed / tangential;
    }
    std::vector<LoadShare> reactions;
    for (const CoulombContact& c : contacts) {
        const auto b = static_cast<std::size_t>(c.body);
        const double change = scale[b] - 1.0;
        if (change == 0.0) continue;
        double slip = 0.0;  // the correction's power relative to the wall (energy budget)
        for (int d = 0; d < p.dim; ++d) {
            out.dv[d][c.a] += change * c.ft[d];
            slip += change * c.ft[d] * (p.v[d][c.a] - c.v_wall[d]);
        }
        out.power[kWallPower][c.a] -= p.mass[c.a] * slip;
        if (!(b < request.collect.size() && request.collect[b])) continue;
        LoadShare r{p.id[c.a], c.body, {}, {}};
        double x[3] = {0.0, 0.0, 0.0};
        for (int d = 0; d < p.dim; ++d) {
            r.force[d] = -p.mass[c.a] * change * c.ft[d];
            x[d] = p.x[d][c.a] - request.reference[b][d];
        }
        r.torque[0] = x[1] * r.force[2] - x[2] * r.force[1];
        r.torque[1] = x[2] * r.force[0] - x[0] * r.force[2];
        r.torque[2] = x[0] * r.force[1] - x[1] * r.force[0];
        reactions.push_back(r);
    }
    const std::vector<BodyLoad> extra = sum_load_shares(reactions, n_bodies);  // collective
    add_scaled(out.loads, extra, 1.0);
}

// The pair loop of one dynamic particle a: the sums of pair_terms.hpp over its interacting
// neighbours. ArtStress / Xsph: whether the run has a material with Monaghan's artificial
// stress / XSPH; without them the loop contains neither term. Loads: the reaction of the pair
// forces on collected bodies goes to `sink` (only evaluations that ask for loads). Prepass:
// the momentum takes sigma L / rho^2 of both partners and the viscosity Balsara's factor
// (gradient_correction.hpp).
// Whether every lane of the block of partners `block` lies beyond the support of a, or is a
// itself (the padding), so that the pair loop would find no lane that interacts. Read from
// the records directly (positions and h only; with AVX-512 four gathers instead of the
// transposition of eight fields). Tested against the support radius widened by a relative
// 1e-12, far more than the rounding by which this sum and the pair loop's may differ, so that
// a block is skipped only when the pair loop's own test would give no interacting lane
// either; a NaN distance is never beyond.
template <int Dim, class R>
inline bool beyond_support(const double* rec, const std::uint32_t* block,
                           const double (&xa)[Dim], double h_a) {
    constexpr double kWidened = (1.0 + 1e-12) * kSupportFraction2;
#if defined(__AVX512F__)
    static_assert(kBlock == 8, "one 512-bit vector of lanes");
    // The zero-masked forms with every lane selected: the plain ones start from an undefined
    // vector, which GCC 12 reports as maybe uninitialised (as in load_block).
    const __mmask8 all = 0xff;
    const __m512i index = _mm512_maskz_cvtepu32_epi64(
        all, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block)));
    const __m512i first = _mm512_maskz_mul_epu32(all, index, _mm512_set1_epi64(R::stride));
    const auto field = [&](int offset) {  // field `offset` of the eight records
        return _mm512_mask_i64gather_pd(_mm512_setzero_pd(), all,
                                        _mm512_maskz_add_epi64(all, first,
                                                               _mm512_set1_epi64(offset)),
                                        rec, 8);
    };
    __m512d r2 = _mm512_setzero_pd();
    for (int d = 0; d < Dim; ++d) {
        const __m512d diff = _mm512_sub_pd(_mm512_set1_pd(xa[d]), field(R::x + d));
        r2 = _mm512_fmadd_pd(diff, diff, r2);
    }
    const __m512d hb = field(R::h);
    const __m512d h_ab = _mm512_mul_pd(_mm512_set1_pd(0.5), _mm512_add_pd(_mm512_set1_pd(h_a), hb));
    const __m512d limit = _mm512_mul_pd(_mm512_set1_pd(kWidened), _mm512_mul_pd(h_ab, h_ab));
    // Ordered comparisons: false for NaN, which is thus never beyond.
    const __mmask8 beyond = _mm512_cmp_pd_mask(r2, limit, _CMP_GE_OQ) |
                            _mm512_cmp_pd_mask(r2, _mm512_setzero_pd(), _CMP_EQ_OQ);
    return beyond == 0xff;
#else
    bool beyond = true;
    for (std::size_t k = 0; k < kBlock; ++k) {
        const double* r = rec + static_cast<std::size_t>(block[k]) * R::stride;
        double r2 = 0.0;
        for (int d = 0; d < Dim; ++d) r2 += (xa[d] - r[R::x + d]) * (xa[d] - r[R::x + d]);
        const double h_ab = 0.5 * (h_a + r[R::h]);
        beyond = beyond && ((r2 >= kWidened * h_ab * h_ab) || r2 == 0.0);
    }
    return beyond;
#endif
}

// The distance and the one division of the pairs of a block, the first pass of the pair loop
// (gather). r: |x_a - x_b|, with the padding (b = a, r = 0) and the lanes beyond the support
// set to r = 2 h_ab, where every kernel factor is 0. denom: r^2 + eps h_ab^2, the viscosity's
// denominator (eq. 27). one_div: 1 / (h_ab r denom (rho_a + rho_b)), which gives 1 / (h r) for
// the kernel and 1 / (denom (rho_a + rho_b)) for the viscosity.
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

// The partial sums of the second pass of the pair loop (pair_lanes in gather), one per lane,
// kept in registers across a particle's blocks.
template <int Dim, class V>
struct LaneSums {
    V acc[Dim], div, grad_v[Dim][Dim], max_nu, xsph[Dim], work, visc, art_work;
};

// `margin_blocks`: where the blocks of the pair list that hold only entries of its margin and
// padding begin (NeighbourList::margin_blocks).
// Walls: the run has boundary particles (compute_derivatives); without them the pair work of
// the walls' energy term is left out.
template <int Dim, bool ArtStress, bool Xsph, bool Loads, bool Prepass, bool Walls>
PairSums<Dim> gather(const StagedParticles& st, const MaterialTable& mt, std::size_t a,
                     std::span<const std::uint32_t> partners, std::size_t margin_blocks,
                     const PhysicsParameters& pp, const LoadSink& sink) {
    using R = Record<Dim, ArtStress, Prepass>;
    const double* const rec = st.record.data();
    const double* const rec_a = rec + a * R::stride;
    const double rho_a = rec_a[R::rho];
    const double inv_rho_a = 1.0 / rho_a;
    const double h_a = rec_a[R::h];
    const double c_a = rec_a[R::c_visc];
    const double key_a = rec_a[R::key];
    double xa[Dim], va[Dim], sa[R::kStress], ra[R::kTensor];
    for (int d = 0; d < Dim; ++d) {
        xa[d] = rec_a[R::x + d];
        va[d] = rec_a[R::v + d];
    }
    for (int t = 0; t < R::kStress; ++t) sa[t] = rec_a[R::stress + t];
    if constexpr (ArtStress)
        for (int t = 0; t < R::kTensor; ++t) ra[t] = rec_a[R::art + t];
    [[maybe_unused]] double f_a = 1.0;  // Balsara's factor of a
    if constexpr (Prepass) f_a = rec_a[R::balsara];

    // f_ab^n: multiplied out from the bits of a common whole exponent, or (power 0) by
    // std::pow with n_ab = max(n_a, n_b) before the vectorised loop.
    const int power = mt.artificial_stress_power;
    const bool bit1 = power & 1, bit2 = power & 2, bit4 = power & 4, bit8 = power & 8;
    const double whole_weight = power > 0 ? 1.0 : 0.0;
    alignas(64) double fn_pow[kBlock] = {};

    // Free-slip and Coulomb walls (pair_terms.hpp): the wall normal at a.
    [[maybe_unused]] double n_wall[Dim] = {};
    [[maybe_unused]] bool slip = false;
    [[maybe_unused]] std::uint32_t first_wall = 0;  // the slip wall particle met first
    if constexpr (Loads)
        if (sink.any_slip) slip = wall_normal<Dim, R>(st, rec_a, partners, n_wall, first_wall);
    [[maybe_unused]] double wall_force[Dim][kBlock] = {}, wall_limit[kBlock] = {};

    // The list goes in groups of up to kGroup blocks. A first pass over a group computes each
    // pair's distance and the one division (PairGeometry), the second its terms: the square
    // roots and divisions of several blocks are then in flight together, where a block's
    // terms used to wait for its own (that latency held ~20 % of the loop's samples,
    // bench/README.md, "Fourteenth round"). The second pass takes the distance and the support
    // test from the first; the results are those of a single pass, to the bit.
    // The second pass: the terms of a block's eight pairs at once (pair_terms.hpp on Vec8
    // lanes), added to `out`. field(f): the partners' record field f; r, denom and one_div from
    // the first pass (PairGeometry); fn_extra: f_ab^n when it is not a whole power (fn_pow).
    const auto pair_lanes = [&](auto field, Vec8 r, Vec8 denom, Vec8 one_div, Vec8 fn_extra,
                                LaneSums<Dim, Vec8>& out,
                                [[maybe_unused]] LoadTerms<Dim, Vec8>& lanes) {
        using V = Vec8;
        const V zero = kernel::splat<V>(0.0), one = kernel::splat<V>(1.0);
        V dx[Dim];
        for (int d = 0; d < Dim; ++d) dx[d] = xa[d] - field(R::x + d);
        const V h_ab = 0.5 * (h_a + field(R::h));
        // The first pass's support test, read back from r: a lane within the support has
        // r < h_ab, one beyond it (or the padding) r = 2 h_ab; NaN stays inside.
        const auto inside = !(r >= 2.0 * h_ab);
        const V rho_sum = rho_a + field(R::rho);
        const V hr = h_ab * r;
        const V inv = one_div * hr;  // 1 / (denom rho_sum)
        const kernel::PairFactors<V> kf =
            kernel::pair_factors<Dim>(r, h_ab, V(one_div * denom * rho_sum));
        V grad[Dim], dv[Dim];
        V vr = zero, dv_dot_grad = zero;
        for (int d = 0; d < Dim; ++d) {
            grad[d] = kf.gradient * dx[d];  // grad_a W_ab
            dv[d] = va[d] - field(R::v + d);
            vr += dv[d] * dx[d];
            dv_dot_grad += dv[d] * grad[d];
        }
        const V m_b = field(R::mass);

        out.div += pair_terms::continuity(field(R::volume), dv_dot_grad);

        // A free-slip or Coulomb wall partner: only the normal part of the relative velocity
        // enters the strain rate.
        [[maybe_unused]] V mu_b = zero - 1.0;
        V dv_l[Dim];
        for (int d = 0; d < Dim; ++d) dv_l[d] = dv[d];
        if constexpr (Loads) {
            const V key_b = field(R::key);
            mu_b = inside && key_b <= -2.0 ? -2.0 - key_b : zero - 1.0;
            V normal[Dim];
            pair_terms::along<Dim>(dv, n_wall, normal);
            for (int d = 0; d < Dim; ++d) dv_l[d] = mu_b >= 0.0 ? normal[d] : dv[d];
        }
        V L[Dim][Dim];
        pair_terms::velocity_gradient<Dim>(V(-m_b * inv_rho_a), dv_l, grad, L);
        for (int i = 0; i < Dim; ++i)
            for (int j = 0; j < Dim; ++j) out.grad_v[i][j] += L[i][j];

        // Artificial viscosity, approaching pairs only. A boundary partner has no sound speed
        // of its own (its model is rigid): the pair uses c_a.
        const V c_visc_b = field(R::c_visc);
        const V c_b = c_visc_b < 0.0 ? zero + c_a : c_visc_b;
        const V nu = pair_terms::viscosity_nu(h_ab, vr, rho_sum, inv);
        const V pi_approaching =
            pair_terms::viscosity_pi(pp.av_alpha, pp.av_beta, c_a, c_b, nu, denom, inv);
        const auto approaching = inside && vr < 0.0;
        V pi_ab = approaching ? pi_approaching : zero;
        if constexpr (Prepass)  // Balsara: (f_a + f_b) / 2, a wall partner takes f_a
            pi_ab *= 0.5 * (f_a + (c_visc_b < 0.0 ? zero + f_a : field(R::balsara)));
        const V larger = out.max_nu < -nu ? -nu : out.max_nu;  // std::max(max_nu, -nu)
        out.max_nu = approaching ? larger : out.max_nu;

        V t[Dim];
        pair_terms::momentum<Dim, Prepass>(sa, [&](int slot) { return field(R::stress + slot); },
                                           pi_ab, grad, t);
        for (int i = 0; i < Dim; ++i) out.acc[i] += m_b * t[i];
        // Energy budget: a wall partner's share is whole, a dynamic one's half.
        const V share = Walls && c_visc_b < 0.0 ? m_b : 0.5 * m_b;
        if constexpr (Walls) out.work += share * pair_terms::pair_work<Dim>(dv, t);
        out.visc += share * pi_ab * dv_dot_grad;
        if constexpr (Loads) {
            lanes.mass = m_b;
            for (int i = 0; i < Dim; ++i) lanes.momentum[i] = t[i];
        }

        // Artificial stress (see write_record for f_ab and the G^n in R). R is zero for
        // compressive principal stresses, so only tension is corrected.
        if constexpr (ArtStress) {
            // A blend rather than a select of the two ways: GCC 12 does not vectorise the
            // loop with that select on top of the bit selects.
            const V fn =
                pair_terms::whole_power(kernel::shape(kf.q), bit1, bit2, bit4, bit8) *
                    whole_weight +
                fn_extra;
            V ta[Dim];
            pair_terms::artificial_stress<Dim>(ra, [&](int slot) { return field(R::art + slot); },
                                               grad, ta);
            for (int i = 0; i < Dim; ++i) out.acc[i] += m_b * fn * ta[i];
            out.art_work += share * fn * pair_terms::pair_work<Dim>(dv, ta);
            if constexpr (Loads) {
                lanes.art_weight = m_b * fn;
                for (int i = 0; i < Dim; ++i) lanes.art[i] = ta[i];
            }
        }

        if constexpr (Loads) lanes.mu = mu_b;

        // XSPH: velocity of the neighbours of the same material; the caller multiplies by the
        // material's epsilon.
        if constexpr (Xsph) {
            V w_ab = kernel::normalisation<Dim>(1.0) * kernel::shape(kf.q);  // W(r, h)
            for (int d = 0; d < Dim; ++d) w_ab *= kf.inv_h;
            const V same = field(R::key) == key_a ? one : zero;
            const V w = pair_terms::xsph_weight(same, m_b, w_ab, inv, denom);
            for (int d = 0; d < Dim; ++d) out.xsph[d] -= w * dv[d];  // dv = v_a - v_b
        }
    };
    LaneSums<Dim, Vec8> block_sums{};  // zero, in registers across the blocks
#if defined(__AVX512F__)
    // The first pass transposes the first eight fields (it reads x, h and rho among them), the
    // second the others.
    constexpr int kFirstPassFields = 8;
    static_assert(R::x + Dim <= 8 && R::h < 8 && R::rho < 8, "the first pass's fields");
#else
    constexpr int kFirstPassFields = R::stride;
#endif
    constexpr std::size_t kGroup = 4;
    for (std::size_t group = 0; group < partners.size(); group += kGroup * kBlock) {
        // The partners' records, field by field (blocks[g][field][lane]): the vectorised loops
        // then read each field with contiguous loads instead of one load per lane.
        alignas(64) double blocks[kGroup][R::stride][kBlock];
        alignas(64) PairGeometry geometry[kGroup];
        std::size_t kept[kGroup];  // where each block of `blocks` starts in the list
        std::size_t n_kept = 0;
        const std::size_t group_end = std::min(partners.size(), group + kGroup * kBlock);
        for (std::size_t base = group; base < group_end; base += kBlock) {
            // A block of the list's margin (entries beyond the support at the selection) and
            // padding is skipped while none of its lanes has come within the support: it would
            // add exact zeros to every sum (pair_selection.hpp).
            if (base >= margin_blocks &&
                beyond_support<Dim, R>(rec, partners.data() + base, xa, h_a))
                continue;
            load_block<R::stride, kFirstPassFields>(rec, partners.data() + base,
                                                    blocks[n_kept]);
            pair_geometry<Dim, R>(blocks[n_kept], xa, h_a, rho_a, pp.av_epsilon,
                                  geometry[n_kept]);
            kept[n_kept++] = base;
        }
        for (std::size_t g = 0; g < n_kept; ++g) {
            const std::size_t base = kept[g];
            const double (&blk)[R::stride][kBlock] = blocks[g];
            const PairGeometry& geo = geometry[g];
            if (ArtStress && power == 0) {
                for (std::size_t k = 0; k < kBlock; ++k) {
                    const std::uint32_t b = partners[base + k];
                    const double h_ab = 0.5 * (h_a + blk[R::h][k]);
                    // The first pass's distance (2 h_ab beyond the support and on the padding,
                    // where f is 0 and the pair's gradient is 0 anyway).
                    const double f = kernel::shape(geo.r[k] / h_ab) * 0.5 *
                                     (st.inv_w_rest[a] + st.inv_w_rest[b]);
                    fn_pow[k] = std::pow(f, std::max(st.n_art[a], st.n_art[b]));
                }
            }
            {
#if defined(__AVX512F__)
                // The fields beyond the first eight (sound speed, key, sigma / rho^2, R, ...)
                // transposed into registers here, where the terms read them, instead of being
                // stored by the first pass and loaded again (bench/README.md, "Twenty-second
                // round").
                Vec8 tail[R::stride / 8 - 1][8];
                for (int group8 = 1; group8 < R::stride / 8; ++group8) {
                    __m512d fields[8];
                    transpose_group<R::stride>(rec, partners.data() + base, 8 * group8, fields);
                    for (int f = 0; f < 8; ++f) tail[group8 - 1][f] = fields[f];
                }
                const auto field = [&](int f) -> Vec8 {
                    return f < 8 ? load8(blk[f]) : tail[f / 8 - 1][f % 8];
                };
#else
                const auto field = [&](int f) -> Vec8 { return load8(blk[f]); };
#endif
                LoadTerms<Dim, Vec8> to_loads{};
                pair_lanes(field, load8(geo.r), load8(geo.denom), load8(geo.one_div),
                           load8(fn_pow), block_sums, to_loads);
                if constexpr (Loads)
                    block_loads<Dim, R>(rec, partners.data() + base, rec_a[R::mass], to_loads,
                                        slip, n_wall, sink, wall_force, wall_limit);
            }
        }
    }

    // The partial sums per lane (the energy budget's, PairSums::work, ..., among them), for
    // lane_sums.
    alignas(64) double acc[Dim][kBlock], div[kBlock], grad_v[Dim][Dim][kBlock], max_nu[kBlock],
        xsph[Dim][kBlock], work[kBlock], visc[kBlock], art_work[kBlock];
    store8(div, block_sums.div);
    store8(max_nu, block_sums.max_nu);
    store8(work, block_sums.work);
    store8(visc, block_sums.visc);
    store8(art_work, block_sums.art_work);
    for (int i = 0; i < Dim; ++i) {
        store8(acc[i], block_sums.acc[i]);
        store8(xsph[i], block_sums.xsph[i]);
        for (int j = 0; j < Dim; ++j) store8(grad_v[i][j], block_sums.grad_v[i][j]);
    }
    // The lanes' partial sums added (lane_sums); the terms a run does not have are zero.
    constexpr std::size_t kRows = 2 * Dim + Dim * Dim + 4;
    const double* rows[kRows];
    std::size_t row = 0;
    for (int i = 0; i < Dim; ++i) {
        rows[row++] = acc[i];
        rows[row++] = xsph[i];
        for (int j = 0; j < Dim; ++j) rows[row++] = grad_v[i][j];
    }
    for (const double* r : {div, work, visc, art_work}) rows[row++] = r;
    double sums[kRows];
    lane_sums(rows, sums);
    PairSums<Dim> s;
    row = 0;
    for (int i = 0; i < Dim; ++i) {
        s.acc[i] = sums[row++];
        s.xsph[i] = sums[row++];
        for (int j = 0; j < Dim; ++j) s.grad_v[i][j] = sums[row++];
    }
    s.div_sum = sums[row++];
    s.work = sums[row++];
    s.viscous = sums[row++];
    s.art_work = sums[row++];
    for (std::size_t k = 0; k < kBlock; ++k) s.max_nu = std::max(s.max_nu, max_nu[k]);
    if constexpr (Loads) {
        if (slip) {  // the slip walls' force on a
            double F[Dim] = {}, limit = 0.0, corr[Dim];
            for (std::size_t k = 0; k < kBlock; ++k) {
                for (int i = 0; i < Dim; ++i) F[i] += wall_force[i][k];
                limit += wall_limit[k];
            }
            const double* const rec_wall = rec + static_cast<std::size_t>(first_wall) * R::stride;
            for (int i = 0; i < Dim; ++i) s.wall_v[i] = rec_wall[R::v + i];
            // The wall's mu_w, from the key of its record (-2 - mu_w).
            if (-2.0 - rec_wall[R::key] > 0.0) {
                // Coulomb: limited over the whole contact with the body after the loop
                // (apply_coulomb_limit).
                s.coulomb_body = sink.body_of_wall[first_wall];
                double fn[Dim];
                pair_terms::along<Dim>(F, n_wall, fn);
                for (int i = 0; i < Dim; ++i) {
                    s.wall_fn += F[i] * n_wall[i];
                    s.wall_ft[i] = F[i] - fn[i];
                }
            } else {  // free-slip: no tangential part at all
                const double scale = pair_terms::coulomb_correction<Dim>(F, n_wall, limit, corr);
                for (int i = 0; i < Dim; ++i) {
                    s.acc[i] += corr[i];
                    s.slip_power += corr[i] * (va[i] - s.wall_v[i]);
                }
                if (sink.shares) limit_load_shares<Dim>(sink, xa, n_wall, scale);
            }
        }
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

// The part of the dynamic particles' Courant signal speed (finish_particle) that does not
// depend on their pair sums: the material's wave speed at rho_a plus |v_a| [m/s], for
// particles [first, last) into base[a - first] (0 for the particles that are not dynamic). The
// pair loop takes it for a whole chunk of particles before their pair sums, in sweeps that
// vectorise (wave_speeds per run of one material): at the end of finish_particle each
// particle waited for its own divisions and square roots (bench/README.md, "Twenty-second
// and twenty-third rounds"). The same operations in the same order: the same bits.
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

// Rates of dynamic particle a from its pair sums: acceleration, position rate, density rate,
// the material's stress rate with the Jaumann terms, and its Courant limit, given the part of
// the signal speed without the viscosity's (signal_without_viscosity). `correction`: the
// kernel correction L_a (row-major) when a's material uses it, else nullptr.
// Scalar code (REGOSPH_NO_VECTORISE): GCC 12 vectorised the loops over the six stress
// components here with vector loads of values it had just stored to the stack one at a time,
// loads that wait until those stores have left the core (a failed store-to-load forwarding)
// at every particle. One such load held 21-31 % of the function's samples in the rings; without
// vectorisation the function takes 20-35 % fewer samples relative to the pair loop, with the
// same results to the bit (bench/README.md, "Thirteenth round").
template <int Dim, bool Xsph, bool Walls>
REGOSPH_NO_VECTORISE
void finish_particle(const ParticleSet& p, const MaterialTable& mt, const PhysicsParameters& pp,
                     std::size_t a, const PairSums<Dim>& s, const double* correction,
                     double signal_base, Derivatives& out) {
    const int mat = p.material[a];
    for (int d = 0; d < Dim; ++d) {
        out.dv[d][a] = s.acc[d] + pp.gravity[d];
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
    SymTensor sigma{};
    for (int c = 0; c < stress_components(Dim); ++c) sigma[c] = p.stress[c][a];
    // The model's history variables from their columns (MaterialTable::history_columns).
    std::array<double, kMaxHistoryVariables> history;
    const std::vector<int>& columns = mt.history_columns[mat];
    for (std::size_t i = 0; i < columns.size(); ++i)
        history[i] = p.history.values[static_cast<std::size_t>(columns[i])][a];
    const StressRate r =
        stress_rate(mt.materials[mat], MaterialState{p.rho[a], sigma, history.data()}, eps, w);
    // Jaumann rate (eq. 22): constitutive rate plus sigma R^T + R sigma.
    const SymTensor rot = jaumann_rotation_term(sigma, w);
    for (int c = 0; c < stress_components(Dim); ++c) out.dstress[c][a] = r.rate[c] + rot[c];
    // Every column's rate: the model's for its own variables, zero for the others.
    const std::vector<int>& index = mt.history_index[mat];
    for (std::size_t k = 0; k < out.dhistory.size(); ++k) {
        const int i = index[k];
        out.dhistory[k][a] = i >= 0 ? r.history_rate[static_cast<std::size_t>(i)] : 0.0;
    }

    // Energy budget (energy_budget.hpp): the stress power V sigma : eps_dot, the part of the
    // pair work the particle's own deformation accounts for, leaves the walls' share.
    const double m_a = p.mass[a], volume = m_a / p.rho[a];
    const double stress_power = volume * double_dot(sigma, eps);
    out.stress_power[a] = stress_power;
    if (mt.any_plastic) {  // else zero (MaterialTable::any_plastic)
        out.dplastic[a] = r.lambda_dot;
        out.yielding[a] = r.yielding ? 1 : 0;
        out.power[kPlasticPower][a] = volume * r.dissipation;
    }
    out.power[kViscousPower][a] = m_a * s.viscous;
    // Without walls the dynamic pairs' terms cancel in the sum over the particles: zero.
    out.power[kWallPower][a] =
        Walls ? -(m_a * s.work + stress_power + m_a * s.viscous) - m_a * s.slip_power : 0.0;
    out.power[kArtificialStressPower][a] = -m_a * s.art_work;

    // Courant condition with the artificial-viscosity signal speed (Monaghan 1992):
    // dt <= C h / (c + |v| + 1.2 (alpha c_visc + beta max|nu|)).
    const double signal =
        signal_base + 1.2 * (pp.av_alpha * mt.viscosity_speed[mat] + pp.av_beta * s.max_nu);
    const double courant = signal > 0.0 ? pp.courant * p.h[a] / signal
                                        : std::numeric_limits<double>::infinity();
    out.dt_limit[a] = std::min(courant, r.dt_limit);
}

// Particles per claim of the pair loop (~0.3-5 us each).
constexpr std::size_t kPairChunk = 32;

// One parallel region per evaluation: the records of all particles (halo included), then,
// once they are complete, the pair loop of every owned dynamic particle,
// with the smallest Courant limit as a min-reduction (exact, so the same on any number of
// threads).
template <int Dim, bool ArtStress, bool Xsph, bool Loads, bool Prepass, bool Walls>
void derivatives_impl(const ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                      const PhysicsParameters& pp, const LoadRequest* request,
                      const HaloRefresh& refresh, const StagePrologue& prologue,
                      Derivatives& out) {
    using R = Record<Dim, ArtStress, Prepass>;
    const std::size_t n = p.owned();  // halo particles are partners only
    const std::size_t n_all = p.size();
    StagedParticles& st = out.staged;
    const std::vector<double> rho0 = size_staging<Dim, ArtStress, Prepass>(p, mt, Loads, st);
    // The pre-pass reads every partner's state: the prologue's work comes first.
    if constexpr (Prepass)
        if (prologue) {
#pragma omp parallel for schedule(dynamic, 1) \
    num_threads(parallel::threads_for(n, parallel::kMinCheapItems))
            for (std::size_t first = 0; first < n; first += kStageChunk)
                prologue(first, std::min(n, first + kStageChunk));
        }
    if constexpr (Prepass) gradient_prepass(p, nl, mt, pp, st.prepass, refresh);
    std::vector<std::vector<LoadShare>> shares;  // per thread
    std::vector<CoulombContact> contacts;        // particles next to Coulomb walls
    const bool any_slip = Loads && std::any_of(request->wall_friction.begin(),
                                               request->wall_friction.end(),
                                               [](double mu) { return mu >= 0.0; });
    double dt_min = std::numeric_limits<double>::infinity();

    // Each thread stages and then runs the pair loops of its own part of the particles
    // (NeighbourList::partition), the part it updates in the integrator's loops too, and then
    // helps with what is left of the others' (parallel::ChunkQueue). The records are complete
    // when every staged chunk is done (an atomic count, not a barrier: a thread that joins the
    // region late finds its part staged by the others and does not hold them up until the
    // region's end).
    const parallel::Partition& part = nl.partition(p);
    parallel::ChunkQueue staging(part, n_all, kStageChunk), pairs(part, n, kPairChunk);
    std::atomic<std::size_t> staged{0};
#pragma omp parallel num_threads(part.team()) reduction(min : dt_min)
    {
    staging.run([&](std::size_t first, std::size_t last) {
        if (!Prepass && prologue && first < n) prologue(first, std::min(last, n));
        // The chunk's rest kernel factors and artificial stresses first, in sweeps that
        // vectorise (bench/README.md, "Twenty-third round").
        std::array<double, kStageChunk> g{};  // rest_kernel_factor
        ChunkArtificialStress<Dim> art;
        if constexpr (ArtStress) {
#pragma omp simd
            for (std::size_t i = first; i < last; ++i)
                g[i - first] = rest_kernel_factor<Dim>(p, rho0, i);
            stage_artificial_stress<Dim>(p, mt, first, last, art);
        }
        for (std::size_t i = first; i < last; ++i) {
            write_record<Dim, ArtStress, Prepass>(p, mt, i, g[i - first], &art[0][i - first],
                                                  kStageChunk, st);
            if constexpr (Loads) stage_load_body<R>(p, *request, i, st);
        }
        staged.fetch_add(last - first, std::memory_order_release);
    });
    parallel::wait_for(staged, staging.total());
    std::vector<LoadShare> my_shares;
    std::vector<CoulombContact> my_contacts;
    pairs.run([&](std::size_t first, std::size_t last) {
        // The chunk's signal speeds without viscosity first (signal_without_viscosity).
        std::array<double, kPairChunk> signal_base;
        signal_without_viscosity<Dim>(p, mt, first, last, signal_base.data());
        for (std::size_t a = first; a < last; ++a) {
            if (p.kind[a] != ParticleKind::dynamic) {
                out.dt_limit[a] = std::numeric_limits<double>::infinity();  // no limit of its own
                // No energy of its own (out is reused: after a migration a dynamic particle's
                // powers could sit at this index).
                for (auto& c : out.power) c[a] = 0.0;
                out.stress_power[a] = 0.0;
                continue;
            }
            const std::span<const std::uint32_t> partners = nl.partners(a);  // padded
            const std::size_t margin_blocks = nl.margin_blocks(a);
            const LoadSink sink{st.load_body.data(), Loads ? request->reference.data() : nullptr,
                                p.id[a], &my_shares,
                                Loads ? request->wall_friction.data() : nullptr,
                                Loads ? request->wall_friction.size() : 0, p.body.data(), any_slip};
            const PairSums<Dim> s =
                gather<Dim, ArtStress, Xsph, Loads, Prepass, Walls>(st, mt, a, partners,
                                                                    margin_blocks, pp, sink);
            const bool corrected = Prepass && mt.kernel_correction[p.material[a]];
            finish_particle<Dim, Xsph, Walls>(
                p, mt, pp, a, s,
                corrected ? st.prepass.data() + a * prepass_stride(Dim) : nullptr,
                signal_base[a - first], out);
            dt_min = std::min(dt_min, out.dt_limit[a]);
            if constexpr (Loads)
                if (s.coulomb_body >= 0) {
                    CoulombContact c{a, s.coulomb_body, s.wall_fn, {0.0, 0.0, 0.0},
                                     {0.0, 0.0, 0.0}};
                    for (int d = 0; d < Dim; ++d) {
                        c.ft[d] = s.wall_ft[d];
                        c.v_wall[d] = s.wall_v[d];
                    }
                    my_contacts.push_back(c);
                }
        }
    });
    if constexpr (Loads) {
#pragma omp critical
        {
            shares.push_back(std::move(my_shares));
            contacts.insert(contacts.end(), my_contacts.begin(), my_contacts.end());
        }
    }
    }  // omp parallel
    out.dt_min = dt_min;
    if constexpr (Loads) {
        std::vector<LoadShare> all;
        for (auto& v : shares) all.insert(all.end(), v.begin(), v.end());
        out.loads = sum_load_shares(all, request->collect.size());
        apply_coulomb_limit(p, *request, contacts, out);
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
    const bool prepass = mt.any_kernel_correction || pp.av_balsara;
    with_flag(mt.any_artificial_stress, [&](auto art) {
        with_flag(mt.any_xsph, [&](auto xsph) {
            with_flag(request != nullptr, [&](auto loads) {
                with_flag(prepass, [&](auto pre) {
                    // Loads are collected on walls: a run with loads takes the loop with walls.
                    with_flag(walls || request != nullptr, [&](auto w) {
                        // (decay: the outer flags are references in this inner lambda)
                        constexpr bool kLoads = std::decay_t<decltype(loads)>::value;
                        if constexpr (decltype(w)::value || !kLoads)
                            derivatives_impl<Dim, std::decay_t<decltype(art)>::value,
                                             std::decay_t<decltype(xsph)>::value, kLoads,
                                             std::decay_t<decltype(pre)>::value,
                                             decltype(w)::value>(p, nl, mt, pp, request,
                                                                 refresh, prologue, out);
                    });
                });
            });
        });
    });
}

}  // namespace

void compute_derivatives(const ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                         const PhysicsParameters& pp, Derivatives& out,
                         const LoadRequest* loads, const HaloRefresh& refresh, bool walls,
                         const StagePrologue& prologue) {
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
    if (p.dim == 2)
        derivatives_for_options<2>(p, nl, mt, pp, loads, refresh, walls, prologue, out);
    else
        derivatives_for_options<3>(p, nl, mt, pp, loads, refresh, walls, prologue, out);
}

}  // namespace regosph
