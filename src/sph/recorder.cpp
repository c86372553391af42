#include "sph/recorder.hpp"

#include <map>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "io/json.hpp"
#include "parallel/mpi_env.hpp"

namespace regosph {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string format_duration(double seconds) {
    const long s = static_cast<long>(std::max(0.0, seconds) + 0.5);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
    return buf;
}

// The energy budget's columns (sph/energy_budget.hpp), after the global quantities.
constexpr const char* kEnergyColumns[] = {
    "potential_energy",    "strain_energy",    "plastic_dissipation",
    "viscous_dissipation", "wall_dissipation", "artificial_stress_dissipation",
    "body_work",           "energy_residual"};

// The columns of diagnostics.csv: the global quantities, the energy budget (unless
// `energy` is false: a series begun before it existed), then the loads on the kinematic
// bodies. A 2D run is plane strain: its masses, energies, momenta, forces and torques are per
// metre of depth (momentum kg m/s per m = N s/m, torque N m per m = N).
std::vector<std::string> diagnostic_columns(const std::vector<Body>& bodies,
                                            const std::vector<std::size_t>& loaded, bool planar,
                                            bool energy) {
    const std::string energy_unit = planar ? " [J/m]" : " [J]";
    const std::string momentum = planar ? " [N s/m]" : " [kg m/s]";
    std::vector<std::string> columns = {"time [s]", "dt [s]", "kinetic_energy" + energy_unit};
    for (const char* c : {"x", "y", "z"}) columns.push_back(std::string("momentum_") + c + momentum);
    for (const char* c : {"max_speed [m/s]", "yielding [-]"}) columns.push_back(c);
    columns.push_back(planar ? "mass [kg/m]" : "mass [kg]");
    columns.push_back("rejected_steps [-]");
    if (energy)
        for (const char* c : kEnergyColumns) columns.push_back(c + energy_unit);
    for (const std::size_t k : loaded) {
        const std::string& b = bodies[k].name;
        const std::string force_unit = planar ? " [N/m]" : " [N]";
        for (const char* c : {"x", "y", "z"})
            if (!planar || c[0] != 'z') columns.push_back(b + ".force_" + c + force_unit);
        if (planar)
            columns.push_back(b + ".torque_z [N]");  // N m per metre of depth
        else
            for (const char* c : {"x", "y", "z"}) columns.push_back(b + ".torque_" + c + " [N m]");
        if (prescribed_motion(bodies[k]))  // a motor's power and work
            for (const std::string& c : ToolWork::columns(b, planar)) columns.push_back(c);
    }
    return columns;
}

// bodies.csv: per rigid body its state, the regolith's load, the applied one and that of
// contact with other bodies (docs/guide/tools.md, "Rigid bodies"). In 2D per metre of depth.
std::vector<std::string> rigid_body_columns(const std::vector<Body>& bodies,
                                            const std::vector<std::size_t>& rigid, bool planar) {
    std::vector<std::string> columns = {"time [s]", "step [-]"};
    const std::vector<std::string> axes = planar ? std::vector<std::string>{"x", "y"}
                                                 : std::vector<std::string>{"x", "y", "z"};
    const std::vector<std::string> turns = planar ? std::vector<std::string>{"z"} : axes;
    const std::string force = planar ? " [N/m]" : " [N]", torque = planar ? " [N]" : " [N m]";
    for (const std::size_t k : rigid) {
        const std::string b = bodies[k].name + ".";
        for (const auto& a : axes) columns.push_back(b + a + " [m]");
        if (planar)
            columns.push_back(b + "angle [rad]");
        else
            for (const char* q : {"qw", "qx", "qy", "qz"}) columns.push_back(b + q + " [-]");
        for (const auto& a : axes) columns.push_back(b + "v" + a + " [m/s]");
        for (const auto& a : turns) columns.push_back(b + "omega_" + a + " [rad/s]");
        for (const auto& a : axes) columns.push_back(b + "force_" + a + force);
        for (const auto& a : turns) columns.push_back(b + "torque_" + a + torque);
        for (const auto& a : axes) columns.push_back(b + "applied_force_" + a + force);
        for (const auto& a : turns) columns.push_back(b + "applied_torque_" + a + torque);
        for (const auto& a : axes) columns.push_back(b + "contact_force_" + a + force);
        for (const auto& a : turns) columns.push_back(b + "contact_torque_" + a + torque);
    }
    return columns;
}

// One row of bodies.csv (the columns above).
std::vector<double> rigid_body_row(const std::vector<Body>& bodies,
                                   const std::vector<std::size_t>& rigid,
                                   const std::vector<BodyLoad>& loads, double time,
                                   std::int64_t step, int dim) {
    std::vector<double> row = {time, static_cast<double>(step)};
    const auto put = [&](const geometry::Vec3& v, bool turning) {
        if (dim == 2 && turning)
            row.push_back(v[2]);
        else
            row.insert(row.end(), v.begin(), v.begin() + dim);
    };
    for (const std::size_t k : rigid) {
        const RigidBodyReport r = report_rigid_body(*rigid_body(bodies[k]), loads[k], time, dim);
        put(r.state.centre, false);
        if (dim == 2)
            row.push_back(r.angle);
        else
            row.insert(row.end(), r.state.orientation.begin(), r.state.orientation.end());
        put(r.state.velocity, false);
        put(r.angular_velocity, true);
        put(r.regolith.force, false);
        put(r.regolith.torque, true);
        put(r.applied_force, false);
        put(r.applied_torque, true);
        put(r.regolith.contact_force, false);
        put(r.regolith.contact_torque, true);
    }
    return row;
}

// Whether the diagnostics.csv a continued run appends to has the energy budget's columns (a
// series begun before they existed does not). Rank 0 reads it.
bool has_energy_columns(const fs::path& file) {
    std::ifstream in(file);
    std::string header;
    std::getline(in, header);
    return !in || header.find(kEnergyColumns[0]) != std::string::npos;
}

std::vector<std::string> observer_columns(const std::vector<Observer>& observers, bool planar) {
    std::vector<std::string> columns = {"time [s]", "step [-]"};
    for (const Observer& ob : observers) {
        columns.push_back(ob.name + ".count [-]");
        columns.push_back(ob.name + (planar ? ".mass [kg/m]" : ".mass [kg]"));
    }
    return columns;
}

}  // namespace

