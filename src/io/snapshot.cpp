#include "io/snapshot.hpp"

#include "io/json.hpp"
#include "io/run_directory.hpp"
#include "parallel/mpi_env.hpp"
#include "parallel/redistribute.hpp"

#include <hdf5.h>
#include <mpi.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iomanip>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <type_traits>
#include <utility>

#include <regosph/version.hpp>

namespace regosph::io {
namespace fs = std::filesystem;

namespace {

// ---- HDF5 plumbing -------------------------------------------------------------------------

// The most specific message on HDF5's error stack, so that exceptions say why, not only where.
std::string hdf5_error_detail() {
    std::string detail;
    auto innermost = [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
        if (n == 0 && e->desc) *static_cast<std::string*>(out) = e->desc;
        return 0;
    };
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, &detail);
    // A failed write's text spans lines of file names, offsets and sizes; keep the operating
    // system's reason ("file write failed: No space left on device").
    const std::string key = "error message = '";
    if (const auto at = detail.find(key); at != std::string::npos) {
        const auto end = detail.find('\'', at + key.size());
        detail = detail.substr(0, std::min(detail.find(':'), detail.find(','))) + ": " +
                 detail.substr(at + key.size(), end - at - key.size());
    }
    return detail;
}

// Every HDF5 call goes through this: HDF5 reports failure as a negative id or status.
template <class T>
T h5_try(T result, const std::string& what) {
    if (result >= 0) return result;
    const std::string detail = hdf5_error_detail();
    throw std::runtime_error(what + " failed" + (detail.empty() ? "" : ": " + detail));
}

// Owns one HDF5 identifier. close() reports failure; the destructor, which runs while
// unwinding after an error, cannot.
class Handle {
public:
    Handle(hid_t id, herr_t (*closer)(hid_t)) : id_(id), closer_(closer) {}
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() {
        if (id_ >= 0) closer_(id_);
    }
    operator hid_t() const { return id_; }
    void close(const std::string& what) {
        const hid_t id = std::exchange(id_, -1);
        h5_try(closer_(id), what);
    }

private:
    hid_t id_;
    herr_t (*closer_)(hid_t);
};

// Errors become exceptions, so HDF5's own printing to stderr would only be noise. The
// caller's setting comes back afterwards: code outside this module is unaffected.
class QuietHdf5Errors {
public:
    QuietHdf5Errors() {
        H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~QuietHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
    QuietHdf5Errors(const QuietHdf5Errors&) = delete;
    QuietHdf5Errors& operator=(const QuietHdf5Errors&) = delete;

private:
    H5E_auto2_t func_ = nullptr;
    void* data_ = nullptr;
};

// {memory type, file type} of an element type; files are little-endian whatever the host.
template <class T>
std::pair<hid_t, hid_t> h5_types() {
    if constexpr (std::is_same_v<T, double>) return {H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE};
    if constexpr (std::is_same_v<T, std::int32_t>) return {H5T_NATIVE_INT32, H5T_STD_I32LE};
    if constexpr (std::is_same_v<T, std::int64_t>) return {H5T_NATIVE_INT64, H5T_STD_I64LE};
    if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, ParticleKind>)
        return {H5T_NATIVE_UINT8, H5T_STD_U8LE};
}

void write_attribute(hid_t obj, const std::string& name, hid_t file_type, hid_t mem_type,
                     const void* value) {
    Handle space(h5_try(H5Screate(H5S_SCALAR), "H5Screate"), H5Sclose);
    Handle attr(h5_try(H5Acreate2(obj, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT),
                       "creating attribute '" + name + "'"),
                H5Aclose);
    h5_try(H5Awrite(attr, mem_type, value), "writing attribute '" + name + "'");
}

template <class T>
void write_scalar_attribute(hid_t obj, const std::string& name, T value) {
    write_attribute(obj, name, h5_types<T>().second, h5_types<T>().first, &value);
}

// Variable-length UTF-8 strings: h5py returns them as str, not bytes.
void write_string_attribute(hid_t obj, const std::string& name, const std::string& value) {
    Handle type(h5_try(H5Tcopy(H5T_C_S1), "H5Tcopy"), H5Tclose);
    h5_try(H5Tset_size(type, H5T_VARIABLE), "H5Tset_size");
    h5_try(H5Tset_cset(type, H5T_CSET_UTF8), "H5Tset_cset");
    const char* text = value.c_str();
    write_attribute(obj, name, type, type, &text);
}

template <class T>
T read_scalar_attribute(hid_t obj, const std::string& name) {
    Handle attr(h5_try(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "opening attribute '" + name + "'"),
                H5Aclose);
    Handle space(h5_try(H5Aget_space(attr), "H5Aget_space"), H5Sclose);
    if (H5Sget_simple_extent_npoints(space) != 1)
        throw std::runtime_error("attribute '" + name + "' is not a scalar");
    T value{};
    h5_try(H5Aread(attr, h5_types<T>().first, &value), "reading attribute '" + name + "'");
    return value;
}

// ---- the particle datasets -----------------------------------------------------------------

struct DatasetInfo {
    const char* name;
    const char* units;
    const char* description;
    const char* extra_name = nullptr;  // one optional extra string attribute
    const char* extra_value = nullptr;
};

// Where this process's rows of a dataset go. Serial files: all rows, one writer. Parallel
// snapshots: every rank writes its id slice [first, first + rows) of `total` rows, collectively;
// `most` is the largest slice of any rank (every rank takes part in as many chunk writes).
struct RowSlice {
    bool collective = false;
    std::size_t first = 0;
    std::size_t total = 0;
    std::size_t most = 0;
};

// Rows per write: a dataset is written in chunks from a small buffer, so that writing a
// snapshot needs no copy of the particle arrays (what decides the peak memory of large runs).
constexpr std::size_t kRowsPerWrite = 1 << 16;

// The one place where datasets are created and written. Shape (rows) when cols == 1, else
// (rows, cols), row-major; fill(first_row, count, out) writes count rows into out.
template <class T, class Fill>
void write_dataset(hid_t group, const DatasetInfo& info, std::size_t rows, std::size_t cols,
                   const RowSlice& slice, Fill&& fill) {
    const hsize_t total = slice.collective ? slice.total : rows;
    const int rank = cols == 1 ? 1 : 2;
    const hsize_t dims[2] = {total, cols};
    const std::string what = std::string("dataset '/particles/") + info.name + "'";
    Handle space(h5_try(H5Screate_simple(rank, dims, nullptr), "H5Screate_simple"), H5Sclose);
    Handle dset(h5_try(H5Dcreate2(group, info.name, h5_types<T>().second, space, H5P_DEFAULT,
                                  H5P_DEFAULT, H5P_DEFAULT),
                       "creating " + what),
                H5Dclose);
    Handle xfer(h5_try(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate"), H5Pclose);
    if (slice.collective)
        h5_try(H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
    // Collective: every rank takes part in every chunk write, with an empty selection once
    // its own rows are written.
    const std::size_t most = slice.collective ? slice.most : rows;
    const std::size_t chunks = (most + kRowsPerWrite - 1) / kRowsPerWrite;
    std::vector<T> buffer(std::min(rows, kRowsPerWrite) * cols + 1);
    for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t start = c * kRowsPerWrite;
        const std::size_t count = start < rows ? std::min(kRowsPerWrite, rows - start) : 0;
        if (count > 0) fill(start, count, buffer.data());
        const hsize_t offset[2] = {slice.first + start, 0};
        const hsize_t extent[2] = {count, cols};
        const hsize_t one[2] = {1, cols};
        Handle file_space(h5_try(H5Dget_space(dset), "H5Dget_space"), H5Sclose);
        Handle mem_space(h5_try(H5Screate_simple(rank, count > 0 ? extent : one, nullptr),
                                "H5Screate_simple"),
                         H5Sclose);
        if (count > 0) {
            h5_try(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, offset, nullptr, extent, nullptr),
                   "selecting rows of " + what);
        } else {
            h5_try(H5Sselect_none(file_space), "H5Sselect_none");
            h5_try(H5Sselect_none(mem_space), "H5Sselect_none");
        }
        h5_try(H5Dwrite(dset, h5_types<T>().first, mem_space, file_space, xfer, buffer.data()),
               "writing " + what);
    }
    write_string_attribute(dset, "units", info.units);
    write_string_attribute(dset, "description", info.description);
    if (info.extra_name) write_string_attribute(dset, info.extra_name, info.extra_value);
    dset.close("closing " + what);
}

// A dataset of one column from a vector.
template <class T>
void write_column(hid_t group, const DatasetInfo& info, const std::vector<T>& data,
                  std::size_t rows, const RowSlice& slice = {}) {
    write_dataset<T>(group, info, rows, 1, slice, [&](std::size_t first, std::size_t n, T* out) {
        std::copy(data.begin() + static_cast<std::ptrdiff_t>(first),
                  data.begin() + static_cast<std::ptrdiff_t>(first + n), out);
    });
}

// Shape of /particles/<name> as a list of extents.
std::vector<hsize_t> dataset_shape(hid_t dset) {
    Handle space(h5_try(H5Dget_space(dset), "H5Dget_space"), H5Sclose);
    const int rank = h5_try(H5Sget_simple_extent_ndims(space), "H5Sget_simple_extent_ndims");
    std::vector<hsize_t> dims(rank);
    h5_try(H5Sget_simple_extent_dims(space, dims.data(), nullptr), "H5Sget_simple_extent_dims");
    return dims;
}

Handle open_dataset(hid_t group, const std::string& name) {
    return Handle(h5_try(H5Dopen2(group, name.c_str(), H5P_DEFAULT),
                         "opening dataset '/particles/" + name + "'"),
                  H5Dclose);
}

// Reads /particles/<name>, which must have the shape write_dataset gives it.
template <class T>
std::vector<T> read_dataset(hid_t group, const std::string& name, std::size_t rows,
                            std::size_t cols) {
    Handle dset = open_dataset(group, name);
    const std::vector<hsize_t> expected =
        cols == 1 ? std::vector<hsize_t>{rows} : std::vector<hsize_t>{rows, cols};
    if (dataset_shape(dset) != expected)
        throw std::runtime_error("dataset '/particles/" + name +
                                 "' has the wrong shape (expected " + std::to_string(rows) + " x " +
                                 std::to_string(cols) + ")");
    std::vector<T> data(rows * cols);
    if (rows > 0)
        h5_try(H5Dread(dset, h5_types<T>().first, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
               "reading dataset '/particles/" + name + "'");
    return data;
}

// The particle count of a snapshot is the length of the position field, which every particle
// file holds (the XDMF geometry).
constexpr const char* kPositionField = "position";
std::size_t particle_count(hid_t group) {
    const std::vector<hsize_t> shape = dataset_shape(open_dataset(group, kPositionField));
    if (shape.empty())
        throw std::runtime_error(std::string("dataset '/particles/") + kPositionField + "' is a scalar");
    return shape[0];
}

// The dataset of field f in a file: its name; in a file written before the field was renamed,
// its former name; in one written before the field existed, its stand-in's name.
std::string stored_name(hid_t group, const FieldInfo& f) {
    if (H5Lexists(group, f.name, H5P_DEFAULT) > 0) return f.name;
    for (const char* other : {f.former_name, f.stand_in})
        if (other && H5Lexists(group, other, H5P_DEFAULT) > 0) return other;
    return f.name;
}

// A ParticleSet with arrays of different lengths would make the writer read out of bounds.
void check_consistent(const ParticleSet& p) {
    bool ok = true;
    for_each_field(p, [&](const FieldInfo&, const auto& a) {
        for (std::size_t k = 0; k < kComponents<std::remove_cvref_t<decltype(a)>>; ++k)
            ok = ok && component(a, k).size() == p.size();
    });
    if (!ok) throw std::runtime_error("the particle arrays have different lengths");
}

// The root attribute `units`. A 2D run is plane strain: its masses (and everything summed
// from them) are per metre of depth.
std::string units_description(int dim) {
    return dim == 2 ? "SI (m, s, kg, Pa); plane strain: mass per metre of depth (kg/m)"
                    : "SI (m, s, kg, Pa)";
}

// After a failed write (a full disk), HDF5 still holds unwritten data for the file; closing it
// writes them, and if that fails too, HDF5 keeps a broken file open and crashes when the
// process exits. Emptying the (temporary) file first frees its space for that last write.
void release_space(const fs::path& path) {
    std::error_code ignored;
    fs::resize_file(path, 0, ignored);
}

// Refuses a write that cannot fit before it starts, for the same reason: bytes [B] needed.
void check_free_space(const fs::path& file, std::uintmax_t bytes) {
    struct statvfs v {};
    if (::statvfs(file.parent_path().empty() ? "." : file.parent_path().c_str(), &v) != 0) return;
    // root may use the blocks reserved for it
    const std::uintmax_t blocks = ::geteuid() == 0 ? v.f_bfree : v.f_bavail;
    const std::uintmax_t free_bytes = blocks * v.f_frsize;
    if (free_bytes >= bytes) return;
    std::ostringstream os;
    os << "No space left on device: the file needs about " << (bytes + 1023) / 1024 << " KiB, "
       << free_bytes / 1024 << " KiB are free";
    throw std::runtime_error(os.str());
}

// Bytes a particle file of n particles takes: the fields marked `use`, and room for the
// metadata.
std::uintmax_t particle_file_bytes(const ParticleSet& p, std::uintmax_t n, unsigned use) {
    std::uintmax_t per_particle = 0;
    for_each_field(p, [&](const FieldInfo& f, const auto& a) {
        using A = std::remove_cvref_t<decltype(a)>;
        if (f.use & use) per_particle += kComponents<A> * sizeof(FieldElement<A>);
    });
    return n * per_particle + (64u << 10);
}

// The dataset attributes of a field: a symmetric tensor also names its components.
DatasetInfo dataset_info(const FieldInfo& f, std::size_t components, int dim) {
    static const std::string tensor_components = [] {
        std::string names;
        for (const char* c : kSymComponentNames) names += (names.empty() ? "" : " ") + std::string(c);
        return names;
    }();
    if (components == kSymComponents)
        return {f.name, f.units, f.description, "components", tensor_components.c_str()};
    return {f.name, f.units_in(dim), f.description, f.extra_attribute, f.extra_value};
}

// The fields marked `use` (kSnapshot or kCheckpoint) of the first n particles of p (the owned
// ones: a halo may follow), one dataset each: (N) for a scalar, (N, k) for k components.
void write_particles(hid_t g, const ParticleSet& p, std::size_t n, const RowSlice& s, unsigned use) {
    for_each_field(p, [&](const FieldInfo& f, const auto& a) {
        if (!(f.use & use)) return;
        using A = std::remove_cvref_t<decltype(a)>;
        using T = FieldElement<A>;
        constexpr std::size_t K = kComponents<A>;
        write_dataset<T>(g, dataset_info(f, K, p.dim), n, K, s, [&](std::size_t first, std::size_t count, T* out) {
            for (std::size_t i = 0; i < count; ++i)
                for (std::size_t k = 0; k < K; ++k) out[i * K + k] = component(a, k)[first + i];
        });
    });
}

// The particles in id order, whatever the number of ranks: each rank writes its id slice of
// the owned particles (parallel::id_slice) into one file, collectively through MPI-IO.
void write_file(const fs::path& path, const ParticleSet& owned, double time_s, std::int64_t step,
                const std::map<std::string, std::string>& string_attributes, unsigned use) {
    RowSlice slice;
    slice.collective = mpi::size() > 1;
    // A single process whose particles are in id order (as Simulation keeps them on one rank)
    // writes them as they are; otherwise a copy in id slices.
    const std::size_t n_owned = owned.owned();
    ParticleSet sorted;
    const ParticleSet* rows = &owned;
    if (slice.collective ||
        !std::is_sorted(owned.id.begin(), owned.id.begin() + static_cast<std::ptrdiff_t>(n_owned))) {
        sorted = parallel::id_slice(owned, slice.first, slice.total);
        rows = &sorted;
    }
    const ParticleSet& p = *rows;
    const std::size_t n = rows == &owned ? n_owned : p.size();
    slice.most = slice.collective ? static_cast<std::size_t>(mpi::max(static_cast<std::int64_t>(n))) : n;
    Handle access(h5_try(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"), H5Pclose);
    if (slice.collective)
        h5_try(H5Pset_fapl_mpio(access, MPI_COMM_WORLD, MPI_INFO_NULL), "H5Pset_fapl_mpio");
    Handle file(h5_try(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access),
                       "creating the file"),
                H5Fclose);
    try {
        write_scalar_attribute(file, "time", time_s);
        write_scalar_attribute(file, "step", step);
        write_scalar_attribute(file, "dim", std::int32_t{p.dim});
        write_string_attribute(file, "units", units_description(p.dim));
        write_string_attribute(file, "regosph_version",
                               std::string(kVersion) + " (" + kGitDescribe + ")");
        for (const auto& [name, value] : string_attributes)
            write_string_attribute(file, name, value);
        {
            Handle group(h5_try(H5Gcreate2(file, "particles", H5P_DEFAULT, H5P_DEFAULT,
                                           H5P_DEFAULT),
                                "creating group '/particles'"),
                         H5Gclose);
            write_particles(group, p, n, slice, use);
            group.close("closing group '/particles'");
        }
        h5_try(H5Fflush(file, H5F_SCOPE_GLOBAL), "flushing the file");
    } catch (...) {
        release_space(path);
        throw;
    }
    file.close("closing the file");  // flushed and every object in it closed: nothing to write
}

// The columns of a time series as datasets of `file` (write_time_series_file).
void write_series(hid_t file, const std::vector<std::string>& columns,
                  const std::vector<std::vector<double>>& rows,
                  const std::map<std::string, std::string>& string_attributes) {
    write_string_attribute(file, "regosph_version",
                           std::string(kVersion) + " (" + kGitDescribe + ")");
    for (const auto& [name, value] : string_attributes) write_string_attribute(file, name, value);
    for (std::size_t c = 0; c < columns.size(); ++c) {
        // "tray.count [-]" -> path "tray/count", units "-"
        std::string name = columns[c], units;
        if (const auto open = name.rfind(" ["); open != std::string::npos && name.ends_with("]")) {
            units = name.substr(open + 2, name.size() - open - 3);
            name = name.substr(0, open);
        }
        std::string group_name, leaf = name;
        if (const auto dot = name.find('.'); dot != std::string::npos) {
            group_name = name.substr(0, dot);
            leaf = name.substr(dot + 1);
        }
        hid_t parent = file;
        std::optional<Handle> group;
        if (!group_name.empty()) {
            const htri_t exists = H5Lexists(file, group_name.c_str(), H5P_DEFAULT);
            group.emplace(h5_try(exists > 0 ? H5Gopen2(file, group_name.c_str(), H5P_DEFAULT)
                                            : H5Gcreate2(file, group_name.c_str(), H5P_DEFAULT,
                                                         H5P_DEFAULT, H5P_DEFAULT),
                                 "creating group '/" + group_name + "'"),
                          H5Gclose);
            parent = *group;
        }
        std::vector<double> data(rows.size());
        for (std::size_t r = 0; r < rows.size(); ++r) data[r] = rows[r].at(c);
        const DatasetInfo info{leaf.c_str(), units.c_str(), columns[c].c_str()};
        write_column(parent, info, data, rows.size());
    }
}

// ---- files and directories -----------------------------------------------------------------

// Index of "snapshot_<digits>.h5", or nothing for any other name (including *.h5.tmp).
// (No std::regex: GCC 12 warns inside it under the sanitizers.)
std::optional<std::size_t> parse_snapshot_index(const std::string& name) {
    const std::string prefix = "snapshot_", suffix = ".h5";
    if (!name.starts_with(prefix) || !name.ends_with(suffix)) return std::nullopt;
    const std::string digits =
        name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
    if (digits.empty() || digits.size() > 18 ||
        !std::all_of(digits.begin(), digits.end(), is_digit))
        return std::nullopt;
    return std::stoull(digits);
}

// An XDMF DataItem pointing into a snapshot ("snapshot_000001.h5:/particles/mass").
std::string data_item(const std::string& source, std::size_t n, std::size_t cols,
                      const char* number_type, int precision) {
    std::ostringstream s;
    s << "<DataItem Dimensions=\"" << n << (cols > 1 ? " " + std::to_string(cols) : "")
      << "\" NumberType=\"" << number_type << "\" Precision=\"" << precision << "\" Format=\"HDF\">"
      << source << "</DataItem>";
    return s.str();
}

void xdmf_attribute(std::ostream& x, const std::string& name, const char* type,
                    const std::string& item) {
    x << "    <Attribute Name=\"" << name << "\" AttributeType=\"" << type
      << "\" Center=\"Node\">\n     " << item << "\n    </Attribute>\n";
}

// XDMF NumberType and Precision [bytes] of a field's element type.
template <class T>
std::pair<const char*, int> xdmf_number_type() {
    if constexpr (std::is_floating_point_v<T>) return {"Float", static_cast<int>(sizeof(T))};
    if constexpr (sizeof(T) == 1) return {"UChar", 1};
    return {"Int", static_cast<int>(sizeof(T))};
}

void add_history_columns(hid_t group, HistoryColumns& history);  // defined below

// One snapshot as an XDMF grid: the position field is the geometry; every other snapshot field
// is an attribute, vectors first, then scalars (the history variables last), then each tensor
// component (see below).
void xdmf_grid(std::ostream& x, std::size_t index, double time_s, std::size_t n,
               const std::vector<std::string>& history) {
    const std::string file = snapshot_file_name(index);
    const std::string src = file + ":/particles/";  // relative: the series can be moved
    // One vertex cell per particle. The connectivity is the id dataset: the files hold the
    // particles in id order and the ids are 0..N-1 (write_file, parallel::id_slice), so each
    // particle's id is its row. XDMF 3 readers (ParaView's Xdmf3 readers, meshio) need it.
    x << "   <Grid Name=\"" << file.substr(0, file.size() - 3) << "\" GridType=\"Uniform\">\n"
      << "    <Time Value=\"" << time_s << "\"/>\n"
      << "    <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << n
      << "\" NodesPerElement=\"1\">\n     " << data_item(src + "id", n, 1, "Int", 8)
      << "\n    </Topology>\n"
      << "    <Geometry GeometryType=\"XYZ\">\n     "
      << data_item(src + kPositionField, n, 3, "Float", 8) << "\n    </Geometry>\n";
    // The positions once more as an attribute: meshio's time-series reader takes the geometry
    // of the first snapshot only.
    xdmf_attribute(x, kPositionField, "Vector", data_item(src + kPositionField, n, 3, "Float", 8));
    for (const std::size_t pass : {std::size_t{3}, std::size_t{1}, std::size_t{kSymComponents}}) {
        for_each_field_entry([&](const auto& field) {
            using A = std::remove_cvref_t<decltype(std::declval<ParticleSet&>().*(field.member))>;
            constexpr std::size_t K = kComponents<A>;
            const FieldInfo& f = field.info;
            if (K != pass || !(f.use & kSnapshot) || std::string(f.name) == kPositionField) return;
            const auto [type, precision] = xdmf_number_type<FieldElement<A>>();
            if (K == 3) xdmf_attribute(x, f.name, "Vector", data_item(src + f.name, n, 3, type, precision));
            if (K == 1) xdmf_attribute(x, f.name, "Scalar", data_item(src + f.name, n, 1, type, precision));
            // XDMF's Tensor6 means xx yy zz xy yz xz, not our order, and the XDMF 3 readers
            // take no hyperslabs: a six-component Matrix in the files' order (the comment at
            // the top of series.xdmf; scripts/paraview_views.py names the components).
            if (K == kSymComponents)
                xdmf_attribute(x, f.name, "Matrix",
                               data_item(src + f.name, n, kSymComponents, type, precision));
        });
        if (pass == 1)
            for (const std::string& name : history)
                xdmf_attribute(x, name, "Scalar", data_item(src + name, n, 1, "Float", 8));
    }
    x << "   </Grid>\n";
}

}  // namespace

std::string snapshot_file_name(std::size_t index) {
    char name[64];
    std::snprintf(name, sizeof name, "snapshot_%06zu.h5", index);
    return name;
}

SnapshotWriter::SnapshotWriter(fs::path output_dir) : dir_(std::move(output_dir)) {
    mpi::on_root_first([this] { ensure_writable_directory(dir_); });
    QuietHdf5Errors quiet;
    for (const auto& entry : fs::directory_iterator(dir_)) {
        const auto index = parse_snapshot_index(entry.path().filename().string());
        if (!index) continue;
        next_index_ = std::max(next_index_, *index + 1);
        // A file we cannot read (not ours, or damaged) stays out of the XDMF index but still
        // counts for the numbering, so that it is never overwritten.
        try {
            Handle f(h5_try(H5Fopen(entry.path().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open"),
                     H5Fclose);
            Handle g(h5_try(H5Gopen2(f, "particles", H5P_DEFAULT), "open"), H5Gclose);
            HistoryColumns history;
            add_history_columns(g, history);
            entries_.push_back({*index, read_scalar_attribute<double>(f, "time"),
                                particle_count(g), history.names()});
        } catch (const std::exception&) {
        }
    }
    std::sort(entries_.begin(), entries_.end(),
              [](const Entry& a, const Entry& b) { return a.index < b.index; });
}

fs::path SnapshotWriter::write(const ParticleSet& p, double time_s, std::int64_t step,
                               const std::map<std::string, std::string>& string_attributes) {
    const fs::path final_path = dir_ / snapshot_file_name(next_index_);
    write_particle_file(final_path, p, time_s, step, string_attributes, kSnapshot);
    const auto total = static_cast<std::size_t>(mpi::sum(static_cast<std::int64_t>(p.owned())));
    entries_.push_back({next_index_, time_s, total, p.history.names()});
    ++next_index_;
    ++written_;
    mpi::on_root_first([this] { write_xdmf(); });
    return final_path;
}

void write_particle_file(const fs::path& final_path, const ParticleSet& p, double time_s,
                         std::int64_t step,
                         const std::map<std::string, std::string>& string_attributes,
                         unsigned use, const std::function<void(const fs::path&)>& finalize) {
    fs::path tmp = final_path;
    tmp += ".tmp";
    const auto total = static_cast<std::uintmax_t>(mpi::sum(static_cast<std::int64_t>(p.owned())));
    std::string error;
    try {
        QuietHdf5Errors quiet;
        check_consistent(p);
        if (mpi::rank() == 0) check_free_space(tmp, particle_file_bytes(p, total, use));
    } catch (const std::exception& e) {
        error = e.what();
    }
    // Every rank knows before any of them creates the file.
    error = mpi::first_error(error);
    if (error.empty()) {
        try {
            QuietHdf5Errors quiet;
            write_file(tmp, p, time_s, step, string_attributes, use);  // closed when it returns
        } catch (const std::exception& e) {
            error = e.what();
        }
        // Collective: every rank learns of a failure on any rank.
        error = mpi::first_error(error);
    }
    if (error.empty()) {
        try {
            mpi::on_root_first([&] {  // rank 0 completes and renames
                if (finalize) {
                    QuietHdf5Errors quiet;
                    finalize(tmp);
                }
                fs::rename(tmp, final_path);
            });
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    if (!error.empty()) {
        std::error_code ignored;
        if (mpi::rank() == 0) fs::remove(tmp, ignored);
        throw std::runtime_error("cannot write '" + final_path.string() + "': " + error);
    }
}

void write_time_series_file(const fs::path& final_path, const std::vector<std::string>& columns,
                            const std::vector<std::vector<double>>& rows,
                            const std::map<std::string, std::string>& string_attributes) {
    fs::path tmp = final_path;
    tmp += ".tmp";
    try {
        QuietHdf5Errors quiet;
        check_free_space(tmp, rows.size() * columns.size() * sizeof(double) + (64u << 10));
        Handle file(h5_try(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                           "creating the file"),
                    H5Fclose);
        try {
            write_series(file, columns, rows, string_attributes);
            h5_try(H5Fflush(file, H5F_SCOPE_GLOBAL), "flushing the file");
        } catch (...) {
            release_space(tmp);
            throw;
        }
        file.close("closing the file");
        fs::rename(tmp, final_path);
    } catch (const std::exception& e) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw std::runtime_error("cannot write '" + final_path.string() + "': " + e.what());
    }
}

namespace {
// The variable-length string attribute `name` of an HDF5 object.
std::string string_attribute(hid_t obj, const std::string& name) {
    Handle attr(h5_try(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "opening attribute '" + name + "'"),
                H5Aclose);
    Handle type(h5_try(H5Aget_type(attr), "H5Aget_type"), H5Tclose);
    if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) <= 0)
        throw std::runtime_error("attribute '" + name + "' is not a variable-length string");
    char* text = nullptr;
    h5_try(H5Aread(attr, type, &text), "reading attribute '" + name + "'");
    std::string value = text ? text : "";
    Handle space(h5_try(H5Aget_space(attr), "H5Aget_space"), H5Sclose);
    H5Dvlen_reclaim(type, space, H5P_DEFAULT, &text);
    return value;
}
}  // namespace

std::string read_string_attribute(const fs::path& file, const std::string& name) {
    try {
        QuietHdf5Errors quiet;
        Handle f(h5_try(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "opening the file"),
                 H5Fclose);
        return string_attribute(f, name);
    } catch (const std::exception& e) {
        throw std::runtime_error("'" + file.string() + "': " + e.what());
    }
}

void SnapshotWriter::write_xdmf() const {
    std::ostringstream x;
    x.imbue(std::locale::classic());
    x << std::setprecision(17);
    // XDMF 3: ParaView 5.11's default reader (Xdmf3ReaderS), its legacy XDMF Reader and meshio
    // read it (tests/python/test_formats.py).
    x << "<?xml version=\"1.0\" ?>\n"
      << "<!-- regosph particle snapshots, one vertex cell per particle. stress: six components\n"
      << "     in the order xx yy zz xy xz yz [Pa] (not XDMF's Tensor6 order); body and\n"
      << "     material index the names in run.json and in each snapshot's attributes\n"
      << "     body_names and material_names. scripts/paraview_views.py draws the usual\n"
      << "     views. -->\n"
      << "<Xdmf Version=\"3.0\">\n <Domain>\n"
      << "  <Grid Name=\"particles\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
    // Empty snapshots stay out: the XDMF Reader fails on zero-sized datasets.
    for (const Entry& e : entries_)
        if (e.n_particles > 0) xdmf_grid(x, e.index, e.time_s, e.n_particles, e.history);
    x << "  </Grid>\n </Domain>\n</Xdmf>\n";
    write_text_atomically(dir_ / "series.xdmf", x.str());
}

namespace {

// 64-bit FNV-1a over a byte stream.
struct Fnv1a {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    void bytes(const void* data, std::size_t n) {
        const auto* b = static_cast<const unsigned char*>(data);
        for (std::size_t k = 0; k < n; ++k) {
            h ^= b[k];
            h *= 0x100000001b3ULL;
        }
    }
    void text(const std::string& s) { bytes(s.c_str(), s.size() + 1); }  // with its NUL
};

// H5Aiterate2 / H5Literate callback: appends the name to a std::vector<std::string>.
template <class Info>
herr_t collect_name(hid_t, const char* name, const Info*, void* names) {
    static_cast<std::vector<std::string>*>(names)->push_back(name);
    return 0;
}

// Names of an object's attributes, in increasing name order.
std::vector<std::string> attribute_names(hid_t obj) {
    std::vector<std::string> names;
    h5_try(H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name<H5A_info_t>, &names),
           "listing attributes");
    return names;
}

// Names of a group's members, in increasing name order.
std::vector<std::string> link_names(hid_t group) {
    std::vector<std::string> names;
    h5_try(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name<H5L_info_t>, &names),
           "listing a group");
    return names;
}

// A column of `history` for every dataset of the group /particles that holds a history
// variable (the attribute the table's history entry gives it, core/fields.hpp).
void add_history_columns(hid_t group, HistoryColumns& history) {
    for (const std::string& name : link_names(group)) {
        Handle dset = open_dataset(group, name);
        if (H5Aexists(dset, kHistoryAttribute) <= 0) continue;
        history.add({name, string_attribute(dset, "units"), string_attribute(dset, "description")},
                    0);
    }
}

// An attribute's name and value: strings as text, numbers in the native form of their type.
void hash_attribute(hid_t obj, const std::string& name, Fnv1a& f) {
    f.text(name);
    Handle attr(h5_try(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "opening attribute '" + name + "'"),
                H5Aclose);
    Handle type(h5_try(H5Aget_type(attr), "H5Aget_type"), H5Tclose);
    Handle space(h5_try(H5Aget_space(attr), "H5Aget_space"), H5Sclose);
    const auto n = static_cast<std::size_t>(
        h5_try(H5Sget_simple_extent_npoints(space), "H5Sget_simple_extent_npoints"));
    const H5T_class_t cls = H5Tget_class(type);
    f.bytes(&cls, sizeof cls);
    if (cls == H5T_STRING && H5Tis_variable_str(type) > 0) {
        std::vector<char*> text(n, nullptr);
        h5_try(H5Aread(attr, type, text.data()), "reading attribute '" + name + "'");
        for (char* t : text) f.text(t ? t : "");
        H5Dvlen_reclaim(type, space, H5P_DEFAULT, text.data());
        return;
    }
    Handle mem(h5_try(cls == H5T_STRING ? H5Tcopy(type) : H5Tget_native_type(type, H5T_DIR_ASCEND),
                      "H5Tget_native_type"),
               H5Tclose);
    std::vector<unsigned char> value(n * H5Tget_size(mem));
    h5_try(H5Aread(attr, mem, value.data()), "reading attribute '" + name + "'");
    f.bytes(value.data(), value.size());
}

// An object's path, kind, shape and element type (datasets), its attributes, and its members
// (groups), depth first in name order.
void hash_object(hid_t obj, const std::string& path, const std::string& skip, Fnv1a& f) {
    f.text(path);
    const H5I_type_t kind = H5Iget_type(obj);
    f.bytes(&kind, sizeof kind);
    if (kind == H5I_DATASET) {
        Handle dset_type(h5_try(H5Dget_type(obj), "H5Dget_type"), H5Tclose);
        const H5T_class_t cls = H5Tget_class(dset_type);
        const std::size_t size = H5Tget_size(dset_type);
        f.bytes(&cls, sizeof cls);
        f.bytes(&size, sizeof size);
        for (hsize_t d : dataset_shape(obj)) f.bytes(&d, sizeof d);
    }
    for (const std::string& name : attribute_names(obj))
        if (!(path == "/" && name == skip)) hash_attribute(obj, name, f);
    if (kind != H5I_GROUP && kind != H5I_FILE) return;
    for (const std::string& name : link_names(obj)) {
        Handle child(h5_try(H5Oopen(obj, name.c_str(), H5P_DEFAULT), "opening '" + name + "'"),
                     H5Oclose);
        hash_object(child, (path == "/" ? "/" : path + "/") + name, skip, f);
    }
}

}  // namespace

std::uint64_t hash_file_structure(const fs::path& file, const std::string& skip_root_attribute) {
    try {
        QuietHdf5Errors quiet;
        Handle f(h5_try(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "opening the file"),
                 H5Fclose);
        Fnv1a hash;
        hash_object(f, "/", skip_root_attribute, hash);
        return hash.h;
    } catch (const std::exception& e) {
        throw std::runtime_error("'" + file.string() + "': " + e.what());
    }
}

void add_string_attribute(const fs::path& file, const std::string& name, const std::string& value) {
    try {
        QuietHdf5Errors quiet;
        Handle f(h5_try(H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "opening the file"),
                 H5Fclose);
        write_string_attribute(f, name, value);
        f.close("closing the file");
    } catch (const std::exception& e) {
        throw std::runtime_error("'" + file.string() + "': " + e.what());
    }
}

ParticleSet read_snapshot(const fs::path& file, double* time_s, std::int64_t* step, unsigned use,
                          std::vector<std::string>* stood_in) {
    QuietHdf5Errors quiet;
    try {
        std::error_code ec;
        if (!fs::is_regular_file(file, ec)) throw std::runtime_error("no such file");
        Handle f(h5_try(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "opening the file"),
                 H5Fclose);
        ParticleSet p;
        p.dim = read_scalar_attribute<std::int32_t>(f, "dim");
        if (time_s) *time_s = read_scalar_attribute<double>(f, "time");
        if (step) *step = read_scalar_attribute<std::int64_t>(f, "step");
        Handle g(h5_try(H5Gopen2(f, "particles", H5P_DEFAULT), "opening group '/particles'"),
                 H5Gclose);
        const std::size_t n = particle_count(g);  // every other dataset must agree with it
        add_history_columns(g, p.history);
        for_each_field(p, [&](const FieldInfo& f, auto& a) {
            using A = std::remove_cvref_t<decltype(a)>;
            using T = FieldElement<A>;
            constexpr std::size_t K = kComponents<A>;
            std::vector<T> rows;
            if (f.use & use) {
                const std::string name = stored_name(g, f);
                rows = read_dataset<T>(g, name, n, K);
                if (stood_in && f.stand_in && name == f.stand_in) stood_in->push_back(f.name);
            }
            for (std::size_t k = 0; k < K; ++k) {
                auto& c = component(a, k);
                c.assign(n, T{});  // a field the file does not hold starts at zero
                if (!rows.empty())
                    for (std::size_t i = 0; i < n; ++i) c[i] = rows[i * K + k];
            }
            if constexpr (std::is_same_v<T, ParticleKind>)
                for (const ParticleKind k : rows)
                    if (static_cast<std::uint8_t>(k) > 1)
                        throw std::runtime_error("dataset '/particles/" + std::string(f.name) +
                                                 "' holds an unknown kind");
        });
        return p;
    } catch (const std::exception& e) {
        throw std::runtime_error("cannot read snapshot '" + file.string() + "': " + e.what());
    }
}

}  // namespace regosph::io
