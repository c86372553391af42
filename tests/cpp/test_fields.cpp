// The particle field table (src/core/fields.hpp): it covers every array of ParticleSet, its
// entries are well formed, and the consumers it drives (for_each_array, halo components, the
// particle files) follow it.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <random>
#include <set>
#include <string>

#include "core/fields.hpp"
#include "io/checkpoint.hpp"
#include "io/snapshot.hpp"

using namespace regosph;
namespace fs = std::filesystem;

TEST_CASE("fields: the table covers every per-particle array of ParticleSet") {
    // A member added to ParticleSet without a table entry changes sizeof(ParticleSet) but not
    // the table's byte count: then it would miss files, halos, migration and Python.
    // The history columns (core/history.hpp) have one entry, which for_each_field expands
    // into a field per column: none here.
    std::size_t table_bytes = sizeof(HistoryColumns);
    const ParticleSet p;
    for_each_field(p, [&](const FieldInfo&, const auto& a) { table_bytes += sizeof(a); });
    const std::size_t other_members = sizeof(ParticleSet::n_halo) + alignof(std::size_t);  // n_halo, dim (padded)
    CHECK(sizeof(ParticleSet) == table_bytes + other_members);
}

TEST_CASE("fields: names are unique, have units and descriptions, position comes first") {
    std::set<std::string> names, python_names;
    int count = 0;
    for_each_field_entry([&](const auto& f) {
        INFO("field ", f.info.name);
        CHECK(names.insert(f.info.name).second);
        CHECK(python_names.insert(f.info.property_name()).second);
        CHECK(std::string(f.info.units).size() > 0);
        CHECK(std::string(f.info.description).size() > 0);
        // A restart continues bit for bit only if the checkpoint holds every field.
        CHECK((f.info.use & kCheckpoint) != 0);
        CHECK((f.info.extra_attribute == nullptr) == (f.info.extra_value == nullptr));
        if (count++ == 0) CHECK(std::string(f.info.name) == "position");
    });
}

TEST_CASE("fields: for_each_array visits every component array, in table order") {
    ParticleSet p;
    p.dim = 3;
    p.resize(5);
    std::size_t arrays = 0, bytes = 0;
    p.for_each_array([&](auto& a) {
        ++arrays;
        bytes += sizeof(a[0]);
        CHECK(a.size() == 5);
    });
    // x, v (3 each), rho, mass, h, stress (6), plastic, yielding, material, body, kind, id,
    // x_selected (3)
    CHECK(arrays == 3 + 3 + 3 + kSymComponents + 6 + 3);
    CHECK(bytes == 8 * (3 + 3 + 3 + kSymComponents + 1) + 1 + 4 + 4 + 1 + 8 + 8 * 3);
    const double* first = nullptr;
    p.for_each_array([&](auto& a) {
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(a[0])>, double>)
            if (!first) first = a.data();
    });
    CHECK(first == p.x[0].data());
}

TEST_CASE("fields: halo components are those that can be non-zero") {
    CHECK(active_components(1, 2) == std::vector<int>{0});
    CHECK(active_components(3, 2) == std::vector<int>{0, 1});
    CHECK(active_components(3, 3) == std::vector<int>{0, 1, 2});
    CHECK(active_components(kSymComponents, 2) == std::vector<int>{XX, YY, ZZ, XY});
    CHECK(active_components(kSymComponents, 3).size() == 6);
}

TEST_CASE("fields: a checkpoint holds every field of the table and reads back bit for bit") {
    std::random_device rd;
    const fs::path dir = fs::temp_directory_path() / ("regosph_test_fields_" + std::to_string(rd()));
    fs::create_directories(dir);
    ParticleSet p;
    p.dim = 3;
    p.resize(7);
    // A distinct value in every component of every field, from one counter.
    double counter = 0.5;
    p.for_each_array([&](auto& a) {
        for (auto& v : a) {
            counter += 1.0;
            using T = std::remove_cvref_t<decltype(v)>;
            if constexpr (std::is_same_v<T, ParticleKind>)
                v = static_cast<int>(counter) % 2 ? ParticleKind::boundary : ParticleKind::dynamic;
            else
                v = static_cast<T>(counter);
        }
    });
    for (std::size_t i = 0; i < p.size(); ++i) p.id[i] = static_cast<std::int64_t>(i);  // id order
    const fs::path file = io::write_checkpoint(dir, p, {0.25, 3, 1e-4});
    const io::LoadedCheckpoint back = io::load_newest_checkpoint(dir);
    CHECK(back.rejected.empty());
    for_each_field_entry([&](const auto& f) {
        INFO("field ", f.info.name);
        CHECK(back.particles.*(f.member) == p.*(f.member));
    });
    CHECK(io::checksum(back.particles) == io::checksum(p));

    SUBCASE("a checkpoint written before plastic_strain was renamed still loads") {
        const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
        REQUIRE(f >= 0);
        REQUIRE(H5Lmove(f, "particles/plastic_multiplier", f, "particles/plastic_strain",
                        H5P_DEFAULT, H5P_DEFAULT) >= 0);
        // ... and with the checksum of that version: the particle fields only.
        REQUIRE(H5Adelete(f, "checkpoint_checksum") >= 0);
        H5Fclose(f);
        io::add_string_attribute(file, "checkpoint_checksum", std::to_string(io::checksum(p)));
        const io::LoadedCheckpoint old = io::load_newest_checkpoint(dir);
        CHECK(old.rejected.empty());
        CHECK(old.particles.plastic_multiplier == p.plastic_multiplier);
        CHECK(io::checksum(old.particles) == io::checksum(p));
    }
    SUBCASE("a checkpoint written before the pair lists still loads, selected where it stands") {
        const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
        REQUIRE(f >= 0);
        REQUIRE(H5Ldelete(f, "particles/pair_selection_position", H5P_DEFAULT) >= 0);
        REQUIRE(H5Adelete(f, "checkpoint_checksum") >= 0);
        H5Fclose(f);
        // The checksum of that version covered the fields it had, without the new one.
        const std::uint64_t without = io::checksum(p, {"pair_selection_position"});
        REQUIRE(without != io::checksum(p));
        io::add_string_attribute(file, "checkpoint_checksum", std::to_string(without));
        const io::LoadedCheckpoint old = io::load_newest_checkpoint(dir);
        CHECK(old.rejected.empty());
        CHECK(old.particles.x_selected == p.x);  // the stand-in: the positions
        CHECK(old.particles.x == p.x);
        CHECK(old.particles.stress == p.stress);
        // A stored checksum that covers the missing field does not match: the file is refused.
        const hid_t g = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
        REQUIRE(g >= 0);
        REQUIRE(H5Adelete(g, "checkpoint_checksum") >= 0);
        H5Fclose(g);
        io::add_string_attribute(file, "checkpoint_checksum", std::to_string(io::checksum(p)));
        CHECK_THROWS_WITH(io::load_newest_checkpoint(dir),
                          doctest::Contains("checksum mismatch in the particle fields"));
    }
    fs::remove_all(dir);
}
