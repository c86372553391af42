#include "sph/integrator.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "core/name_table.hpp"
#include "parallel/mpi_env.hpp"
#include "parallel/threads.hpp"
#include "sph/boundary.hpp"
#include "sph/heun_sweeps.hpp"
#include "sph/sleep_regions.hpp"

namespace regosph {

namespace {
// Particles per claim of the per-particle loops of a step (~20-100 ns each): 5-25 us of
// work per claim, so that claiming costs nothing, and chunks small enough that a helper can
// take over the end of a late thread's part; smaller chunks move more particles between the
// cores.
constexpr std::size_t kUpdateChunk = 256;
// Particles per partial sum of the energy budget's step increment (energy_increment).
constexpr std::size_t kEnergyBlock = 512;

double seconds_since(std::chrono::steady_clock::time_point& start) {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - start).count();
    start = now;
    return s;
}
}  // namespace

namespace {
constexpr std::pair<TimeScheme, const char*> kTimeSchemeNames[] = {
    {TimeScheme::heun, "heun"}, {TimeScheme::ssp_rk3, "ssp_rk3"}};
}  // namespace

const char* time_scheme_name(TimeScheme s) { return name_of<TimeScheme>(kTimeSchemeNames, s); }

TimeScheme time_scheme_from_name(const std::string& name) {
    return from_name<TimeScheme>(kTimeSchemeNames, name, "integrator.scheme", "a time scheme");
}

void AdaptiveHeun::set_bodies(std::vector<Body>* bodies, int dim,
                              const std::vector<Material>& materials) {
    bodies_.bind(bodies, dim);
    contact_.bind(bodies ? *bodies : std::vector<Body>{}, materials, dim);
    for (auto& c : wall_acceleration_) c.clear();
}

void AdaptiveHeun::place(ParticleSet& p, double t) { bodies_.place(p, t, wall_acceleration_); }

double AdaptiveHeun::next_skin_factor(double factor, std::int64_t evaluations_lived) {
    if (evaluations_lived < kShortListLife) return std::min(1.25 * factor, kMaxSkinFactor);
    if (evaluations_lived > 4 * kShortListLife) return std::max(factor / 1.25, 1.0);
    return factor;
}

void AdaptiveHeun::prepare(ParticleSet& p, NeighbourList& nl, const MaterialTable& mt,
                           const PhysicsParameters& pp, double t, bool step_start) {
    auto clock = std::chrono::steady_clock::now();
    // Counted on every rank alike (steps and rejections are the same everywhere), so that
    // every rank chooses the same skin.
    if (evaluations_since_build_ >= 0) ++evaluations_since_build_;
    // At a step start, look one step ahead, so that rebuilds (and migrations between ranks)
    // happen there rather than mid-step, where particles cannot change ranks. That step is at
    // most the proposed one, dt_max and the last Courant limit (the proposal alone runs far
    // ahead when output times or a caller cap every step).
    const double ahead = step_start ? std::min({dt_next_, opt_.dt_max, last_courant_}) : 0.0;
    const NeighbourList::Motion local = nl.motion(p, ahead);
    std::vector<double> asks = {local.rebuild ? 1.0 : 0.0, local.reselect ? 1.0 : 0.0};
    mpi::max_in_place(asks);  // one reduction for both
    const bool rebuild = asks[0] > 0.0;
    bool reselect = asks[1] > 0.0;
    if (rebuild) {
        if (domain_) {
            if (step_start)
                domain_->migrate(p);  // owned particles change only between steps
            else
                p.drop_halo();
        }
        double h_max = 0.0;
        for (std::size_t i = 0; i < p.owned(); ++i) h_max = std::max(h_max, p.h[i]);
        h_max = mpi::max(h_max);
        // The margin follows the narrowest skin, whatever the skin of this list: the pair
        // lists depend on the margin alone (neighbours.hpp).
        const double narrowest = opt_.neighbour_skin * h_max;
        if (evaluations_since_build_ >= 0)
            skin_factor_ = next_skin_factor(skin_factor_, evaluations_since_build_);
        evaluations_since_build_ = 0;
        const double skin = skin_factor_ * narrowest;
        // Every pair within h_ab + skin, h_ab <= h_max, is then on the rank of either particle.
        if (domain_) domain_->build_halo(p, h_max + skin);
        nl.build(p, skin, opt_.pair_margin * narrowest);
        records_current_ = false;  // migrations reorder the owned particles
        place(p, t);  // the wall accelerations follow the new particle order
        // Asked again with the margin of this build (a first build, or a new h_max, changes
        // it): the same answer as a run whose list was built earlier with the same margin.
        reselect = mpi::any(nl.motion(p).reselect);
    } else if (domain_) {
        domain_->update_halo(p, parallel::HaloFields::dynamic_state);
    }
    // The pair lists (neighbours.hpp): selected again at the present positions when some
    // particle moved half the margin from its x_selected, on any rank (halo copies included,
    // their positions are the owners'); after a rebuild, selected from the new Verlet list at
    // the same x_selected, which gives the same lists.
    // The copy runs on the partition, each thread its own part first (halo copies with the
    // last part): the thread that selects a part's lists next reads x_selected from its own
    // core's caches, not lines the other core has just written (hundreds of ns each between
    // the cores of a virtual machine, bench/machine_probe.cpp).
    if (reselect) {
        const parallel::Partition& part = nl.partition(p);
        parallel::ChunkQueue chunks(part, p.size(), kUpdateChunk);
#pragma omp parallel num_threads(part.team())
        chunks.run([&](std::size_t first, std::size_t last) {
            for (int d = 0; d < 3; ++d)
                std::copy(p.x[d].begin() + static_cast<std::ptrdiff_t>(first),
                          p.x[d].begin() + static_cast<std::ptrdiff_t>(last),
                          p.x_selected[d].begin() + static_cast<std::ptrdiff_t>(first));
        });
    }
    // Sleeping rows get no pair list; rows woken since the selection get theirs at a step start.
    const std::uint8_t* idle = rebuild || reselect || step_start ? idle_rows(p, mt, pp) : nullptr;
    if (rebuild || reselect) {
        nl.select_pairs(p, p.x_selected, idle);
        quiet_walls_.clear();
    } else if (idle) {
        nl.select_missing(p, p.x_selected, idle);
    }
    times_.neighbours += seconds_since(clock);
    if (!walls_in_staging()) {  // the walls first, then their values to the halo copies
        extrapolate_boundary(p, nl, pp, wall_acceleration(p), sleeping_walls(p, mt, pp));
        domain_->update_halo(p, parallel::HaloFields::boundary_values);
        times_.boundary += seconds_since(clock);
    }
}

