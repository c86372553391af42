#include "sph/signals.hpp"

#include <cstdint>

#include "parallel/mpi_env.hpp"

namespace regosph {

namespace {

// Written by the handler, read by the run loop: only a sig_atomic_t is safe to share.
volatile std::sig_atomic_t g_pending_signal = 0;
extern "C" void remember_signal(int sig) { g_pending_signal = sig; }

}  // namespace

SignalGuard::SignalGuard(bool active) : active_(active) {
    if (!active_) return;
    g_pending_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = remember_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &old_term_);
    sigaction(SIGINT, &sa, &old_int_);
}

SignalGuard::~SignalGuard() {
    if (!active_) return;
    sigaction(SIGTERM, &old_term_, nullptr);
    sigaction(SIGINT, &old_int_, nullptr);
}

int SignalGuard::pending() const {
    if (!active_) return 0;
    return static_cast<int>(mpi::max(std::int64_t{g_pending_signal}));
}

}  // namespace regosph
