// Simulation::relax_with_kinetic_damping: a bed brought to rest inside the core, with no
// Python between the steps (regosph.bed).
#include <chrono>
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "parallel/mpi_env.hpp"
#include "sph/simulation.hpp"
#include "sph/sleep_regions.hpp"

namespace regosph {

namespace {

// The kinetic energy of the dynamic particles, summed as compute_diagnostics sums it (the same
// bits: serial, in particle order, then over the ranks). Collective.
double kinetic_energy(const ParticleSet& p) {
    double e = 0.0;
    for (std::size_t a = 0; a < p.owned(); ++a) {
        if (p.kind[a] != ParticleKind::dynamic) continue;
        double v2 = 0.0;
        for (int d = 0; d < 3; ++d) v2 += p.v[d][a] * p.v[d][a];
        e += 0.5 * p.mass[a] * v2;
    }
    return mpi::sum(e);
}

std::int64_t dynamic_count(const ParticleSet& p) {
    std::int64_t n = 0;
    for (std::size_t a = 0; a < p.owned(); ++a) n += p.kind[a] == ParticleKind::dynamic ? 1 : 0;
    return mpi::sum(n);
}

}  // namespace

RelaxationReport Simulation::relax_with_kinetic_damping(double energy_tolerance,
                                                        std::int64_t max_steps, double dt_cap,
                                                        double progress_seconds) {
    if (!(energy_tolerance > 0.0 && std::isfinite(energy_tolerance)))
        throw std::invalid_argument("relax_with_kinetic_damping: energy_tolerance must be > 0");
    if (max_steps < 1)
        throw std::invalid_argument("relax_with_kinetic_damping: max_steps must be >= 1");
    validate_setup();
    ensure_integrator();
    RelaxationReport r;
    r.last_peak_energy = std::numeric_limits<double>::infinity();
    double previous = 0.0;
    auto last_print = std::chrono::steady_clock::now();
    std::int64_t every = -1;  // the dynamic particles, counted once (without physics.sleep)
    for (std::int64_t step = 1; step <= max_steps; ++step) {
        const auto now = std::chrono::steady_clock::now();
        if (progress_seconds > 0.0 &&
            std::chrono::duration<double>(now - last_print).count() >= progress_seconds) {
            last_print = now;
            if (mpi::rank() == 0) {
                std::ostringstream peak;
                if (r.resets)
                    peak << "last kinetic-energy peak " << r.last_peak_energy / energy_tolerance
                         << " x the tolerance";
                else
                    peak << "no peak yet";
                std::printf("prepare_bed: step %lld of at most %lld, %lld resets, %s\n",
                            static_cast<long long>(step), static_cast<long long>(max_steps),
                            static_cast<long long>(r.resets), peak.str().c_str());
                std::fflush(stdout);
            }
        }
        // advance's step, without its checks of the setup and with the halo copies kept
        // between the steps (as run keeps them): the same state, less work per step.
        const StepReport s = integrate_step(dt_cap);
        if (s.integrated_particles < 0 && every < 0) every = dynamic_count(particles_);
        r.particle_steps += s.integrated_particles >= 0 ? s.integrated_particles : every;
        if (s.integrated_particles == 0) {
            // physics.sleep: every particle is at rest by the sleep criterion, which bounds
            // each particle's own rates, not the bed's: all wake, and the damping goes on
            // until the kinetic-energy criterion holds.
            ++r.wakes;
            const int column = particles_.history.find(kSleepStateName);
            auto& states = particles_.history.values[static_cast<std::size_t>(column)];
            std::fill(states.begin(), states.end(), kMoving);
        }
        double energy = kinetic_energy(particles_);
        if (energy < previous) {
            ++r.resets;
            r.last_peak_energy = previous;
            // The halo copies take the owners' zeros at the next step's halo refresh.
            for (auto& c : particles_.v)
                std::fill(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(particles_.owned()), 0.0);
            energy = 0.0;
            if (r.last_peak_energy <= energy_tolerance) {
                r.steps = step;
                r.time = time_;
                release_halo();
                return r;
            }
        }
        previous = energy;
    }
    release_halo();
    std::ostringstream os;
    os << "prepare_bed: the bed did not relax within max_steps = " << max_steps
       << " (last kinetic-energy peak " << r.last_peak_energy << ", tolerance "
       << energy_tolerance << "); raise max_steps or tolerance";
    throw std::runtime_error(os.str());
}

}  // namespace regosph
