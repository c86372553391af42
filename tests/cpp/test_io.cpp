// Snapshot (HDF5 + XDMF), CSV time series and checkpoint output, and the run directory: its
// lock and the record of a continued run (run.json).
#include <doctest/doctest.h>
#include <hdf5.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "geometry/spacing.hpp"
#include "io/checkpoint.hpp"
#include "io/run_lock.hpp"
#include "io/run_record.hpp"
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
    } catch (const std::exception& e) {  // runtime_error, invalid_argument
        return e.what();
    }
    FAIL("no exception thrown");
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

TEST_CASE("snapshot units: a 2D run's masses are per metre of depth (issue 15, item 11)") {
    TempDir tmp;
    regosph::io::SnapshotWriter writer(tmp.path);
    for (int dim : {2, 3}) {
        CAPTURE(dim);
        const fs::path file = writer.write(make_particles(dim, 2), 0.0, 0);
        hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        REQUIRE(f >= 0);
        hid_t a = H5Aopen_by_name(f, "particles/mass", "units", H5P_DEFAULT, H5P_DEFAULT);
        hid_t type = H5Aget_type(a);
        char* units = nullptr;
        REQUIRE(H5Aread(a, type, &units) >= 0);
        CHECK(std::string(units) == (dim == 2 ? "kg/m" : "kg"));
        H5free_memory(units);
        H5Tclose(type);
        H5Aclose(a);
        H5Fclose(f);
        const std::string root = regosph::io::read_string_attribute(file, "units");
        CHECK((root.find("per metre of depth (kg/m)") != std::string::npos) == (dim == 2));
    }
}

namespace {

// Rewrites a root string attribute of an HDF5 file in place (a corrupted byte, say).
void replace_attribute(const fs::path& file, const std::string& name, const std::string& value) {
    hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(f >= 0);
    REQUIRE(H5Adelete(f, name.c_str()) >= 0);
    REQUIRE(H5Fclose(f) >= 0);
    regosph::io::add_string_attribute(file, name, value);
}

}  // namespace

TEST_CASE("checkpoint checksum covers every stored datum (issue 15, item 3)") {
    TempDir tmp;
    const ParticleSet p = make_particles(2, 5);
    const regosph::io::CheckpointState state{0.1, 40, 2.5e-5};
    const auto write = [&] { return regosph::io::write_checkpoint(tmp.path, p, state); };
    const fs::path file = write();
    const auto loaded = regosph::io::load_newest_checkpoint(tmp.path);
    CHECK(loaded.state.time == 0.1);
    CHECK(loaded.state.dt_next == 2.5e-5);
    CHECK(loaded.rejected.empty());

    // One hex digit of the stored time, the step, the units text, a dataset's units: each change
    // makes the checkpoint unusable, with the reason.
    const auto damaged = [&](const std::function<void()>& damage) {
        write();
        damage();
        return error_message([&] { regosph::io::load_newest_checkpoint(tmp.path); });
    };
    const std::string time_text = regosph::io::read_string_attribute(file, "checkpoint_time");
    std::string changed = time_text;
    changed[3] = changed[3] == '9' ? '8' : '9';
    std::string msg = damaged([&] { replace_attribute(file, "checkpoint_time", changed); });
    CHECK_MESSAGE(msg.find("checksum mismatch in the time, step") != std::string::npos, msg);
    CHECK_MESSAGE(msg.find(file.string()) != std::string::npos, msg);
    msg = damaged([&] { replace_attribute(file, "checkpoint_dt_next", "0x1p-10"); });
    CHECK_MESSAGE(msg.find("checksum mismatch") != std::string::npos, msg);
    msg = damaged([&] { replace_attribute(file, "units", "furlongs"); });
    CHECK_MESSAGE(msg.find("checksum mismatch") != std::string::npos, msg);
    // Opens the checkpoint for writing around `edit`.
    const auto edit_file = [&](const std::function<void(hid_t)>& edit) {
        return [&file, edit] {
            hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
            REQUIRE(f >= 0);
            edit(f);
            REQUIRE(H5Fclose(f) >= 0);
        };
    };
    msg = damaged(edit_file([](hid_t f) {
        const std::int64_t step = 41;
        hid_t a = H5Aopen(f, "step", H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_INT64, &step);
        H5Aclose(a);
    }));
    CHECK_MESSAGE(msg.find("checksum mismatch in the time, step") != std::string::npos, msg);
    msg = damaged(edit_file([](hid_t f) {
        H5Adelete_by_name(f, "particles/velocity", "units", H5P_DEFAULT);
    }));
    CHECK_MESSAGE(msg.find("checksum mismatch") != std::string::npos, msg);
    msg = damaged(edit_file([](hid_t f) {
        hid_t d = H5Dopen2(f, "particles/density", H5P_DEFAULT);
        const double rho[5] = {1, 2, 3, 4, 5};
        H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, rho);
        H5Dclose(d);
    }));
    CHECK_MESSAGE(msg.find("checksum mismatch in the particle fields") != std::string::npos, msg);
    // A checksum of regosph 0.1 (the particle fields only) is still read, and checked.
    msg = damaged([&] { replace_attribute(file, "checkpoint_checksum", "12345"); });
    CHECK_MESSAGE(msg.find("checksum mismatch in the particle fields") != std::string::npos, msg);
    write();
    replace_attribute(file, "checkpoint_checksum", std::to_string(regosph::io::checksum(p)));
    CHECK(regosph::io::load_newest_checkpoint(tmp.path).state.time == 0.1);
}

