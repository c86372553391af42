// Particle snapshots: one HDF5 file per output time plus an XDMF index (series.xdmf) that
// ParaView opens as a time series. The layout of a file is documented in write() below; the
// Python side reads the same files with h5py.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/particles.hpp"

namespace regosph::io {

class SnapshotWriter {
public:
    // Creates `output_dir` if missing and checks that a file can be created in it; throws
    // std::runtime_error naming the directory otherwise. Numbering continues after the highest
    // snapshot_NNNNNN.h5 already present, so a restarted run does not overwrite earlier output.
    explicit SnapshotWriter(std::filesystem::path output_dir);

    // Writes snapshot_NNNNNN.h5 atomically (temporary file + rename), then rewrites
    // series.xdmf. Returns the path of the new file. Throws std::runtime_error naming the file
    // on any HDF5 or file-system error; no partial snapshot is left behind.
    //
    // Root attributes: time [s] (double), step (int64), dim (int), units, regosph_version, and
    // every entry of `string_attributes`. Group /particles: one dataset per field of the table
    // in core/fields.hpp marked kSnapshot, named after it: (N) for a scalar, (N, 3) for a
    // vector, (N, 6) for a symmetric tensor (attribute components = "xx yy zz xy xz yz"). Every
    // dataset carries `units` and `description`.
    std::filesystem::path write(const ParticleSet& p, double time_s, std::int64_t step,
                                const std::map<std::string, std::string>& string_attributes = {});

    const std::filesystem::path& directory() const { return dir_; }

    // Number of snapshots written by this writer (pre-existing files are not counted).
    std::size_t count() const { return written_; }

private:
    // What series.xdmf needs to know about one snapshot.
    struct Entry {
        std::size_t index;
        double time_s;
        std::size_t n_particles;
        std::vector<std::string> history;  // its history variables' datasets
    };

    void write_xdmf() const;

    std::filesystem::path dir_;
    std::size_t next_index_ = 0;
    std::size_t written_ = 0;
    std::vector<Entry> entries_;  // sorted by index, pre-existing snapshots included
};

// One particle file in the snapshot layout, written atomically (temporary name, flush, rename),
// without touching series.xdmf: checkpoints use it. Throws std::runtime_error naming the file.
// `use` selects the fields (kSnapshot or kCheckpoint, core/fields.hpp). `finalize`, when
// given, runs on rank 0 on the complete temporary file, before the rename (checkpoints add
// their checksum there).
void write_particle_file(const std::filesystem::path& path, const ParticleSet& p, double time_s,
                         std::int64_t step,
                         const std::map<std::string, std::string>& string_attributes = {},
                         unsigned use = kSnapshot,
                         const std::function<void(const std::filesystem::path&)>& finalize = {});

// Root attributes every particle file carries; string attributes must not take these names.
inline const std::vector<std::string> kParticleFileAttributes = {"time", "step", "dim", "units",
                                                                 "regosph_version"};

// Hash (64-bit FNV-1a) of everything in an HDF5 file but the datasets' values: every group and
// dataset path, each dataset's shape and element type, and every attribute's name and value,
// in name order; the root attribute `skip_root_attribute` left out. Throws std::runtime_error
// naming the file.
std::uint64_t hash_file_structure(const std::filesystem::path& file,
                                  const std::string& skip_root_attribute);

// Adds a string attribute to the root of an existing file. Throws std::runtime_error naming
// the file.
void add_string_attribute(const std::filesystem::path& file, const std::string& name,
                          const std::string& value);

// A time series as HDF5, written atomically: one float64 dataset per column, named after the
// column without its unit, with a dot opening a group ("tray.count [-]" -> /tray/count), and
// the unit in the dataset's attribute "units". Throws std::runtime_error naming the file.
void write_time_series_file(const std::filesystem::path& path,
                            const std::vector<std::string>& columns_with_units,
                            const std::vector<std::vector<double>>& rows,
                            const std::map<std::string, std::string>& string_attributes = {});

// A string attribute of the file's root. Throws std::runtime_error naming file and attribute.
std::string read_string_attribute(const std::filesystem::path& file, const std::string& name);

// File name of snapshot number `index`: "snapshot_000042.h5".
std::string snapshot_file_name(std::size_t index);

// Reads a file written by SnapshotWriter (use = kSnapshot) or a checkpoint (kCheckpoint): the
// fields marked `use`; the others start at zero. `time_s` and `step`, when given, receive the
// root attributes. A field the file predates (FieldInfo::stand_in) is read from its stand-in's
// dataset, and its name appended to `stood_in` when given. Throws std::runtime_error naming the
// file (and dataset, when one is at fault).
ParticleSet read_snapshot(const std::filesystem::path& file, double* time_s = nullptr,
                          std::int64_t* step = nullptr, unsigned use = kSnapshot,
                          std::vector<std::string>* stood_in = nullptr);

}  // namespace regosph::io
