// Epsilon-alpha porosity (src/materials/porosity.hpp, porosity_coupling.hpp; Wuennemann,
// Collins & Melosh 2006): the crush curve, its inverse and continuity, and a point in the
// oedometer driven by the model's own stress rate and correction (Euler steps here, the Heun
// steps of the solver are tests/python/test_porosity.py's), against the closed form: the crush
// curve for the distension and, for the stress, the matrix's Hooke law of the strain less the
// crush. Its stored energy plus the crush's dissipation is the work done on it.
#include <doctest/doctest.h>

#include <cmath>

#include "core/tensor.hpp"
#include "materials/parameters.hpp"
#include "materials/porosity_coupling.hpp"
#include "materials/porosity.hpp"

using namespace regosph;

namespace {

// The MASCOT bed's regolith (1280 kg/m^3 from 2250 kg/m^3 grains), SPEC.md's moduli, a
// cohesionless 30 deg soil; kappa = 0.98, eps_e = -1e-5, alpha_x = 1.2.
PorousDruckerPrager regolith() {
    PorousDruckerPragerInput in;
    in.soil = DruckerPragerInput{.bulk_modulus = 3.33e6, .shear_modulus = 3.7e5,
                                 .friction_angle_deg = 30.0};
    in.grain_density = 2250.0;
    in.porosity = 1.0 - 1280.0 / 2250.0;
    in.elastic_strain = -1e-5;
    in.kappa = 0.98;
    in.transition_distension = 1.2;
    PorousDruckerPrager m = std::get<PorousDruckerPrager>(make_material("regolith", in).model);
    m.prepare(3);
    return m;
}

}  // namespace

TEST_CASE("epsilon-alpha: the crush curve is continuous with its slope, and its inverse") {
    const CrushCurve c = make_crush_curve(1.7578125, -1e-5, 0.98, 1.2);
    CHECK(crush_curve_distension(c, 0.0) == c.initial_distension);
    CHECK(crush_curve_distension(c, c.elastic_strain) == c.initial_distension);
    CHECK(crush_curve_distension(c, c.transition_strain) ==
          doctest::Approx(c.transition_distension).epsilon(1e-14));
    CHECK(crush_curve_distension(c, c.compaction_strain) == 1.0);
    CHECK(crush_curve_distension(c, c.compaction_strain - 1.0) == 1.0);
    // C1 at eps_x: the slopes of the exponential and of the power law agree (kappa alpha_x).
    const double d = 1e-7;
    const double left = (crush_curve_distension(c, c.transition_strain) -
                         crush_curve_distension(c, c.transition_strain - d)) / d;
    const double right = (crush_curve_distension(c, c.transition_strain + d) -
                          crush_curve_distension(c, c.transition_strain)) / d;
    CHECK(left == doctest::Approx(0.98 * 1.2).epsilon(1e-5));
    CHECK(right == doctest::Approx(0.98 * 1.2).epsilon(1e-5));
    for (const double eps : {-1e-3, -0.1, -0.3, -0.5, -0.7}) {
        const double alpha = crush_curve_distension(c, eps);
        CHECK(crush_curve_strain(c, alpha) == doctest::Approx(eps).epsilon(1e-12));
    }
    // Irreversible: a state compacted further keeps its distension when the strain recovers.
    CHECK(compacted_distension(c, 1.3, -0.01) == 1.3);
    CHECK(compacted_distension(c, 1.3, -0.5) == crush_curve_distension(c, -0.5));
}

TEST_CASE("epsilon-alpha: the oedometer follows the closed form within 1 %") {
    const PorousDruckerPrager m = regolith();
    const double alpha0 = m.crush.initial_distension;
    const double Ks = alpha0 * m.soil.bulk_modulus, Gs = alpha0 * m.soil.shear_modulus;
    double history[2] = {alpha0, 0.0};
    SymTensor sigma{};
    double rho = m.density;
    SymTensor eps_dot{};
    eps_dot[ZZ] = -1.0;                    // [1/s]
    const double dt = 1e-5;                // [s]: strain steps of 1e-5
    double work = 0.0, dissipated = 0.0;  // [J/kg]
    double worst = 0.0;
    bool on_curve = true;
    for (int step = 0; step < 35000; ++step) {  // to eps_v = -0.35 (alpha_x at -0.39)
        const MaterialState s{rho, sigma, history};
        const SymTensor sigma0 = sigma;
        const StressRate r = m.stress_rate(s, eps_dot, Spin{});
        for (int c = 0; c < kSymComponents; ++c) sigma[c] += dt * r.rate[c];
        history[1] += dt * r.history_rate[1];
        const double rho0 = rho;
        rho *= 1.0 - dt * trace(eps_dot);
        MaterialState after{rho, sigma, history};
        const double stored_before_crush = m.strain_energy(after);
        m.correct(after, dt);
        sigma = after.sigma;
        // Work of the step (trapezoid) per unit mass, and what the correction released.
        work += 0.5 * dt * (double_dot(sigma0, eps_dot) / rho0 + double_dot(sigma, eps_dot) / rho);
        dissipated += stored_before_crush - m.strain_energy(after);

        const double eps = history[1];
        const double alpha = crush_curve_distension(m.crush, eps);
        on_curve = on_curve && history[0] == alpha;
        // Closed form: the matrix stress alpha sigma is Hooke's of (Ks, Gs) for the strain less
        // the crush ln(alpha / alpha0); a cohesionless cone caps its deviator.
        const double p_s = -Ks * (eps - std::log(alpha / alpha0));
        const double sqrt_j2_s = std::min(2.0 * Gs * std::abs(eps) / std::sqrt(3.0),
                                          3.0 * m.soil.yield_surface.alpha_phi * p_s);
        const double axial = (-p_s - 2.0 * sqrt_j2_s / std::sqrt(3.0)) / alpha;
        if (step > 100) worst = std::max(worst, std::abs(sigma[ZZ] / axial - 1.0));
    }
    CHECK(on_curve);
    CHECK(worst < 0.01);
    // Energy: the stored energy plus what the crush and the cap released is the work done.
    const MaterialState end{rho, sigma, history};
    CHECK(m.strain_energy(end) + dissipated == doctest::Approx(work).epsilon(0.01));
    CHECK(dissipated > 0.5 * work);
}

TEST_CASE("epsilon-alpha: bad parameters name the field") {
    PorousDruckerPragerInput in;
    in.soil = DruckerPragerInput{.bulk_modulus = 1e6, .shear_modulus = 4e5,
                                 .friction_angle_deg = 30.0};
    in.grain_density = 2000.0;
    in.elastic_strain = -1e-5;
    in.kappa = 0.98;
    in.transition_distension = 1.0;
    in.porosity = 1.0;
    CHECK_THROWS_WITH_AS(make_material("bed", in), "material 'bed': porosity = 1 must lie in [0, 1)",
                         std::invalid_argument);
    in.porosity = 0.4;
    in.kappa = 1.5;
    CHECK_THROWS_WITH_AS(make_material("bed", in), "material 'bed': kappa = 1.5 must lie in (0, 1]",
                         std::invalid_argument);
}
