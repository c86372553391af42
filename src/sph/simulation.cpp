#include "sph/simulation.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "geometry/lattice.hpp"
#include "geometry/spacing.hpp"
#include "io/json.hpp"
#include "io/run_directory.hpp"
#include "io/snapshot.hpp"
#include "parallel/mpi_env.hpp"
#include "sph/recorder.hpp"
#include "sph/signals.hpp"
#include "sph/sleep_regions.hpp"

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
    // Its history variables become fields of the particles (core/history.hpp).
    register_history(m, particles_.history, particles_.size());
    materials_.push_back(m);
    table_.reset();
    return static_cast<int>(materials_.size()) - 1;
}

namespace {

// Names head CSV columns and HDF5 groups and appear in messages: a newline or another control
// character in one would break the files written with it.
void check_name(const std::string& what, const std::string& name) {
    if (name.empty()) throw std::invalid_argument(what + ": name must not be empty");
    for (const char c : name)
        if (std::iscntrl(static_cast<unsigned char>(c))) {
            std::string shown;  // the name with its control characters made visible
            for (const char d : name) {
                char code[8];
                std::snprintf(code, sizeof code, "\\x%02x", static_cast<unsigned char>(d));
                shown += std::iscntrl(static_cast<unsigned char>(d)) ? std::string(code) : std::string(1, d);
            }
            throw std::invalid_argument(what + " '" + shown +
                                        "': name holds a control character (newline, tab, ...)");
        }
}

// A body's spacing is the edge of each particle's volume (mass = rho spacing^dim): it must be
// the distance its particles were placed at. Their median nearest-neighbour distance is
// 1 spacing on square and cubic lattices and 1.07 on the hexagonal one; 20 % either way is
// accepted. A handful of particles (a probe, a pair in a test) forms no lattice: bodies of fewer
// than kSpacingCheckMinParticles particles are not checked.
constexpr double kNeighbourDistanceMin = 0.8, kNeighbourDistanceMax = 1.25;  // [spacing]
constexpr std::size_t kSpacingCheckMinParticles = 10;
// The support radius h must reach well past the nearest neighbours, which sit 1 to 1.07
// spacings away: at h = 1.2 spacings they are at 0.83-0.89 h, where the cubic spline is below
// 1 % of its peak and its gradient below 10 %, so particles hardly feel each other and bodies
// pass through one another. regosph's setups use 2.5 spacings.
constexpr double kMinSupportPerSpacing = 1.2;

void check_resolution(const std::string& where, const std::vector<geometry::Point>& positions,
                      double spacing, double h, int dim) {
    if (h < kMinSupportPerSpacing * spacing) {
        std::ostringstream os;
        os << where << "smoothing_length = " << h << " m is " << h / spacing
           << " spacings; the kernel support radius must be at least " << kMinSupportPerSpacing
           << " x spacing (" << kMinSupportPerSpacing * spacing
           << " m) for particles to feel their nearest neighbours (1-1.07 spacings away); "
              "2.5 x spacing is usual";
        throw std::invalid_argument(os.str());
    }
    if (positions.size() < kSpacingCheckMinParticles) return;
    const double d = geometry::median_nearest_distance(positions, dim,
                                                       kNeighbourDistanceMax * spacing);
    if (std::isnan(d) || (d >= kNeighbourDistanceMin * spacing && d <= kNeighbourDistanceMax * spacing))
        return;
    std::ostringstream os;
    os << where << "spacing = " << spacing << " m does not match the positions: the median "
       << "distance between nearest particles is ";
    if (std::isinf(d))
        os << "more than " << kNeighbourDistanceMax * spacing << " m";
    else
        os << d << " m (" << d / spacing << " spacings)";
    os << ", and " << kNeighbourDistanceMin << "-" << kNeighbourDistanceMax
       << " spacings are accepted. The spacing sets each particle's volume, spacing^" << dim
       << ", and so its mass: give the spacing the positions were made with";
    throw std::invalid_argument(os.str());
}

}  // namespace

int Simulation::add_body(const std::string& name, int material, const std::string& motion,
                         const std::vector<geometry::Point>& positions, double spacing,
                         double smoothing_length, geometry::Point velocity,
                         const std::optional<geometry::Kinematics>& kinematics,
                         const std::optional<geometry::RigidSpec>& rigid_spec) {
    const std::string where = "body '" + name + "': ";
    if (positions.empty())
        throw std::invalid_argument(where + "positions: the body has no particles (empty body)");
    for (std::size_t i = 0; i < positions.size(); ++i)
        for (int d = 0; d < 3; ++d)
            if (!std::isfinite(positions[i][d]))
                throw std::invalid_argument(where + "positions: coordinate " +
                                            std::string(1, "xyz"[d]) + " of particle " +
                                            std::to_string(i) + " is not a finite number");
    Body body = make_body(name, material, motion, positions, spacing, smoothing_length, velocity,
                          kinematics, rigid_spec);
    check_resolution(where, positions, spacing, smoothing_length, particles_.dim);
    // Every rank sees all the new positions and its own particles: each pair is checked on
    // the rank that holds the older particle.
    agree([&] { check_overlap(name, spacing, true, [&](const auto& visit) {
        for (const auto& x : positions) visit(x);
    }); });
    const parallel::Share share =
        split_setup_ ? parallel::setup_share(positions.size()) : parallel::Share{0, positions.size()};
    return append_body(std::move(body), motion, velocity, positions.size(), share,
                       [&](const auto& visit) {
                           for (std::size_t i = share.first; i < share.last; ++i) visit(positions[i]);
                       });
}

