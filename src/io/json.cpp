#include "io/json.hpp"

#include <fstream>
#include <stdexcept>
#include <system_error>

#include <regosph/version.hpp>

#include "core/units.hpp"

namespace regosph::io {

std::string version_string() {
    return std::string(kVersion) + " (" + kGitDescribe + ")";
}

Json describe_material(const Material& m) {
    Json j;
    j["name"] = m.name;
    j["viscosity_sound_speed_m_s"] = m.viscosity_sound_speed;
    if (const auto* dp = std::get_if<DruckerPrager>(&m.model)) {
        j["model"] = "DruckerPrager";
        j["density_kg_m3"] = dp->density;
        j["bulk_modulus_Pa"] = dp->bulk_modulus;
        j["shear_modulus_Pa"] = dp->shear_modulus;
        j["friction_angle_deg"] = radians_to_degrees(dp->friction_angle);
        j["cohesion_Pa"] = dp->cohesion;
        j["dilatancy_angle_deg"] = radians_to_degrees(dp->dilatancy_angle);
    } else if (const auto* es = std::get_if<ElasticSolid>(&m.model)) {
        j["model"] = "ElasticSolid";
        j["density_kg_m3"] = es->density;
        j["bulk_modulus_Pa"] = es->bulk_modulus;
        j["shear_modulus_Pa"] = es->shear_modulus;
        j["murnaghan_n"] = es->murnaghan_n;
        j["artificial_stress"] = es->artificial_stress;
        j["artificial_stress_exponent"] = es->artificial_stress_exponent;
        j["xsph"] = es->xsph;
    } else if (const auto* r = std::get_if<Rigid>(&m.model)) {
        j["model"] = "Rigid";
        j["density_kg_m3"] = r->density;
    }
    return j;
}

void write_text_atomically(const std::filesystem::path& file, const std::string& text) {
    const std::filesystem::path tmp = file.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error("cannot write '" + tmp.string() + "'");
        out << text;
        out.flush();
        if (!out) throw std::runtime_error("cannot write '" + tmp.string() + "'");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, file, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw std::runtime_error("cannot write '" + file.string() + "': " + ec.message());
    }
}

}  // namespace regosph::io
