// Right-hand side of the SPH equations (SPEC.md section 2) through Simulation: a brute-force
// transcription of the SPEC formulas on a random configuration; strain and rotation rates
// (S17-38, S17-23) of a linear velocity field; the Jaumann stress rate (S17-22); continuity
// (S17-31); momentum (S17-37) sign and conservation; thread-count and skin independence; a body
// resting on a fixed floor (SPEC.md section 6: no penetration) and a lithostatic column
// (boundary extrapolation); exactness of the Heun step for free fall (SPEC.md section 5).
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <chrono>
#include <numbers>
#include <random>
#include <vector>

#include "geometry/lattice.hpp"
#include "geometry/shapes.hpp"
#include "parallel/thread_tuner.hpp"
#include "parallel/threads.hpp"
#include "sph/boundary.hpp"
#include "sph/kernel.hpp"
#include "sph/simulation.hpp"
#include "core/tensor.hpp"

using namespace regosph;

namespace {

constexpr double kDeg = std::numbers::pi / 180.0;
constexpr double kK = 0.7e6;   // bulk modulus [Pa]
constexpr double kMu = 0.3e6;  // shear modulus [Pa]
constexpr double kRho = 2650.0;

Material soil(double cohesion, double viscosity_sound_speed = 0.0, double phi_deg = 30.0) {
    DruckerPrager dp;
    dp.density = kRho;
    dp.bulk_modulus = kK;
    dp.shear_modulus = kMu;
    dp.friction_angle = phi_deg * kDeg;
    dp.cohesion = cohesion;
    return Material{"soil", dp, viscosity_sound_speed};
}

// A block of n[0] x n[1] (x n[2]) particles of spacing dx starting at the origin,
// h = 2.5 dx, one cohesive (elastic) Drucker-Prager material.
Simulation block(int dim, std::array<int, 3> n, double dx, double cohesion = 1e12) {
    Simulation sim(dim);
    const int mat = sim.add_material(soil(cohesion));
    const geometry::ShapePtr shape =
        dim == 2 ? geometry::rectangle({0, 0}, {n[0] * dx, n[1] * dx})
                 : geometry::box({0, 0, 0}, {n[0] * dx, n[1] * dx, n[2] * dx});
    sim.add_body("block", mat, "dynamic", geometry::lattice_fill(*shape, dx), dx, 2.5 * dx);
    return sim;
}

// True when particle a has its full kernel support inside the block (at least h from the
// outermost particle centres).
bool interior(const ParticleSet& p, std::size_t a, std::array<int, 3> n, double dx) {
    for (int d = 0; d < p.dim; ++d) {
        const double lo = 0.5 * dx, hi = (n[d] - 0.5) * dx;
        if (p.x[d][a] < lo + p.h[a] - 1e-9 * dx || p.x[d][a] > hi - p.h[a] + 1e-9 * dx) return false;
    }
    return true;
}

// Lattice factor m of M = -sum_b V_b (x_b - x_a)(x_b - x_a)^T W'(r) / r = m I for a particle
// with full support on a square/cubic lattice of spacing dx and support radius h, computed
// here from the kernel (kernel.hpp) independently of the particle loops.
double lattice_factor(int dim, double dx, double h) {
    const int n = static_cast<int>(std::ceil(h / dx)) + 1;
    const int kmax = dim == 3 ? n : 0;
    double m = 0.0;
    for (int i = -n; i <= n; ++i)
        for (int j = -n; j <= n; ++j)
            for (int k = -kmax; k <= kmax; ++k) {
                const double r = dx * std::sqrt(double(i * i + j * j + k * k));
                if (r == 0.0) continue;
                const double dw = dim == 2 ? kernel::derivative<2>(r, h) : kernel::derivative<3>(r, h);
                m -= std::pow(dx, dim) * dw / r * (i * dx) * (i * dx);
            }
    return m;
}

double frob(const SymTensor& t) { return std::sqrt(double_dot(t, t)); }

SymTensor stress_rate(const Derivatives& d, std::size_t a) {
    SymTensor r;
    for (int c = 0; c < kSymComponents; ++c) r[c] = d.dstress[c][a];
    return r;
}

SymTensor hooke(const SymTensor& eps) {
    SymTensor r;
    for (int c = 0; c < kSymComponents; ++c) r[c] = 2.0 * kMu * eps[c];
    for (int c = XX; c <= ZZ; ++c) r[c] += (kK - 2.0 * kMu / 3.0) * trace(eps);
    return r;
}

// sym(A) and the spin W = (A - A^T)/2 of a velocity gradient A (v_i = A_ij x_j).
void split(const double (&A)[3][3], SymTensor& eps, Spin& w) {
    eps = {A[0][0], A[1][1], A[2][2], 0.5 * (A[0][1] + A[1][0]), 0.5 * (A[0][2] + A[2][0]),
           0.5 * (A[1][2] + A[2][1])};
    w = {0.5 * (A[0][1] - A[1][0]), 0.5 * (A[0][2] - A[2][0]), 0.5 * (A[1][2] - A[2][1])};
}

void set_linear_velocity(ParticleSet& p, const double (&A)[3][3]) {
    for (std::size_t a = 0; a < p.size(); ++a)
        for (int i = 0; i < 3; ++i) {
            double v = 0.0;
            for (int j = 0; j < 3; ++j) v += A[i][j] * p.x[j][a];
            p.v[i][a] = v;
        }
}

std::array<double, 3> total_momentum(const ParticleSet& p, double* abs_sum = nullptr) {
    std::array<double, 3> m{0, 0, 0};
    double s = 0.0;
    for (std::size_t a = 0; a < p.size(); ++a) {
        if (p.kind[a] != ParticleKind::dynamic) continue;
        for (int d = 0; d < 3; ++d) {
            m[d] += p.mass[a] * p.v[d][a];
            s += p.mass[a] * std::abs(p.v[d][a]);
        }
    }
    if (abs_sum) *abs_sum = s;
    return m;
}

// Two runs at the same time with bitwise the same positions, velocities, stresses and densities.
void check_same_state(const Simulation& one, const Simulation& two) {
    CHECK(one.time() == two.time());
    const ParticleSet &p1 = one.particles(), &p2 = two.particles();
    for (int k = 0; k < 3; ++k) {
        CHECK(p1.x[k] == p2.x[k]);  // bitwise
        CHECK(p1.v[k] == p2.v[k]);
    }
    for (int c = 0; c < kSymComponents; ++c) CHECK(p1.stress[c] == p2.stress[c]);
    CHECK(p1.rho == p2.rho);
}

// Random velocities, stresses, densities and smoothing lengths on a jittered lattice:
// deterministic for a given seed.
Simulation random_body(int dim, unsigned seed, double cohesion = 2e3,
                       std::array<int, 3> n = {12, 10, 8}) {
    const double dx = 0.01;
    Simulation sim(dim);
    const int mat = sim.add_material(soil(cohesion, 50.0));
    const geometry::ShapePtr shape =
        dim == 2 ? geometry::rectangle({0, 0}, {n[0] * dx, n[1] * dx})
                 : geometry::box({0, 0, 0}, {n[0] * dx, n[1] * dx, n[2] * dx});
    sim.add_body("block", mat, "dynamic", geometry::lattice_fill(*shape, dx), dx, 2.5 * dx);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    ParticleSet& p = sim.particles();
    for (std::size_t a = 0; a < p.size(); ++a) {
        for (int d = 0; d < dim; ++d) {
            p.x[d][a] += 0.2 * dx * u(rng);
            p.v[d][a] = 0.5 * u(rng);
        }
        p.h[a] = dx * (2.5 + 0.5 * u(rng));
        p.rho[a] = kRho * (1.0 + 0.05 * u(rng));
        p.mass[a] *= 1.0 + 0.1 * u(rng);
        for (int c = 0; c < kSymComponents; ++c) {
            if (dim == 2 && (c == XZ || c == YZ)) continue;
            p.stress[c][a] = 1e3 * u(rng) - (c <= ZZ ? 2e3 : 0.0);
        }
    }
    sim.physics().gravity = {0.0, 0.0, 0.0};
    return sim;
}

}  // namespace