int Simulation::add_filled_body(const std::string& name, int material, const std::string& motion,
                                const BodyFill& fill, double spacing, double smoothing_length,
                                geometry::Point velocity,
                                const std::optional<geometry::Kinematics>& kinematics,
                                const std::optional<geometry::RigidSpec>& rigid_spec) {
    const std::string where = "body '" + name + "': ";
    if (!fill.shape) throw std::invalid_argument(where + "shape is None");
    if (fill.shape->dim() != particles_.dim)
        throw std::invalid_argument(where + "shape is " + std::to_string(fill.shape->dim()) +
                                    "D, the simulation " + std::to_string(particles_.dim) + "D");
    const auto fill_points = [&](const std::function<void(const geometry::Point&)>& visit) {
        return geometry::for_each_lattice_point(*fill.shape, spacing, fill.origin, fill.lattice,
                                                visit);
    };
    // A kinematic body's reference configuration and a rigid body's mass properties need all
    // of its positions: such bodies (tools, landers) are built whole on every rank.
    if (motion == KinematicMotion::kName || motion == RigidMotion::kName) {
        std::vector<geometry::Point> positions;
        fill_points([&](const geometry::Point& x) { positions.push_back(x); });
        if (positions.empty())
            throw std::invalid_argument(where + "shape: no lattice point lies inside it (empty body)");
        make_body(name, material, motion, positions, spacing, smoothing_length, velocity,
                  kinematics, rigid_spec);  // its checks, before the setup is split
        begin_split_setup();
        return add_body(name, material, motion, positions, spacing, smoothing_length, velocity,
                        kinematics, rigid_spec);
    }
    const std::size_t total = fill_points([](const geometry::Point&) {});
    if (total == 0)
        throw std::invalid_argument(where + "shape: no lattice point lies inside it (empty body)");
    const parallel::Share share = parallel::setup_share(total);
    std::vector<geometry::Point> mine;  // this rank's share of the lattice points
    mine.reserve(share.last - share.first);
    std::size_t i = 0;
    fill_points([&](const geometry::Point& x) {
        if (i >= share.first && i < share.last) mine.push_back(x);
        ++i;
    });
    Body body = make_body(name, material, motion, mine, spacing, smoothing_length, velocity,
                          kinematics, rigid_spec);
    // The lattice has the body's spacing: only the support radius is left to check. Its
    // points do not overlap each other.
    check_resolution(where, {}, spacing, smoothing_length, particles_.dim);
    begin_split_setup();
    agree([&] { check_overlap(name, spacing, false, [&](const auto& visit) { fill_points(visit); }); });
    return append_body(std::move(body), motion, velocity, total, share, [&](const auto& visit) {
        for (const auto& x : mine) visit(x);
    });
}

// The checks every body passes, and its motion from its positions (all of them, or this rank's
// share for a dynamic or fixed body, whose motion does not look at them).
Body Simulation::make_body(const std::string& name, int material, const std::string& motion,
                           const std::vector<geometry::Point>& positions, double spacing,
                           double smoothing_length, geometry::Point velocity,
                           const std::optional<geometry::Kinematics>& kinematics,
                           const std::optional<geometry::RigidSpec>& rigid_spec) const {
    check_name("body", name);
    const std::string where = "body '" + name + "': ";
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
    for (int d = 0; d < 3; ++d)
        if (!std::isfinite(velocity[d]))
            throw std::invalid_argument(where + "velocity must be finite");
    const Material& m = materials_[material];
    const double rho = reference_density(m);
    const double volume = std::pow(spacing, particles_.dim);
    if (!boundary_motion(motion) && boundary_only(m))
        throw std::invalid_argument(where + "material '" + m.name +
                                    "' is Rigid, which only boundary (fixed) bodies can use");
    Body body;
    body.motion = make_motion(motion,
                              MotionInput{positions, rho * volume, spacing, particles_.dim, velocity,
                                          kinematics, rigid_spec},
                              where);
    body.name = name;
    body.material = material;
    body.spacing = spacing;
    body.smoothing_length = smoothing_length;
    return body;
}

// Appends the body's particles of `share` (of its `total`, ids first_id + index in the body),
// given one by one by `points`.
int Simulation::append_body(Body body, const std::string& motion, geometry::Point velocity,
                            std::size_t total, parallel::Share share, const PointSource& points) {
    const Material& m = materials_[body.material];
    const double rho = reference_density(m);
    const double volume = std::pow(body.spacing, particles_.dim);
    const bool boundary = boundary_motion(motion);
    const auto kind = boundary ? ParticleKind::boundary : ParticleKind::dynamic;
    const auto body_index = static_cast<std::int32_t>(bodies_.size());
    // Boundary particles take their velocity from their body's motion (place).
    const std::array<double, 3> v0 = boundary ? geometry::Point{} : velocity;
    body.particle_count = total;
    body.first_id = bodies_.empty() ? 0
                                    : bodies_.back().first_id +
                                          static_cast<std::int64_t>(bodies_.back().particle_count);
    std::int64_t next_id = body.first_id + static_cast<std::int64_t>(share.first);
    const std::size_t count = share.last - share.first;
    particles_.reserve(particles_.size() + count);
    points([&](const geometry::Point& pos) {
        geometry::Point x = pos;
        if (particles_.dim == 2) x[2] = 0.0;
        particles_.push_back(x, v0, rho, rho * volume, body.smoothing_length, body.material,
                             body_index, kind, next_id++);
    });
    // The model's history variables start at their initial values (HistoryVariable::initial).
    const std::vector<int> columns = history_columns(m, particles_.history);
    const std::vector<HistoryVariable> variables = history_variables(m);
    for (std::size_t i = 0; i < columns.size(); ++i) {
        std::vector<double>& column = particles_.history.values[static_cast<std::size_t>(columns[i])];
        std::fill(column.end() - static_cast<std::ptrdiff_t>(count), column.end(),
                  variables[i].initial);
    }
    bodies_.push_back(std::move(body));
    integrator_.reset();
    return body_index;
}