// The walls' density and stress from the dynamic particles (boundary.hpp). Without halo
// copies to send them to, they are extrapolated inside the pair loop's parallel region, each
// chunk of particles just before its records are staged (derivatives, StagePrologue): a region
// less, and the walls on all threads (one thread took them before, below 8 192 row entries, as
// a region of their own cost more than it saved). With halo copies, first (prepare).
bool AdaptiveHeun::walls_in_staging() const { return !domain_ || domain_->halo_partners() == 0; }

const std::array<std::vector<double>, 3>* AdaptiveHeun::wall_acceleration(
    const ParticleSet& p) const {
    const bool moving = bodies_.moving() && wall_acceleration_[0].size() == p.size();
    return moving ? &wall_acceleration_ : nullptr;
}

void AdaptiveHeun::evaluate(ParticleSet& p, NeighbourList& nl, const MaterialTable& mt,
                            const PhysicsParameters& pp, double t, bool step_start,
                            Derivatives& out) {
    prepare(p, nl, mt, pp, t, step_start);
    auto clock = std::chrono::steady_clock::now();
    derivatives(p, nl, mt, pp, t, out);
    times_.derivatives += seconds_since(clock);
}

double AdaptiveHeun::derivatives(ParticleSet& p, const NeighbourList& nl,
                                 const MaterialTable& mt, const PhysicsParameters& pp, double t,
                                 Derivatives& out) {
    StagePrologue walls_first;  // the walls' values, unless prepare gave them (walls_in_staging)
    if (walls_in_staging() && nl.walls() > 0)
        walls_first = [&, acc = wall_acceleration(p), sleeping = sleeping_walls(p, mt, pp)](
                          std::size_t first, std::size_t last) {
            extrapolate_boundary(p, nl, pp, acc, first, last, sleeping);
        };
    const LoadRequest request = load_request(t);
    HaloRefresh refresh;
    if (domain_)
        refresh = [&](std::vector<double>& values, int stride) {
            domain_->update_halo_values(p, values, stride);
        };
    // Boundary particles come only from bodies that are not dynamic (the same list on every
    // rank); without such a body the pair loop leaves out the walls' energy term.
    const std::vector<Body>* bodies = bodies_.all();
    const bool walls = !bodies || bodies_.any_boundary();
    std::vector<InterfaceLaw> interfaces;
    if (bodies)
        for (const Body& b : *bodies) interfaces.push_back(interface_law(b, pp.interface_law()));
    // Only the staging that k1_, k2_ and k3_ share is known to follow every change of the
    // particles (and the walls' flags say what changed since the last evaluation, whichever
    // staging it had: after another one, the next of them stages every record).
    const bool own_staging = &out == &k1_ || &out == &k2_ || &out == &k3_;
    if (!own_staging || !records_current_) out.staged.asleep_staged.clear();
    out.staged.unchanged_walls = quiet_walls_.empty() ? nullptr : quiet_walls_.data();
    compute_derivatives(p, nl, mt, pp, out, request.collect.empty() ? nullptr : &request,
                        refresh, walls, walls_first, interfaces);
    records_current_ = own_staging;
    if (!contact_.active() || !bodies) return std::numeric_limits<double>::infinity();
    return contact_.add_loads(p, *bodies, out.loads);
}

