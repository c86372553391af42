// Snapshot (HDF5 + XDMF) and CSV time series output.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "io/snapshot.hpp"
#include "io/time_series.hpp"

namespace fs = std::filesystem;
using regosph::ParticleKind;
using regosph::ParticleSet;

namespace {

// A fresh directory under the system temp dir, removed with everything in it at scope exit.
struct TempDir {
    fs::path path;
    TempDir() {
        std::random_device rd;
        path = fs::temp_directory_path() /
               ("regosph_test_io_" + std::to_string(rd()) + "_" + std::to_string(rd()));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
};

// Particles with a distinct value in every field, so that a swapped or shifted array shows.
ParticleSet make_particles(int dim, std::size_t n) {
    ParticleSet p;
    p.dim = dim;
    for (std::size_t i = 0; i < n; ++i) {
        const double s = 1.0 + static_cast<double>(i);
        p.push_back({0.1 * s, -0.2 * s, dim == 3 ? 0.3 * s : 0.0},
                    {1e-3 * s, 2e-3, dim == 3 ? -s : 0.0}, 1500.0 + s / 3.0, 1e-4 * s,
                    0.012 + 1e-6 * s, static_cast<std::int32_t>(i % 3),
                    static_cast<std::int32_t>(i % 2),
                    i % 4 == 3 ? ParticleKind::boundary : ParticleKind::dynamic,
                    (std::int64_t{1} << 40) + static_cast<std::int64_t>(i));
        for (int c = 0; c < regosph::kSymComponents; ++c) p.stress[c][i] = -1e3 * s + c * 0.1;
        p.plastic_multiplier[i] = 1e-7 * s * s;
        p.yielding[i] = static_cast<std::uint8_t>(i % 2);
    }
    return p;
}

// Every field of the table (core/fields.hpp), bit for bit.
void check_equal(const ParticleSet& a, const ParticleSet& b) {
    REQUIRE(a.size() == b.size());
    CHECK(a.dim == b.dim);
    regosph::for_each_field_entry([&](const auto& field) {
        INFO("field ", field.info.name);
        CHECK(a.*(field.member) == b.*(field.member));
    });
}

std::string read_text(const fs::path& file) {
    std::ifstream in(file);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Message of the exception `fn` throws; fails the test if it throws none.
template <class Fn>
std::string error_message(Fn&& fn) {
    try {
        fn();
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    FAIL("no std::runtime_error thrown");
    return {};
}

std::size_t count_occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("snapshot round trip keeps every array exactly") {
    TempDir tmp;
    regosph::io::SnapshotWriter writer(tmp.path / "out");
    for (int dim : {2, 3}) {
        CAPTURE(dim);
        const ParticleSet p = make_particles(dim, 7);
        const double t = 0.1 * dim + 1e-17;
        const fs::path file = writer.write(p, t, 1000 + dim, {{"case", "round trip"}});
        CHECK(fs::exists(file));
        double t_read = 0.0;
        std::int64_t step_read = 0;
        check_equal(regosph::io::read_snapshot(file, &t_read, &step_read), p);
        CHECK(t_read == t);
        CHECK(step_read == 1000 + dim);
    }
    CHECK(writer.count() == 2);
}

TEST_CASE("an empty particle set round-trips") {
    TempDir tmp;
    regosph::io::SnapshotWriter writer(tmp.path);
    const fs::path file = writer.write(ParticleSet{}, 0.0, 0);
    CHECK(regosph::io::read_snapshot(file).size() == 0);
    // ParaView's XDMF Reader fails on zero-sized datasets, so the index leaves it out.
    CHECK(read_text(tmp.path / "series.xdmf").find("snapshot_000000") == std::string::npos);
}

TEST_CASE("snapshot root attributes carry units, version and the caller's strings") {
    TempDir tmp;
    regosph::io::SnapshotWriter writer(tmp.path);
    const fs::path file = writer.write(make_particles(2, 2), 1.5, 3, {{"config", "a: 1"}});
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0);
    for (const char* name : {"time", "step", "dim", "units", "regosph_version", "config"})
        CHECK_MESSAGE(H5Aexists(f, name) > 0, name);
    CHECK(H5Aexists_by_name(f, "particles/stress", "components", H5P_DEFAULT) > 0);
    CHECK(H5Aexists_by_name(f, "particles/mass", "units", H5P_DEFAULT) > 0);
    H5Fclose(f);
}

TEST_CASE("snapshots are numbered, atomic and indexed in series.xdmf") {
    TempDir tmp;
    const ParticleSet p = make_particles(2, 3);
    {
        regosph::io::SnapshotWriter writer(tmp.path);
        CHECK(writer.directory() == tmp.path);
        CHECK(writer.write(p, 0.0, 0).filename() == "snapshot_000000.h5");
        CHECK(writer.write(p, 0.5, 10).filename() == "snapshot_000001.h5");
    }
    for (const auto& entry : fs::directory_iterator(tmp.path))
        CHECK_MESSAGE(entry.path().extension() != ".tmp", entry.path().string());
    std::string xdmf = read_text(tmp.path / "series.xdmf");
    CHECK(xdmf.find("snapshot_000000.h5:/particles/position") != std::string::npos);
    CHECK(xdmf.find("snapshot_000001.h5:/particles/position") != std::string::npos);
    CHECK(xdmf.find("CollectionType=\"Temporal\"") != std::string::npos);
    CHECK(xdmf.find("NumberOfElements=\"3\"") != std::string::npos);
    CHECK(xdmf.find(tmp.path.string()) == std::string::npos);  // relative file names only

    // A restarted writer continues the numbering and keeps the earlier snapshots indexed.
    regosph::io::SnapshotWriter restarted(tmp.path);
    CHECK(restarted.write(p, 1.0, 20).filename() == "snapshot_000002.h5");
    CHECK(restarted.count() == 1);
    xdmf = read_text(tmp.path / "series.xdmf");
    CHECK(count_occurrences(xdmf, "<Grid Name=\"snapshot_") == 3);
    CHECK(xdmf.find("<Time Value=\"0.5\"/>") != std::string::npos);
}

TEST_CASE("an unwritable output directory is reported with its path") {
    TempDir tmp;
    const fs::path blocker = tmp.path / "a_file";
    std::ofstream(blocker) << "not a directory\n";
    const fs::path bad = blocker / "out";
    const std::string msg = error_message([&] { regosph::io::SnapshotWriter w(bad); });
    CHECK_MESSAGE(msg.find(bad.string()) != std::string::npos, msg);
    const std::string msg2 = error_message([&] { regosph::io::SnapshotWriter w(blocker); });
    CHECK_MESSAGE(msg2.find(blocker.string()) != std::string::npos, msg2);
}

TEST_CASE("read_snapshot names the file and the dataset at fault") {
    TempDir tmp;
    const fs::path missing = tmp.path / "nope.h5";
    std::string msg = error_message([&] { regosph::io::read_snapshot(missing); });
    CHECK_MESSAGE(msg.find(missing.string()) != std::string::npos, msg);

    regosph::io::SnapshotWriter writer(tmp.path);
    const fs::path file = writer.write(make_particles(3, 4), 0.0, 0);
    // Damage the file: remove `density` in one case, replace it by a wrong shape in the other.
    bool wrong_shape = false;
    SUBCASE("missing dataset") {}
    SUBCASE("wrong shape") {
        wrong_shape = true;
    }
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0);
    REQUIRE(H5Ldelete(f, "/particles/density", H5P_DEFAULT) >= 0);
    if (wrong_shape) {
        const hsize_t dims[1] = {5};
        hid_t space = H5Screate_simple(1, dims, nullptr);
        hid_t d = H5Dcreate2(f, "/particles/density", H5T_IEEE_F64LE, space, H5P_DEFAULT,
                             H5P_DEFAULT, H5P_DEFAULT);
        REQUIRE(d >= 0);
        H5Dclose(d);
        H5Sclose(space);
    }
    REQUIRE(H5Fclose(f) >= 0);
    msg = error_message([&] { regosph::io::read_snapshot(file); });
    CHECK_MESSAGE(msg.find(file.string()) != std::string::npos, msg);
    CHECK_MESSAGE(msg.find("density") != std::string::npos, msg);
    if (wrong_shape) CHECK_MESSAGE(msg.find("shape") != std::string::npos, msg);
}

TEST_CASE("CSV time series: header, full precision, one line per row") {
    TempDir tmp;
    const fs::path file = tmp.path / "diagnostics.csv";
    {
        regosph::io::CsvTimeSeries csv(file, {"time [s]", "dt [s]", "kinetic energy [J]"});
        csv.append({0.0, 1e-5, 0.1});
        csv.append({1e-5, 1e-5, 1.0 / 3.0});
        // Flushed at once: the rows are on disk while the writer still lives.
        CHECK(count_occurrences(read_text(file), "\n") == 3);
        const std::string msg = error_message([&] { csv.append({1.0, 2.0}); });
        CHECK_MESSAGE(msg.find(file.string()) != std::string::npos, msg);
    }
    std::ifstream in(file);
    std::string header, row1, row2, extra;
    std::getline(in, header);
    std::getline(in, row1);
    std::getline(in, row2);
    CHECK(header == "time [s],dt [s],kinetic energy [J]");
    CHECK(row1 == "0,1.0000000000000001e-05,0.10000000000000001");
    CHECK(std::stod(row2.substr(row2.rfind(',') + 1)) == 1.0 / 3.0);
    CHECK_FALSE(std::getline(in, extra));
}

TEST_CASE("CSV time series that cannot be opened names the file") {
    TempDir tmp;
    const fs::path bad = tmp.path / "no_such_dir" / "diagnostics.csv";
    const std::string msg =
        error_message([&] { regosph::io::CsvTimeSeries csv(bad, {"time [s]"}); });
    CHECK_MESSAGE(msg.find(bad.string()) != std::string::npos, msg);
}