void Simulation::begin_split_setup() {
    if (split_setup_ || mpi::size() == 1) return;
    split_setup_ = true;
    keep_shares(particles_);
}

void Simulation::keep_shares(ParticleSet& q) const {
    std::vector<std::size_t> keep;
    for (std::size_t i = 0; i < q.owned(); ++i) {
        if (q.body[i] < 0 || static_cast<std::size_t>(q.body[i]) >= bodies_.size()) {
            keep.push_back(i);  // another setup's particle: check_same_particles refuses it
            continue;
        }
        const Body& b = bodies_[static_cast<std::size_t>(q.body[i])];
        const auto k = static_cast<std::size_t>(q.id[i] - b.first_id);
        const parallel::Share share = parallel::setup_share(b.particle_count);
        if (k >= share.first && k < share.last) keep.push_back(i);
    }
    q.permute(keep);
    q.resize(keep.size());
    q.for_each_array([](auto& a) { a.shrink_to_fit(); });
}

void Simulation::agree(const std::function<void()>& check) const {
    if (!split_setup_) return check();
    std::string error;
    try {
        check();
    } catch (const std::invalid_argument& e) {
        error = e.what();
    }
    if (const std::string e = mpi::first_error(error); !e.empty()) throw std::invalid_argument(e);
}

// Bodies must not overlap: no new particle may lie within half a spacing of another particle
// (existing, or new when `among_new`). A hash grid with cells of that size makes this linear in
// the count.
void Simulation::check_overlap(const std::string& name, double spacing, bool among_new,
                               const PointSource& pts) const {
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
    grid.reserve(particles_.size());
    for (std::size_t i = 0; i < particles_.size(); ++i) {
        const geometry::Point x{particles_.x[0][i], particles_.x[1][i], particles_.x[2][i]};
        grid.emplace(key(x, 0, 0, 0), std::make_pair(x, particles_.body[i]));
    }
    const auto new_body = static_cast<std::int32_t>(bodies_.size());
    const int zr = dim == 3 ? 1 : 0;
    pts([&](const geometry::Point& raw) {
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
        if (among_new) grid.emplace(key(x, 0, 0, 0), std::make_pair(x, new_body));
    });
}

void Simulation::set_wall_friction(int body, double mu) {
    if (body < 0 || body >= static_cast<int>(bodies_.size()))
        throw std::invalid_argument("wall_friction: body index " + std::to_string(body) +
                                    " does not name an added body");
    Body& b = bodies_[static_cast<std::size_t>(body)];
    const std::string where = "body '" + b.name + "': wall_friction";
    check_wall_friction(is_boundary(b), mu, "body '" + b.name + "': ");
    if (!std::isfinite(mu))
        throw std::invalid_argument(where + ": the Coulomb coefficient must be a finite number");
    b.wall_friction = mu;
    integrator_.reset();
}

void Simulation::set_interface(int body, const InterfaceLaw& law) {
    if (body < 0 || body >= static_cast<int>(bodies_.size()))
        throw std::invalid_argument("contact: body index " + std::to_string(body) +
                                    " does not name an added body");
    Body& b = bodies_[static_cast<std::size_t>(body)];
    check_interface(is_boundary(b), law, "body '" + b.name + "': ");
    b.interface = law;
    integrator_.reset();
}

int Simulation::add_observer(const std::string& name, geometry::ShapePtr region, int material,
                             int body) {
    check_name("observer", name);
    const std::string where = "observer '" + name + "': ";
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
    if (std::none_of(bodies_.begin(), bodies_.end(),
                     [](const Body& b) { return collects_loads(b); }))
        return std::vector<BodyLoad>(bodies_.size());
    integrator_->evaluate(particles_, neighbours_, *table_, physics_, time_, true, scratch_);
    release_halo();
    std::vector<BodyLoad> loads = scratch_.loads;
    loads.resize(bodies_.size());  // one entry per body, zero for those not collected
    return loads;
}

std::vector<std::optional<RigidBodyReport>> Simulation::rigid_body_reports() {
    std::vector<std::optional<RigidBodyReport>> out(bodies_.size());
    if (std::none_of(bodies_.begin(), bodies_.end(), rigid_body)) return out;
    const std::vector<BodyLoad> loads = recorded_loads();
    for (std::size_t k = 0; k < bodies_.size(); ++k)
        if (const geometry::RigidBody* r = rigid_body(bodies_[k]))
            out[k] = report_rigid_body(*r, k < loads.size() ? loads[k] : BodyLoad{}, time_,
                                       particles_.dim);
    return out;
}

std::vector<BodyLoad> Simulation::recorded_loads() {
    if (integrator_ && integrator_->step_loads_step() == step_ && !integrator_->step_loads().empty())
        return integrator_->step_loads();
    return body_loads();  // the last step collected none: the loads of the current state
}

void Simulation::set_bounds(const geometry::Point& lo, const geometry::Point& hi) {
    for (int d = 0; d < particles_.dim; ++d)
        if (!(std::isfinite(lo[d]) && std::isfinite(hi[d]) && hi[d] > lo[d]))
            throw std::invalid_argument("bounds: upper corner must exceed the lower corner in " +
                                        std::string(1, "xyz"[d]));
    bounds_ = geometry::BoundingBox{lo, hi};
}

