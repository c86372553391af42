// The lock of a run directory, so that two runs never write into one directory: run.lock holds
// the process id, host and start time of the run that owns the directory, for the whole life
// of that run, and the owner keeps an flock(2) on it. The kernel drops the flock when the owner
// dies, even by SIGKILL, which tells a stale lock from a live one on the same host. Under MPI,
// rank 0 takes the lock for every rank (they share the directory) and the decision is shared
// (RunDirectory).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace regosph::io {

inline constexpr const char* kLockFileName = "run.lock";

class RunLock {
public:
    // Takes the lock of `dir`. Throws std::invalid_argument naming the holder when another run
    // holds it. A lock left behind by a run that ended without removing it (killed) is taken
    // over when it was written on this host; one written on another host is taken over only with
    // `take_over_foreign`, because from here regosph cannot tell whether that run still lives
    // (flock may not reach across hosts). Throws std::runtime_error naming the file when the
    // lock file cannot be written.
    RunLock(const std::filesystem::path& dir, bool take_over_foreign);
    ~RunLock();  // removes run.lock
    RunLock(const RunLock&) = delete;
    RunLock& operator=(const RunLock&) = delete;

    // The stale lock this one replaced ("process 123 on host 'a' since ..."), or "".
    const std::string& taken_over() const { return taken_over_; }

    // Throws std::invalid_argument naming the holder when a live run on this host holds the
    // lock of `dir`; does nothing otherwise (a lock from another host is the constructor's
    // to judge, which may take it over). Takes nothing: for early, read-only checks.
    static void check_not_held(const std::filesystem::path& dir);

    // Who holds the lock of `dir`, as the constructor would judge it: a live run on this host
    // ("process 123 on host 'a' (started ...)"), or a lock written on another host (that
    // description plus ", another host (...)": it may still run there). Nothing when the lock
    // is free or left by a run on this host that ended. Takes nothing.
    // (Python: regosph.sweep.lock_holder, which leaves such rows alone.)
    static std::optional<std::string> holder(const std::filesystem::path& dir);

private:
    std::filesystem::path file_;
    int fd_ = -1;
    std::string taken_over_;
};

}  // namespace regosph::io
