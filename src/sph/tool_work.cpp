#include "sph/tool_work.hpp"

#include <algorithm>
#include <stdexcept>

namespace regosph {

ToolWork::ToolWork(const std::vector<Body>& bodies)
    : bodies_(bodies), power_(bodies.size(), 0.0), work_(bodies.size(), 0.0) {}

bool ToolWork::driven(std::size_t k) const { return prescribed_motion(bodies_[k]) != nullptr; }

std::vector<std::string> ToolWork::columns(const std::string& body, bool planar) {
    return {body + (planar ? ".power [W/m]" : ".power [W]"), body + (planar ? ".work [J/m]" : ".work [J]")};
}

void ToolWork::resume(const std::vector<std::string>& columns, const std::vector<std::vector<double>>& rows) {
    if (rows.empty()) return;
    const std::vector<double>& last = rows.back();
    const auto index = [&](const std::string& prefix) {
        const auto it = std::find_if(columns.begin(), columns.end(),
                                     [&](const std::string& c) { return c.starts_with(prefix); });
        if (it == columns.end()) throw std::runtime_error("diagnostics.csv: no column " + prefix + "...");
        return static_cast<std::size_t>(it - columns.begin());
    };
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
        if (!driven(k)) continue;
        power_[k] = last[index(bodies_[k].name + ".power [")];
        work_[k] = last[index(bodies_[k].name + ".work [")];
    }
    last_time_ = last[0];
    started_ = true;
}

void ToolWork::row(const std::vector<BodyLoad>& loads, double time, double dt) {
    const double mid = time - 0.5 * dt;
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
        if (!driven(k)) continue;
        const double p = regolith_power(bodies_[k], loads[k], mid, 3);  // kinematic: dim unused
        if (started_) work_[k] += 0.5 * (power_[k] + p) * (time - last_time_);  // trapezoid
        power_[k] = p;
    }
    last_time_ = time;
    started_ = true;
}

}  // namespace regosph
