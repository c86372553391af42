// A run's directory: which files are a run's, creating the directory and taking its lock,
// refusing or clearing one that already holds a run, checking and recording a continued run
// (run.json), removing what a killed run left half-written, trimming a continued run's output
// back to where it continues, and the checkpoint to continue from. Collective under MPI: rank 0
// looks, locks and writes; every rank takes the same branch and gets the same error.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "io/checkpoint.hpp"
#include "io/run_lock.hpp"
#include "io/run_record.hpp"

namespace regosph::io {

// True for the names of the files a run writes (snapshots, checkpoints, crash dumps,
// series.xdmf, diagnostics.csv, observers.csv/.h5, bodies.csv, run.json) and of their temporary
// forms.
bool is_run_file(const std::string& name);

// Creates `dir` if missing and checks that a file can be created in it; throws
// std::runtime_error naming the directory otherwise. Not collective.
void ensure_writable_directory(const std::filesystem::path& dir);

class RunDirectory {
public:
    // A new run into `path`: creates the directory and takes its lock; refuses
    // (std::invalid_argument) a directory that already holds a run unless `overwrite`, which
    // removes that run's files; then writes run.json (`description`, JSON text).
    static RunDirectory for_new_run(const std::filesystem::path& path,
                                    const std::string& description, bool overwrite,
                                    bool take_over_lock);

    // Continuing the run in `path` at record.time_s: takes the lock, compares `description`
    // with run.json (check_changes: refused unless the change is free or in allow_changes),
    // removes the temporary files a killed run left and the snapshots after the continuation
    // time (so that the series has no duplicates), and records the continuation in run.json.
    // Nothing is removed when the continuation is refused.
    static RunDirectory for_continued_run(const std::filesystem::path& path,
                                          const std::string& description,
                                          ContinuationRecord record,
                                          const std::vector<std::string>& allow_changes,
                                          bool take_over_lock);

    // The newest checkpoint in `path` that reads back and matches its checksum (newer corrupt
    // ones are listed in `rejected`). Throws std::invalid_argument when `path` is not a
    // directory or a live run holds it, std::runtime_error when no checkpoint is usable.
    static LoadedCheckpoint newest_checkpoint(const std::filesystem::path& path);

    const std::filesystem::path& path() const { return path_; }

private:
    explicit RunDirectory(std::filesystem::path path) : path_(std::move(path)) {}
    std::filesystem::path path_;
    std::unique_ptr<RunLock> lock_;  // rank 0, for the life of the run
};

}  // namespace regosph::io
