"""The usual views of a regosph run in ParaView, as PNG files, headless:

    xvfb-run -a pvpython scripts/paraview_views.py RUN_DIR --out DIR
             [--time T] [--fields speed pressure material plastic_multiplier]
    pvpython scripts/paraview_views.py RUN_DIR --list

Opens RUN_DIR/series.xdmf with ParaView's default XDMF 3 reader, adds the derived fields (speed
[m/s], pressure [Pa] = -tr(sigma)/3, the named stress components stress_xx ... stress_yz [Pa]
of the six-component `stress`, stored in the order xx yy zz xy xz yz), and saves one picture per
field of the snapshot nearest to T (default the last): particles as points, seen along z in 2D
and from an oblique angle in 3D. Pictures need a display: Debian's ParaView is an X build, whose
offscreen mode crashes, so on a machine without one run it under xvfb-run (Debian's xvfb);
--list draws nothing and needs no display. In the ParaView GUI, View > Python Shell > Run Script
builds the same pipeline.
"""
import argparse
import os
import sys

from paraview import simple as pv

STRESS_COMPONENTS = ("xx", "yy", "zz", "xy", "xz", "yz")  # regosph.STRESS_COMPONENTS


def derived_fields(source):
    """speed, pressure and the named stress components as point arrays."""
    expressions = {"speed": "mag(velocity)",
                   "pressure": "-(stress[:, 0] + stress[:, 1] + stress[:, 2]) / 3"}
    for k, c in enumerate(STRESS_COMPONENTS):
        expressions[f"stress_{c}"] = f"stress[:, {k}]"
    for name, expression in expressions.items():
        source = pv.PythonCalculator(Input=source, Expression=expression, ArrayName=name)
    return source


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="run directory (holds series.xdmf)")
    ap.add_argument("--out", help="directory for the PNG files (required unless --list)")
    ap.add_argument("--time", type=float, help="[s]; default: the last snapshot")
    ap.add_argument("--fields", nargs="+",
                    default=["speed", "pressure", "material", "plastic_multiplier"])
    ap.add_argument("--point-size", type=float, default=3.0, help="[pixels]")
    ap.add_argument("--list", action="store_true",
                    help="print the point arrays at that time and their ranges; draw nothing "
                         "(needs no display)")
    args = ap.parse_args(argv)
    if args.out is None and not args.list:
        ap.error("--out DIR is required to save pictures (or --list to print the fields)")
    series = os.path.join(args.run, "series.xdmf")
    if not os.path.isfile(series):
        sys.exit(f"error: {series}: missing (not a regosph run directory)")
    reader = pv.OpenDataFile(series)
    times = list(reader.TimestepValues) or [0.0]
    time = times[-1] if args.time is None else min(times, key=lambda t: abs(t - args.time))
    source = derived_fields(reader)
    source.UpdatePipeline(time)
    if args.list:
        info = source.GetDataInformation()
        print(f"t = {time:g} s: {info.GetNumberOfPoints()} particles, "
              f"{info.GetNumberOfCells()} vertex cells")
        for array in source.PointData:
            ranges = [array.GetRange(k) for k in range(array.GetNumberOfComponents())]
            print(array.GetName(), " ".join(f"[{lo:.6g}, {hi:.6g}]" for lo, hi in ranges))
        return 0
    view = pv.CreateView("RenderView")
    view.ViewSize = [1200, 800]
    view.ViewTime = time
    view.OrientationAxesVisibility = 0
    display = pv.Show(source, view)
    display.SetRepresentationType("Points")
    display.PointSize = args.point_size
    bounds = source.GetDataInformation().GetBounds()
    planar = bounds[4] == bounds[5]
    view.InteractionMode = "2D" if planar else "3D"
    if not planar:
        view.CameraPosition = [1.0, -1.5, 1.0]
        view.CameraViewUp = [0.0, 0.0, 1.0]
    view.ResetCamera()
    os.makedirs(args.out, exist_ok=True)
    for field in args.fields:
        pv.ColorBy(display, ("POINTS", field))
        display.RescaleTransferFunctionToDataRange(True, False)
        display.SetScalarBarVisibility(view, True)
        path = os.path.join(args.out, f"{field}_{time:.4g}s.png")
        pv.SaveScreenshot(path, view, ImageResolution=[1200, 800])
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    status = main()
    # Every picture is on disk by now. Under Xvfb, Debian's ParaView fails in its OpenGL
    # context's teardown at exit (GLXBadContext, exit status 1); ending the process here keeps
    # the status of the work done.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
