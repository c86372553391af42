// The constitutive interface (materials/constitutive_model.hpp) and the registered state
// (core/history.hpp, core/fields.hpp) seen from a model the code does not know: a toy
// rate-dependent Maxwell solid with one history variable. It is driven at material points
// through the interface, its history variable is integrated with its rate by the integrator's
// sweeps over the table's integrated fields (sph/heun_sweeps.hpp), and written to and read
// back from a checkpoint and a snapshot.
//
// What the toy needs to enter a run, as a count of files outside tests: its own header (the
// struct below), its include and one alternative in `Model` (material.hpp), its Python
// constructor (python/bind_materials.cpp) and its name in python/regosph/__init__.py: 4 files
// (and parameters.hpp/.cpp for an input struct, were its parameters given in other units).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/fields.hpp"
#include "io/checkpoint.hpp"
#include "io/snapshot.hpp"
#include "materials/material.hpp"
#include "sph/equations.hpp"
#include "sph/heun_sweeps.hpp"

using namespace regosph;
namespace fs = std::filesystem;

namespace {

// A Maxwell solid whose relaxation time falls with the shear rate (a shear-thinning law):
// dS/dt = 2 G dev(eps_dot) - S / tau(gamma_dot), tau = tau0 / (1 + gamma_dot / rate_ref),
// with gamma_dot = sqrt(2 dev(eps_dot) : dev(eps_dot)), a bulk response K tr(eps_dot), the
// accumulated shear strain as its history variable, and a stiffness that grows with the
// pressure (its wave speed).
struct ToyMaxwell {
    double density = 1500.0;      // [kg/m^3]
    double bulk_modulus = 1e7;    // K [Pa]
    double shear_modulus = 4e6;   // G [Pa]
    double relaxation_time = 1e-3;  // tau0 [s]
    double reference_rate = 100.0;  // [1/s]
    double stiffening = 50.0;       // dK/dp [-]