namespace {
// The first index i < n that `flagged(i)` finds, or -1, for the checks of the particles'
// state that run at every step. Blocks of indices are first tested by `any_in(first, last)`,
// written without a branch per index (a loop that vectorises); only a block in which it finds
// one is searched with `flagged`.
template <class AnyIn, class Flagged>
std::ptrdiff_t first_flagged(std::size_t n, AnyIn&& any_in, Flagged&& flagged) {
    constexpr std::size_t kBlock = 1024;
    for (std::size_t first = 0; first < n; first += kBlock) {
        const std::size_t last = std::min(n, first + kBlock);
        if (!any_in(first, last)) continue;
        for (std::size_t i = first; i < last; ++i)
            if (flagged(i)) return static_cast<std::ptrdiff_t>(i);
    }
    return -1;
}
}  // namespace

std::ptrdiff_t Simulation::first_outside_bounds() const {
    if (!bounds_) return -1;
    const auto& p = particles_;
    const auto& lo = bounds_->lo;
    const auto& hi = bounds_->hi;
    // Coordinate x outside [lo, hi] (NaN is outside); bitwise, without a branch.
    const auto outside = [](double x, double lo, double hi) { return !(x >= lo) | !(x <= hi); };
    return first_flagged(
        p.owned(),
        [&](std::size_t first, std::size_t last) {
            int any = 0;
            for (int d = 0; d < p.dim; ++d) {
                const double* x = p.x[d].data();
                const double lo_d = lo[d], hi_d = hi[d];
                for (std::size_t i = first; i < last; ++i) any |= outside(x[i], lo_d, hi_d);
            }
            return any != 0;
        },
        [&](std::size_t i) {
            bool out = false;
            for (int d = 0; d < p.dim; ++d) out = out || outside(p.x[d][i], lo[d], hi[d]);
            return out;
        });
}

std::ptrdiff_t Simulation::first_out_of_plane_shear() const {
    const auto& p = particles_;
    if (p.dim != 2) return -1;
    // NaN counts (it is not zero).
    const double* xz = p.stress[XZ].data();
    const double* yz = p.stress[YZ].data();
    return first_flagged(
        p.owned(),
        [&](std::size_t first, std::size_t last) {
            int any = 0;
            for (std::size_t i = first; i < last; ++i) any |= (xz[i] != 0.0) | (yz[i] != 0.0);
            return any != 0;
        },
        [&](std::size_t i) { return xz[i] != 0.0 || yz[i] != 0.0; });
}

void Simulation::validate_setup() const {
    // Every rank reaches the same verdict: the setup is replicated, or the counts are global.
    const auto& p = particles_;
    if (!mpi::any(p.owned() > 0))
        throw std::invalid_argument("simulation: the setup has zero particles");
    const bool dynamic = std::any_of(p.kind.begin(), p.kind.begin() + p.owned(),
                                     [](ParticleKind k) { return k == ParticleKind::dynamic; });
    const bool integrated = std::any_of(bodies_.begin(), bodies_.end(), is_integrated);
    if (!mpi::any(dynamic) && !integrated)
        throw std::invalid_argument("simulation: no dynamic or rigid body; nothing would move");
    for (int d = 0; d < 3; ++d)
        if (!std::isfinite(physics_.gravity[d]))
            throw std::invalid_argument("physics: gravity must be finite");
    if (p.dim == 2 && physics_.gravity[2] != 0.0)
        throw std::invalid_argument("physics: gravity has a z component in a 2D run");
    const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
    if (!(physics_.av_alpha >= 0.0 && physics_.av_beta >= 0.0 && physics_.av_epsilon > 0.0))
        throw std::invalid_argument(
            "physics: av_alpha and av_beta must be >= 0 and av_epsilon > 0");
    if (!positive(physics_.riemann_limiter))
        throw std::invalid_argument("physics: riemann_limiter must be > 0");
    if (!(physics_.riemann_limiter_floor >= 0.0 && physics_.riemann_limiter_floor <= 1.0))
        throw std::invalid_argument("physics: riemann_limiter_floor must lie in [0, 1]");
    if (physics_.riemann_limiter_floor > 0.0 && !physics_.riemann_reconstruction)
        throw std::invalid_argument(
            "physics: riemann_limiter_floor needs riemann_reconstruction (without it the floor "
            "would damp every velocity difference linearly, a viscosity of the sound speed)");
    if (!(std::isfinite(physics_.density_diffusion) && physics_.density_diffusion >= 0.0))
        throw std::invalid_argument("physics: density_diffusion must be >= 0");
    // An option of one scheme's pair loop, asked for with the other scheme.
    const auto scheme_option = [&](bool asked, const char* option,
                                   PhysicsParameters::Dissipation scheme) {
        if (asked && physics_.dissipation != scheme)
            throw std::invalid_argument(
                std::string("physics: ") + option + " is part of " +
                (scheme == PhysicsParameters::Dissipation::riemann ? "the Riemann solver"
                                                                    : "Monaghan's viscosity") +
                "; dissipation is '" + dissipation_name(physics_.dissipation) + "'");
    };
    constexpr auto riemann = PhysicsParameters::Dissipation::riemann;
    constexpr auto monaghan = PhysicsParameters::Dissipation::monaghan;
    scheme_option(physics_.density_diffusion > 0.0, "density_diffusion", riemann);
    scheme_option(physics_.riemann_stress_jump != PhysicsParameters::StressJump::none,
                  "riemann_stress_jump", riemann);
    scheme_option(physics_.riemann_reconstruction, "riemann_reconstruction", riemann);
    if (!(std::isfinite(physics_.hourglass_control) && physics_.hourglass_control >= 0.0))
        throw std::invalid_argument("physics: hourglass_control must be >= 0");
    scheme_option(physics_.hourglass_control > 0.0, "hourglass_control", riemann);
    scheme_option(physics_.av_switch, "av_switch", monaghan);
    scheme_option(physics_.av_balsara, "av_balsara", monaghan);
    if (!(std::isfinite(physics_.wall_adhesion) && physics_.wall_adhesion >= 0.0))
        throw std::invalid_argument("physics: wall_adhesion must be >= 0 [Pa]");
    if (physics_.sleep && !positive(physics_.sleep_speed))
        throw std::invalid_argument("physics: sleep_speed must be > 0 [m/s]");
    if (!positive(physics_.courant) || physics_.courant > 1.0)
        throw std::invalid_argument("physics: courant must lie in (0, 1]");
    // The particles' state (one collective for both checks).
    std::ostringstream state;
    if (const auto i = first_outside_bounds(); i >= 0) {
        const auto u = static_cast<std::size_t>(i);
        state << "body '" << bodies_[p.body[u]].name << "': particle id " << p.id[u] << " at ("
              << p.x[0][u] << ", " << p.x[1][u] << ", " << p.x[2][u]
              << ") m lies outside the bounds";
    } else if (const auto j = first_out_of_plane_shear(); j >= 0) {
        const auto u = static_cast<std::size_t>(j);
        state << "body '" << bodies_[p.body[u]].name << "': particle id " << p.id[u]
              << " has out-of-plane shear stress (xz " << p.stress[XZ][u] << " Pa, yz "
              << p.stress[YZ][u] << " Pa); a 2D run is plane strain, where both are zero";
    }
    if (const std::string e = mpi::first_error(state.str()); !e.empty())
        throw std::invalid_argument(e);
    const auto& io = integrator_options_;
    if (!positive(io.tolerance)) throw std::invalid_argument("integrator: tolerance must be > 0");
    if (!positive(io.dt_min)) throw std::invalid_argument("integrator: dt_min must be > 0 s");
    if (!positive(io.dt_max) || io.dt_max < io.dt_min)
        throw std::invalid_argument("integrator: dt_max must be positive and >= dt_min");
    if (!(io.dt_initial >= 0.0)) throw std::invalid_argument("integrator: dt_initial must be >= 0");
    if (!(io.neighbour_skin >= 0.0 && io.neighbour_skin < 1.0))
        throw std::invalid_argument("integrator: neighbour_skin must lie in [0, 1)");
    if (!(io.pair_margin >= 0.0 && io.pair_margin <= 0.5))
        throw std::invalid_argument("integrator: pair_margin must lie in [0, 0.5]");
}

