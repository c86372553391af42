#include "sph/sleep_regions.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <span>

#include "parallel/mpi_env.hpp"
#include "parallel/threads.hpp"

namespace regosph {

HistoryVariable sleep_state_variable() {
    return {kSleepStateName, "-",
            "sleeping regions (physics.sleep): 0 moving, 1 awake at rest, 2 asleep (not "
            "integrated)",
            kMoving};
}

const double* sleep_states(const ParticleSet& p, const MaterialTable& mt,
                           const PhysicsParameters& pp) {
    if (!pp.sleep || mt.sleep_column < 0) return nullptr;
    return p.history.values[static_cast<std::size_t>(mt.sleep_column)].data();
}

void integrated_kinds(const ParticleSet& p, const double* states, std::vector<ParticleKind>& out) {
    const std::size_t n = p.owned();
    out.resize(n);
    for (std::size_t a = 0; a < n; ++a)
        out[a] = asleep(states, a) ? ParticleKind::boundary : p.kind[a];
}

namespace {

// Whether awake particle a's speed and its rates at both stages stay within the tolerance.
bool calm(const ParticleSet& p, const MaterialTable& mt, double v_s, const Derivatives& k1,
          const Derivatives& k2, std::size_t a) {
    const auto norm = [&](const std::array<std::vector<double>, 3>& f) {
        double s = 0.0;
        for (int d = 0; d < p.dim; ++d) s += f[d][a] * f[d][a];
        return std::sqrt(s);
    };
    const double c = mt.viscosity_speed[static_cast<std::size_t>(p.material[a])];
    const double accel = c * v_s / p.h[a];               // [m/s^2]
    const double stress_rate = p.rho[a] * c * accel;     // rho c^2 v_s / h [Pa/s]
    if (!(norm(p.v) <= v_s && norm(k1.dv) <= accel && norm(k2.dv) <= accel)) return false;
    for (int c_ = 0; c_ < kSymComponents; ++c_)
        if (!(std::abs(k1.dstress[c_][a]) <= stress_rate &&
              std::abs(k2.dstress[c_][a]) <= stress_rate))
            return false;
    return true;
}

// Per particle (halo copies included): whether it moved at the previous decision (a dynamic
// particle) or belongs to a moving body (a boundary particle of a kinematic or rigid body),
// what makes a partner wake its neighbours.
std::vector<std::uint8_t> waking_partners(const ParticleSet& p, const double* states,
                                          const std::vector<std::uint8_t>& moving_body) {
    const std::size_t n = p.size();
    std::vector<std::uint8_t> out(n, 0);
#pragma omp parallel for schedule(static) num_threads(parallel::threads_for(n, parallel::kMinCheapItems))
    for (std::size_t b = 0; b < n; ++b) {
        if (p.kind[b] == ParticleKind::dynamic) {
            out[b] = states[b] == kMoving ? 1 : 0;
        } else if (const auto k = static_cast<std::size_t>(p.body[b]); k < moving_body.size()) {
            out[b] = moving_body[k];
        }
    }
    return out;
}

// Whether a partner of a's pair list wakes it (waking_partners).
bool touched(const NeighbourList& nl, const std::vector<std::uint8_t>& waking, std::size_t a) {
    for (const std::uint32_t b : nl.partners(a))
        if (waking[b] != 0 && b != a) return true;  // b == a: the padding
    return false;
}

// Per owned particle: whether another owned waking partner (waking_partners) holds it in its
// pair list (a boundary particle: in the entries its pair list would hold,
// NeighbourList::pairs_of). The lists are symmetric, b in a's <=> a in b's, so for a particle
// whose row holds no halo copy (every row on one rank, and the sleeping rows without a list,
// NeighbourList::select_pairs) this is touched() over its list, from the lists of the moving
// particles only.
std::vector<std::uint8_t> reached_by_waking(const ParticleSet& p, const NeighbourList& nl,
                                            const std::vector<std::uint8_t>& waking) {
    const std::size_t n = p.owned();
    std::vector<std::uint8_t> reached(n, 0);
    const auto mark = [&](std::span<const std::uint32_t> list, std::size_t from) {
        for (const std::uint32_t b : list)  // several threads may mark b; b == from: the padding
            if (b < n && b != from)
                std::atomic_ref<std::uint8_t>(reached[b]).store(1, std::memory_order_relaxed);
    };
#pragma omp parallel num_threads(parallel::threads_for(n, parallel::kMinCheapItems))
    {
        std::vector<std::uint32_t> list;
#pragma omp for schedule(dynamic, 256)
        for (std::size_t a = 0; a < n; ++a) {
            if (waking[a] == 0) continue;
            if (p.kind[a] == ParticleKind::dynamic) {
                mark(nl.partners(a), a);  // moving, so awake: it has its list
            } else {
                nl.pairs_of(p, p.x_selected, a, list);
                mark(list, a);
            }
        }
    }
    return reached;
}

}  // namespace

std::int64_t decide_sleep(ParticleSet& p, const NeighbourList& nl, const MaterialTable& mt,
                          const PhysicsParameters& pp, const Derivatives& k1,
                          const Derivatives& k2, const std::vector<std::uint8_t>& moving_body) {
    if (!sleep_states(p, mt, pp)) return 0;
    double* states = p.history.values[static_cast<std::size_t>(mt.sleep_column)].data();
    const std::size_t n = p.owned();
    // The partners are read as they were through `waking` and `reached`, both taken before
    // any state changes: the loop below then reads only each particle's own old state and
    // writes its new one in place.
    const std::vector<std::uint8_t> waking = waking_partners(p, states, moving_body);
    const std::vector<std::uint8_t> reached = reached_by_waking(p, nl, waking);
    std::int64_t integrated = 0;
#pragma omp parallel for schedule(static) reduction(+ : integrated) \
    num_threads(parallel::threads_for(n, parallel::kMinCheapItems))
    for (std::size_t a = 0; a < n; ++a) {
        if (p.kind[a] != ParticleKind::dynamic) continue;
        const bool was_asleep = states[a] == kAsleep;
        if (!was_asleep) ++integrated;
        if (!was_asleep && !calm(p, mt, pp.sleep_speed, k1, k2, a))
            states[a] = kMoving;
        else if ((p.n_halo == 0 || !nl.listed(a)) ? reached[a] != 0 : touched(nl, waking, a))
            states[a] = kResting;
        else
            states[a] = kAsleep;
        // A particle that falls asleep stops: its awake partners see a boundary at rest, not
        // one that keeps a velocity up to v_s in their strain rates and viscosity while it
        // does not move (the 2D lander's e_n drifted by 7 % with it, docs/guide/physics.md).
        // The kinetic energy removed, at most m v_s^2 / 2 per particle, is not a budget column.
        if (states[a] == kAsleep && !was_asleep)
            for (int d = 0; d < p.dim; ++d) p.v[d][a] = 0.0;
    }
    return mpi::sum(integrated);
}

}  // namespace regosph
