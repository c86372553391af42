#include "sph/energy_budget.hpp"

#include <stdexcept>

namespace regosph {

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
    for (int c = 0; c < kEnergyRates; ++c) b.dissipated[c] = v[c];
    b.body_work = v[kEnergyRates];
    b.initial_total = v[kEnergyRates + 1];
    return b;
}

}  // namespace regosph