TEST_CASE("derivatives equal a brute-force evaluation of the SPEC formulas (S17-31/35-38, 22)") {
    // A jittered lattice with random velocities, stresses, densities, masses and smoothing
    // lengths; elastic material (huge cohesion) so that the stress rate is Hooke + Jaumann.
    // The reference below is an O(N^2) transcription of SPEC.md section 2, independent of the
    // neighbour list and of the particle loops.
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        Simulation sim = random_body(dim, 31 + dim, 1e12);
        sim.physics().gravity = {0.5, -9.81, dim == 3 ? 0.25 : 0.0};
        sim.physics().dissipation = PhysicsParameters::Dissipation::monaghan;  // eq. 35
        const PhysicsParameters pp = sim.physics();
        const Derivatives& d = sim.evaluate_derivatives();
        const ParticleSet& p = sim.particles();
        const double c_visc = 50.0;  // the material's fixed viscosity sound speed
        const double c_wave = std::sqrt((kK + 4.0 * kMu / 3.0) / kRho);
        const std::size_t n = p.size();
        std::vector<std::array<double, 3>> ref_acc(n);
        std::vector<SymTensor> ref_rate(n);
        std::vector<double> ref_drho(n, 0.0);
        double acc_scale = 0.0, rate_scale = 0.0, drho_scale = 0.0;
        std::size_t approaching = 0;
        for (std::size_t a = 0; a < n; ++a) {
            double L[3][3] = {}, f[3] = {0, 0, 0};
            for (std::size_t b = 0; b < n; ++b) {
                if (b == a) continue;
                double x[3] = {0, 0, 0}, v[3] = {0, 0, 0}, r2 = 0.0, vr = 0.0;
                for (int k = 0; k < dim; ++k) {
                    x[k] = p.x[k][a] - p.x[k][b];
                    v[k] = p.v[k][a] - p.v[k][b];
                    r2 += x[k] * x[k];
                    vr += v[k] * x[k];
                }
                const double r = std::sqrt(r2), hab = 0.5 * (p.h[a] + p.h[b]);
                if (r >= hab) continue;
                const double dw = dim == 2 ? kernel::derivative<2>(r, hab) : kernel::derivative<3>(r, hab);
                double g[3];
                for (int k = 0; k < 3; ++k) g[k] = dw * x[k] / r;  // grad_a W_ab
                double vg = 0.0;
                for (int k = 0; k < dim; ++k) vg += v[k] * g[k];
                // S17-31: d rho_a / dt = rho_a sum_b (m_b / rho_b) (v_a - v_b) . grad_a W_ab
                ref_drho[a] += p.rho[a] * p.mass[b] / p.rho[b] * vg;
                // S17-38 / S17-23: L_ij = (1 / rho_a) sum_b m_b (v_b - v_a)_i d_j W_ab
                for (int i = 0; i < dim; ++i)
                    for (int j = 0; j < dim; ++j) L[i][j] += p.mass[b] / p.rho[a] * (-v[i]) * g[j];
                // S17-35/36
                double pi = 0.0;
                if (vr < 0.0) {
                    ++approaching;
                    const double nu = hab * vr / (r2 + pp.av_epsilon * hab * hab);
                    pi = (-pp.av_alpha * c_visc * nu + pp.av_beta * nu * nu) /
                         (0.5 * (p.rho[a] + p.rho[b]));
                }
                // S17-37
                const auto sig = [&](std::size_t q, int i, int j) {
                    static constexpr int idx[3][3] = {{XX, XY, XZ}, {XY, YY, YZ}, {XZ, YZ, ZZ}};
                    return p.stress[idx[i][j]][q];
                };
                for (int i = 0; i < dim; ++i) {
                    double t = -pi * g[i];
                    for (int j = 0; j < dim; ++j)
                        t += (sig(a, i, j) / (p.rho[a] * p.rho[a]) +
                              sig(b, i, j) / (p.rho[b] * p.rho[b])) * g[j];
                    f[i] += p.mass[b] * t;
                }
            }
            for (int i = 0; i < dim; ++i) ref_acc[a][i] = f[i] + pp.gravity[i];
            const SymTensor eps{L[0][0], L[1][1], L[2][2], 0.5 * (L[0][1] + L[1][0]),
                                0.5 * (L[0][2] + L[2][0]), 0.5 * (L[1][2] + L[2][1])};
            const Spin w{0.5 * (L[0][1] - L[1][0]), 0.5 * (L[0][2] - L[2][0]),
                         0.5 * (L[1][2] - L[2][1])};
            SymTensor sigma;
            for (int c = 0; c < kSymComponents; ++c) sigma[c] = p.stress[c][a];
            ref_rate[a] = hooke(eps);
            const SymTensor rot = jaumann_rotation_term(sigma, w);
            for (int c = 0; c < kSymComponents; ++c) ref_rate[a][c] += rot[c];
            for (int i = 0; i < dim; ++i) acc_scale = std::max(acc_scale, std::abs(ref_acc[a][i]));
            rate_scale = std::max(rate_scale, frob(ref_rate[a]));
            drho_scale = std::max(drho_scale, std::abs(ref_drho[a]));
        }
        CHECK(approaching > n);  // the viscosity is exercised
        double err_acc = 0.0, err_rate = 0.0, err_drho = 0.0;
        std::size_t courant_violations = 0;
        for (std::size_t a = 0; a < n; ++a) {
            for (int i = 0; i < dim; ++i)
                err_acc = std::max(err_acc, std::abs(d.dv[i][a] - ref_acc[a][i]));
            SymTensor diff;
            for (int c = 0; c < kSymComponents; ++c) diff[c] = d.dstress[c][a] - ref_rate[a][c];
            err_rate = std::max(err_rate, frob(diff));
            err_drho = std::max(err_drho, std::abs(d.drho[a] - ref_drho[a]));
            CHECK(d.dplastic[a] == 0.0);
            // SPEC 5: dt <= C h / (c + |v|) at least (the viscosity term only lowers it).
            double speed = 0.0;
            for (int i = 0; i < dim; ++i) speed += p.v[i][a] * p.v[i][a];
            if (!(d.dt_limit[a] > 0.0 &&
                  d.dt_limit[a] <= pp.courant * p.h[a] / (c_wave + std::sqrt(speed))))
                ++courant_violations;
        }
        CHECK(err_acc <= 1e-10 * acc_scale);
        CHECK(err_rate <= 1e-10 * rate_scale);
        CHECK(err_drho <= 1e-10 * drho_scale);
        CHECK(courant_violations == 0);
    }
}

TEST_CASE("the Riemann solver's dissipation equals a brute-force transcription (Zhang et al. 2017)") {
    // The same random body with dissipation = riemann: the acceleration is the stress term of
    // S17-37 plus -m_b Pi_ab grad_a W_ab with
    // Pi_ab = 2 c_a c_b beta jump / (rho_a c_a + rho_b c_b), beta = min(eta jump / cbar, 1),
    // for approaching pairs (jump = -v_ab . x_ab / r), or with riemann_pairs = separating
    // Pi_ab = -(the same) for separating pairs (jump = v_ab . x_ab / r). A small eta keeps the
    // jumps in the limiter's quadratic range, a large one takes most pairs to its linear
    // (acoustic) range.
    const int dim = 2;
    for (const bool separating : {false, true})
    for (const double eta : {3.0, 3000.0}) {
        CAPTURE(eta);
        CAPTURE(separating);
        const double sign = separating ? -1.0 : 1.0;
        Simulation sim = random_body(dim, 77, 1e12);
        sim.physics().dissipation = PhysicsParameters::Dissipation::riemann;
        sim.physics().riemann_stress_jump = PhysicsParameters::StressJump::none;  // alone
        sim.physics().density_diffusion = 0.0;
        sim.physics().riemann_limiter = eta;
        if (separating) sim.physics().riemann_pairs = PhysicsParameters::RiemannPairs::separating;
        const PhysicsParameters pp = sim.physics();
        const Derivatives& d = sim.evaluate_derivatives();
        const ParticleSet& p = sim.particles();
        const double c = 50.0;  // the material's fixed sound speed of the pair dissipation
        std::size_t linear = 0, quadratic = 0;
        double err = 0.0, scale = 0.0, dissipated = 0.0;
        for (std::size_t a = 0; a < p.size(); ++a) {
            double f[2] = {0.0, 0.0};
            for (std::size_t b = 0; b < p.size(); ++b) {
                if (b == a) continue;
                const double x[2] = {p.x[0][a] - p.x[0][b], p.x[1][a] - p.x[1][b]};
                const double v[2] = {p.v[0][a] - p.v[0][b], p.v[1][a] - p.v[1][b]};
                const double r2 = x[0] * x[0] + x[1] * x[1], r = std::sqrt(r2);
                const double vr = v[0] * x[0] + v[1] * x[1], hab = 0.5 * (p.h[a] + p.h[b]);
                if (r >= hab) continue;
                const double dw = kernel::derivative<2>(r, hab);
                double pi = 0.0;
                if (sign * vr < 0.0) {
                    const double jump = -sign * vr * r / (r2 + pp.av_epsilon * hab * hab);
                    const double beta = std::min(eta * jump / c, 1.0);
                    (beta < 1.0 ? quadratic : linear) += 1;
                    pi = sign * 2.0 * c * c * beta * jump / ((p.rho[a] + p.rho[b]) * c);
                }
                const auto sig = [&](std::size_t q, int i, int j) {
                    static constexpr int idx[2][2] = {{XX, XY}, {XY, YY}};
                    return p.stress[idx[i][j]][q] / (p.rho[q] * p.rho[q]);
                };
                for (int i = 0; i < 2; ++i) {
                    double t = -pi * dw * x[i] / r;
                    for (int j = 0; j < 2; ++j) t += (sig(a, i, j) + sig(b, i, j)) * dw * x[j] / r;
                    f[i] += p.mass[b] * t;
                }
            }
            for (int i = 0; i < 2; ++i) {
                err = std::max(err, std::abs(d.dv[i][a] - f[i]));
                scale = std::max(scale, std::abs(f[i]));
            }
            CHECK(d.power[kViscousPower][a] == 0.0);
            dissipated += d.power[kRiemannPower][a];
        }
        CHECK((eta == 3.0 ? quadratic : linear) > 4 * (quadratic + linear) / 5);
        CHECK(err <= 1e-10 * scale);
        CHECK(dissipated > 0.0);
    }
}

