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
        const auto* es = std::get_if<ElasticSolid>(&m.model);
        artificial_stress.push_back(es ? es->artificial_stress : 0.0);
        artificial_stress_exponent.push_back(es ? es->artificial_stress_exponent : 0.0);
        xsph.push_back(es ? es->xsph : 0.0);
        any_artificial_stress = any_artificial_stress || artificial_stress.back() > 0.0;
        any_xsph = any_xsph || xsph.back() > 0.0;
    }
}

void Derivatives::resize(std::size_t n) {
    for (auto& c : dx) c.assign(n, 0.0);
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

// Component arrays t (six, Voigt order) of particle i as a Dim x Dim matrix.
template <int Dim>
inline void as_matrix(const std::array<std::vector<double>, kSymComponents>& t, std::size_t i,
                      double (&s)[Dim][Dim]) {
    s[0][0] = t[XX][i];
    s[1][1] = t[YY][i];
    s[0][1] = s[1][0] = t[XY][i];
    if constexpr (Dim == 3) {
        s[2][2] = t[ZZ][i];
        s[0][2] = s[2][0] = t[XZ][i];
        s[1][2] = s[2][1] = t[YZ][i];
    }
}

// sigma / rho^2 of particle i as a Dim x Dim matrix.
template <int Dim>
inline void stress_over_rho2(const StagedParticles& st, std::size_t i, double (&s)[Dim][Dim]) {
    as_matrix<Dim>(st.s_rho2, i, s);
}

// ArtStress / Xsph: whether the run has a material with Monaghan's artificial stress / XSPH;
// without them the pair loop contains neither term.
template <int Dim, bool ArtStress, bool Xsph>
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
    double ra[Dim][Dim] = {};
    if constexpr (ArtStress) as_matrix<Dim>(st.r_art, a, ra);
    const std::int32_t mat_a = p.material[a];

    for (const std::uint32_t b : row) {
        double dx[Dim];
        double r2 = 0.0;
        for (int d = 0; d < Dim; ++d) {
            dx[d] = xa[d] - p.x[d][b];
            r2 += dx[d] * dx[d];
        }
        const double h_ab = 0.5 * (h_a + p.h[b]);
        if (r2 >= h_ab * h_ab || r2 == 0.0) continue;  // skin pair, or a coincident particle
        const double r = std::sqrt(r2);
        const double f = kernel::gradient_factor<Dim>(r, h_ab);
        double w_ab = 0.0;  // W(r_ab, h_ab), for the artificial stress and XSPH only
        if constexpr (ArtStress || Xsph) w_ab = kernel::value<Dim>(r, h_ab);
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

        // Monaghan (2000) artificial stress: m_b (R_a + R_b) f_ab^n . grad_a W_ab with
        // f_ab = W(r_ab) / W(dp_ab), dp_ab the mean particle spacing of the pair. R is zero
        // for compressive principal stresses, so only tension is corrected.
        if constexpr (ArtStress) {
            const double n_ab = std::max(st.n_art[a], st.n_art[b]);
            const double w_dp = kernel::value<Dim>(0.5 * (st.spacing[a] + st.spacing[b]), h_ab);
            if (n_ab > 0.0 && w_dp > 0.0) {
                const double f_ab = w_ab / w_dp;
                const double f2 = f_ab * f_ab;
                const double fn = n_ab == 4.0 ? f2 * f2 : std::pow(f_ab, n_ab);  // n = 4 usual
                double rb[Dim][Dim];
                as_matrix<Dim>(st.r_art, b, rb);
                for (int i = 0; i < Dim; ++i) {
                    double t = 0.0;
                    for (int j = 0; j < Dim; ++j) t += (ra[i][j] + rb[i][j]) * grad[j];
                    s.acc[i] += m_b * fn * t;
                }
            }
        }

        // XSPH (Monaghan 1989): velocity of the neighbours of the same material, weighted by
        // m_b W_ab / rhobar_ab; the caller multiplies by the material's epsilon.
        if constexpr (Xsph) {
            if (p.material[b] == mat_a && p.kind[b] == ParticleKind::dynamic) {
                const double w = m_b * w_ab * 2.0 / (rho_a + p.rho[b]);
                for (int d = 0; d < Dim; ++d) s.xsph[d] -= w * dv[d];  // dv = v_a - v_b
            }
        }
    }
    return s;
}

// R, n and spacing of every particle for Monaghan's artificial stress (Gray et al. 2001).
void stage_artificial_stress(const ParticleSet& p, const MaterialTable& mt, StagedParticles& st) {
    const std::size_t n = p.size();
    for (auto& c : st.r_art) c.resize(n);
    st.n_art.resize(n);
    st.spacing.resize(n);
    const double inv_dim = 1.0 / p.dim;
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
        const int mat = p.material[i];
        const double eps = mt.artificial_stress[mat];
        SymTensor r{};
        if (eps > 0.0) {
            SymTensor sigma;
            for (int c = 0; c < kSymComponents; ++c) sigma[c] = p.stress[c][i];
            r = artificial_stress(eps, sigma, p.rho[i], p.dim);
        }
        for (int c = 0; c < kSymComponents; ++c) st.r_art[c][i] = r[c];
        st.n_art[i] = eps > 0.0 ? mt.artificial_stress_exponent[mat] : 0.0;
        st.spacing[i] = std::pow(p.mass[i] / p.rho[i], inv_dim);
    }
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
    if (mt.any_artificial_stress) stage_artificial_stress(p, mt, st);
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
    stage_particles(p, mt, st);       // all, halo included

#pragma omp parallel for schedule(dynamic, 256)
    for (std::size_t a = 0; a < n; ++a) {
        if (p.kind[a] != ParticleKind::dynamic) continue;
        const PairSums<Dim> s = gather<Dim, ArtStress, Xsph>(p, st, a, nl.row(a), pp);
        const int mat = p.material[a];

        double speed2 = 0.0;
        for (int d = 0; d < Dim; ++d) {
            out.dv[d][a] = s.acc[d] + pp.gravity[d];
            speed2 += p.v[d][a] * p.v[d][a];
            // Position rate: v, plus the XSPH term eps sum_b (m_b / rhobar_ab) (v_b - v_a) W_ab.
            out.dx[d][a] = p.v[d][a];
            if constexpr (Xsph) out.dx[d][a] += mt.xsph[mat] * s.xsph[d];
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
                              1.2 * (pp.av_alpha * st.c_visc[a] + pp.av_beta * s.max_nu);
        out.dt_limit[a] = signal > 0.0 ? pp.courant * p.h[a] / signal
                                       : std::numeric_limits<double>::infinity();
    }
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
    if (out.drho.size() != p.size()) out.resize(p.size());
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