OutputTimes::OutputTimes(double interval, double end_time, double now)
    : interval_(interval), end_time_(end_time),
      k_(static_cast<std::int64_t>(std::floor(now / interval * (1.0 + 1e-12))) + 1),
      next_(std::min(end_time, static_cast<double>(k_) * interval)) {}

bool OutputTimes::reached(double time, double t_eps) {
    if (time < next_ - t_eps) return false;
    ++k_;
    next_ = std::min(end_time_, static_cast<double>(k_) * interval_);
    return true;
}

Recorder::Recorder(const RunOptions& o, const ParticleSet& particles,
                   const std::vector<Body>& bodies, const std::vector<Observer>& observers,
                   LoadsFn loads, ObserveFn observe, DiagnoseFn diagnose, bool continued,
                   double time, std::int64_t step)
    : o_(o), particles_(particles), bodies_(bodies), loads_(std::move(loads)),
      observe_(std::move(observe)), diagnose_(std::move(diagnose)), writing_(!o.output_dir.empty()),
      observing_(writing_ && !observers.empty()), tool_work_(bodies), last_snapshot_step_(step),
      t_start_(time), step_start_(step) {
    const bool planar = particles.dim == 2;
    for (std::size_t k = 0; k < bodies.size(); ++k) {
        if (collects_loads(bodies[k])) loaded_.push_back(k);
        if (rigid_body(bodies[k])) rigid_.push_back(k);
    }
    if (writing_) {
        writer_ = std::make_unique<io::SnapshotWriter>(o.output_dir);  // checks writability
        // A continued run keeps the rows up to its restart time; a new one starts afresh.
        const double keep_up_to = continued ? time : std::numeric_limits<double>::quiet_NaN();
        mpi::on_root_first([&] {
            const fs::path file = fs::path(o.output_dir) / "diagnostics.csv";
            energy_columns_ = !continued || has_energy_columns(file);
            diagnostics_ = std::make_unique<io::CsvTimeSeries>(
                file, diagnostic_columns(bodies, loaded_, planar, energy_columns_), keep_up_to);
            tool_work_.resume(diagnostics_->columns(), diagnostics_->rows());  // its work so far
            if (observing_)
                observations_ = std::make_unique<io::CsvTimeSeries>(
                    fs::path(o.output_dir) / "observers.csv", observer_columns(observers, planar),
                    keep_up_to);
            if (!rigid_.empty())
                rigid_bodies_ = std::make_unique<io::CsvTimeSeries>(
                    fs::path(o.output_dir) / "bodies.csv",
                    rigid_body_columns(bodies, rigid_, planar), keep_up_to);
        });
    }
    n_dynamic_ = diagnose_().dynamic_particles;
    wall_start_ = last_progress_ = last_checkpoint_wall_ = Clock::now();
    // Say at once what runs: the first progress line comes only after progress_interval.
    const auto total = static_cast<long long>(mpi::sum(static_cast<std::int64_t>(particles.owned())));
    if (mpi::rank() == 0 && o.progress_interval > 0.0) {
        std::printf("%s %lld particles (%zu dynamic) from t = %.6g s (step %lld) to %.6g s%s%s\n",
                    continued ? "continuing:" : "running:", total, n_dynamic_, time,
                    static_cast<long long>(step), o.end_time,
                    writing_ ? ", output in " : ", no output directory",
                    writing_ ? o.output_dir.c_str() : "");
        std::fflush(stdout);
    }
}

