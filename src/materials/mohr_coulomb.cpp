#include "materials/mohr_coulomb.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <numbers>

#include "core/principal_stresses.hpp"

namespace regosph {

namespace {

// One plane of the admissible set in ordered principal stresses: f = a . sigma - r, with the
// flow direction n (the gradient of its plastic potential).
struct Plane {
    Eigen::Vector3d a, n;
    double r = 0.0;
};

// The planes that can be active with sigma_1 >= sigma_2 >= sigma_3: Mohr-Coulomb on (1,3),
// (2,3) (the triaxial-compression edge sigma_1 = sigma_2) and (1,2) (the extension edge
// sigma_2 = sigma_3), then Rankine on sigma_1, sigma_2, sigma_3.
std::array<Plane, 6> planes(const MohrCoulombSurface& s) {
    const auto mc = [&](int i, int j) {
        Plane p;
        p.a.setZero(), p.n.setZero();
        p.a[i] = 1.0 + s.sin_phi, p.a[j] = -(1.0 - s.sin_phi);
        p.n[i] = 1.0 + s.sin_psi, p.n[j] = -(1.0 - s.sin_psi);
        p.r = s.two_c_cos_phi;
        return p;
    };
    const auto rankine = [&](int i) {
        Plane p;
        p.a = Eigen::Vector3d::Unit(i), p.n = p.a;
        p.r = s.tensile_strength;
        return p;
    };
    return {mc(0, 2), mc(1, 2), mc(0, 1), rankine(0), rankine(1), rankine(2)};
}

// Largest Mohr-Coulomb and Rankine values of ordered principal stresses.
std::array<double, 2> functions(const MohrCoulombSurface& s, const std::array<double, 3>& v) {
    const double f = (v[0] - v[2]) + (v[0] + v[2]) * s.sin_phi - s.two_c_cos_phi;
    const double ft = s.tensile_strength >= 0.0 ? v[0] - s.tensile_strength : -1.0;
    return {f, ft};
}

// The active sets tried, smallest first (de Souza Neto et al. 2008, Box 8.1: plane, then
// edges, then apex); each bit is a plane of planes().
constexpr std::array<unsigned, 41> kActiveSets = [] {
    std::array<unsigned, 41> sets{};
    int n = 0;
    for (int size = 1; size <= 3; ++size)
        for (unsigned mask = 1; mask < 64; ++mask)
            if (std::popcount(mask) == size) sets[n++] = mask;
    return sets;
}();

// Solves the leading n x n block of a x = b (n <= 3) by Cramer's rule; false when the block is
// singular (the planes do not meet: no apex at phi = 0, or parallel Rankine planes).
bool solve_small(const Eigen::Matrix3d& a, const Eigen::Vector3d& b, int n, std::array<double, 3>& x) {
    const double scale = a.cwiseAbs().maxCoeff();
    if (n == 1) {
        if (!(std::abs(a(0, 0)) > 1e-12 * scale)) return false;
        x[0] = b[0] / a(0, 0);
        return true;
    }
    if (n == 2) {
        const double det = a(0, 0) * a(1, 1) - a(0, 1) * a(1, 0);
        if (!(std::abs(det) > 1e-12 * scale * scale)) return false;
        x[0] = (b[0] * a(1, 1) - a(0, 1) * b[1]) / det;
        x[1] = (a(0, 0) * b[1] - b[0] * a(1, 0)) / det;
        return true;
    }
    const double det = a.determinant();
    if (!(std::abs(det) > 1e-12 * scale * scale * scale)) return false;
    for (int k = 0; k < 3; ++k) {
        Eigen::Matrix3d ak = a;
        ak.col(k) = b;
        x[k] = ak.determinant() / det;
    }
    return true;
}

}  // namespace

// Inside the cone inscribed in the pyramid (its radius at the Lode angle of the largest
// g(theta) = cos(theta) - sin(theta) sin(phi) / sqrt(3), sqrt(1 + sin^2(phi) / 3)) and with the
// largest principal stress, at most I1/3 + 2 sqrt(J2 / 3), below the cut-off: elastic, without
// a spectral decomposition. Inline so that the sweep of correct_range vectorises it.
[[gnu::always_inline]] inline bool surely_elastic(const MohrCoulombSurface& s, const SymTensor& sigma) {
    const double mean = trace(sigma) / 3.0;
    const double sqrt_j2 = std::sqrt(second_invariant(sigma));
    const bool inside_cone = sqrt_j2 * std::sqrt(1.0 + s.sin_phi * s.sin_phi / 3.0) <=
                             0.5 * s.two_c_cos_phi - mean * s.sin_phi;
    const bool below_cut_off = s.tensile_strength < 0.0 ||
                               mean + 2.0 * sqrt_j2 / std::sqrt(3.0) <= s.tensile_strength;
    return inside_cone && below_cut_off;
}

MohrCoulombSurface mohr_coulomb_constants(const MohrCoulomb& m) {
    MohrCoulombSurface s;
    s.sin_phi = std::sin(m.friction_angle);
    s.sin_psi = std::sin(m.dilatancy_angle);
    s.two_c_cos_phi = 2.0 * m.cohesion * std::cos(m.friction_angle);
    s.bulk_modulus = m.bulk_modulus;
    s.shear_modulus = m.shear_modulus;
    s.prepared = true;
    if (m.has_cut_off()) {
        s.tensile_strength = m.tensile_strength;
        // Above the apex c cot(phi) the cut-off would be inactive, and the apex return needs
        // the planes to meet there.
        if (s.sin_phi > 0.0)
            s.tensile_strength = std::min(s.tensile_strength,
                                          m.cohesion / std::tan(m.friction_angle));
    }
    return s;
}

MohrCoulombSurface mohr_coulomb_surface(const MohrCoulomb& m, double tensile_plastic_strain) {
    MohrCoulombSurface s = m.surface.prepared ? m.surface : mohr_coulomb_constants(m);
    if (m.has_cut_off()) {
        const double softening =
            m.tensile_softening_strain > 0.0
                ? std::max(0.0, 1.0 - tensile_plastic_strain / m.tensile_softening_strain)
                : (tensile_plastic_strain > 0.0 ? 0.0 : 1.0);
        s.tensile_strength *= softening;
    }
    return s;
}

std::array<double, 2> mohr_coulomb_functions(const MohrCoulombSurface& s, const SymTensor& sigma) {
    return functions(s, principal_stresses(sigma).value);
}

MohrCoulombReturn mohr_coulomb_return(const MohrCoulombSurface& s, SymTensor& sigma) {
    MohrCoulombReturn out;
    if (surely_elastic(s, sigma)) return out;
    const double mean = trace(sigma) / 3.0;

    const Principal trial = principal_stresses(sigma);
    const double scale = std::abs(trial.value[0]) + std::abs(trial.value[2]) + s.two_c_cos_phi;
    const double tol = 1e-12 * scale;
    const std::array<double, 2> f0 = functions(s, trial.value);
    if (f0[0] <= tol && f0[1] <= tol) return out;  // on the surface to round-off

    const double lambda_lame = s.bulk_modulus - 2.0 * s.shear_modulus / 3.0;
    // The common case first: the return onto the main plane (1,3) alone, in closed form:
    // a . D n = 4 lambda sin(phi) sin(psi) + 4 G (1 + sin(phi) sin(psi)), and D n =
    // 2 lambda sin(psi) (1, 1, 1) + 2 G (1 + sin(psi), 0, -(1 - sin(psi))). It holds when the
    // returned stresses keep their order and respect the cut-off.
    if (f0[0] > 0.0) {
        const double sp = s.sin_phi * s.sin_psi;
        const double dgamma = f0[0] / (4.0 * lambda_lame * sp + 4.0 * s.shear_modulus * (1.0 + sp));
        const double shift = dgamma * 2.0 * lambda_lame * s.sin_psi;
        const std::array<double, 3> v{
            trial.value[0] - shift - dgamma * 2.0 * s.shear_modulus * (1.0 + s.sin_psi),
            trial.value[1] - shift,
            trial.value[2] - shift + dgamma * 2.0 * s.shear_modulus * (1.0 - s.sin_psi)};
        if (v[0] >= v[1] && v[1] >= v[2] &&
            (s.tensile_strength < 0.0 || v[0] <= s.tensile_strength + tol)) {
            sigma = from_principal(v, trial.direction);
            out.changed = true;
            return out;
        }
    }
    const std::array<Plane, 6> plane = planes(s);
    std::array<Eigen::Vector3d, 6> d_n;  // D n of each plane [Pa]
    for (int k = 0; k < 6; ++k)
        d_n[k] = lambda_lame * plane[k].n.sum() * Eigen::Vector3d::Ones() + 2.0 * s.shear_modulus * plane[k].n;
    const Eigen::Vector3d trial_v(trial.value[0], trial.value[1], trial.value[2]);
    const bool cut_off = s.tensile_strength >= 0.0;
    for (const unsigned mask : kActiveSets) {
        if (!cut_off && (mask & 0b111000u)) continue;
        int active[3], n = 0;
        for (int k = 0; k < 6; ++k)
            if (mask & (1u << k)) active[n++] = k;
        // f_k(sigma_trial - sum_l dgamma_l D n_l) = 0 for the active planes k.
        Eigen::Matrix3d a = Eigen::Matrix3d::Identity();
        Eigen::Vector3d rhs = Eigen::Vector3d::Zero();
        for (int i = 0; i < n; ++i) {
            rhs[i] = plane[active[i]].a.dot(trial_v) - plane[active[i]].r;
            for (int j = 0; j < n; ++j) a(i, j) = plane[active[i]].a.dot(d_n[active[j]]);
        }
        std::array<double, 3> dgamma{};
        if (!solve_small(a, rhs, n, dgamma)) continue;
        // A multiplier is >= 0 up to round-off (an edge whose second plane is just touched).
        const double dgamma_scale = tol / (s.bulk_modulus + s.shear_modulus);
        if (*std::min_element(dgamma.begin(), dgamma.begin() + n) < -dgamma_scale) continue;
        Eigen::Vector3d v = trial_v;
        for (int i = 0; i < n; ++i) v -= dgamma[i] * d_n[active[i]];
        std::array<double, 3> sorted{v[0], v[1], v[2]};
        std::sort(sorted.begin(), sorted.end(), std::greater<>());
        const std::array<double, 2> f = functions(s, sorted);
        if (f[0] > tol || f[1] > tol) continue;
        for (int i = 0; i < n; ++i)
            if (active[i] >= 3) out.tensile_plastic_strain += dgamma[i];
        sigma = from_principal({v[0], v[1], v[2]}, trial.direction);
        out.changed = true;
        return out;
    }
    // No active set satisfies the conditions (a non-associated flow whose apex return needs
    // negative multipliers): the stress moves to the apex along the hydrostatic axis.
    const double apex = s.sin_phi > 0.0 ? 0.5 * s.two_c_cos_phi / s.sin_phi : mean;
    const double top = cut_off ? std::min(apex, s.tensile_strength) : apex;
    sigma = SymTensor{top, top, top, 0.0, 0.0, 0.0};
    out.changed = true;
    // Its tensile plastic strain is the Rankine plane's multiplier on sigma_1 alone,
    // (sigma_1 - sigma_t) / (K + 4 G / 3).
    if (cut_off)
        out.tensile_plastic_strain += std::max(0.0, trial.value[0] - top) /
                                      (s.bulk_modulus + 4.0 * s.shear_modulus / 3.0);
    return out;
}

MohrCoulomb MohrCoulomb::scaled(double r) const {
    MohrCoulomb out = *this;
    out.bulk_modulus *= r;
    out.shear_modulus *= r;
    out.cohesion *= r;
    if (has_cut_off()) out.tensile_strength *= r;
    if (surface.prepared) {
        out.surface.two_c_cos_phi *= r;
        if (surface.tensile_strength >= 0.0) out.surface.tensile_strength *= r;
        out.surface.bulk_modulus *= r;
        out.surface.shear_modulus *= r;
    }
    return out;
}

void MohrCoulomb::prepare(int /*dim*/) { surface = mohr_coulomb_constants(*this); }

std::vector<HistoryVariable> MohrCoulomb::history() const {
    if (!has_cut_off()) return {};
    return {{"tensile_plastic_strain", "-",
             "plastic strain on the Rankine cut-off, which softens the tensile strength", 0.0}};
}

void MohrCoulomb::validate(const std::string& material) const {
    checks::positive(material, "density", density, "kg/m^3");
    checks::positive(material, "bulk_modulus", bulk_modulus, "Pa");
    checks::positive(material, "shear_modulus", shear_modulus, "Pa");
    if (!(friction_angle >= 0.0 && friction_angle < std::numbers::pi / 2.0))
        checks::fail(material, "friction_angle", friction_angle * 180.0 / std::numbers::pi,
                     "deg must be in [0, 90)");
    checks::non_negative(material, "cohesion", cohesion, "Pa");
    if (!(dilatancy_angle >= 0.0 && dilatancy_angle <= friction_angle))
        checks::fail(material, "dilatancy_angle", dilatancy_angle * 180.0 / std::numbers::pi,
                     "deg must be in [0, friction_angle]");
    if (!std::isfinite(tensile_strength))
        checks::fail(material, "tensile_strength", tensile_strength, "Pa must be finite");
    checks::non_negative(material, "tensile_softening_strain", tensile_softening_strain, "-");
    checks::artificial_stress(material, artificial_stress, artificial_stress_exponent);
    regosph::validate(elasticity, material);
    if (friction_angle == 0.0 && cohesion == 0.0)
        checks::fail(material, "cohesion", cohesion,
                     "Pa must be positive when friction_angle is 0 (no strength otherwise)");
}

StressRate MohrCoulomb::stress_rate(const MaterialState& state, const SymTensor& strain_rate,
                                    const Spin& /*spin*/) const {
    StressRate out;
    out.rate = elastic_stress_rate(elasticity, bulk_modulus, shear_modulus, state.sigma, strain_rate);
    return out;
}

bool MohrCoulomb::correct(MaterialState& state, double /*dt*/) const {
    const double kappa = has_cut_off() ? state.history[0] : 0.0;
    const MohrCoulombReturn r = mohr_coulomb_return(mohr_coulomb_surface(*this, kappa), state.sigma);
    if (has_cut_off()) state.history[0] += r.tensile_plastic_strain;
    return r.changed;
}

void MohrCoulomb::correct_range(const PointRun<double>& run, double /*dt*/,
                                std::uint8_t* corrected) const {
    const bool cut_off = has_cut_off();
    const MohrCoulombSurface base = surface;
    const std::array<double*, kSymComponents> stress = run.stress;
    const double* kappa = cut_off ? run.history[0] : nullptr;
    if (!cut_off) {
#pragma omp simd
        for (std::size_t i = 0; i < run.count; ++i) {
            SymTensor sigma;
            for (int c = 0; c < kSymComponents; ++c) sigma[c] = stress[c][i];
            corrected[i] = surely_elastic(base, sigma) ? 0 : 1;
        }
    } else {
        for (std::size_t i = 0; i < run.count; ++i) corrected[i] = 1;
    }
    for (std::size_t i = 0; i < run.count; ++i) {
        if (!corrected[i]) continue;
        SymTensor sigma;
        for (int c = 0; c < kSymComponents; ++c) sigma[c] = stress[c][i];
        const MohrCoulombReturn r =
            mohr_coulomb_return(cut_off ? mohr_coulomb_surface(*this, kappa[i]) : base, sigma);
        corrected[i] = r.changed ? 1 : 0;
        if (!r.changed) continue;
        for (int c = 0; c < run.components; ++c) stress[c][i] = sigma[c];
        if (cut_off) run.history[0][i] += r.tensile_plastic_strain;
    }
}

double MohrCoulomb::strain_energy(double rho, const SymTensor& sigma) const {
    return elastic_energy_density(elasticity, bulk_modulus, shear_modulus, sigma) / rho;
}

std::vector<ModelParameter> MohrCoulomb::parameters() const {
    std::vector<ModelParameter> p{{"density_kg_m3", density},
                                  {"bulk_modulus_Pa", bulk_modulus},
                                  {"shear_modulus_Pa", shear_modulus},
                                  {"friction_angle_deg", friction_angle * 180.0 / std::numbers::pi},
                                  {"cohesion_Pa", cohesion},
                                  {"dilatancy_angle_deg", dilatancy_angle * 180.0 / std::numbers::pi}};
    if (has_cut_off()) {
        p.push_back({"tensile_strength_Pa", tensile_strength});
        p.push_back({"tensile_softening_strain", tensile_softening_strain});
    }
    append_parameters(elasticity, p);
    append_artificial_stress(artificial_stress, artificial_stress_exponent, p);
    return p;
}

}  // namespace regosph
