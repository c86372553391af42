#include "io/json.hpp"

#include <cerrno>
#include <cstring>
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
    j["model"] = model_name(m);
    for (const ModelParameter& q : model_parameters(m)) j[q.key] = q.value;
    // Only when not linear (the same reason as below): the law its elasticity_* values belong to.
    if (const auto e = elasticity(m); e && !e->linear()) j["elasticity"] = elasticity_name(*e);
    // Only when on: run.json files written before the option stay comparable on restart.
    if (m.kernel_correction) j["kernel_correction"] = true;
    // Only for a model that has them (the same reason): the fields it adds to the particles.
    for (const HistoryVariable& v : history_variables(m)) j["history_variables"].push_back(v.name);
    return j;
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
