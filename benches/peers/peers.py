#!/usr/bin/env python3
"""mdview against assimp, like for like, in one run.

1. In-process import from memory: benches/peers/assimp_import.cpp (assimp 5.2.5 through
   Assimp::Importer::ReadFileFromMemory, no post-processing) and examples/peer_decode.rs
   (mdview::formats::decode_shared, from a shared buffer it keeps a view of) time the same
   files the same way: file read once, the
   call repeated RUNS times, timer around the call only, median reported. assimp builds frame 0
   only; mdview decodes every frame.
2. Whole processes: `mdview info FILE` vs `assimp info FILE`, and `mdview export FILE -o x.obj`
   vs `assimp export FILE x.obj`, each started REPEATS times, median wall time.

Prints the per-file ratio (assimp / mdview: above 1 means mdview is faster) and the median
ratio, with the machine's load (`uptime`) before and after.

Needs g++ and libassimp-dev (in-process), assimp-utils (whole processes).
Run from the repository root:  python3 benches/peers/peers.py [--runs 200] [--repeats 20] [FILE...]
With no files it takes every Quake II model of ../shared/corpus/md2.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
BUILD = ROOT / "target" / "peers"
CORPUS = ROOT.parent / "shared" / "corpus" / "md2"
# assimp's MD2 loader crashes on this file (zero vertices); mdview rejects it with an error.
SKIP = {"malformed_zero_numvertices.md2"}


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def build(cargo=True):
    BUILD.mkdir(parents=True, exist_ok=True)
    harness = BUILD / "assimp_import"
    source = HERE / "assimp_import.cpp"
    if not harness.exists() or harness.stat().st_mtime < source.stat().st_mtime:
        subprocess.run(["g++", "-O2", "-o", str(harness), str(source), "-lassimp"], check=True)
    if cargo:
        subprocess.run(
            ["cargo", "build", "--release", "--quiet", "--bin", "mdview", "--example", "peer_decode"],
            cwd=ROOT,
            check=True,
        )
    return harness, ROOT / "target" / "release" / "mdview", ROOT / "target" / "release" / "examples" / "peer_decode"


def in_process(command):
    """{path: median µs} from a harness printing "<path>\\t<median>\\t<min>" lines."""
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    result = {}
    for line in out.splitlines():
        path, median, _ = line.split("\t")
        result[path] = None if median == "failed" else float(median)
    return result


def process_median(command, repeats):
    """Median wall time in ms of `repeats` runs of `command` (after one unmeasured run)."""
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - started) * 1000.0)
        if done.returncode != 0:
            return None
    return statistics.median(times)


def label(path):
    p = Path(path)
    return f"{p.parent.name}/{p.name}"


def table(title, unit, rows):
    """rows: (file, assimp, mdview); prints the ratio per file and the median ratio."""
    print(f"\n{title}")
    print(f"{'file':<36} {'assimp ' + unit:>12} {'mdview ' + unit:>12} {'ratio':>7}")
    ratios = []
    for name, theirs, ours in rows:
        show = lambda v: "n/a" if v is None else f"{v:.2f}"
        ratio = theirs / ours if theirs and ours else None
        if ratio:
            ratios.append(ratio)
        print(f"{name:<36} {show(theirs):>12} {show(ours):>12} {('%.2fx' % ratio) if ratio else 'n/a':>7}")
    if ratios:
        print(f"{'median ratio (assimp / mdview)':<36} {'':>12} {'':>12} {statistics.median(ratios):>6.2f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=200, help="in-process imports per file")
    parser.add_argument("--repeats", type=int, default=20, help="whole-process runs per file and command")
    parser.add_argument("--no-process", action="store_true", help="skip the whole-process comparison")
    parser.add_argument("--no-build", action="store_true", help="use the release binaries as they are")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = args.files or sorted(
        str(p) for p in CORPUS.rglob("*") if p.suffix.lower() == ".md2" and p.name not in SKIP
    )
    if not files:
        print(f"SKIP: no files given and no corpus at {CORPUS}")
        return 0
    harness, mdview, peer_decode = build(cargo=not args.no_build)

    print(f"load before: {uptime()}")
    theirs = in_process([str(harness), str(args.runs), "md2", *files])
    ours = in_process([str(peer_decode), str(args.runs), *files])
    table(
        f"In-process import from memory, median of {args.runs} (assimp frame 0 only, mdview every frame)",
        "µs",
        [(label(f), theirs.get(f), ours.get(f)) for f in files],
    )

    if not args.no_process:
        assimp = shutil.which("assimp")
        if assimp is None:
            print("\nSKIP whole processes: no `assimp` command (apt-get install assimp-utils)")
        else:
            with tempfile.TemporaryDirectory() as scratch:
                obj = os.path.join(scratch, "out.obj")
                info_rows, export_rows = [], []
                for f in files:
                    info_rows.append(
                        (label(f), process_median([assimp, "info", f], args.repeats),
                         process_median([str(mdview), "info", f], args.repeats))
                    )
                    export_rows.append(
                        (label(f), process_median([assimp, "export", f, obj], args.repeats),
                         process_median([str(mdview), "export", f, "-o", obj], args.repeats))
                    )
            table(f"Whole process `info`, median of {args.repeats}", "ms", info_rows)
            table(f"Whole process `export` to OBJ, median of {args.repeats}", "ms", export_rows)
    print(f"\nload after: {uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
