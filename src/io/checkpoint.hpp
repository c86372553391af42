// Checkpoints: everything a run needs to continue bit-for-bit (the particle fields marked
// kCheckpoint in core/fields.hpp, time, step, the integrator's proposed step), in the snapshot
// layout plus root attributes, written atomically and verified by a checksum when read back.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/particles.hpp"

namespace regosph::io {

struct CheckpointState {
    double time = 0.0;       // [s]
    std::int64_t step = 0;   // accepted steps
    double dt_next = 0.0;    // step the integrator proposed next [s]
    // States of the rigid bodies (JSON, sph/rigid_dynamics.hpp); "" without rigid bodies.
    std::string rigid_bodies;
    // Wall-clock seconds the run has computed up to this state, over all its segments (its
    // cost; steps recomputed after an interruption count twice) [s]. 0 in checkpoints
    // written before regosph recorded it.
    double wall_seconds = 0.0;
    // The energy budget's cumulative terms (sph/energy_budget.hpp, EnergyBudget::values);
    // empty when read from a checkpoint written before the budget existed.
    std::vector<double> energy_budget;
};

// Root attributes a checkpoint adds to the snapshot layout: the time, the proposed step and the
// wall time so far as exact text ("%a"), the rigid bodies' states, the energy budget (exact
// text, space separated), and the checksum of everything stored.
inline const std::string kCheckpointTime = "checkpoint_time";
inline const std::string kCheckpointDtNext = "checkpoint_dt_next";
inline const std::string kCheckpointRigidBodies = "rigid_bodies";
inline const std::string kCheckpointWallSeconds = "checkpoint_wall_seconds";
inline const std::string kCheckpointEnergyBudget = "energy_budget";
inline const std::string kCheckpointChecksum = "checkpoint_checksum";

// Order-independent hash of the owned particles: the sum modulo 2^64 of a 64-bit FNV-1a hash
// of each particle's checkpointed fields (kCheckpoint in core/fields.hpp), except those named
// in `absent` (the fields a file predates: its checksum was made without them). Local: the sum
// over ranks is mpi::sum_wrapping of it.
std::uint64_t checksum(const ParticleSet& p, const std::vector<std::string>& absent = {});

// Writes checkpoint_<step>.h5 in `dir` atomically (collective under MPI: the particles of all
// ranks in id order, as snapshots), then removes all but the newest `keep` checkpoints. Its
// checksum covers every stored datum: the particle fields through checksum(), everything else
// (time, step, proposed step, every attribute, every dataset's shape) through
// hash_file_structure().
// Returns the new file. A checkpoint can be read on any number of ranks.
std::filesystem::path write_checkpoint(const std::filesystem::path& dir, const ParticleSet& p,
                                       const CheckpointState& state, int keep = 2);

struct LoadedCheckpoint {
    ParticleSet particles;
    CheckpointState state;
    std::filesystem::path file;
    std::vector<std::string> rejected;  // "file: reason" of newer checkpoints that failed
};

// The newest checkpoint in `dir` that reads back completely and matches its checksum; a corrupt
// or truncated newer one is skipped and reported in `rejected`. Throws std::runtime_error naming
// the directory when none is usable.
LoadedCheckpoint load_newest_checkpoint(const std::filesystem::path& dir);

// Checkpoint files in `dir`, newest first.
std::vector<std::filesystem::path> list_checkpoints(const std::filesystem::path& dir);

}  // namespace regosph::io
