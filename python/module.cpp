// pybind11 module regosph._core. The Python package regosph (python/regosph) re-exports these
// names; setups are written against that package. The bindings live in bind_*.cpp by area.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "io/json.hpp"
#include "parallel/mpi_env.hpp"

namespace py = pybind11;
using namespace regosph;

PYBIND11_MODULE(_core, m) {
    m.doc() = "regosph: SPH for the continuum mechanics of regolith (compiled core)";
    // Under mpirun (or srun), initialise MPI unless mpi4py did, so that only rank 0 reports;
    // started without a launcher, the process is one rank without MPI (mpi_env.hpp).
    mpi::initialize_if_launched();
    m.attr("__version__") = io::version_string();
    py::register_exception<BlowUpError>(m, "BlowUpError", PyExc_RuntimeError);
    m.def("mpi_rank", &mpi::rank, "This process's MPI rank (0 without mpirun).");
    m.def("mpi_size", &mpi::size, "Number of MPI ranks (1 without mpirun).");
    m.def("_abort", [](const std::string& message, int status) { mpi::abort(message, status); },
          py::arg("message"), py::arg("status") = 1,
          "Print message to stderr and stop every MPI rank (MPI_Abort).");

    python::bind_geometry(m);
    python::bind_mesh(m);
    python::bind_shape_bodies(m);
    python::bind_bodies(m);
    python::bind_materials(m);
    python::bind_output(m);
    auto simulation = python::bind_simulation(m);
    python::bind_simulation_output(simulation);
}