TEST_CASE("the stress jump of a linear stress field: none with the linear reconstruction, at the surfaces too") {
    // A block at rest whose stress is linear in x: the Riemann solver's normal-stress jump
    // (RiemannStressJump) is then the only source of a density rate. With the plain jump
    // P_a - P_b the pairs of a particle with full support cancel (the linear part is odd in
    // x_ab), but not where the kernel is truncated: the surface layers expand or contract.
    // With the reconstruction the jump is that of the stresses at the pairs' midpoints, zero
    // for a linear field everywhere (the pre-pass's gradient is exact for it); particle-scale
    // noise keeps a jump (the minmod keeps the smaller of the two where they agree).
    const double dx = 0.01;
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        const std::array<int, 3> n = dim == 2 ? std::array<int, 3>{12, 10, 1}
                                              : std::array<int, 3>{8, 8, 8};
        const auto run = [&](bool reconstruct, double noise) {
            Simulation sim = block(dim, n, dx);
            sim.physics().dissipation = PhysicsParameters::Dissipation::riemann;
            sim.physics().riemann_stress_jump = PhysicsParameters::StressJump::continuity;
            sim.physics().density_diffusion = 0.0;
            sim.physics().riemann_reconstruction = reconstruct;
            ParticleSet& p = sim.particles();
            // sigma = s0 + g x [Pa], every component linear, compressive: p ~ 1e5 Pa, a
            // geostatic-like gradient of 2e5 Pa/m and shear gradients (x is at most 0.12 m).
            const double s0[6] = {-1.0e5, -1.2e5, -0.9e5, 2e4, -1e4, 5e3};
            const double g[6][3] = {{3e4, -2e5, 1e4}, {-1e4, -2e5, 2e4}, {2e4, -1e5, -3e4},
                                    {5e4, 1e4, -2e4}, {-1e4, 3e4, 1e4}, {2e4, -1e4, 4e4}};
            for (std::size_t a = 0; a < p.size(); ++a) {
                long parity = 0;
                for (int k = 0; k < dim; ++k) parity += std::lround(p.x[k][a] / dx - 0.5);
                for (int c = 0; c < kSymComponents; ++c) {
                    double v = s0[c];
                    for (int j = 0; j < dim; ++j) v += g[c][j] * p.x[j][a];
                    p.stress[c][a] = v + (c < 3 && parity % 2 ? noise : 0.0);
                }
                if (dim == 2) p.stress[XZ][a] = p.stress[YZ][a] = 0.0;
            }
            const Derivatives& d = sim.evaluate_derivatives();
            double inside = 0.0, surface = 0.0;  // the largest |d rho / dt| / rho [1/s]
            for (std::size_t a = 0; a < p.size(); ++a) {
                const double rate = std::abs(d.drho[a]) / p.rho[a];
                (interior(p, a, n, dx) ? inside : surface) = std::max(
                    interior(p, a, n, dx) ? inside : surface, rate);
            }
            return std::array<double, 2>{inside, surface};
        };
        const auto plain = run(false, 0.0), reconstructed = run(true, 0.0);
        const auto noisy = run(true, 2e3), noisy_plain = run(false, 2e3);
        MESSAGE("dim ", dim, ": largest |drho/dt| / rho [1/s], inside / surface: plain ",
                plain[0], " / ", plain[1], ", reconstructed ", reconstructed[0], " / ",
                reconstructed[1], "; with 2 kPa of checkerboard noise ", noisy[0], " / ",
                noisy[1], " (plain ", noisy_plain[0], " / ", noisy_plain[1], ")");
        CHECK(plain[1] > 1e-3);  // (P_a - P_b) / Zbar ~ 2e3 Pa / (2650 kg/m^3 x 27 m/s) per pair
        CHECK(plain[0] <= 1e-9 * plain[1]);
        CHECK(std::max(reconstructed[0], reconstructed[1]) <= 1e-9 * plain[1]);
        CHECK(noisy[0] >= 0.5 * noisy_plain[0]);
        CHECK(noisy[0] > 1e3 * std::max(reconstructed[0], reconstructed[1]));
    }
}

TEST_CASE("the stress jump in the continuity only: the full form's density rate, no strain rate, no loss") {
    // A block at rest with particle-scale stress noise. 'continuity' gives each particle the
    // density rate of 'continuity_and_strain_rate' and the stress rate and scheme's power of
    // 'none' (the jump is then in no strain rate); the full form's strain rate is not zero.
    const double dx = 0.01;
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        const std::array<int, 3> n = dim == 2 ? std::array<int, 3>{12, 10, 1}
                                              : std::array<int, 3>{8, 8, 8};
        using Jump = PhysicsParameters::StressJump;
        const auto run = [&](Jump jump) {
            Simulation sim = block(dim, n, dx);
            sim.physics().dissipation = PhysicsParameters::Dissipation::riemann;
            sim.physics().riemann_stress_jump = jump;
            sim.physics().density_diffusion = 0.0;
            ParticleSet& p = sim.particles();
            for (std::size_t a = 0; a < p.size(); ++a) {
                long parity = 0;
                for (int k = 0; k < dim; ++k) parity += std::lround(p.x[k][a] / dx - 0.5);
                for (int c = XX; c < dim; ++c) p.stress[c][a] = parity % 2 ? -1.2e5 : -1.0e5;
            }
            return sim.evaluate_derivatives();
        };
        const Derivatives none = run(Jump::none), continuity = run(Jump::continuity),
                          full = run(Jump::continuity_and_strain_rate);
        double drho = 0.0, drho_error = 0.0, stress_error = 0.0, full_stress = 0.0, loss = 0.0;
        for (std::size_t a = 0; a < none.drho.size(); ++a) {
            drho = std::max(drho, std::abs(full.drho[a] - none.drho[a]));
            drho_error = std::max(drho_error, std::abs(continuity.drho[a] - full.drho[a]));
            for (int c = 0; c < kSymComponents; ++c) {
                stress_error = std::max(
                    stress_error, std::abs(continuity.dstress[c][a] - none.dstress[c][a]));
                full_stress = std::max(
                    full_stress, std::abs(full.dstress[c][a] - none.dstress[c][a]));
            }
            loss = std::max(loss, std::abs(continuity.power[kViscousPower][a] -
                                           none.power[kViscousPower][a]));
        }
        CHECK(drho > 1.0);  // [kg/m^3/s]: 20 kPa of noise against rho c ~ 7e4 kg/m^2/s
        CHECK(drho_error <= 1e-12 * drho);
        CHECK(full_stress > 1e3);  // [Pa/s]
        CHECK(stress_error == 0.0);
        CHECK(loss == 0.0);
    }
}

TEST_CASE("delta-SPH density diffusion: Molteni's sum, mass kept, nothing for a uniform density") {
    // D_a = delta h_ab (c_a + c_b) / 2 sum_b V_b (rho_a - rho_b) r W'(r) / (r^2 + eps h_ab^2)
    // (Molteni & Colagrossi 2009 with h = h_ab / 2), transcribed pair by pair, against the
    // density rate with delta minus the one without; sum_a V_a D_a = 0 (the pair terms are
    // antisymmetric); a uniform density gets exactly the rate it had without the term.
    const int dim = 2;
    const double delta = 0.1, c = 50.0;  // c: the material's fixed sound speed
    Simulation sim = random_body(dim, 91, 1e12);
    sim.physics().dissipation = PhysicsParameters::Dissipation::riemann;
    sim.physics().density_diffusion = 0.0;
    const std::vector<double> without = sim.evaluate_derivatives().drho;
    sim.physics().density_diffusion = delta;
    const std::vector<double> with = sim.evaluate_derivatives().drho;
    const ParticleSet& p = sim.particles();
    const double eps = sim.physics().av_epsilon;
    double err = 0.0, scale = 0.0, net = 0.0, gross = 0.0;
    for (std::size_t a = 0; a < p.size(); ++a) {
        double ref = 0.0;
        for (std::size_t b = 0; b < p.size(); ++b) {
            const double x[2] = {p.x[0][a] - p.x[0][b], p.x[1][a] - p.x[1][b]};
            const double r2 = x[0] * x[0] + x[1] * x[1], r = std::sqrt(r2);
            const double hab = 0.5 * (p.h[a] + p.h[b]);
            if (b == a || r >= hab) continue;
            ref += delta * hab * c * (p.mass[b] / p.rho[b]) * (p.rho[a] - p.rho[b]) * r *
                   kernel::derivative<2>(r, hab) / (r2 + eps * hab * hab);
        }
        const double got = with[a] - without[a];
        err = std::max(err, std::abs(got - ref));
        scale = std::max({scale, std::abs(ref), std::abs(with[a])});
        net += p.mass[a] / p.rho[a] * got;
        gross += std::abs(p.mass[a] / p.rho[a] * got);
    }
    CHECK(gross > 0.0);
    CHECK(err <= 1e-10 * scale);
    CHECK(std::abs(net) <= 1e-10 * gross);
    ParticleSet& q = sim.particles();
    std::fill(q.rho.begin(), q.rho.end(), kRho);
    const std::vector<double> uniform = sim.evaluate_derivatives().drho;
    sim.physics().density_diffusion = 0.0;
    CHECK(uniform == sim.evaluate_derivatives().drho);  // bitwise
}

