#include "io/run_directory.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
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

bool holds_run(const fs::path& dir) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (is_run_file(e.path().filename().string())) return true;
    return false;
}

void remove_run_files(const fs::path& dir) {
    std::error_code ec;
    std::vector<fs::path> doomed;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (is_run_file(e.path().filename().string())) doomed.push_back(e.path());
    for (const auto& f : doomed) fs::remove(f, ec);
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

bool is_run_file(const std::string& name) {
    const auto has = [&](const char* prefix, const char* suffix) {
        return name.starts_with(prefix) && name.ends_with(suffix);
    };
    return has("snapshot_", ".h5") || has("checkpoint_", ".h5") || has("crash_", ".h5") ||
           name.ends_with(".h5.tmp") ||
           name == "series.xdmf" || name == "diagnostics.csv" || name == "run.json" ||
           name == "observers.csv" || name == "observers.h5" || name == "observers.h5.tmp" ||
           name == "run.json.tmp" || name == "series.xdmf.tmp";
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

RunDirectory RunDirectory::for_new_run(const fs::path& path, bool overwrite) {
    // Rank 0 looks (it may start removing files while another rank still lists the directory):
    // every rank must take the same branch.
    if (mpi::any(mpi::rank() == 0 && holds_run(path))) {
        if (!overwrite)
            throw std::invalid_argument("run: output_dir '" + path.string() +
                                        "' already holds a run; pass overwrite to replace it "
                                        "or restart from it");
        mpi::on_root_first([&] { remove_run_files(path); });
    }
    mpi::on_root_first([&] { ensure_writable_directory(path); });
    return RunDirectory(path);
}

RunDirectory RunDirectory::for_continued_run(const fs::path& path, double time) {
    mpi::on_root_first([&] { remove_snapshots_after(path, time); });
    mpi::on_root_first([&] { ensure_writable_directory(path); });
    return RunDirectory(path);
}

LoadedCheckpoint RunDirectory::newest_checkpoint(const fs::path& path) {
    if (!fs::is_directory(path))
        throw std::invalid_argument("restart: run directory '" + path.string() +
                                    "' does not exist");
    return load_newest_checkpoint(path);
}

void RunDirectory::describe(const std::string& json) const {
    mpi::on_root_first([&] { write_text_atomically(path_ / "run.json", json + "\n"); });
}

}  // namespace regosph::io
