#include "sph/simulation.hpp"

#include <algorithm>
#include <csignal>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "io/checkpoint.hpp"
#include "io/json.hpp"
#include "io/snapshot.hpp"
#include "io/time_series.hpp"
#include "parallel/mpi_env.hpp"

namespace regosph {

Simulation::Simulation(int dim) {
    if (dim != 2 && dim != 3)
        throw std::invalid_argument("simulation: dim = " + std::to_string(dim) +
                                    " must be 2 (plane strain) or 3");
    particles_.dim = dim;
}

int Simulation::add_material(const Material& m) {
    validate(m);
    for (const Material& other : materials_)
        if (other.name == m.name)
            throw std::invalid_argument("material '" + m.name + "': name already used");
    materials_.push_back(m);
    table_.reset();
    return static_cast<int>(materials_.size()) - 1;
}

int Simulation::add_body(const std::string& name, int material, Motion motion,
                         const std::vector<geometry::Point>& positions, double spacing,
                         double smoothing_length, geometry::Point velocity,
                         const std::optional<geometry::Kinematics>& kinematics) {
    const std::string where = "body '" + name + "': ";
    if (name.empty()) throw std::invalid_argument("body: name must not be empty");
    if (decomposition_.distributed() && mpi::size() > 1)
        throw std::invalid_argument(where + "bodies must be added before the first run or step "
                                    "(the particles are distributed over the MPI ranks now)");
    for (const Body& b : bodies_)
        if (b.name == name) throw std::invalid_argument(where + "name already used");
    if (material < 0 || material >= static_cast<int>(materials_.size()))
        throw std::invalid_argument(where + "material index " + std::to_string(material) +
                                    " does not name an added material");
    if (!(std::isfinite(spacing) && spacing > 0.0))
        throw std::invalid_argument(where + "spacing = " + std::to_string(spacing) +
                                    " m must be positive");
    if (!(std::isfinite(smoothing_length) && smoothing_length > 0.0))
        throw std::invalid_argument(where + "smoothing_length = " +
                                    std::to_string(smoothing_length) + " m must be positive");
    if (positions.empty())
        throw std::invalid_argument(where + "positions: the body has no particles (empty body)");
    for (std::size_t i = 0; i < positions.size(); ++i)
        for (int d = 0; d < 3; ++d)
            if (!std::isfinite(positions[i][d]))
                throw std::invalid_argument(where + "positions: coordinate " +
                                            std::string(1, "xyz"[d]) + " of particle " +
                                            std::to_string(i) + " is not a finite number");
    for (int d = 0; d < 3; ++d)
        if (!std::isfinite(velocity[d]))
            throw std::invalid_argument(where + "velocity must be finite");
    const Material& m = materials_[material];
    const bool rigid = std::holds_alternative<Rigid>(m.model);
    if (motion == Motion::dynamic && rigid)
        throw std::invalid_argument(where + "material '" + m.name +
                                    "' is Rigid, which only boundary (fixed) bodies can use");
    if (motion == Motion::dynamic && particles_.dim == 2 && velocity[2] != 0.0)
        throw std::invalid_argument(where + "velocity: a 2D run has no z velocity");
    if (motion != Motion::dynamic && velocity != geometry::Point{0, 0, 0})
        throw std::invalid_argument(where + "velocity: only dynamic bodies take an initial "
                                    "velocity (a kinematic body moves by its kinematics)");
    if (motion != Motion::kinematic && kinematics)
        throw std::invalid_argument(where + "kinematics: only a kinematic body follows "
                                    "prescribed motion (motion is '" +
                                    std::string(motion_name(motion)) + "')");
    if (motion == Motion::kinematic && !kinematics)
        throw std::invalid_argument(where + "kinematics: a kinematic body needs its motion");
    const geometry::Kinematics prescribed =
        kinematics ? geometry::validated(*kinematics, particles_.dim, where) : geometry::Kinematics{};

    check_overlap(name, positions, spacing);

    const double rho = reference_density(m);
    const double volume = std::pow(spacing, particles_.dim);
    const auto kind = motion == Motion::dynamic ? ParticleKind::dynamic : ParticleKind::boundary;
    const auto body_index = static_cast<std::int32_t>(bodies_.size());
    const std::array<double, 3> v0 = motion == Motion::dynamic ? velocity : geometry::Point{};
    std::int64_t next_id = particles_.size() == 0
                               ? 0
                               : *std::max_element(particles_.id.begin(), particles_.id.end()) + 1;
    Body body{name, material, motion, spacing, smoothing_length, positions.size(), next_id,
              prescribed, {}};
    particles_.reserve(particles_.size() + positions.size());
    for (const auto& pos : positions) {
        geometry::Point x = pos;
        if (particles_.dim == 2) x[2] = 0.0;
        particles_.push_back(x, v0, rho, rho * volume, smoothing_length, material, body_index,
                             kind, next_id++);
        if (motion == Motion::kinematic) body.reference_positions.push_back(x);
    }
    bodies_.push_back(std::move(body));
    integrator_.reset();
    return body_index;
}

// Bodies must not overlap: no new particle may lie within half a spacing of another particle
// (existing or new). A hash grid with cells of that size makes this linear in the count.
void Simulation::check_overlap(const std::string& name, const std::vector<geometry::Point>& pts,
                               double spacing) const {
    double min_gap = 0.5 * spacing;
    for (const Body& b : bodies_) min_gap = std::min(min_gap, 0.5 * b.spacing);
    const double cell = min_gap;
    const int dim = particles_.dim;
    const auto key = [&](const geometry::Point& x, int dx, int dy, int dz) {
        const auto c = [&](int d, int off) {
            return static_cast<std::int64_t>(std::floor(x[d] / cell)) + off;
        };
        const std::int64_t kz = dim == 3 ? c(2, dz) : 0;
        return (c(0, dx) * 73856093) ^ (c(1, dy) * 19349663) ^ (kz * 83492791);
    };
    std::unordered_multimap<std::int64_t, std::pair<geometry::Point, std::int32_t>> grid;
    grid.reserve(particles_.size() + pts.size());
    for (std::size_t i = 0; i < particles_.size(); ++i) {
        const geometry::Point x{particles_.x[0][i], particles_.x[1][i], particles_.x[2][i]};
        grid.emplace(key(x, 0, 0, 0), std::make_pair(x, particles_.body[i]));
    }
    const auto new_body = static_cast<std::int32_t>(bodies_.size());
    const int zr = dim == 3 ? 1 : 0;
    for (const auto& raw : pts) {
        geometry::Point x = raw;
        if (dim == 2) x[2] = 0.0;
        for (int dx = -1; dx <= 1; ++dx)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dz = -zr; dz <= zr; ++dz) {
                    const auto range = grid.equal_range(key(x, dx, dy, dz));
                    for (auto it = range.first; it != range.second; ++it) {
                        const auto& [y, other] = it->second;
                        double d2 = 0.0;
                        for (int d = 0; d < dim; ++d) d2 += (x[d] - y[d]) * (x[d] - y[d]);
                        if (d2 < min_gap * min_gap) {
                            std::ostringstream os;
                            os << "body '" << name << "': positions overlap "
                               << (other == new_body ? "each other" : "body '" + bodies_[other].name + "'")
                               << " near (" << x[0] << ", " << x[1] << ", " << x[2]
                               << ") m: particles closer than half a spacing";
                            throw std::invalid_argument(os.str());
                        }
                    }
                }
        grid.emplace(key(x, 0, 0, 0), std::make_pair(x, new_body));
    }
}

