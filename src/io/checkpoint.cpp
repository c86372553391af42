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

// Doubles as one attribute: their exact forms separated by spaces.
std::string exact_list(const std::vector<double>& values) {
    std::string text;
    for (const double v : values) {
        if (!text.empty()) text += ' ';
        text += exact(v);
    }
    return text;
}

std::vector<double> parse_exact_list(const std::string& text, const std::string& what) {
    std::vector<double> values;
    std::istringstream in(text);
    for (std::string word; in >> word;) values.push_back(parse_exact(word, what));
    return values;
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

// A string attribute of the file, "" when it has none.
std::string optional_attribute(const fs::path& file, const std::string& name) {
    try {
        return read_string_attribute(file, name);
    } catch (const std::exception&) {
        return "";
    }
}

// FNV-1a of a text (0 for ""), added to the particles' checksum.
std::uint64_t text_hash(const std::string& s) {
    if (s.empty()) return 0;
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

}  // namespace

std::uint64_t checksum(const ParticleSet& p) {
    // Sum (modulo 2^64) of one FNV-1a hash per particle over the bytes of its checkpointed
    // fields (in table order): the same for any order of the particles and any split over ranks.
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < p.owned(); ++i) {
        std::uint64_t h = 0xcbf29ce484222325ULL;
        for_each_field(p, [&](const FieldInfo& f, const auto& a) {
            if (!(f.use & kCheckpoint)) return;
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
    const std::string work = exact_list(s.work);
    std::map<std::string, std::string> attributes = {
        {"checkpoint_time", exact(s.time)},
        {"checkpoint_dt_next", exact(s.dt_next)},
        {"checkpoint_checksum", std::to_string(mpi::sum_wrapping(checksum(p)) +
                                               text_hash(s.rigid_bodies) + text_hash(work))}};
    if (!s.rigid_bodies.empty()) attributes["rigid_bodies"] = s.rigid_bodies;
    if (!work.empty()) attributes["checkpoint_work"] = work;
    write_particle_file(file, p, s.time, s.step, attributes, kCheckpoint);
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
            ParticleSet p = read_snapshot(file, &time, &step, kCheckpoint);
            const std::string rigid = optional_attribute(file, "rigid_bodies");
            // Absent from checkpoints written before the work was recorded.
            const std::string work = optional_attribute(file, "checkpoint_work");
            const std::string stored = read_string_attribute(file, "checkpoint_checksum");
            if (stored != std::to_string(checksum(p) + text_hash(rigid) + text_hash(work)))
                throw std::runtime_error("checksum mismatch (corrupt file)");
            out.state.rigid_bodies = rigid;
            out.state.work = parse_exact_list(work, "checkpoint_work");
            out.state.time = parse_exact(read_string_attribute(file, "checkpoint_time"),
                                         "checkpoint_time");
            out.state.dt_next = parse_exact(read_string_attribute(file, "checkpoint_dt_next"),
                                            "checkpoint_dt_next");
            out.state.step = step;
            out.particles = std::move(p);
            out.file = file;
            return out;
        } catch (const std::exception& e) {
            out.rejected.push_back(file.string() + ": " + e.what());
        }
    }
    std::string msg = "no usable checkpoint in '" + dir.string() + "'";
    for (const auto& r : out.rejected) msg += "\n  rejected " + r;
    throw std::runtime_error(msg);
}

}  // namespace regosph::io
