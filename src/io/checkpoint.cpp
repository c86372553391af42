#include "io/checkpoint.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>

#include "io/snapshot.hpp"
#include "parallel/mpi_env.hpp"

namespace regosph::io {

namespace fs = std::filesystem;

namespace {

const std::string kPrefix = "checkpoint_";
const std::string kSuffix = ".h5";

// Exact text form of a double (hexadecimal floating point round-trips every bit).
std::string exact(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", v);
    return buf;
}

double parse_exact(const std::string& s, const std::string& what) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0') throw std::runtime_error("attribute '" + what + "' is not a number");
    return v;
}

std::int64_t step_of(const fs::path& file) {
    const std::string name = file.filename().string();
    const std::string digits =
        name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
    return std::stoll(digits);
}

bool is_checkpoint_name(const std::string& name) {
    if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) return false;
    const std::string digits =
        name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
    return !digits.empty() && digits.size() <= 18 &&
           std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "fields <hash of the particle fields> file <hash of everything else in the file>": every
// stored datum is covered, the time, step and proposed step included.
std::string checksum_text(std::uint64_t fields, const fs::path& file) {
    return "fields " + std::to_string(fields) + " file " +
           std::to_string(hash_file_structure(file, kCheckpointChecksum));
}

// FNV-1a of a text (0 for ""): regosph 0.1 added it for the rigid bodies' states to the
// particles' checksum (the legacy format below).
std::uint64_t legacy_text_hash(const std::string& s) {
    if (s.empty()) return 0;
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

// Throws, saying which part differs, unless the stored checksum matches. A checkpoint of
// regosph 0.1 holds a single number: the particle fields (and rigid bodies' states) only; it
// is still accepted, its time and step unchecked, so that older runs can be continued.
void verify_checksum(const fs::path& file, const std::string& stored, std::uint64_t fields,
                     const std::string& rigid_bodies) {
    if (!stored.starts_with("fields ")) {
        if (stored != std::to_string(fields + legacy_text_hash(rigid_bodies)))
            throw std::runtime_error("checksum mismatch in the particle fields (corrupt file)");
        return;
    }
    const std::string actual = checksum_text(fields, file);
    if (stored == actual) return;
    std::istringstream a(actual), b(stored);
    std::string key, actual_fields, stored_fields;
    a >> key >> actual_fields;
    b >> key >> stored_fields;
    if (stored_fields != actual_fields)
        throw std::runtime_error("checksum mismatch in the particle fields (corrupt file)");
    throw std::runtime_error("checksum mismatch in the time, step or another attribute "
                             "(corrupt file)");
}

}  // namespace

std::uint64_t checksum(const ParticleSet& p, const std::vector<std::string>& absent) {
    // Sum (modulo 2^64) of one FNV-1a hash per particle over the bytes of its checkpointed
    // fields (in table order): the same for any order of the particles and any split over ranks.
    std::vector<bool> hashed;  // per field, in table order
    for_each_field(p, [&](const FieldInfo& f, const auto&) {
        hashed.push_back((f.use & kCheckpoint) &&
                         std::find(absent.begin(), absent.end(), f.name) == absent.end());
    });
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < p.owned(); ++i) {
        std::uint64_t h = 0xcbf29ce484222325ULL;
        std::size_t field = 0;
        for_each_field(p, [&](const FieldInfo&, const auto& a) {
            if (!hashed[field++]) return;
            for (std::size_t c = 0; c < kComponents<std::remove_cvref_t<decltype(a)>>; ++c) {
                const auto* bytes = reinterpret_cast<const unsigned char*>(&component(a, c)[i]);
                for (std::size_t k = 0; k < sizeof(component(a, c)[i]); ++k) {
                    h ^= bytes[k];
                    h *= 0x100000001b3ULL;
                }
            }
        });
        total += h;
    }
    return total;
}

std::vector<fs::path> list_checkpoints(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file() && is_checkpoint_name(e.path().filename().string()))
            files.push_back(e.path());
    std::sort(files.begin(), files.end(),
              [](const fs::path& a, const fs::path& b) { return step_of(a) > step_of(b); });
    return files;
}

