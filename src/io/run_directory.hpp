// A run's directory: which files are a run's, creating the directory, refusing or clearing one
// that already holds a run, trimming a continued run's output back to its checkpoint, run.json,
// and the checkpoint to continue from. Collective under MPI: rank 0 looks and writes, every
// rank takes the same branch.
#pragma once

#include <filesystem>
#include <string>

#include "io/checkpoint.hpp"

namespace regosph::io {

// True for the names of the files a run writes (snapshots, checkpoints, crash dumps,
// series.xdmf, diagnostics.csv, observers.csv/.h5, run.json) and of their temporary forms.
bool is_run_file(const std::string& name);

// Creates `dir` if missing and checks that a file can be created in it; throws
// std::runtime_error naming the directory otherwise. Not collective.
void ensure_writable_directory(const std::filesystem::path& dir);

class RunDirectory {
public:
    // A new run into `path`: refuses (std::invalid_argument) a directory that already holds a
    // run unless `overwrite`, which removes that run's files; then creates the directory.
    static RunDirectory for_new_run(const std::filesystem::path& path, bool overwrite);

    // Continuing the run in `path` from its checkpoint at `time` [s]: the snapshots after it
    // (and unreadable ones) are removed, so that the continued series has no duplicates.
    static RunDirectory for_continued_run(const std::filesystem::path& path, double time);

    // The newest checkpoint in `path` that reads back and matches its checksum (newer corrupt
    // ones are listed in `rejected`). Throws std::invalid_argument when `path` is not a
    // directory, std::runtime_error when no checkpoint is usable.
    static LoadedCheckpoint newest_checkpoint(const std::filesystem::path& path);

    // Writes run.json, the description of the run (JSON text).
    void describe(const std::string& json) const;

    const std::filesystem::path& path() const { return path_; }

private:
    explicit RunDirectory(std::filesystem::path path) : path_(std::move(path)) {}
    std::filesystem::path path_;
};

}  // namespace regosph::io
