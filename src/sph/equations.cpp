#include "sph/equations.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sph/kernel.hpp"
#include "sph/tensor.hpp"

namespace regosph {

MaterialTable::MaterialTable(const std::vector<Material>& mats, int dim) : materials(mats) {
    for (const Material& m : mats) {
        DruckerPragerConstants c{};
        if (const auto* dp = std::get_if<DruckerPrager>(&m.model))
            c = drucker_prager_constants(dp->friction_angle, dp->cohesion, dim);
        drucker_prager.push_back(c);
        wave_speed.push_back(elastic_wave_speed(m));
        viscosity_speed.push_back(viscosity_sound_speed(m));
    }
}

void Derivatives::resize(std::size_t n) {
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
};

// sigma / rho^2 of particle i as a Dim x Dim matrix.
template <int Dim>
inline void stress_over_rho2(const StagedParticles& st, std::size_t i, double (&s)[Dim][Dim]) {
    s[0][0] = st.s_rho2[XX][i];
    s[1][1] = st.s_rho2[YY][i];
    s[0][1] = s[1][0] = st.s_rho2[XY][i];
    if constexpr (Dim == 3) {
        s[2][2] = st.s_rho2[ZZ][i];
        s[0][2] = s[2][0] = st.s_rho2[XZ][i];
        s[1][2] = s[2][1] = st.s_rho2[YZ][i];
    }
}

template <int Dim>
PairSums<Dim> gather(const ParticleSet& p, const StagedParticles& st, std::size_t a,
                     std::span<const std::uint32_t> row, const PhysicsParameters& pp) {
    PairSums<Dim> s;
    const double rho_a = p.rho[a];
    const double inv_rho_a = 1.0 / rho_a;
    const double h_a = p.h[a];
    const double c_a = st.c_visc[a];
    double xa[Dim], va[Dim], sa[Dim][Dim];
    for (int d = 0; d < Dim; ++d) {
        xa[d] = p.x[d][a];
        va[d] = p.v[d][a];
    }
    stress_over_rho2<Dim>(st, a, sa);

    for (const std::uint32_t b : row) {
        double dx[Dim];
        double r2 = 0.0;
        for (int d = 0; d < Dim; ++d) {
            dx[d] = xa[d] - p.x[d][b];
            r2 += dx[d] * dx[d];
        }
        const double h_ab = 0.5 * (h_a + p.h[b]);
        if (r2 >= h_ab * h_ab || r2 == 0.0) continue;  // skin pair, or a coincident particle
        const double f = kernel::gradient_factor<Dim>(std::sqrt(r2), h_ab);
        double grad[Dim], dv[Dim];
        double vr = 0.0, dv_dot_grad = 0.0;
        for (int d = 0; d < Dim; ++d) {
            grad[d] = f * dx[d];  // grad_a W_ab
            dv[d] = va[d] - p.v[d][b];
            vr += dv[d] * dx[d];
            dv_dot_grad += dv[d] * grad[d];
        }
        const double m_b = p.mass[b];

        // Continuity (eq. 31); the factor rho_a is applied by the caller.
        s.div_sum += st.volume[b] * dv_dot_grad;

        // Velocity gradient for the strain and rotation rates (eqs. 38 and 23).
        const double w_v = -m_b * inv_rho_a;
        for (int i = 0; i < Dim; ++i)
            for (int j = 0; j < Dim; ++j) s.grad_v[i][j] += w_v * dv[i] * grad[j];

        // Artificial viscosity (eqs. 35-36), approaching pairs only. A boundary partner has no
        // sound speed of its own (its model is rigid): the pair uses c_a.
        double pi_ab = 0.0;
        if (vr < 0.0) {
            const double c_b = st.c_visc[b] < 0.0 ? c_a : st.c_visc[b];
            // nu = h vr / (r^2 + eps h^2), Pi = (-alpha cbar nu + beta nu^2) / rhobar, with
            // one division for both.
            const double denom = r2 + pp.av_epsilon * h_ab * h_ab;
            const double rho_sum = rho_a + p.rho[b];
            const double inv = 1.0 / (denom * rho_sum);
            const double nu = h_ab * vr * rho_sum * inv;
            pi_ab = (-pp.av_alpha * 0.5 * (c_a + c_b) + pp.av_beta * nu) * nu * 2.0 * denom * inv;
            s.max_nu = std::max(s.max_nu, -nu);
        }

        // Momentum (eq. 37): m_b [sigma_a / rho_a^2 + sigma_b / rho_b^2 - Pi_ab I] . grad_a W_ab
        double sb[Dim][Dim];
        stress_over_rho2<Dim>(st, b, sb);
        for (int i = 0; i < Dim; ++i) {
            double t = -pi_ab * grad[i];
            for (int j = 0; j < Dim; ++j) t += (sa[i][j] + sb[i][j]) * grad[j];
            s.acc[i] += m_b * t;
        }
    }
    return s;
}

void stage_particles(const ParticleSet& p, const MaterialTable& mt, StagedParticles& st) {
    const std::size_t n = p.size();
    st.volume.resize(n);
    st.c_visc.resize(n);
    for (auto& c : st.s_rho2) c.resize(n);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
        const double inv_rho = 1.0 / p.rho[i];
        st.volume[i] = p.mass[i] * inv_rho;
        for (int c = 0; c < kSymComponents; ++c) st.s_rho2[c][i] = p.stress[c][i] * inv_rho * inv_rho;
        st.c_visc[i] = p.kind[i] == ParticleKind::boundary ? -1.0
                                                           : mt.viscosity_speed[p.material[i]];
    }
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

template <int Dim>
void derivatives_impl(const ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                      const PhysicsParameters& pp, Derivatives& out) {
    const std::size_t n = p.size();
    StagedParticles& st = out.staged;
    stage_particles(p, mt, st);

#pragma omp parallel for schedule(dynamic, 256)
    for (std::size_t a = 0; a < n; ++a) {
        if (p.kind[a] != ParticleKind::dynamic) continue;
        const PairSums<Dim> s = gather<Dim>(p, st, a, nl.row(a), pp);

        double speed2 = 0.0;
        for (int d = 0; d < Dim; ++d) {
            out.dv[d][a] = s.acc[d] + pp.gravity[d];
            speed2 += p.v[d][a] * p.v[d][a];
        }
        out.drho[a] = p.rho[a] * s.div_sum;

        SymTensor eps;
        Spin w;
        strain_and_spin<Dim>(s.grad_v, eps, w);
        SymTensor sigma;
        for (int c = 0; c < kSymComponents; ++c) sigma[c] = p.stress[c][a];

        const int mat = p.material[a];
        SymTensor rate{};
        double lambda_dot = 0.0;
        bool yielding = false;
        if (const auto* dp = std::get_if<DruckerPrager>(&mt.materials[mat].model)) {
            const PlasticStressRate r =
                drucker_prager_stress_rate(*dp, mt.drucker_prager[mat], sigma, eps);
            rate = r.rate;
            lambda_dot = r.lambda_dot;
            yielding = r.yielding;
        }
        // Jaumann rate (eq. 22): constitutive rate plus sigma R^T + R sigma.
        const SymTensor rot = jaumann_rotation_term(sigma, w);
        for (int c = 0; c < kSymComponents; ++c) out.dstress[c][a] = rate[c] + rot[c];
        out.dplastic[a] = lambda_dot;
        out.yielding[a] = yielding ? 1 : 0;

        // Courant condition with the artificial-viscosity signal speed (Monaghan 1992):
        // dt <= C h / (c + |v| + 1.2 (alpha c_visc + beta max|nu|)).
        const double signal = mt.wave_speed[mat] + std::sqrt(speed2) +
                              1.2 * (pp.av_alpha * st.c_visc[a] + pp.av_beta * s.max_nu);
        out.dt_limit[a] = signal > 0.0 ? pp.courant * p.h[a] / signal
                                       : std::numeric_limits<double>::infinity();
    }
}

}  // namespace

void compute_derivatives(const ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                         const PhysicsParameters& pp, Derivatives& out) {
    if (out.drho.size() != p.size()) out.resize(p.size());
    if (p.dim == 2)
        derivatives_impl<2>(p, nl, mt, pp, out);
    else
        derivatives_impl<3>(p, nl, mt, pp, out);
}

namespace {
template <int Dim>
void extrapolate_impl(ParticleSet& p, const NeighbourList& nl, const PhysicsParameters& pp,
                      const std::array<std::vector<double>, 3>* wall_acc) {
    const std::size_t n = p.size();
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
