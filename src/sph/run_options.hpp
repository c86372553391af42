// What a run is asked to do (RunOptions) and what it reports when it returns (RunSummary).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sph/integrator.hpp"

namespace regosph {

struct RunOptions {
    double end_time = 0.0;            // [s], > current time
    std::string output_dir;           // empty: no files written
    double snapshot_interval = 0.0;   // [s]; 0: only the initial and final states
    int diagnostics_every = 10;       // steps between rows of diagnostics.csv
    int observe_every = 10;           // steps between rows of observers.csv
    double progress_interval = 5.0;   // wall seconds between progress lines; <= 0: silent
    std::map<std::string, std::string> metadata;  // recorded in run.json and every snapshot
    bool overwrite = false;           // replace a run already in output_dir
    // A continued run (restart, or a second run() into the same directory) refuses changed
    // physics or setup fields unless listed here (paths of run.json: "physics.gravity_m_s2",
    // "materials[soil]"; io/run_record.hpp).
    std::vector<std::string> allow_changes;
    // Take over the lock of output_dir left by a run on another host (io/run_lock.hpp).
    bool take_over_lock = false;
    int checkpoint_every = 0;         // steps between checkpoints; 0: not by step count
    double checkpoint_interval = 0.0; // wall seconds between checkpoints; 0: not by time
    // SIGTERM / SIGINT: finish the step, write a checkpoint (with an output_dir), return with
    // RunSummary::interrupted_by set. Schedulers send SIGTERM before the wall-time limit.
    bool checkpoint_on_signal = true;
};

struct RunSummary {
    std::int64_t steps = 0;
    std::int64_t rejected = 0;
    double wall_seconds = 0.0;        // of this call [s]
    double total_wall_seconds = 0.0;  // of the whole run, earlier segments included [s]
    double particle_steps_per_second = 0.0;  // dynamic particles x accepted steps / wall time
    std::size_t neighbour_builds = 0;  // Verlet-list builds
    std::size_t pair_selections = 0;   // pair-list selections (NeighbourList::select_pairs)
    std::size_t snapshots = 0;
    PhaseTimes phases;  // cumulative over the simulation's life [s]
    // Steps the thread tuner ran with all allowed threads and with one, cumulative over the
    // simulation's life like `phases`; both 0 when it did not choose (tune_threads off, one
    // allowed thread, or MPI runs).
    std::int64_t steps_all_threads = 0;
    std::int64_t steps_one_thread = 0;
    int interrupted_by = 0;       // signal number that stopped the run early, 0 if none
    std::string last_checkpoint;  // file of the newest checkpoint written, if any
};

}  // namespace regosph