LoadRequest AdaptiveHeun::load_request(double t) const {
    LoadRequest r = bodies_.load_request(t);
    const std::vector<Body>* bodies = bodies_.all();
    if (bodies && std::any_of(bodies->begin(), bodies->end(),
                              [](const Body& b) { return b.wall_friction >= 0.0; })) {
        const std::size_t n = bodies->size();
        r.collect.resize(n, 0);
        r.reference.resize(n, {0.0, 0.0, 0.0});
        for (const Body& b : *bodies) r.wall_friction.push_back(b.wall_friction);
    }
    return r;
}

// Only the owned particles: the halo is refreshed by the next evaluation, and a mid-step halo
// rebuild may change its length. Of the vectors and tensors only the components the run
// carries: in 2D neither z nor the out-of-plane shear stress (active_components).
void AdaptiveHeun::size_start(ParticleSet& p) {
    step_arrays_.clear();
    for_each_field(p, [&](const FieldInfo& f, auto& a) {
        using A = std::remove_cvref_t<decltype(a)>;
        if (!(f.use & kStepState)) return;
        if constexpr (std::is_same_v<FieldElement<A>, double>) {
            for (const int c : active_components(kComponents<A>, p.dim))
                step_arrays_.push_back(&component(a, static_cast<std::size_t>(c)));
        } else {
            throw std::logic_error(std::string("field '") + f.name +
                                   "': step state must be floating point");
        }
    });
    start_.resize(step_arrays_.size());
    for (auto& s : start_) s.resize(p.owned());
}

namespace {
// Calls fn(a, b) for each run of [first, last) without a sleeping particle: with physics.sleep
// (`integrated`, the kinds the stage updates see, not null) a sleeping particle, dynamic but
// integrated as boundary, keeps its state through the step, which is then its step start.
template <class Fn>
void for_each_awake_run(const ParticleKind* integrated, const ParticleKind* kind,
                        std::size_t first, std::size_t last, Fn&& fn) {
    if (!integrated) {
        fn(first, last);
        return;
    }
    for_each_run(first, last, [&](std::size_t a) { return integrated[a] != kind[a]; }, fn);
}
}  // namespace

void AdaptiveHeun::save_start(const ParticleSet& p, std::size_t first, std::size_t last) {
    const ParticleKind* integrated = integrated_kinds_.empty() ? nullptr : integrated_kinds_.data();
    for_each_awake_run(integrated, p.kind.data(), first, last, [&](std::size_t a, std::size_t b) {
        for (std::size_t i = 0; i < step_arrays_.size(); ++i)
            std::copy(step_arrays_[i]->begin() + static_cast<std::ptrdiff_t>(a),
                      step_arrays_[i]->begin() + static_cast<std::ptrdiff_t>(b),
                      start_[i].begin() + static_cast<std::ptrdiff_t>(a));
    });
}

SleepingWalls AdaptiveHeun::sleeping_walls(const ParticleSet& p, const MaterialTable& mt,
                                           const PhysicsParameters& pp) {
    const double* states = sleep_states(p, mt, pp);
    if (!states) return {};
    if (quiet_walls_.size() != p.owned()) quiet_walls_.assign(p.owned(), 0);
    return {states, quiet_walls_.data(), &bodies_.moving_bodies()};
}

const std::uint8_t* AdaptiveHeun::idle_rows(const ParticleSet& p, const MaterialTable& mt,
                                            const PhysicsParameters& pp) {
    const double* states = sleep_states(p, mt, pp);
    if (!states || runs_gradient_prepass(mt, pp)) return nullptr;
    idle_rows_.resize(p.owned());
    for (std::size_t a = 0; a < p.owned(); ++a) idle_rows_[a] = asleep(states, a) ? 1 : 0;
    return idle_rows_.data();
}

void AdaptiveHeun::particles_changed() {
    quiet_walls_.clear();
    records_current_ = false;
}

void AdaptiveHeun::restore_start(ParticleSet& p) {
    quiet_walls_.clear();
    records_current_ = false;
    const ParticleKind* integrated = integrated_kinds_.empty() ? nullptr : integrated_kinds_.data();
    for_each_awake_run(integrated, p.kind.data(), 0, p.owned(), [&](std::size_t a, std::size_t b) {
        for (std::size_t i = 0; i < step_arrays_.size(); ++i)
            std::copy(start_[i].begin() + static_cast<std::ptrdiff_t>(a),
                      start_[i].begin() + static_cast<std::ptrdiff_t>(b),
                      step_arrays_[i]->begin() + static_cast<std::ptrdiff_t>(a));
    });
}

const std::vector<double>* AdaptiveHeun::saved(const std::vector<double>& array) const {
    for (std::size_t i = 0; i < step_arrays_.size(); ++i)
        if (step_arrays_[i] == &array) return &start_[i];
    return nullptr;
}

const double* AdaptiveHeun::start_of(const std::vector<double>& array) const {
    const std::vector<double>* copy = saved(array);
    return copy ? copy->data() : array.data();
}

