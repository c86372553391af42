#include "materials/material.hpp"

#include <cmath>
#include <numbers>
#include <sstream>
#include <stdexcept>

namespace regosph {

namespace {
template <class... Ts>
struct overloaded : Ts... {
    using Ts::operator()...;
};

[[noreturn]] void fail(const Material& m, const std::string& field, double value,
                       const std::string& rule) {
    std::ostringstream os;
    os << "material '" << m.name << "': " << field << " = " << value << " " << rule;
    throw std::invalid_argument(os.str());
}

constexpr double kDeg = 180.0 / std::numbers::pi;

void require_positive(const Material& m, const char* field, double v, const char* unit) {
    if (!(std::isfinite(v) && v > 0.0)) fail(m, field, v, std::string(unit) + " must be positive");
}

void require_in(const Material& m, const char* field, double v, double lo, double hi) {
    if (!(std::isfinite(v) && v >= lo && v <= hi)) {
        std::ostringstream rule;
        rule << "must lie in [" << lo << ", " << hi << "]";
        fail(m, field, v, rule.str());
    }
}

void validate_elastic_solid(const Material& m, const ElasticSolid& es) {
    require_positive(m, "density", es.density, "kg/m^3");
    require_positive(m, "bulk_modulus", es.bulk_modulus, "Pa");
    if (!(std::isfinite(es.shear_modulus) && es.shear_modulus >= 0.0))
        fail(m, "shear_modulus", es.shear_modulus, "Pa must not be negative");
    if (!(std::isfinite(es.murnaghan_n) && es.murnaghan_n > 0.0))
        fail(m, "murnaghan_n", es.murnaghan_n, "must be > 0");
    require_in(m, "artificial_stress", es.artificial_stress, 0.0, 1.0);
    if (!(std::isfinite(es.artificial_stress_exponent) && es.artificial_stress_exponent > 0.0))
        fail(m, "artificial_stress_exponent", es.artificial_stress_exponent, "must be > 0");
    require_in(m, "xsph", es.xsph, 0.0, 1.0);
}
}  // namespace

double reference_density(const Material& m) {
    return std::visit([](const auto& model) { return model.density; }, m.model);
}

double elastic_wave_speed(const Material& m) {
    return std::visit(overloaded{[](const DruckerPrager& dp) { return elastic_wave_speed(dp); },
                                 [](const ElasticSolid& es) { return elastic_wave_speed(es); },
                                 [](const Rigid&) { return 0.0; }},
                      m.model);
}

double viscosity_sound_speed(const Material& m) {
    return m.viscosity_sound_speed > 0.0 ? m.viscosity_sound_speed : elastic_wave_speed(m);
}

void validate(const Material& m) {
    if (m.name.empty()) throw std::invalid_argument("material: name must not be empty");
    if (!(std::isfinite(m.viscosity_sound_speed) && m.viscosity_sound_speed >= 0.0))
        fail(m, "viscosity_sound_speed", m.viscosity_sound_speed,
             "m/s must be zero (use the elastic wave speed) or positive");
    std::visit(overloaded{
                   [&](const DruckerPrager& dp) {
                       require_positive(m, "density", dp.density, "kg/m^3");
                       require_positive(m, "bulk_modulus", dp.bulk_modulus, "Pa");
                       require_positive(m, "shear_modulus", dp.shear_modulus, "Pa");
                       const double phi = dp.friction_angle;
                       if (!(std::isfinite(phi) && phi >= 0.0 && phi < std::numbers::pi / 2))
                           fail(m, "friction_angle", phi * kDeg, "deg must lie in [0, 90) deg");
                       if (!(std::isfinite(dp.cohesion) && dp.cohesion >= 0.0))
                           fail(m, "cohesion", dp.cohesion, "Pa must not be negative");
                       const double psi = dp.dilatancy_angle;
                       if (!(std::isfinite(psi) && psi >= 0.0 && psi <= phi))
                           fail(m, "dilatancy_angle", psi * kDeg,
                                "deg must lie in [0, friction_angle] deg");
                       if (phi == 0.0 && dp.cohesion == 0.0)
                           fail(m, "cohesion", 0.0,
                                "Pa with friction_angle 0: the material would have no strength");
                   },
                   [&](const ElasticSolid& es) { validate_elastic_solid(m, es); },
                   [&](const Rigid& r) { require_positive(m, "density", r.density, "kg/m^3"); }},
               m.model);
}

}  // namespace regosph
