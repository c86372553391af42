// The one place that dispatches on the kind of a body's motion (std::visit on BodyMotion).
#include "sph/body.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "parallel/threads.hpp"

namespace regosph {

// Every registered kind answers the questions of body_motion.hpp.
static_assert([]<class... K>(std::type_identity<std::variant<K...>>) {
    return (BodyMotionKind<K> && ...);
}(std::type_identity<BodyMotion>{}));

namespace {

// Whether kind K's particles move (it has a frame that places them).
template <class K>
constexpr bool kMoves = !std::is_same_v<decltype(std::declval<const K&>().frame(0.0, 2)), NoFrame>;

[[noreturn]] void unknown_motion(const std::string& name) {
    if (name == "free")
        throw std::invalid_argument(
            "motion: 'free' is ambiguous and no longer accepted: use 'dynamic' for a deformable "
            "body of SPH particles (regolith, elastic solid) or 'rigid' for a rigid body that "
            "the regolith moves");
    std::string names;  // 'dynamic', 'fixed', ... in the registry's order
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        ((names += std::string(I ? ", '" : "'") +
                   std::variant_alternative_t<I, BodyMotion>::kName + "'"),
         ...);
    }(std::make_index_sequence<std::variant_size_v<BodyMotion>>{});
    throw std::invalid_argument("motion: '" + name + "' is not one of " + names);
}

// f(std::type_identity<K>{}) for the registered kind K named `name`.
template <class F, std::size_t I = 0>
std::invoke_result_t<F, std::type_identity<DynamicMotion>> with_kind_named(const std::string& name,
                                                                           F&& f) {
    if constexpr (I < std::variant_size_v<BodyMotion>) {
        using K = std::variant_alternative_t<I, BodyMotion>;
        if (name == K::kName) return f(std::type_identity<K>{});
        return with_kind_named<F, I + 1>(name, std::forward<F>(f));
    } else {
        unknown_motion(name);
    }
}

// Each body's frame at one time: the registry's frames, by the index of its kind.
template <class V>
struct FramesOf;
template <class... K>
struct FramesOf<std::variant<K...>> {
    using type = std::variant<decltype(std::declval<const K&>().frame(0.0, 2))...>;
};
using BodyFrame = FramesOf<BodyMotion>::type;

template <std::size_t I = 0>
BodyFrame frame_of(const BodyMotion& m, double t, int dim) {
    if constexpr (I + 1 < std::variant_size_v<BodyMotion>)
        if (m.index() != I) return frame_of<I + 1>(m, t, dim);
    return BodyFrame(std::in_place_index<I>, std::get<I>(m).frame(t, dim));
}

}  // namespace

void refuse_velocity(const MotionInput& in, const std::string& where) {
    if (in.velocity != geometry::Point{0, 0, 0})
        throw std::invalid_argument(where + "velocity: only dynamic and rigid bodies take an "
                                    "initial velocity (a kinematic body moves by its kinematics)");
}

void refuse_kinematics(const MotionInput& in, const char* kind, const std::string& where) {
    if (in.kinematics)
        throw std::invalid_argument(where + "kinematics: only a kinematic or rigid body follows "
                                    "prescribed motion (motion is '" + kind + "')");
}

void refuse_rigid_spec(const MotionInput& in, const char* kind, const std::string& where) {
    if (in.rigid)
        throw std::invalid_argument(where + "mass, centre, inertia, angular_velocity, force, "
                                    "torque and fixed_dofs belong to rigid bodies (motion is '" +
                                    kind + "')");
}

DynamicMotion DynamicMotion::make(const MotionInput& in, const std::string& where) {
    if (in.dim == 2 && in.velocity[2] != 0.0)
        throw std::invalid_argument(where + "velocity: a 2D run has no z velocity");
    refuse_kinematics(in, kName, where);
    refuse_rigid_spec(in, kName, where);
    return {};
}