int Simulation::add_observer(const std::string& name, geometry::ShapePtr region, int material,
                             int body) {
    const std::string where = "observer '" + name + "': ";
    if (name.empty()) throw std::invalid_argument("observer: name must not be empty");
    // The name heads CSV columns ("<name>.count [-]") and HDF5 groups.
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
            throw std::invalid_argument(where + "name may hold letters, digits, '_' and '-' only");
    for (const Observer& o : observers_)
        if (o.name == name) throw std::invalid_argument(where + "name already used");
    if (!region) throw std::invalid_argument(where + "region must be a shape");
    if (region->dim() != particles_.dim)
        throw std::invalid_argument(where + "region is a " + std::to_string(region->dim()) +
                                    "D shape in a " + std::to_string(particles_.dim) + "D run");
    if (material < -1 || material >= static_cast<int>(materials_.size()))
        throw std::invalid_argument(where + "material index " + std::to_string(material) +
                                    " does not name an added material");
    if (body < -1 || body >= static_cast<int>(bodies_.size()))
        throw std::invalid_argument(where + "body index " + std::to_string(body) +
                                    " does not name an added body");
    observers_.push_back(Observer{name, std::move(region), material, body});
    return static_cast<int>(observers_.size()) - 1;
}

std::vector<ObserverReading> Simulation::observe() const {
    return read_observers(particles_, observers_, bodies_, time_);
}

