// The time-stepping method of AdaptiveHeun (integrator.hpp) and SSP-RK3's combined rate, which
// the integrator's fields, energy budget and loads and the rigid bodies' motion share.
#pragma once

namespace regosph {

// Heun's method multiplies an undamped oscillation of frequency omega by
// sqrt(1 + (omega dt)^4 / 4) per step: a dissipation linear in the velocity jump (Monaghan's
// viscosity) out-damps that growth, the Riemann solver's limited one (quadratic in small jumps)
// does not, and a bed at rest starts to move (docs/guide/physics.md, validation/bed_rest).
// SSP-RK3's stability region contains the imaginary axis up to |omega dt| = sqrt(3): an
// undamped oscillation is damped by (omega dt)^4 / 24 per step.
//   ssp_rk3:  y1 = y0 + dt k1,  y2 = y0 + dt/4 (k1 + k2)  (at t + dt/2, rates k3),
//             y = y0 + dt/6 (k1 + k2 + 4 k3),
// written as Heun's corrector y0 + dt/2 (k1 + k2') with k2' = (k1 + k2 + 4 k3) / 3 - k1
// (ssp_rk3_rate), so that every part of the step that takes the corrector's weights (the
// fields, the rigid bodies, the loads, the energy budget, Bui's correction work) takes
// SSP-RK3's; the error estimate dt/2 |k2' - k1| is then SSP-RK3's solution against Euler's.
// Three right-hand sides per step instead of two.
enum class TimeScheme { heun, ssp_rk3 };

// SSP-RK3's rate k2' in Heun's corrector form, from the rates of its three stages.
constexpr double ssp_rk3_rate(double k1, double k2, double k3) {
    return (k1 + k2 + 4.0 * k3) / 3.0 - k1;
}

}  // namespace regosph
