// The one place that dispatches on the constitutive model, with the inline dispatchers of
// material.hpp.
#include "materials/material.hpp"

#include <cmath>
#include <stdexcept>

namespace regosph {

static_assert(ConstitutiveModel<DruckerPrager>);
static_assert(ConstitutiveModel<ElasticSolid>);
static_assert(ConstitutiveModel<Rigid>);

void validate(const Material& m) {
    if (m.name.empty()) throw std::invalid_argument("material: name must not be empty");
    if (!(std::isfinite(m.viscosity_sound_speed) && m.viscosity_sound_speed >= 0.0))
        checks::fail(m.name, "viscosity_sound_speed", m.viscosity_sound_speed,
                     "m/s must be zero (use the elastic wave speed) or positive");
    if (m.kernel_correction && boundary_only(m))
        throw std::invalid_argument("material '" + m.name + "': kernel_correction applies to "
                                    "dynamic particles; a " + model_name(m) + " material has "
                                    "none");
    std::visit([&](const auto& model) { model.validate(m.name); }, m.model);
}

Material prepared(const Material& m, int dim) {
    Material out = m;
    std::visit([&](auto& model) { model.prepare(dim); }, out.model);
    return out;
}

const char* model_name(const Material& m) {
    return std::visit([](const auto& model) -> const char* { return model.kName; }, m.model);
}

bool boundary_only(const Material& m) {
    return std::visit([](const auto& model) { return model.kBoundaryOnly; }, m.model);
}

bool plastic(const Material& m) {
    return std::visit([](const auto& model) { return model.kPlastic; }, m.model);
}

double reference_density(const Material& m) {
    return std::visit([](const auto& model) { return model.density; }, m.model);
}

double elastic_wave_speed(const Material& m) { return wave_speed(m, reference_density(m)); }

double viscosity_sound_speed(const Material& m) {
    return m.viscosity_sound_speed > 0.0 ? m.viscosity_sound_speed : elastic_wave_speed(m);
}

PairOptions pair_options(const Material& m) {
    return std::visit([](const auto& model) { return model.pair_options(); }, m.model);
}

std::vector<ModelParameter> model_parameters(const Material& m) {
    return std::visit([](const auto& model) { return model.parameters(); }, m.model);
}


}  // namespace regosph