TEST_CASE("Morris & Monaghan's switch decays in a smooth shear and rises in compression") {
    // df/dt = -(f - 0.1) / tau + max(-div v, 0) (1 - f), tau = (h / 2) / (0.2 c): a simple shear
    // v = (g y, 0) has div v = 0, so an interior particle's f = 1 decays at 0.9 / tau; a
    // compression v = (-k x, 0) raises an interior f at the floor by k m 0.9 (m the lattice
    // factor of the SPH divergence).
    const double dx = 0.01, c = 20.0;  // c: the material's fixed viscosity sound speed
    const std::array<int, 3> n{14, 14, 1};
    Simulation sim(2);
    const int mat = sim.add_material(soil(1e12, c));
    sim.add_body("block", mat, "dynamic",
                 geometry::lattice_fill(*geometry::rectangle({0, 0}, {n[0] * dx, n[1] * dx}), dx),
                 dx, 2.5 * dx);
    sim.physics().gravity = {0.0, 0.0, 0.0};
    sim.physics().dissipation = PhysicsParameters::Dissipation::monaghan;
    sim.physics().av_switch = true;
    const double shear[3][3] = {{0.0, 3.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    set_linear_velocity(sim.particles(), shear);
    const Derivatives& d = sim.evaluate_derivatives();
    const ParticleSet& p = sim.particles();
    const int column = p.history.find(kSwitchColumn);
    REQUIRE(column >= 0);
    const auto k = static_cast<std::size_t>(column);
    std::size_t checked = 0;
    for (std::size_t a = 0; a < p.size(); ++a) {
        if (!interior(p, a, n, dx)) continue;
        CHECK(p.history.values[k][a] == 1.0);
        const double tau = 0.5 * p.h[a] / (0.2 * c);
        CHECK(d.dhistory[k][a] == doctest::Approx(-0.9 / tau).epsilon(1e-9));
        ++checked;
    }
    CHECK(checked > 0);
    const double rate = 2.0, m = lattice_factor(2, dx, 2.5 * dx);
    const double squeeze[3][3] = {{-rate, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    set_linear_velocity(sim.particles(), squeeze);
    std::fill(sim.particles().history.values[k].begin(), sim.particles().history.values[k].end(),
              kSwitchFloor);
    const Derivatives& e = sim.evaluate_derivatives();
    for (std::size_t a = 0; a < p.size(); ++a)
        if (interior(p, a, n, dx))
            CHECK(e.dhistory[k][a] == doctest::Approx(rate * m * 0.9).epsilon(1e-6));
}

TEST_CASE("strain rate, spin and density rate of a linear velocity field v = A x (S17-38, S17-23)") {
    // For v = A x on a regular lattice the SPH velocity gradient of a particle with full
    // support is exactly A M, with M = -sum_b V_b (x_b - x_a) (x_b - x_a)^T W'(r) / r = m I
    // the lattice estimate of the identity (lattice_factor). Two checks:
    //  * against m sym(A): the SPH sums themselves, to round-off (1e-10);
    //  * against sym(A): the discretisation error |m - 1| of the cubic spline at h = 2.5 dx,
    //    observed 1.05e-3 in 2D and 1.81e-2 in 3D (the 3D lattice sum is that poor at this
    //    h / dx); tolerances 2.1e-3 and 3.6e-2, about twice that.
    const double dx = 0.01;
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        const std::array<int, 3> n = dim == 2 ? std::array<int, 3>{16, 14, 1}
                                              : std::array<int, 3>{11, 11, 11};
        double A[3][3] = {{0.3, -0.7, 0.2}, {0.4, -0.1, 0.5}, {-0.6, 0.25, 0.15}};
        if (dim == 2) A[0][2] = A[1][2] = A[2][0] = A[2][1] = A[2][2] = 0.0;
        SymTensor eps_exact;
        Spin w_exact;
        split(A, eps_exact, w_exact);
        const double m = lattice_factor(dim, dx, 2.5 * dx);
        const double tol = dim == 2 ? 2.1e-3 : 3.6e-2;
        SymTensor eps_lattice = eps_exact;
        Spin w_lattice = w_exact;
        for (double& e : eps_lattice) e *= m;
        for (double& e : w_lattice) e *= m;

        SUBCASE("zero stress: the stress rate is Hooke's law of the strain rate") {
            Simulation sim = block(dim, n, dx);
            set_linear_velocity(sim.particles(), A);
            const Derivatives& d = sim.evaluate_derivatives();
            const ParticleSet& p = sim.particles();
            std::size_t checked = 0;
            double worst = 0.0, worst_rho = 0.0, worst_lattice = 0.0;
            const double lame = kK - 2.0 * kMu / 3.0;
            for (std::size_t a = 0; a < p.size(); ++a) {
                if (!interior(p, a, n, dx)) continue;
                ++checked;
                const SymTensor r = stress_rate(d, a);
                // Invert Hooke: tr(eps) from the trace of the rate (plane strain: eps_zz = 0,
                // so tr(rate) = 2 (mu + lame) tr(eps) over xx + yy), then each component.
                const double tr = dim == 2 ? (r[XX] + r[YY]) / (2.0 * (kMu + lame))
                                           : trace(r) / (3.0 * kK);
                SymTensor eps;
                for (int c = 0; c < kSymComponents; ++c) eps[c] = r[c] / (2.0 * kMu);
                for (int c = XX; c <= (dim == 2 ? YY : ZZ); ++c) eps[c] -= lame * tr / (2.0 * kMu);
                if (dim == 2) {
                    // Plane strain: sigma_zz rate = lame tr(eps), no out-of-plane shear.
                    CHECK(r[ZZ] == doctest::Approx(lame * tr).epsilon(1e-12));
                    CHECK(r[XZ] == 0.0);
                    CHECK(r[YZ] == 0.0);
                    eps[ZZ] = 0.0;
                }
                SymTensor diff, diff_lattice;
                for (int c = 0; c < kSymComponents; ++c) {
                    diff[c] = eps[c] - eps_exact[c];
                    diff_lattice[c] = eps[c] - eps_lattice[c];
                }
                worst = std::max(worst, frob(diff) / frob(eps_exact));
                worst_lattice = std::max(worst_lattice, frob(diff_lattice) / frob(eps_exact));
                // Continuity (S17-31): d rho / dt = -rho tr(L) = -rho m tr(A).
                worst_rho = std::max(worst_rho,
                                     std::abs(d.drho[a] + p.rho[a] * m * trace(eps_exact)) /
                                         (p.rho[a] * frob(eps_exact)));
                // Uniform (zero) stress: the only force is the artificial viscosity, which
                // cancels between the pairs b and b' at x_a -+ r for a linear field.
                for (int k = 0; k < dim; ++k) CHECK(std::abs(d.dv[k][a]) <= 1e-9);
            }
            MESSAGE("dim ", dim, ": lattice factor m - 1 = ", m - 1.0,
                    ", max relative strain-rate error ", worst, " (", worst_lattice,
                    " against m sym(A)), density rate ", worst_rho, ", ", checked,
                    " interior particles");
            CHECK(checked >= (dim == 2 ? 80u : 27u));
            CHECK(worst_lattice < 1e-10);
            CHECK(worst_rho < 1e-10);
            CHECK(worst < tol);
        }

        SUBCASE("pre-stressed: the stress rate adds W sigma - sigma W (Jaumann, S17-22)") {
            Simulation sim = block(dim, n, dx);
            ParticleSet& p = sim.particles();
            set_linear_velocity(p, A);
            const SymTensor sigma0 = dim == 2 ? SymTensor{-3e5, 2e5, -1e5, 4e5, 0, 0}
                                              : SymTensor{-3e5, 2e5, -1e5, 4e5, -2.5e5, 1.5e5};
            for (std::size_t a = 0; a < p.size(); ++a)
                for (int c = 0; c < kSymComponents; ++c) p.stress[c][a] = sigma0[c];
            const Derivatives& d = sim.evaluate_derivatives();
            // Closed form: Hooke(sym A) + W sigma0 - sigma0 W, exactly (lattice factor m) and
            // up to the discretisation error (m = 1).
            const auto closed_form = [&](const SymTensor& eps, const Spin& w) {
                SymTensor e = hooke(eps);
                const SymTensor rot = jaumann_rotation_term(sigma0, w);
                for (int c = 0; c < kSymComponents; ++c) e[c] += rot[c];
                if (dim == 2) e[ZZ] = (kK - 2.0 * kMu / 3.0) * (eps[XX] + eps[YY]);
                return e;
            };
            const SymTensor expected = closed_form(eps_exact, w_exact);
            const SymTensor expected_lattice = closed_form(eps_lattice, w_lattice);
            // The rotation term matters.
            REQUIRE(frob(jaumann_rotation_term(sigma0, w_exact)) > 0.3 * frob(hooke(eps_exact)));
            double worst = 0.0, worst_lattice = 0.0;
            std::size_t checked = 0;
            for (std::size_t a = 0; a < p.size(); ++a) {
                if (!interior(p, a, n, dx)) continue;
                ++checked;
                const SymTensor r = stress_rate(d, a);
                SymTensor diff, diff_lattice;
                for (int c = 0; c < kSymComponents; ++c) {
                    diff[c] = r[c] - expected[c];
                    diff_lattice[c] = r[c] - expected_lattice[c];
                }
                worst = std::max(worst, frob(diff) / frob(expected));
                worst_lattice = std::max(worst_lattice, frob(diff_lattice) / frob(expected));
                // Uniform stress: interior accelerations are zero by lattice symmetry (the
                // viscosity of a linear field cancels pairwise too).
                for (int k = 0; k < dim; ++k) CHECK(std::abs(d.dv[k][a]) <= 1e-6);
            }
            MESSAGE("dim ", dim, ": max relative stress-rate error with rotation ", worst, " (",
                    worst_lattice, " against the lattice-corrected rate)");
            CHECK(checked > 0);
            CHECK(worst_lattice < 1e-10);
            CHECK(worst < tol);
        }
    }
}

TEST_CASE("rigid rotation: no strain rate, stress co-rotates (S17-22, sign of the spin)") {
    // v = Omega (-y, x) about the block centre; sigma_0 = uniaxial tension s along x.
    // Rigid rotation carries sigma along: d sigma_xy / dt = Omega s, sigma_xx, sigma_yy and the
    // density stay put.
    const double dx = 0.01, omega = 3.0, s = 5e4;
    const std::array<int, 3> n{14, 14, 1};
    Simulation sim = block(2, n, dx);
    ParticleSet& p = sim.particles();
    const double c = 0.5 * n[0] * dx;
    for (std::size_t a = 0; a < p.size(); ++a) {
        p.v[0][a] = -omega * (p.x[1][a] - c);
        p.v[1][a] = omega * (p.x[0][a] - c);
        p.stress[XX][a] = s;
    }
    const Derivatives& d = sim.evaluate_derivatives();
    const double m = lattice_factor(2, dx, 2.5 * dx);  // SPH spin = m W exactly (see above)
    std::size_t checked = 0;
    for (std::size_t a = 0; a < p.size(); ++a) {
        if (!interior(p, a, n, dx)) continue;
        ++checked;
        CHECK(d.dstress[XY][a] == doctest::Approx(m * omega * s).epsilon(1e-10));
        CHECK(d.dstress[XY][a] == doctest::Approx(omega * s).epsilon(2.1e-3));
        CHECK(std::abs(d.dstress[XX][a]) <= 1e-3 * omega * s);
        CHECK(std::abs(d.dstress[YY][a]) <= 1e-3 * omega * s);
        CHECK(std::abs(d.drho[a]) <= 1e-12 * p.rho[a] * omega);
    }
    CHECK(checked == 64u);
}

TEST_CASE("uniform translation: no strain rate, no density rate, no viscosity (Galilean invariance)") {
    const double dx = 0.01;
    Simulation sim = block(2, {10, 8, 1}, dx);
    ParticleSet& p = sim.particles();
    for (std::size_t a = 0; a < p.size(); ++a) {
        p.v[0][a] = 3.0;
        p.v[1][a] = -1.5;
    }
    const Derivatives& d = sim.evaluate_derivatives();
    for (std::size_t a = 0; a < p.size(); ++a) {
        CHECK(d.drho[a] == 0.0);
        CHECK(d.dv[0][a] == 0.0);
        CHECK(d.dv[1][a] == 0.0);
        for (int c = 0; c < kSymComponents; ++c) CHECK(d.dstress[c][a] == 0.0);
    }
}

TEST_CASE("a compressed body pushes outward, interior forces balance (S17-37 sign)") {
    // sigma = -p I everywhere (compression, tension positive). Edge particles must accelerate
    // outward, particles with full support not at all, and the total force on the right half,
    // sum m a_x over it (the push of the left half across the mid-plane), is the traction p
    // times the height of the cut (per metre of depth in 2D).
    const double dx = 0.01, p0 = 1e4;
    const std::array<int, 3> n{16, 12, 1};
    Simulation sim = block(2, n, dx);
    ParticleSet& p = sim.particles();
    for (std::size_t a = 0; a < p.size(); ++a)
        for (int c = XX; c <= ZZ; ++c) p.stress[c][a] = -p0;
    const Derivatives& d = sim.evaluate_derivatives();
    const double a_scale = p0 / (kRho * dx);
    double right_force = 0.0, total[2] = {0, 0};
    std::size_t edges = 0;
    for (std::size_t a = 0; a < p.size(); ++a) {
        const double x = p.x[0][a], y = p.x[1][a];
        const double ax = d.dv[0][a], ay = d.dv[1][a];
        CAPTURE(x);
        CAPTURE(y);
        if (x < dx) { CHECK(ax < -0.01 * a_scale); ++edges; }
        if (x > (n[0] - 1) * dx) { CHECK(ax > 0.01 * a_scale); ++edges; }
        if (y < dx) { CHECK(ay < -0.01 * a_scale); ++edges; }
        if (y > (n[1] - 1) * dx) { CHECK(ay > 0.01 * a_scale); ++edges; }
        if (interior(p, a, n, dx)) {
            CHECK(std::abs(ax) <= 1e-10 * a_scale);
            CHECK(std::abs(ay) <= 1e-10 * a_scale);
        }
        if (x > 0.5 * n[0] * dx) right_force += p.mass[a] * ax;
        total[0] += p.mass[a] * ax;
        total[1] += p.mass[a] * ay;
    }
    CHECK(edges == 2u * (n[0] + n[1]));
    const double traction = p0 * n[1] * dx;  // [N/m]
    // Observed 1155.6 N/m against 1200 N/m (-3.7 %): the rows next to the free top and bottom
    // surfaces lack neighbours. 5 % tolerance.
    MESSAGE("force across the mid-plane ", right_force, " N/m, expected p H = ", traction);
    CHECK(right_force == doctest::Approx(traction).epsilon(0.05));
    CHECK(std::abs(total[0]) <= 1e-12 * traction);
    CHECK(std::abs(total[1]) <= 1e-12 * traction);
}

TEST_CASE("linear momentum of an isolated body is conserved (S17-37 antisymmetry)") {
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        Simulation sim = random_body(dim, 1234 + dim);
        const Derivatives& d = sim.evaluate_derivatives();
        const ParticleSet& p = sim.particles();
        double f[3] = {0, 0, 0}, f_abs = 0.0;
        for (std::size_t a = 0; a < p.size(); ++a)
            for (int k = 0; k < dim; ++k) {
                f[k] += p.mass[a] * d.dv[k][a];
                f_abs += p.mass[a] * std::abs(d.dv[k][a]);
            }
        REQUIRE(f_abs > 0.0);
        for (int k = 0; k < dim; ++k) CHECK(std::abs(f[k]) <= 1e-12 * f_abs);
    }
    // Over 50 integrator steps (Heun: both stages conserve momentum; the stress corrections
    // do not touch velocities).
    Simulation sim = random_body(2, 99);
    double scale = 0.0;
    const auto m0 = total_momentum(sim.particles(), &scale);
    for (int i = 0; i < 50; ++i) sim.advance(1.0);
    const auto m1 = total_momentum(sim.particles());
    CHECK(sim.step_count() == 50);
    CHECK(sim.time() > 0.0);
    for (int k = 0; k < 3; ++k) CHECK(std::abs(m1[k] - m0[k]) <= 1e-12 * scale);
    // The body did move.
    CHECK(sim.particles().x[0][0] != random_body(2, 99).particles().x[0][0]);
}

TEST_CASE("threads are chosen from the work of a loop") {
    const int saved = omp_get_max_threads();
    omp_set_num_threads(2);
    CHECK(parallel::threads_for(0, parallel::kMinPairItems) == 1);
    CHECK(parallel::threads_for(2 * parallel::kMinPairItems - 1, parallel::kMinPairItems) == 1);
    CHECK(parallel::threads_for(2 * parallel::kMinPairItems, parallel::kMinPairItems) == 2);
    CHECK(parallel::threads_for(100000, parallel::kMinCheapItems) == 2);  // never above the maximum
    omp_set_num_threads(1);
    CHECK(parallel::threads_for(100000, parallel::kMinCheapItems) == 1);
    omp_set_num_threads(saved);
}

TEST_CASE("a partition cuts contiguous ranges of about equal cost") {
    std::vector<double> cost(1000, 1.0);
    for (std::size_t i = 500; i < 1000; ++i) cost[i] = 3.0;  // the second half costs 3 x more
    const parallel::Partition two(cost, 2);
    REQUIRE(two.parts() == 2);
    CHECK(two.begin(0) == 0);
    CHECK(two.end(1) == 1000);
    CHECK(two.end(0) == two.begin(1));
    // Half of the total 2000 is reached at item 500 + 500/3: the cut follows the cost.
    CHECK(two.end(0) == 667);
    const parallel::Partition three(cost, 3);
    double first = 0.0;
    for (std::size_t i = three.begin(0); i < three.end(0); ++i) first += cost[i];
    CHECK(std::abs(first - 2000.0 / 3.0) <= 3.0);  // within one item of a third
    // More parts than items and no cost at all still cover every item once.
    const parallel::Partition many(std::vector<double>(3, 0.0), 5);
    CHECK(many.parts() == 5);
    std::size_t covered = 0;
    for (int k = 0; k < many.parts(); ++k) {
        CHECK(many.begin(k) <= many.end(k));
        covered += many.end(k) - many.begin(k);
    }
    CHECK(covered == 3);
}

TEST_CASE("chunk queue: every item once, and a late thread's part is taken over from its back") {
    const int saved = omp_get_max_threads();
    omp_set_num_threads(2);
    const std::size_t n = 10000, halo = 37;
    const parallel::Partition part(std::vector<double>(n, 1.0), 2);
    std::vector<int> owner(n + halo, -1), visits(n + halo, 0);
    parallel::ChunkQueue queue(part, n + halo, 64);
    CHECK(queue.total() == n + halo);
    std::atomic<std::size_t> done_by_0{0}, done_by_1{0};
#pragma omp parallel num_threads(2)
    {
        // Thread 1 joins late, like a thread woken from sleep: it starts only once thread 0
        // has done 9 000 items, i.e. its own part and much of thread 1's. Thread 0 then waits
        // for thread 1's first chunk, so that both work on thread 1's part.
        if (omp_get_thread_num() == 1)
            while (done_by_0.load() < 9000) std::this_thread::yield();
        queue.run([&](std::size_t first, std::size_t last) {
            for (std::size_t i = first; i < last; ++i) {
                owner[i] = omp_get_thread_num();
#pragma omp atomic
                visits[i] += 1;
            }
            if (omp_get_thread_num() == 1) {
                done_by_1 += last - first;
            } else if ((done_by_0 += last - first) >= 9000) {
                while (done_by_1.load() == 0) std::this_thread::yield();
            }
        });
    }
    omp_set_num_threads(saved);
    CHECK(std::all_of(visits.begin(), visits.end(), [](int v) { return v == 1; }));
    // Thread 0 ran all of its own part first...
    CHECK(std::all_of(owner.begin(), owner.begin() + 5000, [](int t) { return t == 0; }));
    // ...and then took over what thread 1 had not started, halo copies included, from the
    // back of thread 1's part: thread 1 still ran the front of its own part.
    CHECK(std::count(owner.begin() + 5000, owner.end(), 0) >= 4000);
    CHECK(owner[5000] == 1);
    CHECK(owner[n + halo - 1] == 0);
    const auto first_taken = std::find(owner.begin() + 5000, owner.end(), 0);
    CHECK(std::all_of(first_taken, owner.end(), [](int t) { return t == 0; }));
}

TEST_CASE("thread tuner: times both counts, keeps the faster, measures again") {
    const int saved = omp_get_max_threads();
    omp_set_num_threads(2);
    using parallel::ThreadTuner;
    const auto run_window = [](ThreadTuner& t, double seconds_all, double seconds_one) {
        for (int i = 0; i < ThreadTuner::kSettle + ThreadTuner::kWindow; ++i) {
            t.begin_step();
            t.record(parallel::thread_limit() == 1 ? seconds_one : seconds_all);
        }
    };
    // Steps of 1.0 s on all threads against 0.8 s or 1.2 s on one: 1.0 is not above 1.25 x
    // 0.8, so both windows run in full either way.
    for (const bool one_faster : {true, false}) {
        CAPTURE(one_faster);
        ThreadTuner t;
        t.begin_step();
        CHECK(parallel::thread_limit() == 1);  // starts by timing one thread
        CHECK(parallel::max_threads() == 1);
        run_window(t, 1.0, one_faster ? 0.8 : 1.2);
        t.begin_step();
        CHECK(parallel::thread_limit() == 0);  // now all threads are timed
        CHECK(parallel::max_threads() == 2);
        run_window(t, 1.0, one_faster ? 0.8 : 1.2);
        t.begin_step();
        CHECK(parallel::thread_limit() == (one_faster ? 1 : 0));  // the faster kept
        for (int i = 0; i < ThreadTuner::kRunWindows * ThreadTuner::kWindow; ++i) {
            t.begin_step();
            t.record(1.0);
        }
        t.begin_step();
        CHECK(parallel::thread_limit() == 1);  // measuring again
        CHECK(t.steps_all() + t.steps_one() ==
              2 * (ThreadTuner::kSettle + ThreadTuner::kWindow) +
                  ThreadTuner::kRunWindows * ThreadTuner::kWindow);
        // The same choice again: the next run phase lasts twice as long.
        run_window(t, 1.0, one_faster ? 0.8 : 1.2);
        run_window(t, 1.0, one_faster ? 0.8 : 1.2);
        for (int i = 0; i < 2 * ThreadTuner::kRunWindows * ThreadTuner::kWindow - 1; ++i) {
            t.begin_step();
            CHECK(parallel::thread_limit() == (one_faster ? 1 : 0));
            t.record(1.0);
        }
        t.begin_step();
        CHECK(parallel::thread_limit() == (one_faster ? 1 : 0));
        t.record(1.0);
        t.begin_step();
        CHECK(parallel::thread_limit() == 1);  // and then measures again
        t.enable(false);
        t.begin_step();
        CHECK(parallel::thread_limit() == 0);  // off: no cap
    }
    omp_set_num_threads(saved);
}

TEST_CASE("thread tuner: all threads clearly slower stop their window early") {
    const int saved = omp_get_max_threads();
    omp_set_num_threads(2);
    using parallel::ThreadTuner;
    // A measurement: one thread at 1.0 s a step, all threads at all_step(k) s for their k-th
    // step (from 1). Returns the steps run on all threads.
    const auto measure = [](ThreadTuner& t, const auto& all_step) {
        int steps_on_all = 0;
        for (int i = 0; i < 2 * (ThreadTuner::kSettle + ThreadTuner::kWindow); ++i) {
            t.begin_step();
            const bool all = parallel::thread_limit() != 1;
            if (all) ++steps_on_all;
            t.record(all ? all_step(steps_on_all) : 1.0);
        }
        CHECK(t.steps_all() == steps_on_all);
        return steps_on_all;
    };
    // All threads at `slow` s: above 1.5 x 1.0 the window ends after its first kSettleChecked
    // steps, above 1.25 x after kEarlyTimed timed steps (beside a competitor, the steps the
    // measurement costs); at 1.2 s it runs in full and one thread still wins on the totals.
    for (const double slow : {2.0, 1.3, 1.2}) {
        CAPTURE(slow);
        ThreadTuner t;
        CHECK(measure(t, [slow](int) { return slow; }) ==
              (slow > 1.5    ? ThreadTuner::kSettleChecked
               : slow > 1.25 ? ThreadTuner::kSettle + ThreadTuner::kEarlyTimed
                             : ThreadTuner::kSettle + ThreadTuner::kWindow));
        t.begin_step();
        CHECK(parallel::thread_limit() == 1);  // one thread kept, in a run phase
        t.record(1.0);
    }
    // One slow step among the first ones (a neighbour-list rebuild) does not end the window:
    // every checked step must be slow. Then all threads win.
    {
        ThreadTuner t;
        CHECK(measure(t, [](int k) { return k == 1 ? 4.0 : 0.6; }) ==
              ThreadTuner::kSettle + ThreadTuner::kWindow);
        t.begin_step();
        CHECK(parallel::thread_limit() == 0);  // all threads kept
        t.record(0.6);
    }
    // A slow start of the window that recovers is not stopped: the test comes once, after
    // kEarlyTimed timed steps, and later slow steps only count in the totals.
    ThreadTuner t;
    CHECK(measure(t, [](int k) {
              return k > ThreadTuner::kSettle + ThreadTuner::kEarlyTimed ? 3.0 : 0.5;
          }) == ThreadTuner::kSettle + ThreadTuner::kWindow);
    t.begin_step();
    CHECK(parallel::thread_limit() == 1);  // 4 x 0.5 + 20 x 3.0 s > 24 x 1.0 s
    parallel::thread_limit() = 0;  // the integrator restores it after each step; here the test
    omp_set_num_threads(saved);
}

TEST_CASE("adaptive Verlet skin: wider where lists live short, and results unchanged") {
    // The rule: 1.25 x wider after a list that lived fewer than kShortListLife evaluations,
    // up to kMaxSkinFactor; 1.25 x narrower after one that lived more than 4 x as long, down
    // to 1.
    const int life = AdaptiveHeun::kShortListLife;
    CHECK(AdaptiveHeun::next_skin_factor(1.0, life - 1) == 1.25);
    CHECK(AdaptiveHeun::next_skin_factor(1.0, life) == 1.0);
    CHECK(AdaptiveHeun::next_skin_factor(1.9, 1) == AdaptiveHeun::kMaxSkinFactor);
    CHECK(AdaptiveHeun::next_skin_factor(1.25, 4 * life + 1) == 1.0);
    CHECK(AdaptiveHeun::next_skin_factor(1.0, 4 * life + 1) == 1.0);
    CHECK(AdaptiveHeun::next_skin_factor(1.5, 4 * life) == 1.5);
    // A block moving at 30 m/s with its random internal motion: its Verlet lists (skin
    // 0.15 h_max, rebuilt after ~1.8 mm) live a few steps, so the skin widens. The same run
    // with twice the narrowest skin and half the margin fraction has the same pair margin and
    // its own rebuild times: the results must be bitwise the same.
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        const std::array<int, 3> n = dim == 2 ? std::array<int, 3>{20, 16, 1}
                                              : std::array<int, 3>{8, 7, 6};
        Simulation a = random_body(dim, 17, 2e3, n);
        Simulation b = random_body(dim, 17, 2e3, n);
        for (Simulation* s : {&a, &b})
            for (std::size_t i = 0; i < s->particles().size(); ++i) s->particles().v[0][i] += 30.0;
        b.integrator_options().neighbour_skin = 0.3;
        b.integrator_options().pair_margin = 0.1;
        for (int i = 0; i < 120; ++i) {
            a.advance(1.0);
            b.advance(1.0);
        }
        REQUIRE(a.integrator() != nullptr);
        CHECK(a.integrator()->skin_factor() > 1.5);
        CHECK(a.integrator()->skin_factor() <= AdaptiveHeun::kMaxSkinFactor);
        CHECK(b.integrator()->skin_factor() > 1.0);
        check_same_state(a, b);
    }
}

TEST_CASE("a run whose tuner changes the thread count gives the results of one thread") {
    const int saved = omp_get_max_threads();
    const int steps = 2 * (parallel::ThreadTuner::kSettle + parallel::ThreadTuner::kWindow) + 10;
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        const std::array<int, 3> n = dim == 2 ? std::array<int, 3>{40, 30, 1}
                                              : std::array<int, 3>{12, 10, 8};
        Simulation fixed = random_body(dim, 7, 2e3, n);
        Simulation tuned = random_body(dim, 7, 2e3, n);
        fixed.integrator_options().tune_threads = false;
        omp_set_num_threads(1);
        for (int i = 0; i < steps; ++i) fixed.advance(1.0);
        omp_set_num_threads(2);
        for (int i = 0; i < steps; ++i) tuned.advance(1.0);  // 2 threads, then 1, then either
        omp_set_num_threads(saved);
        CHECK(parallel::thread_limit() == 0);  // the cap ends with each step
        check_same_state(fixed, tuned);
    }
}

