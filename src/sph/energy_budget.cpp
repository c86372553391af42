#include "sph/energy_budget.hpp"

#include <stdexcept>

#include "parallel/mpi_env.hpp"

namespace regosph {

EnergyBudget EnergyBudget::global() const {
    std::vector<double> v(dissipated.begin(), dissipated.end());
    v.push_back(body_work);
    mpi::sum_in_place(v);
    EnergyBudget g = *this;
    for (int c = 0; c < kEnergyRates; ++c) g.dissipated[c] = v[c];
    g.body_work = v[kEnergyRates];
    return g;
}

std::vector<double> EnergyBudget::values() const {
    std::vector<double> v(dissipated.begin(), dissipated.end());
    v.push_back(body_work);
    v.push_back(initial_total);
    return v;
}

EnergyBudget EnergyBudget::from_values(const std::vector<double>& v, const std::string& where) {
    // Checkpoints written before the Riemann solver's column (kRiemannPower, the last rate)
    // hold one value fewer; their runs had none of its dissipation.
    const std::size_t rates = v.size() - 2;
    if (v.size() != kEnergyRates + 2 && v.size() != kEnergyRates + 1)
        throw std::runtime_error(where + ": energy budget holds " + std::to_string(v.size()) +
                                 " values, expected " + std::to_string(kEnergyRates + 2));
    EnergyBudget b;
    b.initial_total = v[rates + 1];
    if (mpi::rank() != 0) return b;  // the ranks' shares sum to the stored totals
    for (std::size_t c = 0; c < rates; ++c) b.dissipated[c] = v[c];
    b.body_work = v[rates];
    return b;
}

}  // namespace regosph