void AdaptiveHeun::list_stage_arrays(ParticleSet& p, const MaterialTable& mt, bool final) {
    list_stage_arrays_of(
        p, [this](const std::vector<double>& array) { return saved(array); }, k1_,
        final ? k2_ : k1_, mt.any_plastic, final, stage_arrays_);
}

// The staged pair-loop records are workspace of one evaluation: the stages take turns with one
// set of them (144 bytes per particle less in 3D for each, which large runs feel).
void AdaptiveHeun::take_staging(Derivatives& next) {
    if (!next.staged.record.empty()) return;
    for (Derivatives* other : {&k1_, &k2_, &k3_})
        if (other != &next && !other->staged.record.empty()) {
            std::swap(next.staged, other->staged);
            return;
        }
}

struct AdaptiveHeun::StartState {
    const double* mass;
    const double* rho;
    std::array<const double*, kSymComponents> stress;
    std::vector<const double*> history;  // per column of ParticleSet::history
};

// Predictor: y = y0 + dt k1. SSP-RK3's second stage: y = y0 + dt/4 (k1 + k2). Corrector:
// y = y0 + dt/2 (k1 + k2) (with SSP-RK3, k2 is the combined rate, combine_rates). For every
// integrated field of the table (list_stage_arrays), each
// followed by each material's correction (Bui's return mapping for regolith, the equation of
// state for elastic solids). The corrector returns the error norm divided by the tolerance
// (+inf if the new state is not finite): the largest step error of the fields that have one
// (StepError: position and velocity in smoothing lengths, relative density).
//
// Each chunk of particles goes through the fields one after another: the updates and the
// error norm are plain array sweeps that vectorise, and so is the elastic solids' equation of
// state; only Bui's return mapping (regolith) and the energy budget's correction work run
// particle by particle. The predictor of a step's first attempt first saves each chunk's state
// at the step start (save_start) in the same region: the saved copy is then in the core's
// cache when the sweeps read it, and the step opens one parallel region less.
double AdaptiveHeun::stage_update(ParticleSet& p, const MaterialTable& mt,
                                  const parallel::Partition& part, double dt, Stage stage) {
    const std::size_t n = p.owned();
    const int dim = p.dim;
    // The second stage is the corrector's sweep over half the step.
    const bool final = stage != Stage::predictor;
    const double sweep_dt = stage == Stage::second ? 0.5 * dt : dt;
    if (stage == Stage::corrector) {
        particle_error_.resize(n);  // written for every particle below
        correction_loss_.resize(n);
    } else if (stage == Stage::predictor) {
        corrected_before_.resize(n);
    }
    const bool save = stage == Stage::predictor && !start_saved_;
    if (save) size_start(p);
    list_stage_arrays(p, mt, final);
    StartState start{start_of(p.mass), start_of(p.rho), {}, {}};
    for (int c = 0; c < kSymComponents; ++c) start.stress[c] = start_of(p.stress[c]);
    for (const std::vector<double>& column : p.history.values)
        start.history.push_back(start_of(column));
    const ParticleKind* kind = integrated_kinds_.empty() ? p.kind.data() : integrated_kinds_.data();
    double worst = 0.0;
    // Each thread updates its own part of the particles first, mostly those whose rates it
    // computed (parallel::ChunkQueue).
    parallel::ChunkQueue chunks(part, n, kUpdateChunk);
#pragma omp parallel num_threads(part.team()) reduction(max : worst)
    chunks.run([&](std::size_t first, std::size_t last) {
        if (save) save_start(p, first, last);
        const std::size_t m = last - first;
        // A chunk without an integrated particle (walls, a sleeping region) keeps its state:
        // what the sweeps below would write for it is what it holds, and its errors and
        // correction losses are zero.
        if (std::none_of(kind + first, kind + last,
                         [](ParticleKind k) { return k == ParticleKind::dynamic; })) {
            if (stage == Stage::predictor) {
                std::fill_n(corrected_before_.begin() + static_cast<std::ptrdiff_t>(first), m, 0);
            } else if (stage == Stage::corrector) {
                std::fill_n(particle_error_.begin() + static_cast<std::ptrdiff_t>(first), m, 0.0);
                std::fill_n(correction_loss_.begin() + static_cast<std::ptrdiff_t>(first), m, 0.0);
            }
            return;
        }
        // Per particle of the chunk: the largest step error and the count of non-finite
        // values (corrector).
        std::array<double, kUpdateChunk> error{}, not_finite{}, scratch{};
        sweep_fields(stage_arrays_, kind, p.h.data(), sweep_dt, final,
                     stage == Stage::corrector, first, last, error.data(), not_finite.data(),
                     scratch.data());

        // Each material's correction, over each run of dynamic particles of one material
        // (correct_stresses; the elastic solid's sweep vectorises). corrected: whether the
        // correction changed a particle's stress plastically (0 for the particles that are not
        // dynamic).
        std::array<std::uint8_t, kUpdateChunk> corrected{};
        for_each_material_run(p, first, last, [&](std::size_t a, std::size_t b) {
            const int mat = p.material[a];
            for_each_dynamic_run(kind, a, b, [&](std::size_t i, std::size_t j) {
                correct_stresses(mt.materials[mat],
                                 point_run(p, mt.history_columns[mat], i, j - i), dt,
                                 corrected.data() + (i - first), stress_components(dim));
            });
        });
        if (stage == Stage::predictor) {
            std::copy(corrected.begin(), corrected.begin() + static_cast<std::ptrdiff_t>(m),
                      corrected_before_.begin() + static_cast<std::ptrdiff_t>(first));
            return;
        }
        if (stage == Stage::second) {
            for (std::size_t i = 0; i < m; ++i) corrected_before_[first + i] |= corrected[i];
            return;
        }
        // Error norm of each dynamic particle; +inf where the new state is not finite.
        for (const StageArray& s : stage_arrays_)
            count_not_finite(s.value->data(), not_finite.data(), first, last);
#pragma omp simd reduction(max : worst)
        for (std::size_t a = first; a < last; ++a) {
            const double e = not_finite[a - first] == 0.0 ? error[a - first]
                                                          : std::numeric_limits<double>::infinity();
            particle_error_[a] = kind[a] == ParticleKind::dynamic ? e : 0.0;
            worst = std::max(worst, particle_error_[a]);
        }
        correction_losses(p, mt, start, kind, corrected.data(), first, last, dt);
    });
    if (save) start_saved_ = true;
    if (stage != Stage::corrector) return 0.0;
    return mpi::max(worst) / opt_.tolerance;  // the step is the same on every rank
}