TEST_CASE("results do not depend on the thread count") {
    const int saved = omp_get_max_threads();
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        // Large enough that every particle loop takes 2 threads (parallel/threads.hpp).
        const std::array<int, 3> n = dim == 2 ? std::array<int, 3>{128, 72, 1}
                                              : std::array<int, 3>{24, 20, 18};
        omp_set_num_threads(2);
        REQUIRE(parallel::threads_for(std::size_t(n[0]) * n[1] * (dim == 3 ? n[2] : 1),
                                      parallel::kMinCheapItems) == 2);
        Simulation one = random_body(dim, 42, 2e3, n);
        Simulation two = random_body(dim, 42, 2e3, n);
        omp_set_num_threads(1);
        const Derivatives d1 = one.evaluate_derivatives();
        for (int i = 0; i < 5; ++i) one.advance(1.0);
        omp_set_num_threads(2);
        const Derivatives d2 = two.evaluate_derivatives();
        for (int i = 0; i < 5; ++i) two.advance(1.0);
        omp_set_num_threads(saved);
        for (int k = 0; k < 3; ++k) CHECK(d1.dv[k] == d2.dv[k]);  // bitwise
        CHECK(d1.drho == d2.drho);
        for (int c = 0; c < kSymComponents; ++c) CHECK(d1.dstress[c] == d2.dstress[c]);
        CHECK(d1.dt_limit == d2.dt_limit);
        check_same_state(one, two);
    }
}

