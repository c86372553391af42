// Moving whole particles between MPI ranks: the one routine behind migration (domain.cpp) and
// the id-ordered slices that parallel HDF5 output writes (io/snapshot.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "core/particles.hpp"

namespace regosph::parallel {

// Collective. Sends owned particle i to rank dest[i] (dest.size() == p.owned(); the halo is
// dropped first). Afterwards p holds the particles that stayed, in their previous order,
// followed by those received, in the order of the sending ranks. Returns the bytes this rank
// sent. On one rank every dest must be 0 and nothing changes.
std::int64_t redistribute(ParticleSet& p, const std::vector<int>& dest);

// Collective. The owned particles of all ranks as consecutive id slices: rank r receives the
// particles with ids [first(r), first(r + 1)), sorted by id, the N particles split into P
// slices whose sizes differ by one at most. On several ranks ids must be 0 ... N-1 (Simulation numbers them so);
// throws std::runtime_error otherwise. On one rank: the particles sorted by id. `first` receives this rank's first id, `total` N.
ParticleSet id_slice(const ParticleSet& p, std::size_t& first, std::size_t& total);

}  // namespace regosph::parallel