double Recorder::elapsed() const { return seconds_since(wall_start_); }

double Recorder::total_wall_seconds() const { return earlier_wall_seconds_ + mpi::max(elapsed()); }

void Recorder::initial_state(double time, std::int64_t step) {
    diagnostics(time, step);
    observations(time, step);
    snapshot(time, step);
}

void Recorder::count_step(const StepReport& r) {
    last_dt_ = r.dt;
    rejected_since_row_ += r.rejected;
}

void Recorder::diagnostics(double time, std::int64_t step) {
    if (!writing_ || step == last_row_step_) return;
    last_row_step_ = step;
    const Diagnostics g = diagnose_();
    std::vector<double> row = {time, last_dt_, g.kinetic_energy, g.momentum[0], g.momentum[1],
                               g.momentum[2], g.max_speed, static_cast<double>(g.yielding),
                               g.mass, static_cast<double>(rejected_since_row_)};
    if (energy_columns_)  // kEnergyColumns
        row.insert(row.end(), {g.potential_energy, g.strain_energy, g.plastic_dissipation,
                               g.viscous_dissipation, g.wall_dissipation,
                               g.artificial_stress_dissipation, g.body_work, g.energy_residual});
    if (!loaded_.empty()) {
        const std::vector<BodyLoad> loads = loads_();
        if (rigid_bodies_)  // rank 0
            rigid_bodies_->append(
                rigid_body_row(bodies_, rigid_, loads, time, step, particles_.dim));
        tool_work_.row(loads, time, last_dt_);
        for (const std::size_t k : loaded_) {
            for (int d = 0; d < particles_.dim; ++d) row.push_back(loads[k].force[d]);
            if (particles_.dim == 2)
                row.push_back(loads[k].torque[2]);
            else
                for (int d = 0; d < 3; ++d) row.push_back(loads[k].torque[d]);
            if (tool_work_.driven(k)) {
                row.push_back(tool_work_.power(k));
                row.push_back(tool_work_.work(k));
            }
        }
    }
    if (diagnostics_) diagnostics_->append(row);  // rank 0
    rejected_since_row_ = 0;
}

void Recorder::observations(double time, std::int64_t step) {
    if (!observing_ || step == last_observed_step_) return;
    last_observed_step_ = step;
    std::vector<double> row = {time, static_cast<double>(step)};
    for (const ObserverReading& r : observe_()) {
        row.push_back(static_cast<double>(r.count));
        row.push_back(r.mass);
    }
    if (observations_) observations_->append(row);  // rank 0
}

// observers.h5 mirrors observers.csv; rewritten at checkpoints and at the end (rank 0).
void Recorder::write_observers_h5() {
    if (!observing_) return;
    mpi::on_root_first([&] {
        io::write_time_series_file(fs::path(o_.output_dir) / "observers.h5",
                                   observations_->columns(), observations_->rows(), o_.metadata);
    });
}

void Recorder::set_material_names(const std::vector<std::string>& names) {
    io::Json materials = io::Json::array(), bodies = io::Json::array();
    for (const std::string& n : names) materials.push_back(n);
    for (const Body& b : bodies_) bodies.push_back(b.name);
    material_names_ = materials.dump();
    body_names_ = bodies.dump();
}

