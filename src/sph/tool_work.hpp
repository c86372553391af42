// The mechanical power the regolith takes from each kinematic body (a tool driven by a motor)
// and the work done since the start of the series, for the rows of diagnostics.csv
// (sph/recorder.cpp). Power: regolith_power (body.hpp) of the row's load,
// the step-averaged load of the step ending at the row, with the motion at mid-step. Work: the
// trapezoidal integral of the rows' power over time; rows come every diagnostics_every steps.
// A continued series resumes from its last row, so a restarted run writes the same rows as an
// uninterrupted one. (The energy budget integrates regolith_power at every stage instead,
// AdaptiveHeun::energy_increment.)
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sph/body.hpp"
#include "sph/body_loads.hpp"

namespace regosph {

class ToolWork {
public:
    explicit ToolWork(const std::vector<Body>& bodies);

    // Whether body k has power and work columns (a tool driven by a motor: prescribed_motion).
    bool driven(std::size_t k) const;
    // Its two column names with units (2D: per metre of depth).
    static std::vector<std::string> columns(const std::string& body, bool planar);
    // Continue the series whose header is `columns` from its last row (none: start afresh).
    void resume(const std::vector<std::string>& columns, const std::vector<std::vector<double>>& rows);
    // The row at `time` [s], whose loads are those of the step of dt [s] ending at it (dt = 0:
    // the loads at `time`).
    void row(const std::vector<BodyLoad>& loads, double time, double dt);
    double power(std::size_t k) const { return power_[k]; }  // [W] (2D: [W/m])
    double work(std::size_t k) const { return work_[k]; }    // [J] (2D: [J/m])

private:
    const std::vector<Body>& bodies_;
    std::vector<double> power_, work_;
    double last_time_ = 0.0;  // of the previous row [s]
    bool started_ = false;    // a previous row exists
};

}  // namespace regosph