// The corrector's chunk [first, last): each dynamic particle's correction work (correction_loss_,
// correction_work) where Bui's correction changed its stress at any stage (corrected: at this
// one, per particle from first; corrected_before_: at an earlier one), and its yielding flag;
// zero loss elsewhere.
void AdaptiveHeun::correction_losses(ParticleSet& p, const MaterialTable& mt,
                                     const StartState& start, const ParticleKind* kind,
                                     const std::uint8_t* corrected, std::size_t first,
                                     std::size_t last, double dt) {
    for (std::size_t a = first; a < last; ++a) {
        correction_loss_[a] = 0.0;
        if (kind[a] != ParticleKind::dynamic) continue;
        const bool now = corrected[a - first] != 0;
        if (now || corrected_before_[a]) {
            SymTensor sigma;
            for (int c = 0; c < kSymComponents; ++c) sigma[c] = p.stress[c][a];
            correction_loss_[a] = correction_work(mt.materials[p.material[a]],
                                                  mt.history_columns[p.material[a]], start, a, dt,
                                                  sigma, p);
        }
        p.yielding[a] = (k2_.yielding[a] || now) ? 1 : 0;
    }
}

// Energy budget: in a step where Bui's corrections changed a particle's stress (at either
// stage), its plastic work is what the stress power did not store as elastic energy,
// int V sigma : eps_dot dt - (E_el(end) - E_el(start)), the textbook definition of plastic work.
// The stages' dissipation rate V lambda_dot (...) (dt/2 (k1 + k2), energy_increment) is part of
// it; this returns the rest [J]. (The elastic energy the correction removes, E_el(before) -
// E_el(after), is not it: where a stage creates stress beyond the surface, e.g. tension at a
// cohesionless apex, the trapezoidal stress power never paid that energy in.)
double AdaptiveHeun::correction_work(const Material& material, const std::vector<int>& columns,
                                     const StartState& start, std::size_t a, double dt,
                                     const SymTensor& sigma, const ParticleSet& p) const {
    // The stored energy at the start and at the end, each at its own history (the porous
    // soil's depends on its distension).
    std::array<double, kMaxHistoryVariables> h0{}, h1{};
    for (std::size_t k = 0; k < columns.size(); ++k) {
        const auto column = static_cast<std::size_t>(columns[k]);
        h0[k] = start.history[column][a];
        h1[k] = p.history.values[column][a];
    }
    MaterialState s0{start.rho[a], {}, h0.data()};
    for (int c = 0; c < kSymComponents; ++c) s0.sigma[c] = start.stress[c][a];
    const double e0 = start.mass[a] * strain_energy(material, s0);
    const double e1 =
        p.mass[a] * strain_energy(material, MaterialState{p.rho[a], sigma, h1.data()});
    const double stored = 0.5 * dt * (k1_.stress_power[a] - k1_.power[kPlasticPower][a] +
                                      k2_.stress_power[a] - k2_.power[kPlasticPower][a]);
    return e0 + stored - e1;
}