void Recorder::snapshot(double time, std::int64_t step) {
    last_snapshot_step_ = step;
    if (!writer_) return;
    std::map<std::string, std::string> attributes = o_.metadata;
    attributes[kMaterialNamesAttribute] = material_names_;
    attributes[kBodyNamesAttribute] = body_names_;
    if (std::string states = body_states_json(bodies_); !states.empty())
        attributes[io::kCheckpointRigidBodies] = std::move(states);
    writer_->write(particles_, time, step, attributes);
    ++snapshots_;
}

void Recorder::progress(bool force, double time, std::int64_t step) {
    if (mpi::rank() != 0 || o_.progress_interval <= 0.0) return;
    if (!force && seconds_since(last_progress_) < o_.progress_interval) return;
    last_progress_ = Clock::now();
    const double wall = elapsed();
    const double rate =
        wall > 0 ? static_cast<double>(n_dynamic_ * (step - step_start_)) / wall : 0;
    const double eta = time > t_start_ ? wall * (o_.end_time - time) / (time - t_start_) : 0.0;
    std::printf("t = %.5f s (%5.1f%%)  step %lld  dt %.3e s  %.3f M particle-steps/s  ETA %s\n",
                time, 100.0 * (time - t_start_) / (o_.end_time - t_start_),
                static_cast<long long>(step), last_dt_, rate * 1e-6,
                format_duration(eta).c_str());
    std::fflush(stdout);
}

bool Recorder::checkpoint_due(std::int64_t step) const {
    const bool by_steps = o_.checkpoint_every > 0 && step % o_.checkpoint_every == 0;
    const bool by_wall = o_.checkpoint_interval > 0.0 &&
                         mpi::any(seconds_since(last_checkpoint_wall_) >= o_.checkpoint_interval);
    return by_steps || by_wall;
}

void Recorder::checkpoint(const io::CheckpointState& state) {
    if (!writing_) return;
    io::CheckpointState with_bodies = state;
    with_bodies.rigid_bodies = body_states_json(bodies_);
    with_bodies.wall_seconds = total_wall_seconds();
    last_checkpoint_ = io::write_checkpoint(o_.output_dir, particles_, with_bodies).string();
    write_observers_h5();
    last_checkpoint_wall_ = Clock::now();
}

void Recorder::interrupted(int signal, const io::CheckpointState& state) {
    if (diagnostics_) diagnostics_->flush();
    if (rigid_bodies_) rigid_bodies_->flush();
    checkpoint(state);
    if (mpi::rank() == 0)
        std::printf("interrupted by signal %d at t = %.6g s, step %lld; %s\n", signal, state.time,
                    static_cast<long long>(state.step),
                    last_checkpoint_.empty() ? "no output directory, nothing saved"
                                             : ("checkpoint " + last_checkpoint_).c_str());
}

void Recorder::finish(const io::CheckpointState& state) {
    if (last_snapshot_step_ != state.step) snapshot(state.time, state.step);
    diagnostics(state.time, state.step);
    observations(state.time, state.step);
    // A later end time continues from the newest checkpoint and recomputes the steps after
    // it, so that it ends bit-identical to an uninterrupted run. A run that wrote no
    // checkpoint (too short for checkpoint_every) writes one of its final state, so that it
    // can be continued too.
    if (last_checkpoint_.empty())
        checkpoint(state);  // rewrites observers.h5
    else
        write_observers_h5();
    progress(true, state.time, state.step);
}

BlowUpError Recorder::crash(const BlowUpError& e, double time, std::int64_t step) {
    if (diagnostics_) diagnostics_->flush();
    if (rigid_bodies_) rigid_bodies_->flush();
    std::string report = e.what();
    try {
        write_observers_h5();
    } catch (const std::exception&) {  // the crash report matters more
    }
    if (writing_) {
        char name[48];
        std::snprintf(name, sizeof name, "crash_%012lld.h5", static_cast<long long>(step));
        const auto file = fs::path(o_.output_dir) / name;
        try {
            io::write_particle_file(file, particles_, time, step, {{kCrashReportAttribute, report}});
            report += "\ncrash dump of the last good state: " + file.string();
        } catch (const std::exception& w) {
            report += "\n(no crash dump: " + std::string(w.what()) + ")";
        }
    }
    return BlowUpError(report);
}

}  // namespace regosph