// The elastic solid of the disordered sets below: rubber-like, rho0 1200 kg/m^3, K 2 MPa,
// mu 1 MPa, Murnaghan n = 3.
ElasticSolid test_rubber() {
    ElasticSolid es;
    es.density = 1200.0;
    es.bulk_modulus = 2e6;
    es.shear_modulus = 1e6;
    es.murnaghan_n = 3.0;
    return es;
}

// Disordered particles of spacing dx on 10 x 8 (x 6) lattice sites, jittered by 0.2 dx, with
// random velocities, densities, h and stresses: soil (material 0) for i < 5, the elastic
// solid `es` (material 1) beyond, and with `walls` two rows of wall particles (material 2,
// kind boundary) below, at their lattice sites and at rest.
ParticleSet disordered(int dim, double dx, const ElasticSolid& es, bool walls, std::mt19937_64& rng) {
    ParticleSet p;
    p.dim = dim;
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const int nz = dim == 3 ? 6 : 1;
    for (int i = 0; i < 10; ++i)
        for (int j = walls ? -2 : 0; j < 8; ++j)
            for (int k = 0; k < nz; ++k) {
                const bool wall = j < 0;
                const int mat = wall ? 2 : (i < 5 ? 0 : 1);
                const double rho = mat == 1 ? es.density : kRho;
                std::array<double, 3> x{i * dx, j * dx, dim == 3 ? k * dx : 0.0};
                std::array<double, 3> v{};
                if (!wall)
                    for (int d = 0; d < dim; ++d) {
                        x[d] += 0.2 * dx * u(rng);
                        v[d] = 0.5 * u(rng);
                    }
                const double h = dx * (2.5 + (wall ? 0.0 : 0.4 * u(rng)));
                p.push_back(x, v, rho * (1.0 + 0.05 * u(rng)), rho * std::pow(dx, dim), h, mat,
                            mat, wall ? ParticleKind::boundary : ParticleKind::dynamic,
                            static_cast<std::int64_t>(p.size()));
                for (int c = 0; c < kSymComponents; ++c)
                    if (dim == 3 || (c != XZ && c != YZ)) p.stress[c].back() = 3e3 * u(rng);
            }
    return p;
}

// The same position, velocity, density and stress rates and Courant limits, to the bit; with
// `acceleration_ulps` > 0 the accelerations to that many units in the last place of the largest
// (two pair loops compiled with and without a term may fuse their multiply-adds differently
// where the instruction set has FMA).
void check_same_rates(const Derivatives& a, const Derivatives& b, int acceleration_ulps = 0) {
    for (int d = 0; d < 3; ++d) {
        CHECK(a.dx[d] == b.dx[d]);
        if (acceleration_ulps == 0) {
            CHECK(a.dv[d] == b.dv[d]);
            continue;
        }
        REQUIRE(a.dv[d].size() == b.dv[d].size());
        double largest = 0.0;
        for (const double v : a.dv[d]) largest = std::max(largest, std::abs(v));
        const double tolerance =
            acceleration_ulps * largest * std::numeric_limits<double>::epsilon();
        for (std::size_t i = 0; i < a.dv[d].size(); ++i)
            CHECK(std::abs(a.dv[d][i] - b.dv[d][i]) <= tolerance);
    }
    CHECK(a.drho == b.drho);
    for (int k = 0; k < kSymComponents; ++k) CHECK(a.dstress[k] == b.dstress[k]);
    CHECK(a.dt_limit == b.dt_limit);
}