std::vector<BodyLoad> Simulation::body_loads() {
    validate_setup();
    ensure_integrator();
    if (!has_kinematic_bodies(bodies_)) return std::vector<BodyLoad>(bodies_.size());
    integrator_->prepare(particles_, neighbours_, physics_, time_, true);
    auto loads = kinematic_body_loads(particles_, neighbours_, *table_, physics_, bodies_, time_);
    release_halo();
    return loads;
}

void Simulation::set_domain(const geometry::Point& lo, const geometry::Point& hi) {
    for (int d = 0; d < particles_.dim; ++d)
        if (!(std::isfinite(lo[d]) && std::isfinite(hi[d]) && hi[d] > lo[d]))
            throw std::invalid_argument("domain: upper corner must exceed the lower corner in " +
                                        std::string(1, "xyz"[d]));
    domain_ = geometry::BoundingBox{lo, hi};
}

std::ptrdiff_t Simulation::first_outside_domain() const {
    if (!domain_) return -1;
    for (std::size_t i = 0; i < particles_.owned(); ++i)
        for (int d = 0; d < particles_.dim; ++d)
            if (!(particles_.x[d][i] >= domain_->lo[d] && particles_.x[d][i] <= domain_->hi[d]))
                return static_cast<std::ptrdiff_t>(i);
    return -1;
}

void Simulation::validate_setup() const {
    // Every rank reaches the same verdict: the setup is replicated, or the counts are global.
    const auto& p = particles_;
    if (!mpi::any(p.owned() > 0))
        throw std::invalid_argument("simulation: the setup has zero particles");
    const bool dynamic = std::any_of(p.kind.begin(), p.kind.begin() + p.owned(),
                                     [](ParticleKind k) { return k == ParticleKind::dynamic; });
    if (!mpi::any(dynamic))
        throw std::invalid_argument("simulation: no dynamic body; nothing would move");
    for (int d = 0; d < 3; ++d)
        if (!std::isfinite(physics_.gravity[d]))
            throw std::invalid_argument("physics: gravity must be finite");
    if (p.dim == 2 && physics_.gravity[2] != 0.0)
        throw std::invalid_argument("physics: gravity has a z component in a 2D run");
    const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
    if (!(physics_.av_alpha >= 0.0 && physics_.av_beta >= 0.0 && physics_.av_epsilon > 0.0))
        throw std::invalid_argument(
            "physics: av_alpha and av_beta must be >= 0 and av_epsilon > 0");
    if (!positive(physics_.courant) || physics_.courant > 1.0)
        throw std::invalid_argument("physics: courant must lie in (0, 1]");
    std::ostringstream outside;
    if (const auto i = first_outside_domain(); i >= 0) {
        const auto u = static_cast<std::size_t>(i);
        outside << "body '" << bodies_[p.body[u]].name << "': particle id " << p.id[u] << " at ("
                << p.x[0][u] << ", " << p.x[1][u] << ", " << p.x[2][u]
                << ") m lies outside the domain";
    }
    if (const std::string e = mpi::first_error(outside.str()); !e.empty())
        throw std::invalid_argument(e);
    const auto& io = integrator_options_;
    if (!positive(io.tolerance)) throw std::invalid_argument("integrator: tolerance must be > 0");
    if (!positive(io.dt_min)) throw std::invalid_argument("integrator: dt_min must be > 0 s");
    if (!positive(io.dt_max) || io.dt_max < io.dt_min)
        throw std::invalid_argument("integrator: dt_max must be positive and >= dt_min");
    if (!(io.dt_initial >= 0.0)) throw std::invalid_argument("integrator: dt_initial must be >= 0");
    if (!(io.neighbour_skin >= 0.0 && io.neighbour_skin < 1.0))
        throw std::invalid_argument("integrator: neighbour_skin must lie in [0, 1)");
}

