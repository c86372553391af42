#include "io/run_directory.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <vector>

#include <unistd.h>

#include "io/json.hpp"
#include "io/snapshot.hpp"
#include "parallel/mpi_env.hpp"

namespace regosph::io {

namespace fs = std::filesystem;

namespace {

// What a killed run may leave half-written: temporary files, renamed into place only when
// complete.
bool is_leftover(const std::string& name) { return name.ends_with(".tmp") && is_run_file(name); }

// A directory holds a run when it has a complete file of one; leftovers alone do not count.
bool holds_run(const fs::path& dir) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (is_run_file(name) && !is_leftover(name)) return true;
    }
    return false;
}

// Removes the files of `dir` whose names `doomed` picks (listed first, then removed).
void remove_files(const fs::path& dir, const std::function<bool(const std::string&)>& doomed) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (doomed(e.path().filename().string())) files.push_back(e.path());
    for (const auto& f : files) fs::remove(f, ec);
}

std::string read_text(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw std::invalid_argument("run: cannot check the setup against '" + file.string() +
                                    "': the file is missing or unreadable");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Runs fn on rank 0; then every rank throws what it threw, keeping a refusal
// (std::invalid_argument) apart from a failure (std::runtime_error).
void on_root_shared(const std::function<void()>& fn) {
    std::string error;
    if (mpi::rank() == 0) {
        try {
            fn();
        } catch (const std::invalid_argument& e) {
            error = std::string("A") + e.what();
        } catch (const std::exception& e) {
            error = std::string("R") + e.what();
        }
    }
    error = mpi::first_error(error);
    if (error.empty()) return;
    if (error[0] == 'A') throw std::invalid_argument(error.substr(1));
    throw std::runtime_error(error.substr(1));
}

// The lock, saying so when it replaces a stale one (rank 0).
std::unique_ptr<RunLock> take_lock(const fs::path& dir, bool take_over_foreign) {
    auto lock = std::make_unique<RunLock>(dir, take_over_foreign);
    if (!lock->taken_over().empty()) {
        std::fprintf(stderr, "note: took over the lock of '%s' left by %s\n", dir.c_str(),
                     lock->taken_over().c_str());
        std::fflush(stderr);
    }
    return lock;
}

// Snapshots later than `time` (unreadable ones too): a continued run writes them again.
void remove_snapshots_after(const fs::path& dir, double time) {
    std::error_code ec;
    std::vector<fs::path> doomed;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (!(name.starts_with("snapshot_") && name.ends_with(".h5"))) continue;
        double t = 0.0;
        try {
            read_snapshot(e.path(), &t, nullptr);
        } catch (const std::exception&) {
            t = std::numeric_limits<double>::infinity();  // unreadable: redo it
        }
        if (t > time) doomed.push_back(e.path());
    }
    for (const auto& f : doomed) fs::remove(f, ec);
}

}  // namespace

bool is_run_file(const std::string& file_name) {
    // A temporary name is the final one followed by ".tmp".
    const std::string name =
        file_name.ends_with(".tmp") ? file_name.substr(0, file_name.size() - 4) : file_name;
    const auto has = [&](const char* prefix, const char* suffix) {
        return name.starts_with(prefix) && name.ends_with(suffix);
    };
    return has("snapshot_", ".h5") || has("checkpoint_", ".h5") || has("crash_", ".h5") ||
           name == "series.xdmf" || name == "diagnostics.csv" || name == "run.json" ||
           name == "observers.csv" || name == "observers.h5" || name == "bodies.csv";
}

void ensure_writable_directory(const fs::path& dir) {
    auto fail = [&dir](const std::string& reason) {
        throw std::runtime_error("output directory '" + dir.string() +
                                 "' is not writable: " + reason);
    };
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) fail(ec.message());
    if (!fs::is_directory(dir, ec)) fail("not a directory");
    // Permission bits do not tell (read-only mounts, ACLs, root): try it. The pid keeps
    // concurrent processes from removing each other's probe.
    const fs::path probe = dir / (".regosph_write_probe_" + std::to_string(::getpid()));
    std::FILE* f = std::fopen(probe.c_str(), "w");
    if (!f) fail(std::strerror(errno));
    std::fclose(f);
    if (!fs::remove(probe, ec)) fail("cannot remove the probe file: " + ec.message());
}

RunDirectory RunDirectory::for_new_run(const fs::path& path, const std::string& description,
                                       bool overwrite, bool take_over_lock) {
    RunDirectory dir(path);
    on_root_shared([&] {
        ensure_writable_directory(path);
        dir.lock_ = take_lock(path, take_over_lock);
        if (holds_run(path)) {
            if (!overwrite)
                throw std::invalid_argument("run: output_dir '" + path.string() +
                                            "' already holds a run; pass overwrite to replace "
                                            "it or restart from it");
            remove_files(path, is_run_file);
        }
        remove_files(path, is_leftover);
        write_text_atomically(path / "run.json", description + "\n");
    });
    return dir;
}

RunDirectory RunDirectory::for_continued_run(const fs::path& path, const std::string& description,
                                             ContinuationRecord record,
                                             const std::vector<std::string>& allow_changes,
                                             bool take_over_lock) {
    RunDirectory dir(path);
    on_root_shared([&] {
        ensure_writable_directory(path);
        dir.lock_ = take_lock(path, take_over_lock);
        const fs::path json = path / "run.json";
        const std::string recorded = read_text(json);
        record.changes = changed_fields(recorded, description);
        check_changes(record.changes, allow_changes, description,
                      "run: continuing the run in '" + path.string() + "': ");
        remove_files(path, is_leftover);
        remove_snapshots_after(path, record.time_s);
        write_text_atomically(json, continued_description(recorded, description, record) + "\n");
    });
    return dir;
}

LoadedCheckpoint RunDirectory::newest_checkpoint(const fs::path& path) {
    on_root_shared([&] {
        if (!fs::is_directory(path))
            throw std::invalid_argument("restart: run directory '" + path.string() +
                                        "' does not exist");
        RunLock::check_not_held(path);
    });
    return load_newest_checkpoint(path);
}

}  // namespace regosph::io
