// The Python module regosph._core is bound area by area; module.cpp calls these in order.
// Each file only binds: conversions of Python objects live in convert.hpp, unit conversions
// and parameter logic in the C++ core (src/core/units.hpp, src/materials/parameters.hpp,
// src/geometry), conveniences in the Python package python/regosph.
#pragma once

#include <pybind11/pybind11.h>

#include "sph/simulation.hpp"

namespace regosph::python {

// Shapes, lattice fills and prescribed motion (Kinematics).
void bind_geometry(pybind11::module_& m);
// Closed triangle meshes (TriangleMesh, a Shape; triangle_mesh). After bind_geometry.
void bind_mesh(pybind11::module_& m);
// Particle-free rigid bodies with true shapes and level-set contact (ShapeSystem). After
// bind_geometry.
void bind_shape_bodies(pybind11::module_& m);
// Systems of particle-free spheres (BodySystem; geometry/body_system.hpp) and canonical units.
void bind_bodies(pybind11::module_& m);
// Material and its constructors DruckerPrager, ElasticSolid, Rigid.
void bind_materials(pybind11::module_& m);
// What a run reports: RunSummary, PhaseTimes, StepReport, Diagnostics. Bound before the
// Simulation so that its method signatures name these Python types.
void bind_output(pybind11::module_& m);
// PhysicsParameters, IntegratorOptions, Simulation (setup, run, restart, stepping) and the
// kernel; returns the Simulation class for bind_simulation_output.
pybind11::class_<Simulation> bind_simulation(pybind11::module_& m);
// What a Simulation reports at its current state: the particle fields as NumPy properties,
// derivatives, diagnostics, body loads, observer readings, decomposition counters, run.json.
void bind_simulation_output(pybind11::class_<Simulation>& simulation);

}  // namespace regosph::python
