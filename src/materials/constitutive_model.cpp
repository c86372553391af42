#include "materials/constitutive_model.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace regosph::checks {

void fail(const std::string& material, const std::string& field, double value,
          const std::string& rule) {
    std::ostringstream os;
    os << "material '" << material << "': " << field << " = " << value << " " << rule;
    throw std::invalid_argument(os.str());
}

void positive(const std::string& material, const char* field, double v, const char* unit) {
    if (!(std::isfinite(v) && v > 0.0))
        fail(material, field, v, std::string(unit) + " must be positive");
}

void non_negative(const std::string& material, const char* field, double v, const char* unit) {
    if (!(std::isfinite(v) && v >= 0.0))
        fail(material, field, v, std::string(unit) + " must not be negative");
}

void in_range(const std::string& material, const char* field, double v, double lo, double hi) {
    if (!(std::isfinite(v) && v >= lo && v <= hi)) {
        std::ostringstream rule;
        rule << "must lie in [" << lo << ", " << hi << "]";
        fail(material, field, v, rule.str());
    }
}

void artificial_stress(const std::string& material, double epsilon, double exponent) {
    non_negative(material, "artificial_stress", epsilon, "-");
    positive(material, "artificial_stress_exponent", exponent, "-");
}

}  // namespace regosph::checks

namespace regosph {

void append_artificial_stress(double epsilon, double exponent, std::vector<ModelParameter>& out) {
    if (!(epsilon > 0.0)) return;
    out.push_back({"artificial_stress", epsilon});
    out.push_back({"artificial_stress_exponent", exponent});
}

}  // namespace regosph
