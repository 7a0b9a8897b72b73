#!/usr/bin/env python3
"""Two builds of mdview's decoder against each other, like for like in one run.

Runs two `peer_decode` binaries (examples/peer_decode.rs: each file decoded RUNS times from
memory, median printed) over the same files in ROUNDS rounds, the order swapped every round and
both pinned to one CPU, as a VM changes speed between processes. A file's ratio is the median
of its rounds' ratios (A time / B time: above 1 means B is faster); the median over the files
is printed last.

Keep a copy of the first build's binary, then build the second:
  cargo build --release --example peer_decode && cp target/release/examples/peer_decode /tmp/a
  (change the code)
  cargo build --release --example peer_decode
  python3 benches/peers/compare_builds.py /tmp/a target/release/examples/peer_decode [--rounds 21]
With no files it takes every Quake II model of ../shared/corpus/md2.
"""

import argparse
import os
import shutil
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "md2"


def corpus_files():
    found = [p for p in CORPUS.rglob("*") if p.suffix.lower() == ".md2" and "malformed" not in p.name]
    return sorted(str(p) for p in found)


def timings(binary, files, runs, cpu):
    """{path: median µs} for one run of a harness; files it fails on are left out."""
    prefix = ["taskset", "-c", str(cpu)] if cpu is not None and shutil.which("taskset") else []
    out = subprocess.run(prefix + [binary, str(runs)] + files, capture_output=True, text=True).stdout
    result = {}
    for line in out.splitlines():
        path, median, _ = line.split("\t")
        if median != "failed":
            result[path] = float(median)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", help="peer_decode binary of the first build")
    parser.add_argument("b", help="peer_decode binary of the second build")
    parser.add_argument("files", nargs="*")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--cpu", type=int, default=max(os.sched_getaffinity(0)))
    args = parser.parse_args()
    files = args.files or corpus_files()
    rounds = max(args.rounds, 1)
    seen = {f: {"a": [], "b": [], "ratio": []} for f in files}
    for r in range(rounds):
        order = [("a", args.a), ("b", args.b)] if r % 2 == 0 else [("b", args.b), ("a", args.a)]
        got = {side: timings(binary, files, max(args.runs, 1), args.cpu) for side, binary in order}
        for f in files:
            if f in got["a"] and f in got["b"]:
                seen[f]["a"].append(got["a"][f])
                seen[f]["b"].append(got["b"][f])
                seen[f]["ratio"].append(got["a"][f] / got["b"][f])
    print(f"{'file':40s} {'A µs':>8s} {'B µs':>8s} {'A/B':>7s}   ({rounds} rounds on CPU {args.cpu})")
    ratios = []
    for f, s in seen.items():
        if s["ratio"]:
            ratio = statistics.median(s["ratio"])
            ratios.append(ratio)
            name = os.path.relpath(f, CORPUS) if f.startswith(str(CORPUS)) else f
            print(f"{name:40s} {statistics.median(s['a']):8.2f} {statistics.median(s['b']):8.2f} {ratio:6.3f}x")
    if ratios:
        print(f"median ratio (A / B): {statistics.median(ratios):.3f}x")


if __name__ == "__main__":
    main()