void Simulation::ensure_integrator() {
    if (!table_) table_ = std::make_unique<MaterialTable>(materials_, particles_.dim);
    if (!decomposition_.distributed()) decomposition_.distribute(particles_);
    if (!integrator_) {
        integrator_ = std::make_unique<AdaptiveHeun>(integrator_options_);
        integrator_->set_bodies(&bodies_);
        integrator_->set_domain(&decomposition_);
        integrator_->place(particles_, time_);
    }
}

StepReport Simulation::advance(double dt_cap) {
    if (!(dt_cap > 0.0)) throw std::invalid_argument("advance: dt_cap must be > 0 s");
    validate_setup();
    ensure_integrator();
    StepReport r;
    try {
        r = integrator_->step(particles_, neighbours_, *table_, physics_, time_, step_, dt_cap);
    } catch (...) {
        release_halo();
        throw;
    }
    release_halo();
    time_ += r.dt;
    ++step_;
    return r;
}

const Derivatives& Simulation::evaluate_derivatives() {
    validate_setup();
    ensure_integrator();
    integrator_->evaluate(particles_, neighbours_, *table_, physics_, time_, true, scratch_);
    release_halo();
    const std::size_t n = particles_.size();
    for (auto& c : scratch_.dx)
        if (!c.empty()) c.resize(n);
    for (auto& c : scratch_.dv) c.resize(n);
    scratch_.drho.resize(n);
    for (auto& c : scratch_.dstress) c.resize(n);
    scratch_.dplastic.resize(n);
    scratch_.yielding.resize(n);
    scratch_.dt_limit.resize(n);
    return scratch_;
}

std::string Simulation::describe(const RunOptions& o) const {
    io::Json j;
    j["regosph_version"] = io::version_string();
    j["dim"] = particles_.dim;
    j["physics"] = {{"gravity_m_s2", physics_.gravity},
                    {"av_alpha", physics_.av_alpha},
                    {"av_beta", physics_.av_beta},
                    {"av_epsilon", physics_.av_epsilon},
                    {"courant", physics_.courant}};
    j["integrator"] = {{"scheme", "Heun RK2 with embedded Euler error estimate"},
                       {"tolerance", integrator_options_.tolerance},
                       {"dt_initial_s", integrator_options_.dt_initial},
                       {"dt_min_s", integrator_options_.dt_min},
                       {"dt_max_s", integrator_options_.dt_max},
                       {"neighbour_skin_fraction_of_h", integrator_options_.neighbour_skin}};
    j["materials"] = io::Json::array();
    for (const Material& m : materials_) j["materials"].push_back(io::describe_material(m));
    j["bodies"] = io::Json::array();
    for (const Body& b : bodies_) {
        io::Json body = {{"name", b.name},
                         {"material", materials_[b.material].name},
                         {"motion", motion_name(b.motion)},
                         {"spacing_m", b.spacing},
                         {"smoothing_length_m", b.smoothing_length},
                         {"particles", b.particle_count}};
        if (b.motion == Motion::kinematic) {
            const geometry::Kinematics& k = b.kinematics;
            io::Json translation = io::Json::array();
            for (const auto& seg : k.translation)
                translation.push_back({{"until_s", seg.until}, {"velocity_m_s", seg.velocity}});
            body["kinematics"] = {{"pivot_m", k.pivot},
                                  {"axis", k.axis},
                                  {"angular_velocity_rad_s", k.angular_velocity},
                                  {"rpm", k.angular_velocity * 30.0 / M_PI},
                                  {"translation", translation}};
        }
        j["bodies"].push_back(body);
    }
    j["observers"] = io::Json::array();
    for (const Observer& o : observers_) {
        const geometry::BoundingBox bb = o.region->bounds();
        j["observers"].push_back(
            {{"name", o.name},
             {"material", o.material >= 0 ? materials_[o.material].name : std::string("any")},
             {"moves_with_body", o.body >= 0 ? bodies_[o.body].name : std::string("none")},
             {"region_bounds_lo_m", bb.lo},
             {"region_bounds_hi_m", bb.hi}});
    }
    j["run"] = {{"start_time_s", time_},
                {"end_time_s", o.end_time},
                {"snapshot_interval_s", o.snapshot_interval},
                {"diagnostics_every", o.diagnostics_every},
                {"observe_every", o.observe_every},
                {"mpi_ranks", mpi::size()}};
    j["metadata"] = io::Json::object();
    for (const auto& [k, v] : o.metadata) j["metadata"][k] = v;
    return j.dump();
}