// With physics.sleep, the particles' sleep states (sleep_regions.hpp) are a history column,
// added once (before a restart's comparison with the checkpoint, which holds it too).
void Simulation::add_sleep_states() {
    if (!physics_.sleep || particles_.history.find(kSleepStateName) >= 0) return;
    particles_.history.add(sleep_state_variable(), particles_.size());
    table_.reset();
}

// With physics.hourglass_control, its accelerations are history columns starting at zero,
// added once (before a restart's comparison with the checkpoint, which holds them too).
void Simulation::add_hourglass_columns() {
    if (!(physics_.hourglass_control > 0.0) || particles_.history.find(kHourglassColumns[0]) >= 0)
        return;
    for (int d = 0; d < particles_.dim; ++d)
        particles_.history.add({kHourglassColumns[d], "m/s^2",
                                "the hourglass control's acceleration (physics.hourglass_control)",
                                0.0},
                               particles_.size());
    table_.reset();
    integrator_.reset();
}

void Simulation::ensure_integrator() {
    add_sleep_states();
    add_hourglass_columns();
    // Morris & Monaghan's switch keeps its f in a history column, which starts at 1 (full
    // viscosity).
    if (physics_.av_switch && particles_.history.find(kSwitchColumn) < 0) {
        particles_.history.add({kSwitchColumn, "-",
                                "Morris & Monaghan's (1997) viscosity switch alpha / av_alpha",
                                1.0},
                               particles_.size());
        auto& column = particles_.history.values[static_cast<std::size_t>(
            particles_.history.find(kSwitchColumn))];
        std::fill(column.begin(), column.end(), 1.0);
        table_.reset();
        integrator_.reset();
    }
    if (!table_)
        table_ = std::make_unique<MaterialTable>(materials_, particles_.dim, particles_.history);
    if (!decomposition_.distributed()) decomposition_.distribute(particles_, split_setup_);
    if (!integrator_) {
        integrator_ = std::make_unique<AdaptiveHeun>(integrator_options_);
        integrator_->set_bodies(&bodies_, particles_.dim, materials_);
        integrator_->set_domain(&decomposition_);
        integrator_->place(particles_, time_);
    }
    integrator_->set_options(integrator_options_);  // may change between steps
}

StepReport Simulation::advance(double dt_cap) {
    if (!(dt_cap > 0.0)) throw std::invalid_argument("advance: dt_cap must be > 0 s");
    validate_setup();
    ensure_integrator();
    const StepReport r = integrate_step(dt_cap);
    release_halo();
    return r;
}

StepReport Simulation::integrate_step(double dt_cap) {
    StepReport r;
    try {
        r = integrator_->step(particles_, neighbours_, *table_, physics_, time_, step_, dt_cap);
    } catch (...) {
        release_halo();
        throw;
    }
    time_ += r.dt;
    ++step_;
    energy_.add(r.energy);
    return r;
}

Diagnostics Simulation::diagnostics() const {
    return compute_diagnostics(particles_, materials_, physics_.gravity, energy_);
}

io::CheckpointState Simulation::checkpoint_state() const {
    io::CheckpointState s;
    s.time = time_;
    s.step = step_;
    s.dt_next = integrator_ ? integrator_->proposed_dt() : 0.0;
    s.energy_budget = energy_.global().values();  // the wall time and rigid bodies: Recorder
    return s;
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
    for (auto& c : scratch_.dhistory) c.resize(n);
    scratch_.yielding.resize(n);
    scratch_.dt_limit.resize(n);
    return scratch_;
}

