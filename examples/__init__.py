"""The setups as scripts (`python3 examples/soil_collapse.py ...`), and as the subpackage
regosph.examples for code that builds on them: validation studies, tests and benchmarks write
`from regosph.examples import soil_collapse`, and the setups import each other the same way.
The build tree links these files into the package (CMakeLists.txt); `make install` copies
them."""