TEST_CASE("results do not depend on the neighbour list's skin, nor beyond rounding on the pair margin") {
    // The same particles with Verlet lists of two skins and pair lists of one margin: the pair
    // lists, and so the derivatives, agree to the bit (restarts and other decompositions build
    // their Verlet lists at other times). Soil, an elastic solid with artificial stress and
    // XSPH, and wall particles; one coincident pair.
    for (const int dim : {2, 3}) {
        CAPTURE(dim);
        const double dx = 0.01;
        std::vector<Material> mats{soil(2e3, 50.0)};
        ElasticSolid es = test_rubber();
        es.artificial_stress = 0.3;
        es.xsph = 0.5;
        mats.push_back(Material{"rubber", es, 0.0});
        mats.push_back(Material{"wall", Rigid{kRho}, 0.0});
        std::mt19937_64 rng(7);
        ParticleSet p = disordered(dim, dx, es, true, rng);
        const int nz = dim == 3 ? 6 : 1;
        const std::size_t twin = (3 * 10 + 5) * nz;  // a soil particle (i = 3, j = 3)
        REQUIRE(p.kind[twin] == ParticleKind::dynamic);
        p.push_back({p.x[0][twin], p.x[1][twin], p.x[2][twin]}, {}, kRho,
                    kRho * std::pow(dx, dim), 2.5 * dx, 0, 0, ParticleKind::dynamic,
                    static_cast<std::int64_t>(p.size()));
        const MaterialTable table(mats, dim);
        const PhysicsParameters pp;
        // The pair lists of both have the same margin: the same lists, whatever the skin.
        const double margin = 0.005 * dx;
        NeighbourList tight, wide, wide_margin;
        tight.build(p, 0.01 * dx, margin);
        wide.build(p, 1.5 * dx, margin);
        REQUIRE(wide.pair_count() > tight.pair_count() + tight.pair_count() / 2);
        // A margin of half the wide skin: many more entries beyond the support (exact zeros).
        wide_margin.build(p, 1.5 * dx, 0.75 * dx);
        for (NeighbourList* nl : {&tight, &wide, &wide_margin}) nl->select_pairs(p, p.x);
        REQUIRE(wide_margin.pair_list_entries() > tight.pair_list_entries() * 5 / 4);
        Derivatives a, b, c;
        compute_derivatives(p, tight, table, pp, a);
        compute_derivatives(p, wide, table, pp, b);
        compute_derivatives(p, wide_margin, table, pp, c);
        check_same_rates(a, b);
        bool finite = true;
        for (std::size_t i = 0; i < p.size(); ++i) finite = finite && std::isfinite(a.dv[0][i]);
        CHECK(finite);
        // The wider margin adds entries beyond the support after those within it: the
        // interacting partners keep their lanes, the added ones fill lanes with exact zeros or
        // whole blocks that the pair loop skips, so the derivatives agree to the bit too.
        for (int d = 0; d < dim; ++d) CHECK(a.dv[d] == c.dv[d]);
        CHECK(a.drho == c.drho);
        for (int k = 0; k < kSymComponents; ++k) CHECK(a.dstress[k] == c.dstress[k]);
        CHECK(a.dt_limit == c.dt_limit);
        // Evaluated after a move of up to a quarter of the wide margin, where some of its
        // entries have come within the support (their blocks are no longer skipped), the two
        // lists hold the same interacting pairs in other lanes: the rounding changes, 1e-12
        // of each array's largest entry.
        ParticleSet q = p;
        q.x_selected = p.x;  // where wide_margin's lists were selected
        const double most = 0.25 * 0.75 * dx / std::sqrt(dim);  // per coordinate [m]
        std::uniform_real_distribution<double> step(-most, most);
        for (std::size_t i = 0; i < q.size(); ++i)
            if (q.kind[i] == ParticleKind::dynamic)
                for (int d = 0; d < dim; ++d) q.x[d][i] += step(rng);
        NeighbourList moved_tight;
        moved_tight.build(q, 1.5 * dx, 0.005 * dx);
        moved_tight.select_pairs(q, q.x);
        REQUIRE_FALSE(wide_margin.motion(q).reselect);
        Derivatives e, f;
        compute_derivatives(q, moved_tight, table, pp, e);
        compute_derivatives(q, wide_margin, table, pp, f);
        const auto close = [](const std::vector<double>& u, const std::vector<double>& w) {
            double scale = 0.0, diff = 0.0;
            for (std::size_t i = 0; i < u.size(); ++i) {
                scale = std::max(scale, std::abs(u[i]));
                diff = std::max(diff, std::abs(u[i] - w[i]));
            }
            return diff <= 1e-12 * scale;
        };
        for (int d = 0; d < dim; ++d) CHECK(close(e.dv[d], f.dv[d]));
        CHECK(close(e.drho, f.drho));
        for (int k = 0; k < kSymComponents; ++k) CHECK(close(e.dstress[k], f.dstress[k]));
        CHECK(close(e.dt_limit, f.dt_limit));
        bool differs = false;  // the lanes did change: not bitwise any more
        for (int d = 0; d < dim; ++d) differs = differs || e.dv[d] != f.dv[d];
        CHECK(differs);
    }
}

TEST_CASE("without walls the walls' energy term is zero, and the pair loop that leaves it out changes nothing else") {
    // compute_derivatives(walls = false) leaves the pair work of the walls' energy term out:
    // over dynamic pairs it cancels the stress and viscous powers in the sum over all particles
    // (energy_budget.hpp). Checked here on disordered particles with random velocities and
    // stresses (an elastic solid and soil; artificial stress, XSPH, Balsara's switch and the
    // kernel correction): the loop with walls gives per-particle wall powers that sum to zero
    // up to rounding, and the loop without gives zeros and every other array to the bit (the
    // accelerations to rounding: check_same_rates).
    for (const auto scheme : {PhysicsParameters::Dissipation::monaghan,
                              PhysicsParameters::Dissipation::riemann})
    for (const int dim : {2, 3})
        for (const int variant : {0, 1, 2}) {
            CAPTURE(std::string(dissipation_name(scheme)));
            CAPTURE(dim);
            CAPTURE(variant);
            if (scheme == PhysicsParameters::Dissipation::riemann && variant == 1) continue;
            const double dx = 0.01;
            ElasticSolid es = test_rubber();
            es.artificial_stress = variant == 0 ? 0.3 : 0.0;
            es.xsph = variant == 0 ? 0.5 : 0.0;
            std::vector<Material> mats{soil(2e3, 50.0), Material{"rubber", es, 0.0}};
            if (variant == 2)
                for (Material& m : mats) m.kernel_correction = true;
            PhysicsParameters pp;
            pp.dissipation = scheme;
            pp.av_balsara = variant == 1;
            std::mt19937_64 rng(11);
            const ParticleSet p = disordered(dim, dx, es, false, rng);
            const MaterialTable table(mats, dim);
            NeighbourList nl;
            nl.build(p, 0.3 * dx, 0.005 * dx);
            nl.select_pairs(p, p.x);
            Derivatives with, without;
            compute_derivatives(p, nl, table, pp, with, nullptr, {}, true);
            compute_derivatives(p, nl, table, pp, without, nullptr, {}, false);
            check_same_rates(with, without, 4);
            CHECK(with.stress_power == without.stress_power);
            for (const int c : {kPlasticPower, kViscousPower, kArtificialStressPower})
                CHECK(with.power[c] == without.power[c]);
            double sum = 0.0, scale = 0.0, largest = 0.0;
            for (std::size_t a = 0; a < p.size(); ++a) {
                CHECK(without.power[kWallPower][a] == 0.0);
                sum += with.power[kWallPower][a];
                largest = std::max(largest, std::abs(with.power[kWallPower][a]));
                scale += std::abs(with.stress_power[a]) + std::abs(with.power[kViscousPower][a]);
            }
            // Each particle's own term is far from zero: only the sum cancels.
            CHECK(largest > 1e-3 * scale / static_cast<double>(p.size()));
            CHECK(std::abs(sum) <= 1e-12 * scale);
        }
    // A particle set with wall particles needs the loop with walls.
    Simulation sim = block(2, {4, 4, 1}, 0.01);
    ParticleSet p = sim.particles();
    p.kind[0] = ParticleKind::boundary;
    NeighbourList nl;
    nl.build(p, 0.003, 0.0005);
    nl.select_pairs(p, p.x);
    Derivatives d;
    CHECK_THROWS_AS(compute_derivatives(p, nl, MaterialTable({soil(1e12)}, 2), PhysicsParameters{},
                                        d, nullptr, {}, false),
                    std::logic_error);
}