namespace {
// The materials' names in index order (snapshots store them beside the indices).
std::vector<std::string> names_of(const std::vector<Material>& materials) {
    std::vector<std::string> names;
    for (const Material& m : materials) names.push_back(m.name);
    return names;
}

// run.json's "physics" (Simulation::describe).
io::Json describe_physics(const PhysicsParameters& pp) {
    io::Json j = {{"gravity_m_s2", pp.gravity},
                  {"av_alpha", pp.av_alpha},
                  {"av_beta", pp.av_beta},
                  {"av_epsilon", pp.av_epsilon},
                  {"courant", pp.courant}};
    // Only when on: run.json files written before the option stay comparable on restart.
    if (pp.av_balsara) j["av_balsara"] = true;
    if (pp.av_switch) j["av_switch"] = "Morris & Monaghan 1997";
    if (pp.dissipation != PhysicsParameters::Dissipation::monaghan) {
        j["dissipation"] = dissipation_name(pp.dissipation);
        j["riemann_limiter"] = pp.riemann_limiter;
        if (pp.riemann_limiter_floor > 0.0) j["riemann_limiter_floor"] = pp.riemann_limiter_floor;
        if (pp.riemann_pairs != PhysicsParameters::RiemannPairs::approaching)
            j["riemann_pairs"] = riemann_pairs_name(pp.riemann_pairs);
        if (pp.density_diffusion > 0.0) j["density_diffusion"] = pp.density_diffusion;
        if (pp.riemann_stress_jump != PhysicsParameters::StressJump::none)
            j["riemann_stress_jump"] = stress_jump_name(pp.riemann_stress_jump);
        if (pp.riemann_reconstruction) j["riemann_reconstruction"] = "linear";
        if (pp.hourglass_control > 0.0) j["hourglass_control"] = pp.hourglass_control;
    }
    // The default law of the walls that set none, only when it is not 'bonded' (each wall's
    // law in force is under "bodies"): run.json files written before the option stay
    // comparable on restart.
    if (pp.wall_contact != WallContact::bonded) {
        j["wall_contact"] = wall_contact_name(pp.wall_contact);
        j["wall_adhesion_Pa"] = pp.wall_adhesion;
    }
    if (pp.sleep) {  // the tolerance of the sleeping regions (sleep_regions.hpp)
        j["sleep"] = true;
        j["sleep_speed_m_s"] = pp.sleep_speed;
        j["sleep_criterion"] =
            "asleep while |v| <= sleep_speed, |dv/dt| <= c sleep_speed / h and |dsigma/dt| <= "
            "rho c^2 sleep_speed / h (c: the material's viscosity sound speed) for the particle "
            "and its pair list, and no kinematic or rigid body particle in it";
    }
    return j;
}
}  // namespace