EnergyIncrement AdaptiveHeun::energy_increment(const parallel::Partition& part, double dt,
                                               double power_1, double power_2) const {
    // This rank's share (its owned particles); the rows sum the ranks' totals
    // (compute_diagnostics). The particles' terms are summed in fixed blocks of
    // kEnergyBlock particles, each block in particle order, and then the blocks in order: the
    // same sums on any number of threads. Each thread sums the blocks that start in its part
    // of the partition, whose rates it wrote: a serial sweep would read the other thread's
    // rates into the main thread's cache at every step, and that thread would then have to
    // take them back before it could write them again.
    const std::size_t n = correction_loss_.size();
    const std::size_t blocks = (n + kEnergyBlock - 1) / kEnergyBlock;
    std::vector<std::array<double, kEnergyRates>> partial(blocks);
#pragma omp parallel for schedule(static, 1) num_threads(part.team())
    for (int k = 0; k < part.parts(); ++k) {
        const std::size_t to = std::min(part.end(k, n), n);
        for (std::size_t b = (part.begin(k) + kEnergyBlock - 1) / kEnergyBlock;
             b * kEnergyBlock < to; ++b) {
            std::array<double, kEnergyRates> sum{};
            for (std::size_t a = b * kEnergyBlock; a < std::min(n, (b + 1) * kEnergyBlock); ++a) {
                for (int c = 0; c < kEnergyRates; ++c)
                    sum[c] += 0.5 * dt * (k1_.power[c][a] + k2_.power[c][a]);
                sum[kPlasticPower] += correction_loss_[a];
            }
            partial[b] = sum;
        }
    }
    EnergyIncrement e;
    for (const auto& sum : partial)
        for (int c = 0; c < kEnergyRates; ++c) e.dissipated[c] += sum[c];
    // The loads are the same on every rank: their work counts on rank 0.
    if (mpi::rank() == 0) e.body_work = 0.5 * dt * (power_1 + power_2);
    return e;
}