TEST_CASE("walls extrapolated in the pair loop's staging chunks give the values and rates of extrapolating first") {
    // AdaptiveHeun runs the wall extrapolation inside compute_derivatives (StagePrologue) when
    // there are no halo copies. The walls' density, mass and stress, and every rate, must be
    // those of extrapolating all walls first, to the bit: with and without the gradient
    // pre-pass (before which the prologue runs over all particles), in 2D and 3D.
    for (const int dim : {2, 3})
        for (const bool corrected : {false, true}) {
            CAPTURE(dim);
            CAPTURE(corrected);
            const double dx = 0.01;
            const ElasticSolid es = test_rubber();
            std::vector<Material> mats{soil(2e3, 50.0), Material{"rubber", es, 0.0},
                                       Material{"wall", Rigid{kRho}, 0.0}};
            if (corrected) mats[0].kernel_correction = true;
            const MaterialTable table(mats, dim);
            PhysicsParameters pp;
            pp.gravity = {0.0, -9.81, 0.0};
            std::mt19937_64 rng(3);
            ParticleSet first = disordered(dim, dx, es, true, rng);
            ParticleSet inside = first;
            NeighbourList nl;
            nl.build(first, 0.3 * dx, 0.005 * dx);
            nl.select_pairs(first, first.x);
            REQUIRE(nl.walls() > 0);
            Derivatives a, b;
            extrapolate_boundary(first, nl, pp);
            compute_derivatives(first, nl, table, pp, a);
            int calls = 0;
            compute_derivatives(inside, nl, table, pp, b, nullptr, {}, true,
                                [&](std::size_t from, std::size_t to) {
                                    extrapolate_boundary(inside, nl, pp, nullptr, from, to);
#pragma omp atomic
                                    ++calls;
                                });
            CHECK(calls > 0);
            check_same_rates(a, b);
            CHECK(first.rho == inside.rho);
            CHECK(first.mass == inside.mass);
            for (int c = 0; c < kSymComponents; ++c) CHECK(first.stress[c] == inside.stress[c]);
            bool changed = false;  // the walls did get new values (not their initial ones)
            std::mt19937_64 same_seed(3);
            const ParticleSet initial = disordered(dim, dx, es, true, same_seed);
            for (std::size_t i = 0; i < initial.size(); ++i)
                changed = changed || (initial.kind[i] == ParticleKind::boundary &&
                                      initial.stress[XX][i] != inside.stress[XX][i]);
            CHECK(changed);
        }
}

TEST_CASE("without a plastic material the plastic rates are zero, also in reused derivatives") {
    // Runs without a material that can yield do not store the plastic rate, the yielding flag
    // and the plastic power at every evaluation (MaterialTable::any_plastic): they must still
    // be zero when the same Derivatives held a plastic evaluation's values before.
    const double dx = 0.01;
    const ElasticSolid es = test_rubber();
    std::mt19937_64 rng(5);
    const ParticleSet p = disordered(2, dx, es, false, rng);
    NeighbourList nl;
    nl.build(p, 0.3 * dx, 0.005 * dx);
    nl.select_pairs(p, p.x);
    const Material rubber{"rubber", es, 0.0};
    const MaterialTable with_soil({soil(0.0), rubber}, 2), elastic({rubber, rubber}, 2);
    REQUIRE(with_soil.any_plastic);
    REQUIRE_FALSE(elastic.any_plastic);
    const PhysicsParameters pp;
    Derivatives reused, fresh;
    compute_derivatives(p, nl, with_soil, pp, reused);
    int yielding = 0;
    for (std::size_t a = 0; a < p.size(); ++a) yielding += reused.yielding[a];
    REQUIRE(yielding > 0);  // cohesionless soil under random stresses: some particles yield
    compute_derivatives(p, nl, elastic, pp, reused);
    compute_derivatives(p, nl, elastic, pp, fresh);
    check_same_rates(reused, fresh);
    for (std::size_t a = 0; a < p.size(); ++a) {
        CHECK(reused.dplastic[a] == 0.0);
        CHECK(reused.yielding[a] == 0);
        CHECK(reused.power[kPlasticPower][a] == 0.0);
    }
}

TEST_CASE("a body at rest on a fixed floor under gravity stays on it (SPEC 6)") {
    // 16 x 4 particles of cohesive soil on a 3-layer floor (>= one support radius thick),
    // walls on both sides. Gravity loads it suddenly; it must settle elastically without
    // penetrating the floor: vertical speeds stay far below free fall (g t).
    const double dx = 5e-3, h = 2.5 * dx, g = 9.81;
    Simulation sim(2);
    sim.physics().gravity = {0.0, -g, 0.0};
    const int mat = sim.add_material(soil(2e3, 0.0));
    const int wall = sim.add_material(Material{"wall", Rigid{kRho}, 0.0});
    const int nx = 16, ny = 4;
    sim.add_body("soil", mat, "dynamic",
                 geometry::lattice_fill(*geometry::rectangle({0, 0}, {nx * dx, ny * dx}), dx), dx,
                 h);
    const double t = 3 * dx;
    const auto outer = geometry::rectangle({-t, -t}, {nx * dx + t, 2 * ny * dx});
    const auto inside = geometry::rectangle({0, 0}, {nx * dx, 1.0});
    sim.add_body("floor", wall, "fixed",
                 geometry::lattice_fill(*geometry::subtract(outer, inside), dx), dx, h);
    const double end = 0.05;
    double max_vy = 0.0, min_y = 1.0;
    int guard = 0;
    while (sim.time() < end && guard++ < 100000) {
        sim.advance(end - sim.time());
        const ParticleSet& p = sim.particles();
        for (std::size_t a = 0; a < p.size(); ++a) {
            if (p.kind[a] != ParticleKind::dynamic) continue;
            max_vy = std::max(max_vy, std::abs(p.v[1][a]));
            min_y = std::min(min_y, p.x[1][a]);
        }
    }
    CHECK(sim.time() == doctest::Approx(end));
    MESSAGE("max |v_y| = ", max_vy, " m/s (free fall ", g * end, "), min y = ", min_y, " m");
    CHECK(min_y > 0.0);              // no penetration
    // Observed: max |v_y| = 7.9e-3 m/s (~ g H / c_p, the elastic settling), bottom row
    // sinks by ~5e-6 m.
    CHECK(min_y > 0.4 * dx);         // the bottom row (at dx / 2) barely moves
    CHECK(max_vy < 0.05 * g * end);  // far below free fall
    // The fixed floor did not move.
    const ParticleSet& p = sim.particles();
    for (std::size_t a = 0; a < p.size(); ++a)
        if (p.kind[a] == ParticleKind::boundary) CHECK(p.v[1][a] == 0.0);
}

TEST_CASE("lithostatic column on a floor: the wall carries the load (boundary extrapolation)") {
    // Initial stress in equilibrium with gravity, sigma_yy = -rho g (H - y), sigma_xx =
    // sigma_zz = K0 sigma_yy: the momentum balance d sigma / dy + rho g = 0 holds, so the
    // particles near the floor, far from the free surface and the side walls, must not
    // accelerate much. Extrapolated wall stress (equations.hpp) supplies the reaction.
    const double dx = 5e-3, h = 2.5 * dx, g = 9.81;
    const int nx = 20, ny = 12;
    const double H = ny * dx;
    Simulation sim(2);
    sim.physics().gravity = {0.0, -g, 0.0};
    const int mat = sim.add_material(soil(1e5, 0.0));
    const int wall = sim.add_material(Material{"wall", Rigid{kRho}, 0.0});
    sim.add_body("soil", mat, "dynamic",
                 geometry::lattice_fill(*geometry::rectangle({0, 0}, {nx * dx, H}), dx), dx, h);
    const double t = 3 * dx;
    sim.add_body("floor", wall, "fixed",
                 geometry::lattice_fill(*geometry::subtract(
                                            geometry::rectangle({-t, -t}, {nx * dx + t, 2 * H}),
                                            geometry::rectangle({0, 0}, {nx * dx, 1.0})),
                                        dx),
                 dx, h);
    ParticleSet& p = sim.particles();
    for (std::size_t a = 0; a < p.size(); ++a) {
        if (p.kind[a] != ParticleKind::dynamic) continue;
        const double syy = -kRho * g * (H - p.x[1][a]);
        p.stress[YY][a] = syy;
        p.stress[XX][a] = p.stress[ZZ][a] = 0.5 * syy;
    }
    const Derivatives& d = sim.evaluate_derivatives();
    double worst_bottom = 0.0, worst_middle = 0.0;
    for (std::size_t a = 0; a < p.size(); ++a) {
        if (p.kind[a] != ParticleKind::dynamic) continue;
        const double x = p.x[0][a], y = p.x[1][a];
        if (y > H - h - dx) continue;  // the free surface is not in equilibrium in SPH
        const double ay = std::abs(d.dv[1][a]);
        if (y < h) worst_bottom = std::max(worst_bottom, ay);
        else if (x > h && x < nx * dx - h) worst_middle = std::max(worst_middle, ay);
    }
    MESSAGE("lithostatic column: max |a_y| / g next to the floor ", worst_bottom / g,
            ", in the interior ", worst_middle / g);
    // Observed 1.05e-3 g in both places: the lattice factor m - 1 of the interior (see the
    // linear-field test), i.e. the wall's extrapolated stress adds no error of its own.
    CHECK(worst_middle < 3e-3 * g);
    CHECK(worst_bottom < 3e-3 * g);
}

TEST_CASE("Heun integrates a uniformly moving body in free fall exactly (SPEC 5, 2nd order)") {
    // Uniform velocity and zero stress: no internal forces (v_a - v_b = 0, sigma = 0), so
    // every particle follows x = x0 + v0 t + g t^2 / 2, v = v0 + g t. Second-order Runge-Kutta
    // is exact for this quadratic; a first-order update of x would not be.
    Simulation sim = block(2, {6, 5, 1}, 0.01);
    sim.physics().gravity = {0.0, -9.81, 0.0};
    ParticleSet& p = sim.particles();
    const double v0[2] = {1.5, 2.0};
    for (std::size_t a = 0; a < p.size(); ++a) {
        p.v[0][a] = v0[0];
        p.v[1][a] = v0[1];
    }
    const std::vector<double> x0 = p.x[0], y0 = p.x[1], rho0 = p.rho;
    for (int i = 0; i < 40; ++i) sim.advance(1.0);
    const double t = sim.time();
    // 40 Courant-limited steps (C h / (c_p + ...) ~ 0.25 ms): g t^2 / 2 ~ 0.5 mm, i.e. 1e-2 of
    // the coordinates, far above the 1e-12 tolerance.
    CHECK(t > 0.005);
    for (std::size_t a = 0; a < p.size(); ++a) {
        CHECK(p.x[0][a] == doctest::Approx(x0[a] + v0[0] * t).epsilon(1e-12));
        CHECK(p.x[1][a] == doctest::Approx(y0[a] + v0[1] * t - 0.5 * 9.81 * t * t).epsilon(1e-12));
        CHECK(p.v[0][a] == doctest::Approx(v0[0]).epsilon(1e-12));
        CHECK(p.v[1][a] == doctest::Approx(v0[1] - 9.81 * t).epsilon(1e-12));
        CHECK(p.rho[a] == rho0[a]);
        CHECK(p.stress[XX][a] == 0.0);
    }
}
