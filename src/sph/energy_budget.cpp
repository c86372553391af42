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
    if (v.size() != kEnergyRates + 2)
        throw std::runtime_error(where + ": energy budget holds " + std::to_string(v.size()) +
                                 " values, expected " + std::to_string(kEnergyRates + 2));
    EnergyBudget b;
    b.initial_total = v[kEnergyRates + 1];
    if (mpi::rank() != 0) return b;  // the ranks' shares sum to the stored totals
    for (int c = 0; c < kEnergyRates; ++c) b.dissipated[c] = v[c];
    b.body_work = v[kEnergyRates];
    return b;
}

}  // namespace regosph
