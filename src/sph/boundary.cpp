#include "sph/boundary.hpp"

#include <algorithm>
#include <cmath>

#include "core/tensor.hpp"
#include "parallel/threads.hpp"
#include "sph/kernel.hpp"
#include "sph/sleep_regions.hpp"

namespace regosph {

namespace {
// The boundary particles among the owned particles [first, last).
template <int Dim>
void extrapolate_range(ParticleSet& p, const NeighbourList& nl, const PhysicsParameters& pp,
                       const std::array<std::vector<double>, 3>* wall_acc, std::size_t first,
                       std::size_t last, SleepingWalls sleeping) {
    for (std::size_t w = first; w < last; ++w) {
        if (p.kind[w] != ParticleKind::boundary) continue;
        if (sleeping.states) {
            const auto row = nl.row(w);
            const bool all_asleep = std::all_of(row.begin(), row.end(), [&](std::uint32_t f) {
                return asleep(sleeping.states, f);
            });
            const bool keep = all_asleep && sleeping.quiet[w] != 0;
            const auto body = static_cast<std::size_t>(p.body[w]);
            const bool moves = sleeping.moving_body && body < sleeping.moving_body->size() &&
                               (*sleeping.moving_body)[body] != 0;
            sleeping.quiet[w] = !all_asleep ? 0 : keep && !moves ? 2 : 1;
            if (keep) continue;
        }
        double g_rel[Dim];  // g - a_w
        for (int d = 0; d < Dim; ++d)
            g_rel[d] = pp.gravity[d] - (wall_acc ? (*wall_acc)[d][w] : 0.0);
        double sum_w = 0.0, sum_rho = 0.0, sum_head = 0.0;
        SymTensor sum_sigma{};
        for (const std::uint32_t f : nl.row(w)) {
            double r2 = 0.0, g_dot_r = 0.0;
            for (int d = 0; d < Dim; ++d) {
                const double dx = p.x[d][w] - p.x[d][f];
                r2 += dx * dx;
                g_dot_r += g_rel[d] * dx;
            }
            const double h_wf = 0.5 * (p.h[w] + p.h[f]);
            if (r2 >= h_wf * h_wf) continue;
            const double W = kernel::value<Dim>(std::sqrt(r2), h_wf);
            sum_w += W;
            sum_rho += p.rho[f] * W;
            sum_head += p.rho[f] * g_dot_r * W;
            for (int c = 0; c < stress_components(Dim); ++c) sum_sigma[c] += p.stress[c][f] * W;
        }
        const double volume = p.mass[w] / p.rho[w];
        if (sum_w > 0.0) {
            for (int c = 0; c < stress_components(Dim); ++c) p.stress[c][w] = sum_sigma[c] / sum_w;
            for (int c = XX; c <= ZZ; ++c) p.stress[c][w] -= sum_head / sum_w;
            p.rho[w] = sum_rho / sum_w;
            p.mass[w] = p.rho[w] * volume;
        } else {
            for (int c = 0; c < stress_components(Dim); ++c) p.stress[c][w] = 0.0;
        }
    }
}
}  // namespace

void extrapolate_boundary(ParticleSet& p, const NeighbourList& nl, const PhysicsParameters& pp,
                          const std::array<std::vector<double>, 3>* wall_acceleration,
                          std::size_t first, std::size_t last, SleepingWalls sleeping) {
    if (p.dim == 2)
        extrapolate_range<2>(p, nl, pp, wall_acceleration, first, last, sleeping);
    else
        extrapolate_range<3>(p, nl, pp, wall_acceleration, first, last, sleeping);
}

void extrapolate_boundary(ParticleSet& p, const NeighbourList& nl, const PhysicsParameters& pp,
                          const std::array<std::vector<double>, 3>* wall_acceleration,
                          SleepingWalls sleeping) {
    const std::size_t n = p.owned();  // halo walls get their values from their owners
    if (nl.walls() == 0) return;  // no walls: no parallel region to open
    // The work: the dynamic neighbours of the walls (a wall's row holds only those).
    constexpr std::size_t kChunk = 256;
#pragma omp parallel for schedule(dynamic, 1) \
    num_threads(parallel::threads_for(nl.wall_entries(), parallel::kMinPairEntries))
    for (std::size_t first = 0; first < n; first += kChunk)
        extrapolate_boundary(p, nl, pp, wall_acceleration, first, std::min(n, first + kChunk),
                             sleeping);
}

}  // namespace regosph