TEST_CASE("run lock: one run per directory; stale and foreign locks (issue 15, item 1)") {
    TempDir tmp;
    const fs::path file = tmp.path / regosph::io::kLockFileName;
    {
        regosph::io::RunLock lock(tmp.path, false);
        CHECK(lock.taken_over().empty());
        const std::string text = read_text(file);
        CHECK(text.find("pid=" + std::to_string(::getpid())) != std::string::npos);
        CHECK(text.find("host=") != std::string::npos);
        CHECK(text.find("started=") != std::string::npos);
        // A second run (here: a second lock in the same process) is refused, naming the holder.
        const std::string msg = error_message([&] { regosph::io::RunLock second(tmp.path, true); });
        CHECK_MESSAGE(msg.find("in use by process " + std::to_string(::getpid())) !=
                          std::string::npos, msg);
        CHECK_THROWS_AS(regosph::io::RunLock::check_not_held(tmp.path), std::invalid_argument);
        const auto who = regosph::io::RunLock::holder(tmp.path);
        REQUIRE(who);
        CHECK(who->rfind("process " + std::to_string(::getpid()) + " on host '", 0) == 0);
    }
    CHECK_FALSE(fs::exists(file));  // released
    regosph::io::RunLock::check_not_held(tmp.path);
    CHECK_FALSE(regosph::io::RunLock::holder(tmp.path));

    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    // Left by a process of this host that no longer holds it: taken over.
    std::ofstream(file) << "pid=999999999\nhost=" << host << "\nstarted=2020-01-01T00:00:00Z\n";
    CHECK_FALSE(regosph::io::RunLock::holder(tmp.path));  // stale: free for the taking
    {
        regosph::io::RunLock lock(tmp.path, false);
        CHECK(lock.taken_over().find("process 999999999") != std::string::npos);
    }
    // Left by a process of another host: only on request.
    std::ofstream(file) << "pid=12\nhost=some-other-node\nstarted=2020-01-01T00:00:00Z\n";
    // A sweep must leave it alone (it may be a job running there); a restart's early check
    // leaves the decision to the lock itself.
    const auto foreign = regosph::io::RunLock::holder(tmp.path);
    REQUIRE(foreign);
    CHECK_MESSAGE(foreign->find("process 12 on host 'some-other-node'") == 0, *foreign);
    CHECK_MESSAGE(foreign->find("another host") != std::string::npos, *foreign);
    regosph::io::RunLock::check_not_held(tmp.path);
    const std::string msg = error_message([&] { regosph::io::RunLock lock(tmp.path, false); });
    CHECK_MESSAGE(msg.find("some-other-node") != std::string::npos, msg);
    CHECK_MESSAGE(msg.find("take_over_lock") != std::string::npos, msg);
    regosph::io::RunLock lock(tmp.path, true);
    CHECK(lock.taken_over().find("some-other-node") != std::string::npos);
}

