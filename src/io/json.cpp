#include "io/json.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <stdexcept>
#include <system_error>

#include <regosph/version.hpp>

namespace regosph::io {

void JsonWriter::separate() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (!first_.back()) out_ << ", ";
    first_.back() = false;
}

JsonWriter& JsonWriter::begin_object() {
    separate();
    out_ << '{';
    first_.push_back(true);
    return *this;
}
JsonWriter& JsonWriter::end_object() {
    first_.pop_back();
    out_ << '}';
    return *this;
}
JsonWriter& JsonWriter::begin_array() {
    separate();
    out_ << '[';
    first_.push_back(true);
    return *this;
}
JsonWriter& JsonWriter::end_array() {
    first_.pop_back();
    out_ << ']';
    return *this;
}
JsonWriter& JsonWriter::key(const std::string& k) {
    value(k);
    out_ << ": ";
    after_key_ = true;
    return *this;
}
JsonWriter& JsonWriter::value(const std::string& v) {
    separate();
    out_ << '"';
    for (const char c : v) {
        switch (c) {
            case '"': out_ << "\\\""; break;
            case '\\': out_ << "\\\\"; break;
            case '\n': out_ << "\\n"; break;
            case '\t': out_ << "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out_ << buf;
                } else {
                    out_ << c;
                }
        }
    }
    out_ << '"';
    return *this;
}
JsonWriter& JsonWriter::value(double v) {
    separate();
    if (!std::isfinite(v)) {
        out_ << "null";
        return *this;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    out_ << buf;
    return *this;
}
JsonWriter& JsonWriter::value(const std::vector<double>& v) {
    begin_array();
    for (const double x : v) value(x);
    return end_array();
}

std::string version_string() {
    return std::string(kVersion) + " (" + kGitDescribe + ")";
}

void write_material(JsonWriter& j, const Material& m) {
    constexpr double deg = 180.0 / std::numbers::pi;
    j.begin_object();
    j.field("name", m.name);
    j.field("viscosity_sound_speed_m_s", m.viscosity_sound_speed);
    if (const auto* dp = std::get_if<DruckerPrager>(&m.model)) {
        j.field("model", std::string("DruckerPrager"));
        j.field("density_kg_m3", dp->density);
        j.field("bulk_modulus_Pa", dp->bulk_modulus);
        j.field("shear_modulus_Pa", dp->shear_modulus);
        j.field("friction_angle_deg", dp->friction_angle * deg);
        j.field("cohesion_Pa", dp->cohesion);
        j.field("dilatancy_angle_deg", dp->dilatancy_angle * deg);
    } else if (const auto* es = std::get_if<ElasticSolid>(&m.model)) {
        j.field("model", std::string("ElasticSolid"));
        j.field("density_kg_m3", es->density);
        j.field("bulk_modulus_Pa", es->bulk_modulus);
        j.field("shear_modulus_Pa", es->shear_modulus);
        j.field("murnaghan_n", es->murnaghan_n);
        j.field("artificial_stress", es->artificial_stress);
        j.field("artificial_stress_exponent", es->artificial_stress_exponent);
        j.field("xsph", es->xsph);
    } else if (const auto* r = std::get_if<Rigid>(&m.model)) {
        j.field("model", std::string("Rigid"));
        j.field("density_kg_m3", r->density);
    }
    j.end_object();
}

void write_text_atomically(const std::filesystem::path& file, const std::string& text) {
    const std::filesystem::path tmp = file.string() + ".tmp";
    std::error_code ec;
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (out) {
            out << text;
            out.flush();
        }
        if (!out) {  // say why (a full disk...), and leave no partial file behind
            const std::string reason = std::strerror(errno);
            out.close();
            std::filesystem::remove(tmp, ec);
            throw std::runtime_error("cannot write '" + file.string() + "': " + reason);
        }
    }
    std::filesystem::rename(tmp, file, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw std::runtime_error("cannot write '" + file.string() + "': " + ec.message());
    }
}

}  // namespace regosph::io