    static constexpr const char* kName = "ToyMaxwell";
    static constexpr bool kBoundaryOnly = false;
    static constexpr bool kPlastic = false;
    void validate(const std::string& material) const {
        checks::positive(material, "relaxation_time", relaxation_time, "s");
    }
    void prepare(int /*dim*/) {}
    std::vector<HistoryVariable> history() const {
        return {{"toy_shear_strain", "-", "accumulated shear strain of the toy model", 0.0}};
    }
    static double shear_rate(const SymTensor& strain_rate) {
        const SymTensor e = deviator(strain_rate);
        return std::sqrt(2.0 * double_dot(e, e));
    }
    double relaxation(const SymTensor& strain_rate) const {
        return relaxation_time / (1.0 + shear_rate(strain_rate) / reference_rate);
    }
    double wave_speed(const MaterialState& s) const {
        const double K = bulk_modulus + stiffening * std::max(s.pressure(), 0.0);
        return std::sqrt((K + 4.0 * shear_modulus / 3.0) / s.rho);
    }
    StressRate stress_rate(const MaterialState& s, const SymTensor& strain_rate,
                           const Spin& /*spin*/) const {
        const double tau = relaxation(strain_rate);
        const SymTensor e = deviator(strain_rate);
        const SymTensor S = deviator(s.sigma);
        StressRate r;
        for (int c = 0; c < kSymComponents; ++c) r.rate[c] = 2.0 * shear_modulus * e[c] - S[c] / tau;
        for (int c = XX; c <= ZZ; ++c) r.rate[c] += bulk_modulus * trace(strain_rate);
        r.history_rate[0] = shear_rate(strain_rate);
        r.dt_limit = 0.5 * tau;  // an explicit step of the relaxation stays stable
        return r;
    }
    bool correct(MaterialState& /*state*/, double /*dt*/) const { return false; }
    double strain_energy(double rho, const SymTensor& sigma) const {
        const SymTensor S = deviator(sigma);
        return double_dot(S, S) / (4.0 * shear_modulus * rho);
    }
    PairOptions pair_options() const { return {}; }
    std::vector<ModelParameter> parameters() const {
        return {{"density_kg_m3", density}, {"relaxation_time_s", relaxation_time}};
    }
};
static_assert(ConstitutiveModel<ToyMaxwell>);

// Pure shear at rate gamma_dot (eps_xy = gamma_dot / 2, no spin).
SymTensor pure_shear(double gamma_dot) { return {0.0, 0.0, 0.0, 0.5 * gamma_dot, 0.0, 0.0}; }

// Material points as particles: one per shear rate, the toy's history column registered.
ParticleSet material_points(const ToyMaxwell& toy, const std::vector<double>& rates) {
    ParticleSet p;
    p.dim = 3;
    for (const HistoryVariable& v : toy.history()) p.history.add(v, 0);
    for (std::size_t i = 0; i < rates.size(); ++i)
        p.push_back({0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, toy.density, 1.0, 0.01, 0, 0,
                    ParticleKind::dynamic, static_cast<std::int64_t>(i));
    return p;
}

// The rates of every point through the interface, into the rates of the table's fields;
// returns the smallest step the model allows [s].
double point_rates(const ToyMaxwell& toy, ParticleSet& p, const std::vector<double>& rates,
                   Derivatives& k) {
    k.resize(p.size(), true, p.history.size());
    const int column = p.history.find("toy_shear_strain");
    double dt_limit = std::numeric_limits<double>::infinity();
    for (std::size_t a = 0; a < p.size(); ++a) {
        MaterialState s{p.rho[a], {}, &p.history.values[column][a]};
        for (int c = 0; c < kSymComponents; ++c) s.sigma[c] = p.stress[c][a];
        const StressRate r = toy.stress_rate(s, pure_shear(rates[a]), Spin{});
        for (int c = 0; c < kSymComponents; ++c) k.dstress[c][a] = r.rate[c];
        k.dhistory[column][a] = r.history_rate[0];
        dt_limit = std::min(dt_limit, r.dt_limit);
    }
    return dt_limit;
}

// One Heun step of every integrated field of the table with AdaptiveHeun's sweeps
// (sph/heun_sweeps.hpp), the material points' state saved as the integrator saves it (the
// kStepState fields); returns the largest step error, +inf if a field is not finite.
double heun_step(ParticleSet& p, double dt, const std::function<void(Derivatives&)>& rates) {
    std::vector<const std::vector<double>*> arrays;
    std::vector<std::vector<double>> start;
    for_each_field(p, [&](const FieldInfo& f, auto& a) {
        using A = std::remove_cvref_t<decltype(a)>;
        if constexpr (std::is_same_v<FieldElement<A>, double>)
            if (f.use & kStepState)
                for (const int c : active_components(kComponents<A>, p.dim)) {
                    arrays.push_back(&component(a, static_cast<std::size_t>(c)));
                    start.push_back(*arrays.back());
                }
    });
    const auto saved = [&](const std::vector<double>& array) -> const std::vector<double>* {
        for (std::size_t i = 0; i < arrays.size(); ++i)
            if (arrays[i] == &array) return &start[i];
        return nullptr;
    };
    const std::size_t n = p.size();
    std::vector<double> error(n, 0.0), not_finite(n, 0.0), scratch(n, 0.0);
    std::vector<StageArray> stage;
    Derivatives k1, k2;
    rates(k1);
    list_stage_arrays_of(p, saved, k1, k1, false, false, stage);
    sweep_fields(stage, p.kind.data(), p.h.data(), dt, false, false, 0, n, error.data(),
                 not_finite.data(), scratch.data());
    rates(k2);
    list_stage_arrays_of(p, saved, k1, k2, false, true, stage);
    sweep_fields(stage, p.kind.data(), p.h.data(), dt, true, true, 0, n, error.data(),
                 not_finite.data(), scratch.data());
    for (const double bad : not_finite)
        if (bad != 0.0) return std::numeric_limits<double>::infinity();
    return *std::max_element(error.begin(), error.end());
}

}  // namespace

TEST_CASE("a toy rate-dependent model with a history variable, driven at material points") {
    const ToyMaxwell toy;
    const std::vector<double> rates = {10.0, 100.0, 1000.0};  // [1/s]
    ParticleSet p = material_points(toy, rates);
    const int column = p.history.find("toy_shear_strain");
    REQUIRE(column == 0);

    // The table integrates the history column with its rate (in the weighted form).
    bool integrated = false;
    for_each_integrated_field(p, [&](const FieldInfo& f, auto&, auto) {
        if (std::string(f.name) == "toy_shear_strain") {
            integrated = f.integration.form == HeunForm::weighted_rates;
            CHECK((f.use & kCheckpoint) != 0);
            CHECK((f.use & kSnapshot) != 0);
            CHECK((f.use & kHaloState) != 0);
            CHECK((f.use & kStepState) != 0);
        }
    });
    CHECK(integrated);

    // Steps of a tenth of the limit the model reports at the fastest point.
    Derivatives probe;
    const double dt = 0.1 * point_rates(toy, p, rates, probe);
    CHECK(dt == doctest::Approx(0.1 * 0.5 * toy.relaxation_time / 11.0));
    const int steps = 2000;
    const auto rates_now = [&](Derivatives& k) { point_rates(toy, p, rates, k); };
    double error = 0.0;
    for (int s = 0; s < steps; ++s) error = std::max(error, heun_step(p, dt, rates_now));
    CHECK(error == 0.0);  // finite, and no position, velocity or density moved
    const double t = steps * dt;
    for (std::size_t a = 0; a < rates.size(); ++a) {
        CAPTURE(rates[a]);
        // History: the accumulated shear strain gamma_dot t, exact for a constant rate.
        CHECK(p.history.values[column][a] == doctest::Approx(rates[a] * t).epsilon(1e-12));
        // Maxwell in pure shear: sigma_xy = G gamma_dot tau (1 - exp(-t / tau)).
        const double tau = toy.relaxation(pure_shear(rates[a]));
        const double exact = toy.shear_modulus * rates[a] * tau * (1.0 - std::exp(-t / tau));
        CHECK(p.stress[XY][a] == doctest::Approx(exact).epsilon(1e-4));
    }
    // Rate dependence: ten times the rate gives less than ten times the stress (shear thinning).
    CHECK(p.stress[XY][2] < 10.0 * p.stress[XY][1] * 0.99);
    // Its history variable is one a run can register; others are refused, naming the material.
    CHECK_NOTHROW(check_history_variables("toy", toy.history()));
    for (const char* name : {"density", "plastic_strain", "a/b", ""})
        CHECK_THROWS_WITH_AS(check_history_variables("toy", {{name, "-", "clash", 0.0}}),
                             doctest::Contains("material 'toy': history variable"),
                             std::invalid_argument);
    const std::vector<HistoryVariable> too_many(kMaxHistoryVariables + 1, toy.history()[0]);
    CHECK_THROWS_AS(check_history_variables("toy", too_many), std::invalid_argument);
    // The wave speed follows the pressure.
    MaterialState loose{toy.density, {}, nullptr}, confined{toy.density, {}, nullptr};
    for (int c = XX; c <= ZZ; ++c) confined.sigma[c] = -1e6;
    CHECK(toy.wave_speed(confined) > 1.5 * toy.wave_speed(loose));
}

TEST_CASE("a history variable is checkpointed and written to snapshots like any field") {
    std::random_device rd;
    const fs::path dir = fs::temp_directory_path() / ("regosph_test_history_" + std::to_string(rd()));
    fs::create_directories(dir);
    const ToyMaxwell toy;
    ParticleSet p = material_points(toy, {1.0, 2.0, 3.0, 4.0});
    const std::uint64_t without_values = io::checksum(p);
    for (std::size_t a = 0; a < p.size(); ++a) p.history.values[0][a] = 0.25 + static_cast<double>(a);
    CHECK(io::checksum(p) != without_values);  // the column is part of the checksum

    io::write_checkpoint(dir, p, {0.5, 7, 1e-5});
    const io::LoadedCheckpoint back = io::load_newest_checkpoint(dir);
    CHECK(back.rejected.empty());
    CHECK(back.particles.history == p.history);
    CHECK(back.particles.history.variables[0].units == "-");
    CHECK(io::checksum(back.particles) == io::checksum(p));

    const fs::path file = dir / "snapshot.h5";
    io::write_particle_file(file, p, 0.5, 7);
    const ParticleSet read = io::read_snapshot(file);
    CHECK(read.history == p.history);
    CHECK(read.history.variables[0].description == toy.history()[0].description);

    // A second model's variable shares nothing: its column comes in name order, and the
    // particles' values move with it through resize and permute.
    p.history.add({"a_first_variable", "Pa", "another model's", 0.0}, p.size());
    CHECK(p.history.names() == std::vector<std::string>{"a_first_variable", "toy_shear_strain"});
    p.permute({3, 2, 1, 0});
    CHECK(p.history.values[1][0] == 3.25);
    p.resize(6);
    CHECK(p.history.values[1].size() == 6);
    CHECK_THROWS_AS(p.history.add({"toy_shear_strain", "m", "other units", 0.0}, p.size()),
                    std::invalid_argument);
    fs::remove_all(dir);
}

TEST_CASE("the pair loop gives the history columns of materials that declare none zero rates") {
    // A regolith run whose particle set carries a column (of a model not in the run): the
    // evaluation sizes its rate and writes zeros; the material table maps no column.
    const DruckerPrager dp{
        .density = 1500.0, .bulk_modulus = 1e6, .shear_modulus = 5e5, .friction_angle = 0.5};
    const std::vector<Material> materials = {Material{"soil", dp}};
    ParticleSet p;
    p.dim = 2;
    p.history.add({"toy_shear_strain", "-", "a column no material evolves", 0.0}, 0);
    std::int64_t id = 0;
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
            p.push_back({0.01 * i, 0.01 * j, 0.0}, {0.1 * j, 0.0, 0.0}, dp.density, 0.15, 0.02,
                        0, 0, ParticleKind::dynamic, id++);
    for (double& v : p.history.values[0]) v = 1.0;
    const MaterialTable table(materials, p.dim, p.history);
    CHECK(table.history_columns[0].empty());
    CHECK(table.history_index[0] == std::vector<int>{-1});
    NeighbourList nl;
    nl.build(p, 0.002, 0.0);
    nl.select_pairs(p, p.x);
    Derivatives d;
    d.resize(p.size(), false, 1);
    for (double& r : d.dhistory[0]) r = 7.0;  // a rate left from another particle
    compute_derivatives(p, nl, table, PhysicsParameters{}, d);
    REQUIRE(d.dhistory.size() == 1);
    for (const double r : d.dhistory[0]) CHECK(r == 0.0);
}
