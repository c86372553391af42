// The energy budget of the dynamic particles, for diagnostics.csv (docs/guide/output.md, "Energy budget").
// The semi-discrete SPH equations exchange energy between these terms:
//   E_kin + E_pot + E_el + D_plastic + D_viscous + D_wall + D_art - W_bodies = const,
// E_kin = sum m v^2 / 2, E_pot = -sum m g . x (zero at the origin of the coordinates),
// E_el = sum m e(rho, sigma) (each material's strain_energy, materials/), and the cumulative
// terms, integrated with the stage weights of the state (Heun: dt/2 (rate_1 + rate_2)):
// - D_plastic: sum V sigma : eps_dot^p (StressRate::dissipation); for a particle whose stress
//   Bui's corrections changed in a step (at either stage), its plastic work in that step,
//   int V sigma : eps_dot dt - dE_el (AdaptiveHeun::correction_work);
// - D_viscous: the artificial viscosity, sum_a (1/2) sum_b m_a m_b Pi_ab v_ab . grad_a W_ab over
//   dynamic partners (each pair's other half is the partner's) and the whole term for wall
//   partners, >= 0 (Pi_ab > 0 and v_ab . grad_a W_ab > 0 for approaching pairs);
// - D_wall: the work the wall particles' own share of the pair forces does on the particles'
//   motion relative to the walls: their extrapolated stress sigma_b / rho_b^2 (Adami et al.
//   2012), the tangential relative motion a free-slip / Coulomb wall leaves out of the strain
//   rate, and the force its friction limit removes. No particle stores this energy: it is the
//   walls' (numerical) friction. Per particle it is the pair work minus the parts above,
//   -(m_a sum_b w m_b v_ab . t_ab + V_a sigma_a : eps_dot_a + D_viscous,a) (w = 1/2 dynamic, 1
//   wall partner), whose terms of dynamic pairs cancel in the sum over the particles. A run
//   without walls therefore has D_wall = 0 exactly, and its pair loop leaves this pair work
//   out (compute_derivatives, `walls`);
// - D_art: minus the work of Monaghan's artificial stress (elastic solids that use it);
// - W_bodies: the work of the kinematic and rigid bodies on the particles, -(F . V + T . omega)
//   of each body's regolith load (regolith_power, body.hpp), at each stage.
// Gravity is in E_pot. XSPH moves positions with a smoothed velocity; its mass-weighted sum is
// zero, so it leaves E_pot unchanged. The rest is the time-stepping error and the
// hypoelastic models' geometric terms (e dV/dt), second order in the strain.
#pragma once

#include <array>
#include <limits>
#include <string>
#include <vector>

namespace regosph {

// Per-particle power of one evaluation (Derivatives::power) [W] (2D: [W/m]), losses positive.
enum EnergyRate : int {
    kPlasticPower = 0,
    kViscousPower,
    kWallPower,
    kArtificialStressPower,
    kEnergyRates
};

// What one accepted step adds to the cumulative terms [J] (2D: [J/m]): under MPI the share of
// one rank (its particles; the bodies' work on rank 0), so that a step needs no reduction.
struct EnergyIncrement {
    std::array<double, kEnergyRates> dissipated{};  // EnergyRate order
    double body_work = 0.0;                         // W_bodies
};

// The cumulative terms since the start of the run, and the budget's total at the start of its
// series (NaN until a new run sets it). Under MPI the cumulative terms are each rank's share
// (compute_diagnostics sums them; global() for a checkpoint); initial_total is global.
struct EnergyBudget {
    std::array<double, kEnergyRates> dissipated{};
    double body_work = 0.0;
    double initial_total = std::numeric_limits<double>::quiet_NaN();

    void add(const EnergyIncrement& e) {
        for (int c = 0; c < kEnergyRates; ++c) dissipated[c] += e.dissipated[c];
        body_work += e.body_work;
    }
    // The total of the budget given the energies of the state [J]: losses count as kept.
    double total(double kinetic, double potential, double strain) const {
        double t = kinetic + potential + strain - body_work;
        for (const double d : dissipated) t += d;
        return t;
    }
    // The totals over the ranks (collective).
    EnergyBudget global() const;
    // As a checkpoint stores it (the dissipated terms, body work, initial total; global), and
    // back (on rank 0; the other ranks' shares are zero); from_values throws
    // std::runtime_error naming `where` on a wrong count.
    std::vector<double> values() const;
    static EnergyBudget from_values(const std::vector<double>& v, const std::string& where);
};

}  // namespace regosph
