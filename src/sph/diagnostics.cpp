#include "sph/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "parallel/mpi_env.hpp"

namespace regosph {

Diagnostics compute_diagnostics(const ParticleSet& p, const std::vector<Material>& materials,
                                const std::array<double, 3>& gravity, const EnergyBudget& budget) {
    Diagnostics g;
    // Serial on purpose: the sums must not depend on the thread count.
    for (std::size_t a = 0; a < p.owned(); ++a) {
        if (p.kind[a] != ParticleKind::dynamic) continue;
        double v2 = 0.0;
        for (int d = 0; d < 3; ++d) {
            g.momentum[d] += p.mass[a] * p.v[d][a];
            v2 += p.v[d][a] * p.v[d][a];
            g.potential_energy -= p.mass[a] * gravity[d] * p.x[d][a];
        }
        SymTensor sigma;
        for (int c = 0; c < kSymComponents; ++c) sigma[c] = p.stress[c][a];
        g.strain_energy += p.mass[a] * strain_energy(materials[p.material[a]], p.rho[a], sigma);
        g.mass += p.mass[a];
        g.kinetic_energy += 0.5 * p.mass[a] * v2;
        g.max_speed = std::max(g.max_speed, std::sqrt(v2));
        g.yielding += p.yielding[a];
        ++g.dynamic_particles;
    }
    // A model whose stored energy depends on its history variables (the porous soil's on its
    // distension, strain_energy(state)) has it replace the (rho, sigma) one above. A pass of
    // its own: the loop above stays the same arithmetic for the other models.
    for (std::size_t m = 0; m < materials.size(); ++m) {
        if (!energy_depends_on_history(materials[m])) continue;
        const std::vector<int> columns = history_columns(materials[m], p.history);
        for (std::size_t a = 0; a < p.owned(); ++a) {
            if (p.kind[a] != ParticleKind::dynamic || static_cast<std::size_t>(p.material[a]) != m)
                continue;
            std::array<double, kMaxHistoryVariables> history{};
            MaterialState state{p.rho[a], {}, history.data()};
            for (int c = 0; c < kSymComponents; ++c) state.sigma[c] = p.stress[c][a];
            for (std::size_t k = 0; k < columns.size(); ++k)
                history[k] = p.history.values[static_cast<std::size_t>(columns[k])][a];
            g.strain_energy += p.mass[a] * (strain_energy(materials[m], state) -
                                            strain_energy(materials[m], state.rho, state.sigma));
        }
    }
    // Over the ranks (identity on one rank).
    std::vector<double> sums = {g.mass,        g.kinetic_energy,   g.momentum[0],
                                g.momentum[1], g.momentum[2],      g.potential_energy,
                                g.strain_energy};
    // The budget's cumulative terms are each rank's share (energy_budget.hpp).
    sums.insert(sums.end(), budget.dissipated.begin(), budget.dissipated.end());
    sums.push_back(budget.body_work);
    mpi::sum_in_place(sums);
    g.mass = sums[0];
    g.kinetic_energy = sums[1];
    for (int d = 0; d < 3; ++d) g.momentum[d] = sums[2 + d];
    g.potential_energy = sums[5];
    g.strain_energy = sums[6];
    g.max_speed = mpi::max(g.max_speed);
    g.yielding = static_cast<std::size_t>(mpi::sum(static_cast<std::int64_t>(g.yielding)));
    g.dynamic_particles =
        static_cast<std::size_t>(mpi::sum(static_cast<std::int64_t>(g.dynamic_particles)));

    EnergyBudget total_budget = budget;
    for (int c = 0; c < kEnergyRates; ++c) total_budget.dissipated[c] = sums[7 + c];
    total_budget.body_work = sums[7 + kEnergyRates];
    g.plastic_dissipation = total_budget.dissipated[kPlasticPower];
    g.viscous_dissipation = total_budget.dissipated[kViscousPower];
    g.wall_dissipation = total_budget.dissipated[kWallPower];
    g.artificial_stress_dissipation = total_budget.dissipated[kArtificialStressPower];
    g.riemann_dissipation = total_budget.dissipated[kRiemannPower];
    g.body_work = total_budget.body_work;
    const double total =
        total_budget.total(g.kinetic_energy, g.potential_energy, g.strain_energy);
    g.energy_residual = std::isnan(budget.initial_total) ? 0.0 : total - budget.initial_total;
    return g;
}

}  // namespace regosph
