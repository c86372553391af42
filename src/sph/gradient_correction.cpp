#include "sph/gradient_correction.hpp"

#include <algorithm>

#include "parallel/threads.hpp"
#include "sph/kernel.hpp"
#include "sph/pair_terms.hpp"
#include "sph/pair_selection.hpp"

namespace regosph {

namespace {

// M_a and the plain velocity gradient G_a of eq. 38 (both with the weights m_b / rho_a) of
// dynamic particle a over its interacting partners, in blocks of kBlock lanes added like the
// pair loop's (lane_sums: the same on any number of threads and ranks). With `Stress`, also
// the plain stress gradient S_tk = sum_b (m_b / rho_a) (sigma_t,b - sigma_t,a) d_k W_ab (t a
// packed slot).
template <int Dim, bool Stress>
void moment_sums(const ParticleSet& p, std::size_t a, std::span<const std::uint32_t> partners,
                 double (&M)[Dim][Dim], double (&G)[Dim][Dim],
                 double (&S)[pair_terms::kPackedSize<Dim>][Dim]) {
    constexpr int kTensor = pair_terms::kPackedSize<Dim>;
    constexpr int kSums = 2 * Dim * Dim + (Stress ? kTensor * Dim : 0);
    double xa[Dim], va[Dim], sa[kTensor];
    for (int d = 0; d < Dim; ++d) {
        xa[d] = p.x[d][a];
        va[d] = p.v[d][a];
    }
    for (int t = 0; t < kTensor; ++t) sa[t] = p.stress[pair_terms::packed_component<Dim>[t]][a];
    const double h_a = p.h[a];
    double m_lane[Dim][Dim][kBlock] = {}, g_lane[Dim][Dim][kBlock] = {};
    double s_lane[Stress ? kTensor : 1][Dim][kBlock] = {};
    for (std::size_t base = 0; base < partners.size(); base += kBlock) {
#pragma omp simd
        for (std::size_t k = 0; k < kBlock; ++k) {
            const std::uint32_t b = partners[base + k];
            double dx[Dim], r2 = 0.0;
            for (int d = 0; d < Dim; ++d) {
                dx[d] = xa[d] - p.x[d][b];
                r2 += dx[d] * dx[d];
            }
            const double h_ab = 0.5 * (h_a + p.h[b]);
            // The padding (b = a, r = 0) gets r = 2 h: the kernel gradient is 0 there.
            const bool inside = interacts(r2, h_ab);
            const double r = inside ? std::sqrt(r2) : 2.0 * h_ab;
            const double factor = kernel::pair_factors<Dim>(r, h_ab, 1.0 / (h_ab * r)).gradient;
            const double m_b = p.mass[b];
            for (int i = 0; i < Dim; ++i) {
                const double grad_i = m_b * factor * dx[i];  // m_b grad_a W_ab
                for (int j = 0; j < Dim; ++j) {
                    m_lane[i][j][k] -= grad_i * dx[j];  // x_b - x_a = -dx
                    g_lane[j][i][k] += (p.v[j][b] - va[j]) * grad_i;
                }
                if constexpr (Stress)
                    for (int t = 0; t < kTensor; ++t)
                        s_lane[t][i][k] +=
                            (p.stress[pair_terms::packed_component<Dim>[t]][b] - sa[t]) * grad_i;
            }
        }
    }
    const double* rows[kSums];
    for (int i = 0; i < Dim; ++i)
        for (int j = 0; j < Dim; ++j) {
            rows[i * Dim + j] = m_lane[i][j];
            rows[Dim * Dim + i * Dim + j] = g_lane[i][j];
        }
    if constexpr (Stress)
        for (int t = 0; t < kTensor; ++t)
            for (int j = 0; j < Dim; ++j) rows[2 * Dim * Dim + t * Dim + j] = s_lane[t][j];
    double sums[kSums];
    lane_sums(rows, sums);
    const double inv_rho = 1.0 / p.rho[a];
    for (int i = 0; i < Dim; ++i)
        for (int j = 0; j < Dim; ++j) {
            M[i][j] = sums[i * Dim + j] * inv_rho;
            G[i][j] = sums[Dim * Dim + i * Dim + j] * inv_rho;
        }
    if constexpr (Stress)
        for (int t = 0; t < kTensor; ++t)
            for (int j = 0; j < Dim; ++j) S[t][j] = sums[2 * Dim * Dim + t * Dim + j] * inv_rho;
}

// G <- G L^T, the corrected gradient of a field with Rows components (the velocity's, Rows =
// Dim; the stress's, Rows = its packed slots).
template <int Dim, int Rows>
void corrected_gradient(const double (&L)[Dim][Dim], double (&G)[Rows][Dim]) {
    double GL[Rows][Dim] = {};
    for (int i = 0; i < Rows; ++i)
        for (int j = 0; j < Dim; ++j)
            for (int k = 0; k < Dim; ++k) GL[i][j] += G[i][k] * L[j][k];
    for (int i = 0; i < Rows; ++i)
        for (int j = 0; j < Dim; ++j) G[i][j] = GL[i][j];
}

// Particles per claim of the pre-pass (~0.2-1 us each).
constexpr std::size_t kPrepassChunk = 64;

template <int Dim>
void prepass_impl(const ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                  const PhysicsParameters& pp, std::vector<double>& out) {
    constexpr int stride = prepass_stride(Dim);
    constexpr int kTensor = pair_terms::kPackedSize<Dim>;
    const bool stress_gradient =
        pp.riemann_reconstruction && pp.riemann_stress_jump != PhysicsParameters::StressJump::none;
    const std::size_t n = p.owned(), n_all = p.size();
    out.resize(n_all * stride);
    // The particles of the step's partition (NeighbourList::partition), each thread its own
    // part first (parallel::ChunkQueue), as in the pair loop that reads these rows: a row is
    // set to L = I, f = 1 (halo copies, walls; until computed or refreshed) and then computed
    // for an owned dynamic particle by the same thread, so no barrier is needed in between.
    const parallel::Partition& part = nl.partition(p);
    parallel::ChunkQueue chunks(part, n_all, kPrepassChunk);
#pragma omp parallel num_threads(part.team())
    {
        chunks.run([&](std::size_t first, std::size_t last) {
            for (std::size_t a = first; a < last; ++a) {
                for (int k = 0; k < stride; ++k)
                    out[a * stride + k] =
                        k == Dim * Dim || (k < Dim * Dim && k % (Dim + 1) == 0) ? 1.0 : 0.0;
                if (a >= n || p.kind[a] != ParticleKind::dynamic) continue;
                const int mat = p.material[a];
                double M[Dim][Dim], G[Dim][Dim], L[Dim][Dim], S[kTensor][Dim];
                if (stress_gradient)
                    moment_sums<Dim, true>(p, a, nl.partners(a), M, G, S);
                else
                    moment_sums<Dim, false>(p, a, nl.partners(a), M, G, S);
                const bool corrected = mt.kernel_correction[mat] && correction_matrix<Dim>(M, L);
                double* const o = out.data() + a * stride;
                if (corrected) {
                    for (int i = 0; i < Dim; ++i)
                        for (int j = 0; j < Dim; ++j) o[i * Dim + j] = L[i][j];
                    corrected_gradient<Dim>(L, G);
                }
                if (pp.riemann_reconstruction || pp.hourglass_control > 0.0) {
                    // With a's own correction, whatever its material's.
                    double Gr[Dim][Dim];
                    std::copy(&G[0][0], &G[0][0] + Dim * Dim, &Gr[0][0]);
                    const bool own = corrected || correction_matrix<Dim>(M, L);
                    if (own && !corrected) corrected_gradient<Dim>(L, Gr);
                    std::copy(&Gr[0][0], &Gr[0][0] + Dim * Dim,
                              o + prepass_velocity_gradient(Dim));
                    if (stress_gradient) {
                        if (own) corrected_gradient<Dim>(L, S);
                        std::copy(&S[0][0], &S[0][0] + kTensor * Dim,
                                  o + prepass_stress_gradient(Dim));
                    }
                }
                if (pp.av_balsara)
                    o[Dim * Dim] = balsara_factor<Dim>(G, mt.viscosity_speed[mat], p.h[a]);
                if (pp.av_switch) {  // Morris & Monaghan's f, within its bounds
                    const double f = p.history.values[static_cast<std::size_t>(mt.switch_column)][a];
                    o[Dim * Dim] *= std::clamp(f, kSwitchFloor, 1.0);
                }
            }
        });
    }
}

}  // namespace

void gradient_prepass(const ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                      const PhysicsParameters& pp, std::vector<double>& out,
                      const HaloRefresh& refresh) {
    if (p.dim == 2)
        prepass_impl<2>(p, nl, mt, pp, out);
    else
        prepass_impl<3>(p, nl, mt, pp, out);
    if (refresh) refresh(out, prepass_stride(p.dim));
}

}  // namespace regosph
