// Material of bodies whose particles are boundary particles (fixed walls, prescribed-motion
// tools): only its density is used, to give the particles their volume m / rho. Their density
// and stress are extrapolated from the regolith around them (src/sph/boundary.hpp), so the
// model has no stress rate of its own.
#pragma once

#include <string>
#include <vector>

#include "materials/constitutive_model.hpp"

namespace regosph {

struct Rigid {
    double density = 0.0;  // [kg/m^3]

    static constexpr const char* kName = "Rigid";
    static constexpr bool kBoundaryOnly = true;
    void validate(const std::string& material) const {
        checks::positive(material, "density", density, "kg/m^3");
    }
    void prepare(int /*dim*/) {}
    double wave_speed(double /*rho*/) const { return 0.0; }
    StressRate stress_rate(const SymTensor&, const SymTensor&) const { return {}; }
    bool correct(double /*rho*/, SymTensor& /*sigma*/) const { return false; }
    PairOptions pair_options() const { return {}; }
    std::vector<ModelParameter> parameters() const { return {{"density_kg_m3", density}}; }
};

}  // namespace regosph
