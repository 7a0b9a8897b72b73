#!/usr/bin/env python3
"""mdview against assimp, like for like, in one run.

1. In-process import from memory: benches/peers/assimp_import.cpp (assimp 5.2.5 through
   Assimp::Importer::ReadFileFromMemory, no post-processing) and examples/peer_decode.rs
   (mdview::formats::decode_shared, from a shared buffer it keeps a view of) time the same
   files the same way: file read once, the call repeated RUNS times, timer around the call
   only, median reported. assimp builds frame 0 only; mdview decodes every frame. Both run
   on the same heap settings (mdview sets them with mallopt, assimp gets them as glibc tunables).
   Virtual machines change speed from one process to the next (by up to 2x here), so the two
   sides are interleaved: in each of ROUNDS rounds, each file is timed by both harnesses back
   to back (the order swapped every round), both pinned to the same CPU, and the file's ratio
   is the median of its per-round ratios. The spread of the rounds' median ratios is printed
   too, so a reader sees how much one round alone could have said.
2. Whole processes: `mdview info FILE` vs `assimp info FILE`, and `mdview export FILE -o x.obj --no-textures`
   vs `assimp export FILE x.obj`, each started REPEATS times, median wall time.

Prints the per-file ratio (assimp / mdview: above 1 means mdview is faster) and the median
ratio, with the machine's load (`uptime`) before and after.

Needs g++ and libassimp-dev (in-process), assimp-utils (whole processes).
Run from the repository root:
  python3 benches/peers/peers.py [--runs 400] [--rounds 7] [--repeats 20] [FILE...]
With no files it takes every model of ../shared/corpus/{md2,md3,mdl} (`--formats md3,mdl` picks
folders); assimp gets each file's extension as its format hint.
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
CORPORA = ROOT.parent / "shared" / "corpus"
# The formats compared, by corpus folder and extension (the assimp hint is the extension).
FORMATS = ("md2", "md3", "mdl")
# assimp's MD2 loader crashes on this file (zero vertices); mdview rejects it with an error.
SKIP = {"malformed_zero_numvertices.md2"}


def hint(path):
    """The format hint assimp gets for a file: its extension (`md2`, `md3`, `mdl`)."""
    return Path(path).suffix.lower().lstrip(".")


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


# mdview keeps freed heap for the next open (src/heap.rs: glibc's mallopt, trim threshold 64 MiB,
# own mappings from 32 MiB); assimp's sides get the same settings through glibc's tunables, so
# both run on the same heap. The string is `mdview::heap::GLIBC_TUNABLES`.
ASSIMP_ENV = dict(
    os.environ,
    GLIBC_TUNABLES="glibc.malloc.trim_threshold=67108864:glibc.malloc.mmap_threshold=33554432",
)


def in_process(command, env=None):
    """{path: median µs} from a harness printing "<path>\\t<median>\\t<min>" lines; empty (each
    file then shows n/a) when the harness fails, so one crash does not end the comparison."""
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        print(f"harness failed ({done.returncode}): {' '.join(command)}", file=sys.stderr)
        return {}
    out = done.stdout
    result = {}
    for line in out.splitlines():
        path, median, _ = line.split("\t")
        result[path] = None if median == "failed" else float(median)
    return result


def pinned(cpu):
    """The prefix that runs a command on CPU `cpu` (nothing when not asked or not possible)."""
    if cpu is None or shutil.which("taskset") is None:
        return []
    return ["taskset", "-c", str(cpu)]


def in_process_rounds(harness, peer_decode, files, runs, rounds, cpu):
    """Both harnesses on each file back to back, `rounds` times, the order swapped each round.
    Returns {file: [(assimp µs, mdview µs), ...]} with one pair per round (None: failed)."""
    prefix = pinned(cpu)
    pairs = {f: [] for f in files}
    for r in range(rounds):
        for f in files:
            sides = {
                "assimp": prefix + [str(harness), str(runs), hint(f), f],
                "mdview": prefix + [str(peer_decode), str(runs), f],
            }
            order = ["assimp", "mdview"] if r % 2 == 0 else ["mdview", "assimp"]
            envs = {"assimp": ASSIMP_ENV, "mdview": None}
            times = {side: in_process(sides[side], envs[side]).get(f) for side in order}
            pairs[f].append((times["assimp"], times["mdview"]))
    return pairs


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def rounds_table(title, pairs, rounds):
    """Per file: median times over the rounds, the median of the per-round ratios and their
    range; then the median over files, and the range of the rounds' own median ratios."""
    print(f"\n{title}")
    print(f"{'file':<36} {'assimp µs':>10} {'mdview µs':>10} {'ratio':>7} {'rounds min..max':>17}")
    file_ratios = []
    for f, samples in pairs.items():
        ratios = [a / m for a, m in samples if a and m]
        theirs = median_or_none([a for a, _ in samples])
        ours = median_or_none([m for _, m in samples])
        show = lambda v: "n/a" if v is None else f"{v:.2f}"
        if ratios:
            ratio = statistics.median(ratios)
            file_ratios.append(ratio)
            spread = f"{min(ratios):.2f}..{max(ratios):.2f}x"
            print(f"{label(f):<36} {show(theirs):>10} {show(ours):>10} {ratio:>6.2f}x {spread:>17}")
        else:
            print(f"{label(f):<36} {show(theirs):>10} {show(ours):>10} {'n/a':>7}")
    if file_ratios:
        print(f"{'median ratio (assimp / mdview)':<36} {'':>10} {'':>10} {statistics.median(file_ratios):>6.2f}x")
        per_round = []
        for r in range(rounds):
            round_ratios = [s[r][0] / s[r][1] for s in pairs.values() if len(s) > r and s[r][0] and s[r][1]]
            if round_ratios:
                per_round.append(statistics.median(round_ratios))
        if per_round:
            listed = " ".join(f"{x:.2f}" for x in per_round)
            print(f"each round's median ratio: {listed}")