FixedMotion FixedMotion::make(const MotionInput& in, const std::string& where) {
    refuse_velocity(in, where);
    refuse_kinematics(in, kName, where);
    refuse_rigid_spec(in, kName, where);
    return {};
}

BodyMotion make_motion(const std::string& name, const MotionInput& in, const std::string& where) {
    return with_kind_named(name, [&]<class K>(std::type_identity<K>) {
        return BodyMotion(K::make(in, where));
    });
}

bool boundary_motion(const std::string& name) {
    return with_kind_named(name, []<class K>(std::type_identity<K>) { return K::kBoundary; });
}

const char* motion_name(const Body& b) {
    return std::visit([](const auto& m) -> const char* { return m.kName; }, b.motion);
}

bool is_boundary(const Body& b) {
    return std::visit([](const auto& m) { return m.kBoundary; }, b.motion);
}

bool is_integrated(const Body& b) {
    return std::visit([](const auto& m) { return m.kIntegrated; }, b.motion);
}

bool collects_loads(const Body& b) {
    return std::visit([](const auto& m) { return m.collects_loads(); }, b.motion);
}

double regolith_power(const Body& b, const BodyLoad& load, double t, int dim) {
    return std::visit([&](const auto& m) { return m.regolith_power(load, t, dim); }, b.motion);
}

void describe_motion(const Body& b, io::Json& body) {
    std::visit([&](const auto& m) { m.describe(body); }, b.motion);
}

void check_wall_friction(bool boundary, double mu, const std::string& where) {
    if (!boundary && mu >= 0.0)
        throw std::invalid_argument(where + "wall_friction: only boundary bodies (fixed, "
                                    "kinematic, rigid) are walls; a dynamic body's contacts "
                                    "follow its material");
}

void check_interface(bool boundary, const InterfaceLaw& law, const std::string& where) {
    if (!boundary)
        throw std::invalid_argument(where + "contact: only boundary bodies (fixed, kinematic, "
                                    "rigid) are walls; a dynamic body's contacts follow its "
                                    "material");
    if (!(std::isfinite(law.adhesion) && law.adhesion >= 0.0))
        throw std::invalid_argument(where + "adhesion must be a finite number >= 0 [Pa]");
    if (law.contact == WallContact::bonded && law.adhesion != 0.0)
        throw std::invalid_argument(where + "adhesion goes with contact 'unilateral' or "
                                    "'tension_cut'; a bonded wall carries any tension");
}

std::string body_states_json(const std::vector<Body>& bodies) {
    nlohmann::json out = nlohmann::json::object();
    for (const Body& b : bodies)
        if (auto s = std::visit([](const auto& m) { return m.state(); }, b.motion))
            out[b.name] = std::move(*s);
    return out.empty() ? std::string() : out.dump();
}

void read_body_states_json(const std::string& text, std::vector<Body>& bodies) {
    nlohmann::json all;
    try {
        all = text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("rigid body states: not JSON: ") + e.what());
    }
    for (Body& b : bodies)
        std::visit(
            [&](auto& m) {
                if (!m.state()) return;  // a kind without a state of its own
                const std::string kind = m.kName;
                if (!all.contains(b.name))
                    throw std::runtime_error(kind + " body states: no state of " + kind +
                                             " body '" + b.name + "'");
                try {
                    m.read_state(all.at(b.name));
                } catch (const nlohmann::json::exception& e) {
                    throw std::runtime_error(kind + " body states: body '" + b.name + "': " +
                                             e.what());
                }
            },
            b.motion);
}

void Bodies::bind(std::vector<Body>* bodies, int dim) {
    bodies_ = bodies;
    dim_ = dim;
    any_boundary_ = moving_ = integrated_ = false;
    moving_bodies_.clear();
    if (!bodies) return;
    for (const Body& b : *bodies)
        std::visit(
            [&]<class K>(const K&) {
                any_boundary_ = any_boundary_ || K::kBoundary;
                moving_ = moving_ || kMoves<K>;
                integrated_ = integrated_ || K::kIntegrated;
                moving_bodies_.push_back(kMoves<K> ? 1 : 0);
            },
            b.motion);
}

