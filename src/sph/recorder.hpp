// What a run records while it goes: snapshots, rows of diagnostics.csv and observers.csv,
// observers.h5, checkpoints, a crash dump after a blow-up, and progress lines on standard
// output. Snapshots and checkpoints are written by all ranks together; the text files and the
// time series by rank 0 (the other ranks compute their share of each row). Without an output
// directory only the progress lines remain.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/particles.hpp"
#include "io/checkpoint.hpp"
#include "io/snapshot.hpp"
#include "sph/body.hpp"
#include "io/time_series.hpp"
#include "sph/diagnostics.hpp"
#include "sph/integrator.hpp"
#include "sph/observers.hpp"
#include "sph/run_options.hpp"
#include "sph/tool_work.hpp"

namespace regosph {

// Snapshot times lie on the grid k * interval (k = 1, 2, ...) and end at the end time, so that
// a restarted run writes at the same times, and takes the same steps, as an uninterrupted one.
class OutputTimes {
public:
    OutputTimes(double interval, double end_time, double now);
    double next() const { return next_; }
    // True when `time` [s] has reached the next output time (within t_eps [s]); the next one
    // then moves on.
    bool reached(double time, double t_eps);

private:
    double interval_, end_time_;
    std::int64_t k_;
    double next_;
};

// Root attribute of a crash dump (crash_<step>.h5) holding the blow-up report.
inline const std::string kCrashReportAttribute = "crash_report";
// Snapshot attributes: the names the particles' material and body fields index (JSON arrays).
inline const std::string kMaterialNamesAttribute = "material_names";
inline const std::string kBodyNamesAttribute = "body_names";

class Recorder {
public:
    // Loads of every body (indexed like the bodies) at the current state. The recorder calls
    // it once per diagnostics row, and only when a body is kinematic or rigid.
    using LoadsFn = std::function<std::vector<BodyLoad>()>;
    // Readings of every observer at the current state.
    using ObserveFn = std::function<std::vector<ObserverReading>()>;
    // The global quantities and the energy budget at the current state (collective).
    using DiagnoseFn = std::function<Diagnostics()>;

    // `continued`: a run restarted at `time` [s], whose series keep their rows up to it.
    // Collective under MPI.
    Recorder(const RunOptions& options, const ParticleSet& particles,
             const std::vector<Body>& bodies, const std::vector<Observer>& observers,
             LoadsFn loads, ObserveFn observe, DiagnoseFn diagnose, bool continued, double time,
             std::int64_t step);

    // The first rows and the first snapshot of a new run.
    void initial_state(double time, std::int64_t step);
    // An accepted step: its size and the attempts rejected before it go to the next row.
    void count_step(const StepReport& r);
    // One row of diagnostics.csv, with the body loads and the power and work of the kinematic
    // bodies (sph/tool_work.hpp) (at most one row per step).
    void diagnostics(double time, std::int64_t step);
    // One row of observers.csv (at most one per step).
    void observations(double time, std::int64_t step);
    void snapshot(double time, std::int64_t step);
    // A progress line when progress_interval wall seconds have passed since the last (or
    // always, with `force`).
    void progress(bool force, double time, std::int64_t step);
    // Whether a checkpoint is due, by step count or by wall time. Collective (wall clocks
    // differ between ranks).
    bool checkpoint_due(std::int64_t step) const;
    // checkpoint_<step>.h5 and observers.h5; nothing without an output directory.
    void checkpoint(const io::CheckpointState& state);
    // After SIGTERM/SIGINT: the rows so far, a checkpoint, and a line saying where it is.
    void interrupted(int signal, const io::CheckpointState& state);
    // The end of the run: the final snapshot (unless just written), rows, observers.h5, a
    // checkpoint when the run wrote none (so that a later end time can continue it), and a
    // last progress line.
    void finish(const io::CheckpointState& state);
    // After a blow-up: the rows so far, observers.h5, and crash_<step>.h5 holding the state
    // with the report as its attribute `crash_report`. Returns the error to throw, its report
    // naming the crash dump.
    BlowUpError crash(const BlowUpError& e, double time, std::int64_t step);

    std::size_t snapshots() const { return snapshots_; }
    const std::string& last_checkpoint() const { return last_checkpoint_; }
    std::size_t dynamic_particles() const { return n_dynamic_; }
    double elapsed() const;  // wall seconds since the recorder started
    // The run's wall seconds before this recorder started (its earlier segments), which the
    // checkpoints carry on; total_wall_seconds() = that + elapsed(). Collective (the largest
    // over the ranks, so that every rank writes the same checkpoint).
    void set_earlier_wall_seconds(double seconds) { earlier_wall_seconds_ = seconds; }
    // The material names (index = the particles' material field), recorded with the body
    // names in every snapshot (attributes material_names, body_names: JSON arrays).
    void set_material_names(const std::vector<std::string>& names);
    double total_wall_seconds() const;

private:
    void write_observers_h5();

    const RunOptions& o_;
    const ParticleSet& particles_;
    const std::vector<Body>& bodies_;
    LoadsFn loads_;
    ObserveFn observe_;
    DiagnoseFn diagnose_;
    // Rows carry the energy budget's columns; false only when continuing a diagnostics.csv
    // written before they existed (its rows keep the columns they had).
    bool energy_columns_ = true;
    bool writing_, observing_;
    std::vector<std::size_t> loaded_;  // kinematic bodies, whose loads join the diagnostics
    ToolWork tool_work_;               // power and work of the kinematic bodies
    std::unique_ptr<io::SnapshotWriter> writer_;
    std::unique_ptr<io::CsvTimeSeries> diagnostics_;   // rank 0
    std::unique_ptr<io::CsvTimeSeries> observations_;  // rank 0
    std::vector<std::size_t> rigid_;                    // rigid bodies: bodies.csv
    std::unique_ptr<io::CsvTimeSeries> rigid_bodies_;  // rank 0
    std::int64_t last_row_step_ = -1, last_observed_step_ = -1, last_snapshot_step_;
    std::int64_t rejected_since_row_ = 0;
    double last_dt_ = 0.0;  // [s]
    std::size_t snapshots_ = 0;
    std::string last_checkpoint_;
    // Progress and wall-clock checkpoints.
    double t_start_;
    std::int64_t step_start_;
    std::size_t n_dynamic_;
    double earlier_wall_seconds_ = 0.0;  // [s]
    std::string material_names_, body_names_;  // JSON arrays of the names
    std::chrono::steady_clock::time_point wall_start_, last_progress_, last_checkpoint_wall_;
};

}  // namespace regosph