TEST_CASE("run record: a continued run names each changed field (issue 15, item 2)") {
    const std::string recorded =
        R"j({"regosph_version": "1 (a)", "physics": {"gravity_m_s2": [0, -9.81, 0], "courant": 0.3},)j"
        R"j( "materials": [{"name": "soil", "friction_angle_deg": 19.8}, {"name": "wall"}],)j"
        R"j( "run": {"start_time_s": 0, "end_time_s": 0.5}, "metadata": {"command": "a"}})j";
    const std::string now =
        R"j({"regosph_version": "1 (b)", "physics": {"gravity_m_s2": [0, -1.62, 0], "courant": 0.3},)j"
        R"j( "materials": [{"name": "soil", "friction_angle_deg": 35.0}, {"name": "wall"}],)j"
        R"j( "run": {"start_time_s": 0.25, "end_time_s": 1.0}, "metadata": {"command": "b"}})j";
    const auto changes = regosph::io::changed_fields(recorded, now);
    std::vector<std::string> fields;
    for (const auto& c : changes) fields.push_back(c.field);
    CHECK(fields == std::vector<std::string>{"regosph_version", "physics.gravity_m_s2",
                                             "materials[soil].friction_angle_deg",
                                             "run.end_time_s", "metadata.command"});
    const std::string where = "restart: ";
    std::string msg = error_message([&] { regosph::io::check_changes(changes, {}, now, where); });
    CHECK_MESSAGE(msg.find("physics.gravity_m_s2: [0,-9.81,0] -> [0,-1.62,0]") != std::string::npos, msg);
    CHECK_MESSAGE(msg.find("materials[soil].friction_angle_deg: 19.8 -> 35.0") != std::string::npos, msg);
    CHECK_MESSAGE(msg.find("end_time") == std::string::npos, msg);  // free to change
    msg = error_message([&] { regosph::io::check_changes(changes, {"physics"}, now, where); });
    CHECK_MESSAGE(msg.find("gravity") == std::string::npos, msg);
    CHECK_MESSAGE(msg.find("friction_angle_deg") != std::string::npos, msg);
    regosph::io::check_changes(changes, {"physics.gravity_m_s2", "materials[soil]"}, now, where);
    msg = error_message(
        [&] { regosph::io::check_changes(changes, {"physics.gravity"}, now, where); });
    CHECK_MESSAGE(msg.find("'physics.gravity' names no field") != std::string::npos, msg);

    // The record: the new description, the first start time, and the continuation.
    const std::string out = regosph::io::continued_description(
        recorded, now, {"checkpoint_000000000040.h5", 0.25, 40, changes});
    CHECK(out.find(R"j("start_time_s":0,)j") != std::string::npos);
    CHECK(out.find(R"j("end_time_s":1.0)j") != std::string::npos);
    CHECK(out.find(R"j("from":"checkpoint_000000000040.h5")j") != std::string::npos);
    CHECK(out.find(R"j("field":"physics.gravity_m_s2")j") != std::string::npos);
    // A second continuation keeps the first in the list.
    const std::string twice = regosph::io::continued_description(out, now, {"x", 0.5, 80, {}});
    CHECK(count_occurrences(twice, R"j("at_utc")j") == 2);
}

TEST_CASE("median nearest-neighbour distance of lattices (issue 15, item 6)") {
    using regosph::geometry::Point;
    std::vector<Point> square, hexagonal;
    const double dx = 2e-3;
    for (int i = 0; i < 20; ++i)
        for (int j = 0; j < 20; ++j) {
            square.push_back({i * dx, j * dx, 0.0});
            // close-packed rows of spacing a: area per particle a^2 sqrt(3)/2 = dx^2
            const double a = dx * std::sqrt(2.0 / std::sqrt(3.0));
            hexagonal.push_back({(i + 0.5 * (j % 2)) * a, j * a * std::sqrt(3.0) / 2.0, 0.0});
        }
    using regosph::geometry::median_nearest_distance;
    CHECK(median_nearest_distance(square, 2, 1.25 * dx) == doctest::Approx(dx));
    CHECK(median_nearest_distance(hexagonal, 2, 1.25 * dx) / dx == doctest::Approx(1.0746).epsilon(1e-3));
    CHECK(std::isinf(median_nearest_distance(square, 2, 0.5 * dx)));  // none within the radius
    CHECK(std::isnan(median_nearest_distance({Point{0, 0, 0}}, 2, dx)));
}