void AdaptiveHeun::blow_up(ParticleSet& p, double time, std::int64_t step, double dt,
                           const std::string& why) {
    // The particles back at the step start (before a predictor they are still there), where
    // the report reads them and the run leaves them.
    if (start_saved_) restore_start(p);
    // Report the worst particles: largest error of the failed attempt or, before any attempt,
    // the smallest Courant limit (the particles that force the step down). Every rank reports
    // its own worst; the lines of all ranks are merged, so every rank throws the same report.
    const std::size_t n = p.owned();
    const bool have_errors = particle_error_.size() == n;
    std::vector<double> badness(n, 0.0);
    for (std::size_t a = 0; a < n; ++a) {
        if (have_errors)
            badness[a] = particle_error_[a] / opt_.tolerance;
        else if (k1_.dt_limit.size() >= n && p.kind[a] == ParticleKind::dynamic)
            badness[a] = 1.0 / k1_.dt_limit[a];
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    const std::size_t shown = std::min<std::size_t>(5, n);
    std::partial_sort(order.begin(), order.begin() + shown, order.end(),
                      [&](std::size_t a, std::size_t b) { return badness[a] > badness[b]; });
    // One line per particle: "<badness>\t<text>", badness first for the merge below.
    std::ostringstream mine;
    mine.precision(17);
    const auto x0 = [&](int d, std::size_t a) { return p.x[d][a]; };
    const auto v0 = [&](int d, std::size_t a) { return p.v[d][a]; };
    for (std::size_t i = 0; i < shown; ++i) {
        const std::size_t a = order[i];
        mine << badness[a] << '\t';
        mine.precision(6);
        mine << "  id " << p.id[a] << ": (" << x0(0, a) << ", " << x0(1, a) << ", " << x0(2, a)
             << "), " << badness[a] << "; velocity (" << v0(0, a) << ", " << v0(1, a) << ", "
             << v0(2, a) << ") m/s, density " << p.rho[a]
             << " kg/m^3, stress (xx yy zz xy xz yz) (";
        for (int c = 0; c < kSymComponents; ++c) mine << (c ? " " : "") << p.stress[c][a];
        mine << ") Pa";
        if (mpi::size() > 1) mine << ", rank " << mpi::rank();
        mine << '\n';
        mine.precision(17);
    }
    std::vector<std::pair<double, std::string>> lines;
    for (const std::string& text : mpi::allgather(mine.str())) {
        std::istringstream in(text);
        std::string line;
        while (std::getline(in, line)) {
            const auto tab = line.find('\t');
            if (tab == std::string::npos) continue;
            double b = std::strtod(line.substr(0, tab).c_str(), nullptr);
            if (std::isnan(b)) b = std::numeric_limits<double>::infinity();
            lines.emplace_back(b, line.substr(tab + 1));
        }
    }
    std::stable_sort(lines.begin(), lines.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::ostringstream os;
    os << "blow-up at t = " << time << " s, step " << step << ", dt = " << dt << " s: " << why
       << ". Worst particles (id: position at step start [m], "
       << (have_errors ? "error/tolerance" : "1/Courant limit [1/s]") << "):";
    for (std::size_t i = 0; i < std::min<std::size_t>(5, lines.size()); ++i)
        os << "\n" << lines[i].second;
    throw BlowUpError(os.str());
}

StepReport AdaptiveHeun::step(ParticleSet& p, NeighbourList& nl, const MaterialTable& mt,
                              const PhysicsParameters& pp, double time, std::int64_t step,
                              double dt_cap) {
    const auto start = std::chrono::steady_clock::now();
    if (tuner_.enabled() != (opt_.tune_threads && mpi::size() == 1))
        tuner_.enable(opt_.tune_threads && mpi::size() == 1);
    // The tuner's cap holds for this step only (evaluations outside a step and other runs on
    // this thread must not inherit it), also when the step throws.
    struct CapForThisStep {
        int previous = parallel::thread_limit();
        ~CapForThisStep() { parallel::thread_limit() = previous; }
    } cap_for_this_step;
    tuner_.begin_step();
    StepReport report = attempt_step(p, nl, mt, pp, time, step, dt_cap);
    tuner_.record(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return report;
}

double AdaptiveHeun::ssp_rk3_stage(ParticleSet& p, NeighbourList& nl, const MaterialTable& mt,
                                   const PhysicsParameters& pp, double time, double dt,
                                   double power_1, double power_2) {
    auto clock = std::chrono::steady_clock::now();
    const double t2 = time + 0.5 * dt;
    stage_update(p, mt, nl.partition(p), dt, Stage::second);
    bodies_.update(0.5 * dt, true, t2);  // the corrector's weights over half the step
    place(p, t2);
    times_.updates += seconds_since(clock);
    take_staging(k3_);
    evaluate(p, nl, mt, pp, t2, false, k3_);
    const double power_3 = bodies_.power(k3_.loads, t2);
    bodies_.compute_rates(3, k3_.loads, pp.gravity, t2);  // combines the bodies' rates
    clock = std::chrono::steady_clock::now();
    combine_rates(p, nl.partition(p), dt);
    times_.updates += seconds_since(clock);
    return ssp_rk3_rate(power_1, power_2, power_3);
}

namespace {
// SSP-RK3's combined rate in Heun's corrector form (ssp_rk3_rate) over [first, last).
void combine(std::vector<double>& r2, const std::vector<double>& r1, const std::vector<double>& r3,
             std::size_t first, std::size_t last) {
    last = std::min(last, r2.size());
#pragma omp simd
    for (std::size_t a = first; a < last; ++a) r2[a] = ssp_rk3_rate(r1[a], r2[a], r3[a]);
}
}  // namespace

// k2_ := (k1_ + k2_ + 4 k3_) / 3 - k1_ for every integrated field's rate, the energy budget's
// powers and the loads on the bodies; the yielding flags of either evaluation. Where the
// position's rate is the velocity (no XSPH), its three values are v0 (the step start), v1 =
// v0 + dt a1 (the predicted state) and v2 (the second stage's, which the particles hold now):
// the corrector reads the combined (v1 + 4 v2 - 2 v0) / 3 from the particles' velocity of the
// integrated particles, which its own velocity sweep then overwrites.
void AdaptiveHeun::combine_rates(ParticleSet& p, const parallel::Partition& part, double dt) {
    const std::size_t n = p.owned();
    const ParticleKind* kind = integrated_kinds_.empty() ? p.kind.data() : integrated_kinds_.data();
    const bool velocity_is_position_rate = k1_.dx[0].empty();
    parallel::ChunkQueue chunks(part, n, kUpdateChunk);
#pragma omp parallel num_threads(part.team())
    chunks.run([&](std::size_t first, std::size_t last) {
        for_each_integrated_field(p, [&](const FieldInfo&, auto&, auto rate) {
            auto& r2 = rate(k2_);
            const auto& r1 = rate(k1_);
            const auto& r3 = rate(k3_);
            using A = std::remove_cvref_t<decltype(r2)>;
            if constexpr (std::is_same_v<A, std::vector<double>>) {
                combine(r2, r1, r3, first, last);
            } else {
                for (std::size_t c = 0; c < r2.size(); ++c)
                    combine(r2[c], r1[c], r3[c], first, last);
            }
        });
        for (int c = 0; c < kEnergyRates; ++c)
            combine(k2_.power[c], k1_.power[c], k3_.power[c], first, last);
        combine(k2_.stress_power, k1_.stress_power, k3_.stress_power, first, last);
        for (std::size_t a = first; a < std::min(last, k2_.yielding.size()); ++a)
            k2_.yielding[a] |= k3_.yielding[a];
        if (!velocity_is_position_rate) return;
        for (int c = 0; c < p.dim; ++c) {
            const double* v0 = start_of(p.v[c]);
            const double* a1 = k1_.dv[c].data();
            double* v = p.v[c].data();
            for (std::size_t a = first; a < last; ++a)
                if (kind[a] == ParticleKind::dynamic)
                    v[a] = ssp_rk3_rate(v0[a], v0[a] + dt * a1[a], v[a]);
        }
    });
    for (std::size_t b = 0; b < k2_.loads.size(); ++b) {
        BodyLoad& l2 = k2_.loads[b];
        const BodyLoad &l1 = k1_.loads[b], &l3 = k3_.loads[b];
        for (auto member : {&BodyLoad::force, &BodyLoad::torque, &BodyLoad::contact_force,
                            &BodyLoad::contact_torque})
            for (int d = 0; d < 3; ++d)
                (l2.*member)[d] = ssp_rk3_rate((l1.*member)[d], (l2.*member)[d], (l3.*member)[d]);
    }
}

StepReport AdaptiveHeun::attempt_step(ParticleSet& p, NeighbourList& nl, const MaterialTable& mt,
                                      const PhysicsParameters& pp, double time,
                                      std::int64_t step, double dt_cap) {
    prepare(p, nl, mt, pp, time, true);  // particles may change ranks here, before the step
    auto clock = std::chrono::steady_clock::now();
    if (const double* states = sleep_states(p, mt, pp))
        integrated_kinds(p, states, integrated_kinds_);
    else
        integrated_kinds_.clear();
    particle_error_.clear();
    start_saved_ = false;  // the predictor saves the particles' state (stage_update)
    bodies_.save_start();
    times_.updates += seconds_since(clock);
    clock = std::chrono::steady_clock::now();
    take_staging(k1_);
    const double dt_contact = derivatives(p, nl, mt, pp, time, k1_);
    const double power_1 = bodies_.power(k1_.loads, time);  // the bodies at the step start
    bodies_.compute_rates(1, k1_.loads, pp.gravity, time);
    times_.derivatives += seconds_since(clock);
    // The particles' smallest Courant limit comes from the pair loop's reduction.
    double dt_courant = std::min({dt_contact, bodies_.step_limit(pp.courant, time), k1_.dt_min});
    dt_courant = mpi::min(dt_courant);
    last_courant_ = dt_courant;

    double dt = dt_next_ > 0.0 ? dt_next_ : (opt_.dt_initial > 0.0 ? opt_.dt_initial : dt_courant);
    dt = std::min({dt, dt_courant, opt_.dt_max});
    if (!std::isfinite(dt)) dt = opt_.dt_max;
    StepReport report;
    for (;;) {
        const bool capped = dt >= dt_cap;
        if (capped) dt = dt_cap;
        if (!(dt >= opt_.dt_min) && !capped)
            blow_up(p, time, step, dt, "the step fell below the floor dt_min = " +
                                           (std::ostringstream() << opt_.dt_min).str() + " s");
        auto clock = std::chrono::steady_clock::now();
        stage_update(p, mt, nl.partition(p), dt, Stage::predictor);
        bodies_.update(dt, false, time + dt);
        place(p, time + dt);  // kinematic bodies exactly, rigid ones at their predicted state
        times_.updates += seconds_since(clock);
        take_staging(k2_);
        evaluate(p, nl, mt, pp, time + dt, false, k2_);
        double power_2 = bodies_.power(k2_.loads, time + dt);  // at their predicted state
        bodies_.compute_rates(2, k2_.loads, pp.gravity, time + dt);
        if (opt_.scheme == TimeScheme::ssp_rk3)
            power_2 = ssp_rk3_stage(p, nl, mt, pp, time, dt, power_1, power_2);
        clock = std::chrono::steady_clock::now();
        double err = stage_update(p, mt, nl.partition(p), dt, Stage::corrector);
        if (bodies_.integrated()) {
            bodies_.update(dt, true, time + dt);
            err = std::max(err, bodies_.error(dt) / opt_.tolerance);
            place(p, time + dt);
        }
        times_.updates += seconds_since(clock);
        if (err <= 1.0) {
            const double grow = err > 0.0 ? 0.9 / std::sqrt(err) : 1.5;
            // Capping at an output time says nothing about the step the solution allows.
            const double base = capped ? std::max(dt, dt_next_) : dt;
            dt_next_ = base * std::clamp(grow, 0.2, 1.5);
            // The loads of the step with the weights of the velocity update, so that
            // dt F is the impulse the regolith gave the body.
            step_loads_.assign(k1_.loads.size(), BodyLoad{});
            add_scaled(step_loads_, k1_.loads, 0.5);
            add_scaled(step_loads_, k2_.loads, 0.5);
            step_loads_step_ = step + 1;
            report.dt = dt;
            report.error = err;
            report.energy = energy_increment(nl.partition(p), dt, power_1, power_2);
            if (!integrated_kinds_.empty())
                report.integrated_particles =
                    decide_sleep(p, nl, mt, pp, k1_, k2_, bodies_.moving_bodies());
            return report;
        }
        restore_start(p);
        bodies_.restore_start();
        ++report.rejected;
        dt *= std::isfinite(err) ? std::clamp(0.9 / std::sqrt(err), 0.1, 0.9) : 0.25;
        if (report.rejected > 200)
            blow_up(p, time, step, dt, "more than 200 rejected attempts for one step");
    }
}

}  // namespace regosph