std::string Simulation::describe(const RunOptions& o) const {
    io::Json j;
    j["regosph_version"] = io::version_string();
    j["dim"] = particles_.dim;
    j["physics"] = describe_physics(physics_);
    const bool heun = integrator_options_.scheme == TimeScheme::heun;
    j["integrator"] = {{"scheme", heun ? "Heun RK2 with embedded Euler error estimate"
                                       : "SSP-RK3 (Shu & Osher 1988) with embedded Euler "
                                         "error estimate"},
                       {"tolerance", integrator_options_.tolerance},
                       {"dt_initial_s", integrator_options_.dt_initial},
                       {"dt_min_s", integrator_options_.dt_min},
                       {"dt_max_s", integrator_options_.dt_max},
                       {"neighbour_skin_fraction_of_h", integrator_options_.neighbour_skin}};
    // Only when changed: run.json files written before the option stay comparable on restart.
    if (integrator_options_.pair_margin != IntegratorOptions{}.pair_margin)
        j["integrator"]["pair_margin_fraction_of_skin"] = integrator_options_.pair_margin;
    j["materials"] = io::Json::array();
    for (const Material& m : materials_) j["materials"].push_back(io::describe_material(m));
    j["bodies"] = io::Json::array();
    for (const Body& b : bodies_) {
        io::Json body = {{"name", b.name},
                         {"material", materials_[b.material].name},
                         {"motion", motion_name(b)},
                         {"spacing_m", b.spacing},
                         {"smoothing_length_m", b.smoothing_length},
                         {"particles", b.particle_count}};
        describe_motion(b, body);
        // A wall's law in force (its own, else the run's default) when it is not 'bonded',
        // which run.json files written before the option took.
        if (const InterfaceLaw law = interface_law(b, physics_.interface_law());
            is_boundary(b) && law.contact != WallContact::bonded) {
            body["contact"] = wall_contact_name(law.contact);
            body["adhesion_Pa"] = law.adhesion;
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
                {"checkpoint_every", o.checkpoint_every},
                {"checkpoint_interval_s", o.checkpoint_interval},
                {"mpi_ranks", mpi::size()}};
    j["metadata"] = io::Json::object();
    for (const auto& [k, v] : o.metadata) j["metadata"][k] = v;
    return j.dump();
}

void Simulation::check_same_particles(const ParticleSet& q, const std::string& source) const {
    const auto mismatch = [&](const std::string& what) {
        throw std::invalid_argument(source + " does not belong to this setup: " + what + " differ");
    };
    if (q.dim != particles_.dim) mismatch("dimensions");
    if (q.size() != particles_.size()) mismatch("particle counts");
    if (q.id != particles_.id) mismatch("particle ids");
    if (q.material != particles_.material) mismatch("particle materials");
    if (q.body != particles_.body) mismatch("particle bodies");
    if (q.kind != particles_.kind) mismatch("particle kinds");
    if (q.history.names() != particles_.history.names()) mismatch("history variables");
}

void Simulation::start_from_snapshot(const std::string& file) {
    if (time_ != 0.0 || step_ != 0 || (decomposition_.distributed() && mpi::size() > 1))
        throw std::invalid_argument("start_from_snapshot: call it on a new setup, before any run "
                                    "or step");
    validate_setup();
    // A snapshot holds the particles but not a rigid body's state (centre, orientation, their
    // rates), which a checkpoint carries.
    for (const Body& b : bodies_)
        if (rigid_body(b))
            throw std::invalid_argument("start_from_snapshot: body '" + b.name +
                                        "' is rigid and a snapshot does not hold its state; "
                                        "continue from a checkpoint (restart)");
    double time = 0.0;
    std::int64_t step = 0;
    ParticleSet q = io::read_snapshot(file, &time, &step, kSnapshot);
    if (split_setup_) keep_shares(q);
    check_same_particles(q, "start_from_snapshot: '" + file + "'");
    particles_ = std::move(q);  // every particle or this rank's share: the next run distributes them
    decomposition_ = parallel::Domain{};
    time_ = time;
    step_ = step;
    // The cumulative energy terms before the snapshot are unknown, not zero.
    energy_ = EnergyBudget{};
    energy_.dissipated.fill(std::numeric_limits<double>::quiet_NaN());
    energy_.body_work = std::numeric_limits<double>::quiet_NaN();
    last_run_dir_.clear();
    integrator_.reset();
}

std::string Simulation::restart(const std::string& run_dir, std::vector<std::string>* rejected) {
    if (decomposition_.distributed() && mpi::size() > 1)
        throw std::invalid_argument("restart: call it on a new setup, before any run or step "
                                    "(the particles are distributed over the MPI ranks now)");
    validate_setup();
    add_sleep_states();
    add_hourglass_columns();
    io::LoadedCheckpoint ck = io::RunDirectory::newest_checkpoint(run_dir);
    if (rejected) *rejected = ck.rejected;
    ParticleSet& q = ck.particles;
    if (split_setup_) keep_shares(q);
    check_same_particles(q, "restart: checkpoint '" + ck.file.string() + "'");
    try {
        read_body_states_json(ck.state.rigid_bodies, bodies_);
    } catch (const std::exception& e) {
        throw std::invalid_argument("restart: checkpoint '" + ck.file.string() + "': " + e.what());
    }
    // The energy budget continues from the checkpoint's; one written before the budget existed
    // leaves its cumulative terms unknown (NaN) rather than wrongly zero.
    if (ck.state.energy_budget.empty()) {
        energy_ = EnergyBudget{};
        energy_.dissipated.fill(std::numeric_limits<double>::quiet_NaN());
        energy_.body_work = std::numeric_limits<double>::quiet_NaN();
    } else {
        energy_ = EnergyBudget::from_values(ck.state.energy_budget, "restart: checkpoint '" +
                                                                         ck.file.string() + "'");
    }
    particles_ = q;  // every particle or this rank's share: the next run distributes them
    decomposition_ = parallel::Domain{};
    time_ = ck.state.time;
    step_ = ck.state.step;
    resumed_from_ = run_dir;
    resumed_checkpoint_ = ck.file.filename().string();
    resumed_dt_next_ = ck.state.dt_next;
    wall_seconds_before_ = ck.state.wall_seconds;
    last_run_dir_.clear();
    integrator_.reset();
    // The snapshots written after the checkpoint are dropped by run(), once it has accepted its
    // options: a refused run leaves the directory as it was.
    return ck.file.string();
}

namespace {

void check_run_options(const RunOptions& o, double now) {
    if (!(std::isfinite(o.end_time) && o.end_time > now))
        throw std::invalid_argument("run: end_time = " + std::to_string(o.end_time) +
                                    " s must be a finite time after the current time " +
                                    std::to_string(now) + " s");
    if (!(std::isfinite(o.snapshot_interval) && o.snapshot_interval >= 0.0))
        throw std::invalid_argument("run: snapshot_interval must be >= 0 s");
    if (o.diagnostics_every < 1) throw std::invalid_argument("run: diagnostics_every must be >= 1");
    if (o.observe_every < 1) throw std::invalid_argument("run: observe_every must be >= 1");
    if (o.checkpoint_every < 0) throw std::invalid_argument("run: checkpoint_every must be >= 0");
    if (!(o.checkpoint_interval >= 0.0))
        throw std::invalid_argument("run: checkpoint_interval must be >= 0 s");
    // Metadata goes into every file as attributes: a key must not take the name of one the
    // files carry anyway. Checked before anything is written.
    std::vector<std::string> reserved = io::kParticleFileAttributes;
    for (const std::string& k : {io::kCheckpointTime, io::kCheckpointDtNext,
                                 io::kCheckpointRigidBodies, io::kCheckpointChecksum,
                                 io::kCheckpointEnergyBudget, kCrashReportAttribute,
                                 kMaterialNamesAttribute, kBodyNamesAttribute})
        reserved.push_back(k);
    for (const auto& [key, value] : o.metadata) {
        check_name("run: metadata key", key);
        if (std::find(reserved.begin(), reserved.end(), key) != reserved.end())
            throw std::invalid_argument("run: metadata key '" + key +
                                        "' is the name of an attribute every snapshot or "
                                        "checkpoint carries; choose another key");
    }
    for (const std::string& a : o.allow_changes)
        if (a.empty()) throw std::invalid_argument("run: allow_changes holds an empty field name");
}

}  // namespace

std::string Simulation::left_bounds_report() const {
    if (!bounds_) return {};
    std::string left;  // (a stream only for a particle outside: this runs every step)
    if (const auto i = first_outside_bounds(); i >= 0) {
        const auto u = static_cast<std::size_t>(i);
        std::ostringstream s;
        s << "blow-up at t = " << time_ << " s, step " << step_ + 1 << ": particle id "
          << particles_.id[u] << " left the bounds at (" << particles_.x[0][u] << ", "
          << particles_.x[1][u] << ", " << particles_.x[2][u] << ") m";
        left = s.str();
    }
    return mpi::first_error(left);
}

std::optional<io::RunDirectory> Simulation::open_run_directory(const RunOptions& o,
                                                               bool& continued) {
    const auto same = [](const std::string& a, const std::string& b) {
        return !a.empty() && !b.empty() &&
               std::filesystem::path(a).lexically_normal() == std::filesystem::path(b).lexically_normal();
    };
    const bool restarted = !resumed_from_.empty();
    if (restarted && !same(o.output_dir, resumed_from_))
        throw std::invalid_argument("run: output_dir '" + o.output_dir +
                                    "' must be the directory restarted from, '" +
                                    resumed_from_ + "'");
    continued = restarted || (!o.overwrite && same(o.output_dir, last_run_dir_) &&
                              step_ == last_run_step_);
    if (o.output_dir.empty()) return std::nullopt;
    if (!continued)
        return io::RunDirectory::for_new_run(o.output_dir, describe(o), o.overwrite,
                                             o.take_over_lock);
    const std::string from =
        restarted ? resumed_checkpoint_ : std::string("the state in memory (same process)");
    return io::RunDirectory::for_continued_run(o.output_dir, describe(o),
                                               {from, time_, step_, {}}, o.allow_changes,
                                               o.take_over_lock);
}

RunSummary Simulation::run(const RunOptions& o) {
    check_run_options(o, time_);
    validate_setup();
    bool continued = false;
    const auto dir = open_run_directory(o, continued);  // locked until run() returns
    ensure_integrator();
    if (!resumed_from_.empty()) integrator_->set_proposed_dt(resumed_dt_next_);
    resumed_from_.clear();
    last_run_dir_.clear();

    if (!continued) {  // a new series: the budget starts from the present state
        energy_ = EnergyBudget{};
        const Diagnostics d = diagnostics();
        energy_.initial_total = energy_.total(d.kinetic_energy, d.potential_energy, d.strain_energy);
    }
    Recorder rec(o, particles_, bodies_, observers_, [this] { return recorded_loads(); },
                 [this] { return observe(); }, [this] { return diagnostics(); }, continued,
                 time_, step_,
                 physics_.dissipation == PhysicsParameters::Dissipation::riemann);
    if (!continued) wall_seconds_before_ = 0.0;
    rec.set_earlier_wall_seconds(wall_seconds_before_);
    rec.set_material_names(names_of(materials_));
    if (!continued) rec.initial_state(time_, step_);
    OutputTimes outputs(o.snapshot_interval > 0.0 ? o.snapshot_interval : o.end_time, o.end_time,
                        time_);
    SignalGuard signals(o.checkpoint_on_signal);
    const double t_eps = 1e-12 * std::max(1.0, std::abs(o.end_time));  // round-off of summed steps
    const std::int64_t step_start = step_;
    RunSummary summary;
    while (time_ < o.end_time - t_eps) {
        const double target = outputs.next();
        StepReport r;
        try {
            r = integrator_->step(particles_, neighbours_, *table_, physics_, time_, step_,
                                  target - time_);
        } catch (const BlowUpError& e) {
            throw rec.crash(e, time_, step_);
        }
        time_ = (time_ + r.dt >= target - t_eps) ? target : time_ + r.dt;
        if (const std::string e = left_bounds_report(); !e.empty())
            throw rec.crash(BlowUpError(e), time_, step_);
        ++step_;
        energy_.add(r.energy);
        summary.rejected += r.rejected;
        rec.count_step(r);
        if (step_ % o.diagnostics_every == 0) rec.diagnostics(time_, step_);
        if (step_ % o.observe_every == 0) rec.observations(time_, step_);
        if (outputs.reached(time_, t_eps)) rec.snapshot(time_, step_);
        rec.progress(false, time_, step_);
        const bool checkpoint_due = rec.checkpoint_due(step_);  // collective
        if (const int signal = signals.pending(); signal != 0) {
            summary.interrupted_by = signal;
            rec.interrupted(signal, checkpoint_state());
            break;
        }
        if (checkpoint_due) rec.checkpoint(checkpoint_state());
    }
    if (summary.interrupted_by == 0) rec.finish(checkpoint_state());
    last_run_dir_ = o.output_dir;  // a next run() into it continues from here
    last_run_step_ = step_;

    summary.steps = step_ - step_start;
    summary.wall_seconds = rec.elapsed();
    summary.total_wall_seconds = rec.total_wall_seconds();
    wall_seconds_before_ = summary.total_wall_seconds;
    summary.particle_steps_per_second =
        summary.wall_seconds > 0
            ? static_cast<double>(rec.dynamic_particles() * summary.steps) / summary.wall_seconds
            : 0.0;
    summary.neighbour_builds = neighbours_.build_count();
    summary.pair_selections = neighbours_.selection_count();
    summary.phases = integrator_->phase_times();
    summary.steps_all_threads = integrator_->thread_tuner().steps_all();
    summary.steps_one_thread = integrator_->thread_tuner().steps_one();
    summary.snapshots = rec.snapshots();
    summary.last_checkpoint = rec.last_checkpoint();
    release_halo();
    return summary;
}

}  // namespace regosph