namespace {

std::string format_duration(double seconds) {
    const long s = static_cast<long>(std::max(0.0, seconds) + 0.5);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
    return buf;
}

const std::vector<std::string> kDiagnosticColumns = {
    "time [s]",          "dt [s]",           "kinetic_energy [J]", "momentum_x [kg m/s]",
    "momentum_y [kg m/s]", "momentum_z [kg m/s]", "max_speed [m/s]",  "yielding [-]",
    "mass [kg]",         "rejected_steps [-]"};

}  // namespace

namespace {

namespace fs = std::filesystem;

// Files a run writes into its directory (and --overwrite removes).
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

// Snapshots later than `time` (unreadable ones too): a continued run writes them again.
void remove_snapshots_after(const fs::path& dir, double time) {
    std::error_code ec;
    std::vector<fs::path> doomed;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (!(name.starts_with("snapshot_") && name.ends_with(".h5"))) continue;
        double t = 0.0;
        try {
            io::read_snapshot(e.path(), &t, nullptr);
        } catch (const std::exception&) {
            t = std::numeric_limits<double>::infinity();  // unreadable: redo it
        }
        if (t > time) doomed.push_back(e.path());
    }
    for (const auto& f : doomed) fs::remove(f, ec);
}

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

// SIGTERM / SIGINT during run(): remember the signal, finish the step, checkpoint, return.
volatile std::sig_atomic_t g_pending_signal = 0;
extern "C" void remember_signal(int sig) { g_pending_signal = sig; }

class SignalGuard {
public:
    explicit SignalGuard(bool active) : active_(active) {
        if (!active_) return;
        g_pending_signal = 0;
        struct sigaction sa {};
        sa.sa_handler = remember_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, &old_term_);
        sigaction(SIGINT, &sa, &old_int_);
    }
    ~SignalGuard() {
        if (!active_) return;
        sigaction(SIGTERM, &old_term_, nullptr);
        sigaction(SIGINT, &old_int_, nullptr);
    }
    SignalGuard(const SignalGuard&) = delete;
    SignalGuard& operator=(const SignalGuard&) = delete;

private:
    bool active_;
    struct sigaction old_term_ {}, old_int_ {};
};

}  // namespace

std::string Simulation::restart(const std::string& run_dir, std::vector<std::string>* rejected) {
    if (decomposition_.distributed() && mpi::size() > 1)
        throw std::invalid_argument("restart: call it on a new setup, before any run or step "
                                    "(the particles are distributed over the MPI ranks now)");
    validate_setup();
    const fs::path dir(run_dir);
    if (!fs::is_directory(dir))
        throw std::invalid_argument("restart: run directory '" + run_dir + "' does not exist");
    io::LoadedCheckpoint ck = io::load_newest_checkpoint(dir);
    if (rejected) *rejected = ck.rejected;
    const ParticleSet& q = ck.particles;
    const auto mismatch = [&](const std::string& what) {
        throw std::invalid_argument("restart: checkpoint '" + ck.file.string() +
                                    "' does not belong to this setup: " + what + " differ");
    };
    if (q.dim != particles_.dim) mismatch("dimensions");
    if (q.size() != particles_.size()) mismatch("particle counts");
    if (q.id != particles_.id) mismatch("particle ids");
    if (q.material != particles_.material) mismatch("particle materials");
    if (q.body != particles_.body) mismatch("particle bodies");
    if (q.kind != particles_.kind) mismatch("particle kinds");
    particles_ = q;  // every particle, on every rank: the next run distributes them
    decomposition_ = parallel::Domain{};
    time_ = ck.state.time;
    step_ = ck.state.step;
    resumed_from_ = run_dir;
    resumed_dt_next_ = ck.state.dt_next;
    integrator_.reset();
    // The snapshots written after the checkpoint are dropped by run(), once it has accepted its
    // options: a refused run leaves the directory as it was.
    return ck.file.string();
}