fs::path write_checkpoint(const fs::path& dir, const ParticleSet& p, const CheckpointState& s,
                          int keep) {
    char name[64];
    std::snprintf(name, sizeof name, "%s%012lld%s", kPrefix.c_str(),
                  static_cast<long long>(s.step), kSuffix.c_str());
    const fs::path file = dir / name;
    const std::uint64_t fields = mpi::sum_wrapping(checksum(p));
    std::map<std::string, std::string> attributes = {{kCheckpointTime, exact(s.time)},
                                                     {kCheckpointDtNext, exact(s.dt_next)},
                                                     {kCheckpointWallSeconds,
                                                      exact(s.wall_seconds)}};
    if (!s.rigid_bodies.empty()) attributes[kCheckpointRigidBodies] = s.rigid_bodies;
    if (!s.energy_budget.empty()) {
        std::string text;
        // Appended piece by piece: `const char* + std::string&&` draws GCC 12's false
        // -Wrestrict (PR 105651).
        for (const double v : s.energy_budget) {
            if (!text.empty()) text += ' ';
            text += exact(v);
        }
        attributes[kCheckpointEnergyBudget] = text;
    }
    // The checksum is added to the complete file: it covers what was written (the rigid
    // bodies' state among the attributes).
    write_particle_file(file, p, s.time, s.step, attributes, kCheckpoint,
                        [&](const fs::path& tmp) {
                            add_string_attribute(tmp, kCheckpointChecksum,
                                                 checksum_text(fields, tmp));
                        });
    mpi::on_root_first([&] {
        const auto all = list_checkpoints(dir);
        for (std::size_t i = static_cast<std::size_t>(std::max(keep, 1)); i < all.size(); ++i) {
            std::error_code ec;
            fs::remove(all[i], ec);
        }
    });
    return file;
}

LoadedCheckpoint load_newest_checkpoint(const fs::path& dir) {
    LoadedCheckpoint out;
    for (const fs::path& file : list_checkpoints(dir)) {
        try {
            double time = 0.0;
            std::int64_t step = 0;
            std::vector<std::string> predated;  // fields added after the file was written
            ParticleSet p = read_snapshot(file, &time, &step, kCheckpoint, &predated);
            try {
                out.state.rigid_bodies = read_string_attribute(file, kCheckpointRigidBodies);
            } catch (const std::exception&) {  // a run without rigid bodies
            }
            verify_checksum(file, read_string_attribute(file, kCheckpointChecksum),
                            checksum(p, predated),
                            out.state.rigid_bodies);
            out.state.time = parse_exact(read_string_attribute(file, kCheckpointTime),
                                         kCheckpointTime);
            out.state.dt_next = parse_exact(read_string_attribute(file, kCheckpointDtNext),
                                            kCheckpointDtNext);
            try {
                out.state.wall_seconds = parse_exact(
                    read_string_attribute(file, kCheckpointWallSeconds), kCheckpointWallSeconds);
            } catch (const std::exception&) {  // written before the wall time was recorded
                out.state.wall_seconds = 0.0;
            }
            out.state.step = step;
            out.state.energy_budget.clear();
            std::string budget;
            try {
                budget = read_string_attribute(file, kCheckpointEnergyBudget);
            } catch (const std::exception&) {  // written before the energy budget existed
            }
            std::istringstream words(budget);
            for (std::string w; words >> w;)
                out.state.energy_budget.push_back(parse_exact(w, kCheckpointEnergyBudget));
            out.particles = std::move(p);
            out.file = file;
            return out;
        } catch (const std::exception& e) {
            out.rejected.push_back(file.string() + ": " + e.what());
        }
    }
    std::string msg = "no usable checkpoint in '" + dir.string() + "'";
    for (const auto& r : out.rejected) msg += "\n  rejected " + r;
    // Snapshots are not checkpoints (they hold neither the exact doubles nor the integrator's
    // state), so a run killed before its first checkpoint cannot be continued exactly.
    msg += "\n  hint: a run checkpoints every checkpoint_interval wall seconds (10 minutes by "
           "default), on SIGTERM/SIGINT and at its end; this one stopped before any of these. "
           "Run it again with overwrite=True, or start a new run from one of its snapshots "
           "with Simulation.restart(run_dir, snapshot=...)";
    throw std::runtime_error(msg);
}

}  // namespace regosph::io
