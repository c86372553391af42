// The one place that dispatches on the constitutive model, with the inline dispatchers of
// material.hpp.
#include "materials/material.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace regosph {

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

double elastic_wave_speed(const Material& m) {
    const double reference = std::visit(
        [](const auto& model) {
            if constexpr (requires { model.reference_wave_speed(); })
                return model.reference_wave_speed();
            else
                return 0.0;
        },
        m.model);
    if (reference > 0.0) return reference;
    std::array<double, kMaxHistoryVariables> history{};
    const std::vector<HistoryVariable> variables = history_variables(m);
    for (std::size_t k = 0; k < variables.size() && k < history.size(); ++k)
        history[k] = variables[k].initial;
    return wave_speed(m, MaterialState{reference_density(m), {}, history.data()});
}

std::optional<Elasticity> elasticity(const Material& m) {
    return std::visit(
        [](const auto& model) -> std::optional<Elasticity> {
            if constexpr (requires { model.elasticity; })
                return model.elasticity;
            else
                return std::nullopt;
        },
        m.model);
}

double viscosity_sound_speed(const Material& m) {
    return m.viscosity_sound_speed > 0.0 ? m.viscosity_sound_speed : elastic_wave_speed(m);
}

double shear_modulus(const Material& m) {
    return std::visit(
        [](const auto& model) -> double {
            if constexpr (requires { model.shear_modulus; })
                return model.shear_modulus;
            else
                return 0.0;
        },
        m.model);
}

bool energy_depends_on_history(const Material& m) {
    return std::visit(
        [](const auto& model) {
            return requires(const MaterialState& s) { model.strain_energy(s); };
        },
        m.model);
}

PairOptions pair_options(const Material& m) {
    return std::visit([](const auto& model) { return model.pair_options(); }, m.model);
}

std::vector<ModelParameter> model_parameters(const Material& m) {
    return std::visit([](const auto& model) { return model.parameters(); }, m.model);
}

std::vector<HistoryVariable> history_variables(const Material& m) {
    return std::visit(
        [](const auto& model) -> std::vector<HistoryVariable> {
            if constexpr (requires { model.history(); })
                return model.history();
            else
                return {};
        },
        m.model);
}

void check_history_variables(const std::string& material,
                             const std::vector<HistoryVariable>& variables) {
    if (variables.size() > kMaxHistoryVariables)
        throw std::invalid_argument("material '" + material + "': " +
                                    std::to_string(variables.size()) +
                                    " history variables, more than kMaxHistoryVariables = " +
                                    std::to_string(kMaxHistoryVariables));
    for (const HistoryVariable& v : variables) {
        const auto fail = [&](const std::string& why) {
            throw std::invalid_argument("material '" + material + "': history variable '" +
                                        v.name + "' " + why);
        };
        // Its name is a dataset's in the particle files (/particles/<name>), beside the fields'
        // datasets and the names older files gave them.
        if (v.name.empty() || v.name.find('/') != std::string::npos)
            fail("must be a non-empty name without '/'");
        for_each_field_entry([&](const auto& field) {
            const FieldInfo& f = field.info;
            for (const char* taken : {f.name, f.former_name, f.stand_in})
                if (taken && v.name == taken) fail("has the name of a particle field");
        });
    }
}

void register_history(const Material& m, HistoryColumns& columns, std::size_t particles) {
    const std::vector<HistoryVariable> variables = history_variables(m);
    check_history_variables(m.name, variables);
    for (const HistoryVariable& v : variables) columns.add(v, particles);
}

std::vector<int> history_columns(const Material& m, const HistoryColumns& columns) {
    std::vector<int> out;
    for (const HistoryVariable& v : history_variables(m)) {
        const int k = columns.find(v.name);
        if (k < 0)
            throw std::logic_error("material '" + m.name + "': history variable '" + v.name +
                                   "' has no column (register_history)");
        out.push_back(k);
    }
    return out;
}


}  // namespace regosph