void Bodies::place(ParticleSet& p, double t, std::array<std::vector<double>, 3>& acc) const {
    if (!moving_) return;
    const std::size_t n = p.size();
    for (auto& c : acc) c.resize(n);  // zero for other particles, written below
    // Each body's motion at t, once for all its particles.
    std::vector<BodyFrame> frames;
    frames.reserve(bodies_->size());
    for (const Body& b : *bodies_) frames.push_back(frame_of(b.motion, t, dim_));
#pragma omp parallel for schedule(static) \
    num_threads(parallel::threads_for(n, parallel::kMinCheapItems))
    for (std::size_t i = 0; i < n; ++i) {
        for (auto& c : acc) c[i] = 0.0;
        const auto k = static_cast<std::size_t>(p.body[i]);
        const auto j = static_cast<std::size_t>(p.id[i] - (*bodies_)[k].first_id);
        geometry::Vec3 x, v, a;
        if (!std::visit([&](const auto& f) { return f.place(j, x, v, a); }, frames[k])) continue;
        for (int d = 0; d < p.dim; ++d) {
            p.x[d][i] = x[d];
            p.v[d][i] = v[d];
            acc[d][i] = a[d];
        }
    }
}

LoadRequest Bodies::load_request(double t) const {
    LoadRequest r;
    if (!bodies_ || std::none_of(bodies_->begin(), bodies_->end(), collects_loads)) return r;
    r.collect.assign(bodies_->size(), 0);
    r.reference.assign(bodies_->size(), {0.0, 0.0, 0.0});
    for (std::size_t k = 0; k < bodies_->size(); ++k)
        std::visit(
            [&](const auto& m) {
                if (!m.collects_loads()) return;
                r.collect[k] = 1;
                r.reference[k] = m.load_reference(t);
            },
            (*bodies_)[k].motion);
    return r;
}

double Bodies::power(const std::vector<BodyLoad>& loads, double t) const {
    double power = 0.0;
    if (!bodies_) return power;
    for (std::size_t k = 0; k < loads.size() && k < bodies_->size(); ++k)
        power += regolith_power((*bodies_)[k], loads[k], t, dim_);
    return power;
}

void Bodies::save_start() {
    if (!integrated_) return;
    for (Body& b : *bodies_) std::visit([](auto& m) { m.save_start(); }, b.motion);
}

void Bodies::restore_start() {
    if (!integrated_) return;
    for (Body& b : *bodies_) std::visit([](auto& m) { m.restore_start(); }, b.motion);
}

void Bodies::compute_rates(int stage, const std::vector<BodyLoad>& loads,
                           const std::array<double, 3>& gravity, double t) {
    if (!integrated_) return;
    for (std::size_t k = 0; k < bodies_->size(); ++k) {
        const BodyLoad load = k < loads.size() ? loads[k] : BodyLoad{};
        std::visit([&](auto& m) { m.rates(stage, load, gravity, t, dim_); }, (*bodies_)[k].motion);
    }
}

void Bodies::update(double dt, bool final, double t) {
    if (!integrated_) return;
    for (Body& b : *bodies_) std::visit([&](auto& m) { m.update(dt, final, t, dim_); }, b.motion);
}

double Bodies::error(double dt) const {
    double worst = 0.0;
    if (!integrated_) return worst;
    for (const Body& b : *bodies_)
        worst = std::max(worst, std::visit([&](const auto& m) {
                             return m.error(dt, b.smoothing_length, dim_);
                         }, b.motion));
    return worst;
}

double Bodies::step_limit(double courant, double t) const {
    double limit = std::numeric_limits<double>::infinity();
    if (!integrated_) return limit;
    for (const Body& b : *bodies_)
        limit = std::min(limit, std::visit([&](const auto& m) {
                             return m.step_limit(courant, b.smoothing_length, t, dim_);
                         }, b.motion));
    return limit;
}

}  // namespace regosph