def process_median(command, repeats, env=None):
    """Median wall time in ms of `repeats` runs of `command` (after one unmeasured run)."""
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
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
    parser.add_argument("--runs", type=int, default=400, help="in-process imports per file and round")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved in-process rounds")
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [(os.cpu_count() or 1) - 1]
    parser.add_argument("--cpu", type=int, default=allowed[-1], help="CPU both in-process harnesses run on")
    parser.add_argument("--no-pin", action="store_true", help="let the in-process harnesses run on any CPU")
    parser.add_argument("--repeats", type=int, default=20, help="whole-process runs per file and command")
    parser.add_argument("--no-process", action="store_true", help="skip the whole-process comparison")
    parser.add_argument("--no-build", action="store_true", help="use the release binaries as they are")
    parser.add_argument("--formats", help=f"corpus folders to take, comma-separated (default {','.join(FORMATS)})")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    args.runs = max(args.runs, 1)
    args.rounds = max(args.rounds, 1)
    parser_formats = args.formats.split(",") if args.formats else FORMATS
    files = args.files or sorted(
        str(p)
        for f in parser_formats
        for p in (CORPORA / f).rglob("*")
        if p.suffix.lower() == f".{f}" and p.name not in SKIP
    )
    if not files:
        print(f"SKIP: no files given and no corpus under {CORPORA}")
        return 0
    harness, mdview, peer_decode = build(cargo=not args.no_build)

    print(f"load before: {uptime()}")
    cpu = None if args.no_pin else args.cpu
    pairs = in_process_rounds(harness, peer_decode, files, args.runs, args.rounds, cpu)
    where = "any CPU" if cpu is None or not pinned(cpu) else f"CPU {cpu}"
    rounds_table(
        f"In-process import from memory, median of {args.runs} per round, {args.rounds} interleaved "
        f"rounds on {where} (assimp frame 0 only, mdview every frame)",
        pairs,
        args.rounds,
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
                        (label(f), process_median([assimp, "info", f], args.repeats, ASSIMP_ENV),
                         process_median([str(mdview), "info", f], args.repeats))
                    )
                    # assimp's OBJ names the skin as stored and converts no image, so mdview
                    # leaves textures in place too (its default writes PNG copies).
                    export_rows.append(
                        (label(f), process_median([assimp, "export", f, obj], args.repeats, ASSIMP_ENV),
                         process_median([str(mdview), "export", f, "-o", obj, "--no-textures"], args.repeats))
                    )
            table(f"Whole process `info`, median of {args.repeats}", "ms", info_rows)
            table(f"Whole process `export` to OBJ, median of {args.repeats}", "ms", export_rows)
    print(f"\nload after: {uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
