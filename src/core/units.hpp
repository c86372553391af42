// Unit conversions at the user interface. Inside, regosph works in SI units with angles in
// radians; setups give angles in degrees and rotation rates in revolutions per minute, and
// run.json reports both. Every conversion between the two goes through these functions.
#pragma once

#include <numbers>

namespace regosph {

inline constexpr double kRadiansPerDegree = std::numbers::pi / 180.0;
inline constexpr double kDegreesPerRadian = 180.0 / std::numbers::pi;

// [deg] -> [rad]
constexpr double degrees_to_radians(double degrees) { return degrees * kRadiansPerDegree; }
// [rad] -> [deg]
constexpr double radians_to_degrees(double radians) { return radians * kDegreesPerRadian; }
// [rev/min] -> [rad/s]: one revolution is 2 pi rad, one minute 60 s.
constexpr double rpm_to_radians_per_second(double rpm) { return rpm * 2.0 * std::numbers::pi / 60.0; }

}  // namespace regosph