RunSummary Simulation::run(const RunOptions& o) {
    if (!(std::isfinite(o.end_time) && o.end_time > time_))
        throw std::invalid_argument("run: end_time = " + std::to_string(o.end_time) +
                                    " s must be a finite time after the current time " +
                                    std::to_string(time_) + " s");
    if (!(std::isfinite(o.snapshot_interval) && o.snapshot_interval >= 0.0))
        throw std::invalid_argument("run: snapshot_interval must be >= 0 s");
    if (o.diagnostics_every < 1) throw std::invalid_argument("run: diagnostics_every must be >= 1");
    if (o.observe_every < 1) throw std::invalid_argument("run: observe_every must be >= 1");
    if (o.checkpoint_every < 0) throw std::invalid_argument("run: checkpoint_every must be >= 0");
    if (!(o.checkpoint_interval >= 0.0))
        throw std::invalid_argument("run: checkpoint_interval must be >= 0 s");
    validate_setup();
    const bool resumed = !resumed_from_.empty();
    if (resumed && fs::path(o.output_dir) != fs::path(resumed_from_))
        throw std::invalid_argument("run: output_dir '" + o.output_dir +
                                    "' must be the directory restarted from, '" +
                                    resumed_from_ + "'");
    // Rank 0 looks (it may start removing files while another rank still lists the directory):
    // every rank must take the same branch.
    if (!resumed && !o.output_dir.empty() &&
        mpi::any(mpi::rank() == 0 && holds_run(o.output_dir))) {
        if (!o.overwrite)
            throw std::invalid_argument("run: output_dir '" + o.output_dir +
                                        "' already holds a run; pass overwrite to replace it "
                                        "or restart from it");
        mpi::on_root_first([&] { remove_run_files(o.output_dir); });
    }
    if (resumed) mpi::on_root_first([&] { remove_snapshots_after(resumed_from_, time_); });
    ensure_integrator();
    if (resumed) integrator_->set_proposed_dt(resumed_dt_next_);
    resumed_from_.clear();

    const bool root = mpi::rank() == 0;
    std::unique_ptr<io::SnapshotWriter> writer;
    std::unique_ptr<io::CsvTimeSeries> diagnostics;
    std::unique_ptr<io::CsvTimeSeries> observations;
    std::map<std::string, std::string> attributes = o.metadata;
    // Loads on kinematic bodies join the diagnostics; in 2D they are per unit depth.
    const bool planar = particles_.dim == 2;
    std::vector<std::size_t> loaded;
    std::vector<std::string> diagnostic_columns = kDiagnosticColumns;
    for (std::size_t k = 0; k < bodies_.size(); ++k) {
        if (bodies_[k].motion != Motion::kinematic) continue;
        loaded.push_back(k);
        const std::string& b = bodies_[k].name;
        const std::string force_unit = planar ? " [N/m]" : " [N]";
        for (const char* c : {"x", "y", "z"})
            if (!planar || c[0] != 'z') diagnostic_columns.push_back(b + ".force_" + c + force_unit);
        if (planar)
            diagnostic_columns.push_back(b + ".torque_z [N]");  // N m per metre of depth
        else
            for (const char* c : {"x", "y", "z"}) diagnostic_columns.push_back(b + ".torque_" + c + " [N m]");
    }
    std::vector<std::string> observer_columns = {"time [s]", "step [-]"};
    for (const Observer& ob : observers_) {
        observer_columns.push_back(ob.name + ".count [-]");
        observer_columns.push_back(ob.name + (planar ? ".mass [kg/m]" : ".mass [kg]"));
    }
    // Output: snapshots and checkpoints are written by all ranks together; the text files and
    // time series by rank 0 (the others compute their share of each row).
    const bool writing = !o.output_dir.empty();
    const bool observing = writing && !observers_.empty();
    if (writing) {
        writer = std::make_unique<io::SnapshotWriter>(o.output_dir);  // checks writability
        mpi::on_root_first([&] {
            if (!resumed)
                io::write_text_atomically(std::filesystem::path(o.output_dir) / "run.json",
                                          describe(o) + "\n");
            diagnostics = std::make_unique<io::CsvTimeSeries>(
                std::filesystem::path(o.output_dir) / "diagnostics.csv", diagnostic_columns,
                resumed ? time_ : std::numeric_limits<double>::quiet_NaN());
            if (observing)
                observations = std::make_unique<io::CsvTimeSeries>(
                    std::filesystem::path(o.output_dir) / "observers.csv", observer_columns,
                    resumed ? time_ : std::numeric_limits<double>::quiet_NaN());
        });
    }
    RunSummary summary;
    std::int64_t rejected_since_row = 0;
    double last_dt = 0.0;
    std::int64_t last_row_step = -1;
    const auto write_diagnostics = [&] {
        if (!writing || step_ == last_row_step) return;  // one row per step at most
        last_row_step = step_;
        const Diagnostics g = compute_diagnostics(particles_);
        std::vector<double> row = {time_, last_dt, g.kinetic_energy, g.momentum[0], g.momentum[1],
                                   g.momentum[2], g.max_speed, static_cast<double>(g.yielding),
                                   g.mass, static_cast<double>(rejected_since_row)};
        if (!loaded.empty()) {
            integrator_->prepare(particles_, neighbours_, physics_, time_, true);
            const auto loads =
                kinematic_body_loads(particles_, neighbours_, *table_, physics_, bodies_, time_);
            for (const std::size_t k : loaded) {
                for (int d = 0; d < particles_.dim; ++d) row.push_back(loads[k].force[d]);
                if (planar)
                    row.push_back(loads[k].torque[2]);
                else
                    for (int d = 0; d < 3; ++d) row.push_back(loads[k].torque[d]);
            }
        }
        if (diagnostics) diagnostics->append(row);  // rank 0
        rejected_since_row = 0;
    };
    std::int64_t last_observed_step = -1;
    const auto write_observers = [&] {
        if (!observing || step_ == last_observed_step) return;
        last_observed_step = step_;
        std::vector<double> row = {time_, static_cast<double>(step_)};
        for (const ObserverReading& r : observe()) {
            row.push_back(static_cast<double>(r.count));
            row.push_back(r.mass);
        }
        if (observations) observations->append(row);  // rank 0
    };
    // observers.h5 mirrors observers.csv; rewritten at checkpoints and at the end (rank 0).
    const auto write_observers_h5 = [&] {
        if (!observing) return;
        mpi::on_root_first([&] {
            io::write_time_series_file(std::filesystem::path(o.output_dir) / "observers.h5",
                                       observations->columns(), observations->rows(), o.metadata);
        });
    };
    const auto write_snapshot = [&] {
        if (!writer) return;
        writer->write(particles_, time_, step_, attributes);
        ++summary.snapshots;
    };

    const double t_start = time_;
    const std::int64_t step_start = step_;
    const std::size_t n_dynamic = compute_diagnostics(particles_).dynamic_particles;
    const auto wall_start = std::chrono::steady_clock::now();
    auto last_progress = wall_start;
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    };
    const auto progress = [&](bool force) {
        if (!root || o.progress_interval <= 0.0) return;
        const auto now = std::chrono::steady_clock::now();
        if (!force && std::chrono::duration<double>(now - last_progress).count() < o.progress_interval)
            return;
        last_progress = now;
        const double wall = elapsed();
        const double rate = wall > 0 ? static_cast<double>(n_dynamic * (step_ - step_start)) / wall : 0;
        const double eta = time_ > t_start ? wall * (o.end_time - time_) / (time_ - t_start) : 0.0;
        std::printf("t = %.5f s (%5.1f%%)  step %lld  dt %.3e s  %.3f M particle-steps/s  ETA %s\n",
                    time_, 100.0 * (time_ - t_start) / (o.end_time - t_start),
                    static_cast<long long>(step_), last_dt, rate * 1e-6,
                    format_duration(eta).c_str());
        std::fflush(stdout);
    };

    if (!resumed) {
        write_diagnostics();
        write_observers();
        write_snapshot();
    }
    // Output times lie on the grid k * interval (k = 1, 2, ...), so that a restarted run writes
    // at the same times and takes the same steps as an uninterrupted one.
    const double interval = o.snapshot_interval > 0.0 ? o.snapshot_interval : o.end_time;
    auto next_k = static_cast<std::int64_t>(std::floor(time_ / interval * (1.0 + 1e-12))) + 1;
    double next_output = std::min(o.end_time, static_cast<double>(next_k) * interval);
    bool snapshot_current = true;

    SignalGuard signals(o.checkpoint_on_signal);
    auto last_checkpoint_wall = std::chrono::steady_clock::now();
    const auto write_checkpoint = [&] {
        if (o.output_dir.empty()) return;
        const io::CheckpointState state{time_, step_, integrator_->proposed_dt()};
        summary.last_checkpoint = io::write_checkpoint(o.output_dir, particles_, state).string();
        write_observers_h5();
        last_checkpoint_wall = std::chrono::steady_clock::now();
    };
    // Time differences below this are round-off of the summed steps.
    const double t_eps = 1e-12 * std::max(1.0, std::abs(o.end_time));
    // A blow-up keeps the last good state: it is written next to the checkpoints as
    // crash_<step>.h5, with the report as its attribute `crash_report`.
    const auto crash = [&](const BlowUpError& e) -> BlowUpError {
        if (diagnostics) diagnostics->flush();
        std::string report = e.what();
        try {
            write_observers_h5();
        } catch (const std::exception&) {  // the crash report matters more
        }
        if (writing) {
            char name[48];
            std::snprintf(name, sizeof name, "crash_%012lld.h5", static_cast<long long>(step_));
            const auto file = std::filesystem::path(o.output_dir) / name;
            try {
                io::write_particle_file(file, particles_, time_, step_, {{"crash_report", report}});
                report += "\ncrash dump of the last good state: " + file.string();
            } catch (const std::exception& w) {
                report += "\n(no crash dump: " + std::string(w.what()) + ")";
            }
        }
        return BlowUpError(report);
    };
    while (time_ < o.end_time - t_eps) {
        const double target = std::min(next_output, o.end_time);
        StepReport r;
        try {
            r = integrator_->step(particles_, neighbours_, *table_, physics_, time_, step_,
                                  target - time_);
        } catch (const BlowUpError& e) {
            throw crash(e);
        }
        time_ = (time_ + r.dt >= target - t_eps) ? target : time_ + r.dt;
        std::ostringstream left;
        if (const auto i = first_outside_domain(); i >= 0) {
            const auto u = static_cast<std::size_t>(i);
            left << "blow-up at t = " << time_ << " s, step " << step_ + 1 << ": particle id "
                 << particles_.id[u] << " left the domain at (" << particles_.x[0][u] << ", "
                 << particles_.x[1][u] << ", " << particles_.x[2][u] << ") m";
        }
        if (domain_) {
            if (const std::string e = mpi::first_error(left.str()); !e.empty())
                throw crash(BlowUpError(e));
        }
        ++step_;
        last_dt = r.dt;
        rejected_since_row += r.rejected;
        summary.rejected += r.rejected;
        snapshot_current = false;
        if (step_ % o.diagnostics_every == 0) write_diagnostics();
        if (step_ % o.observe_every == 0) write_observers();
        if (time_ >= next_output - t_eps) {
            write_snapshot();
            snapshot_current = true;
            ++next_k;
            next_output = std::min(o.end_time, static_cast<double>(next_k) * interval);
        }
        progress(false);
        const bool by_steps = o.checkpoint_every > 0 && step_ % o.checkpoint_every == 0;
        // Wall clocks and signals differ between ranks: decide together.
        const bool by_wall =
            o.checkpoint_interval > 0.0 &&
            mpi::any(std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                   last_checkpoint_wall)
                         .count() >= o.checkpoint_interval);
        const auto signal = o.checkpoint_on_signal
                                ? static_cast<int>(mpi::max(std::int64_t{g_pending_signal}))
                                : 0;
        if (signal != 0) {
            summary.interrupted_by = signal;
            if (diagnostics) diagnostics->flush();
            write_checkpoint();
            if (root)
                std::printf("interrupted by signal %d at t = %.6g s, step %lld; %s\n",
                            summary.interrupted_by, time_, static_cast<long long>(step_),
                            summary.last_checkpoint.empty()
                                ? "no output directory, nothing saved"
                                : ("checkpoint " + summary.last_checkpoint).c_str());
            break;
        }
        if (by_steps || by_wall) write_checkpoint();
    }
    if (summary.interrupted_by == 0) {
        if (!snapshot_current) write_snapshot();
        write_diagnostics();
        write_observers();
        write_observers_h5();
        progress(true);
    }

    summary.steps = step_ - step_start;
    summary.wall_seconds = elapsed();
    summary.particle_steps_per_second =
        summary.wall_seconds > 0
            ? static_cast<double>(n_dynamic * summary.steps) / summary.wall_seconds
            : 0.0;
    summary.neighbour_builds = neighbours_.build_count();
    summary.phases = integrator_->phase_times();
    release_halo();
    return summary;
}

}  // namespace regosph
