#!/usr/bin/env python3
"""The viewer's start-up: from `mdview::app::run` to the first frame presented with the demo
model, on lavapipe (Vulkan) under Xvfb, median of RUNS processes. The viewer logs it at info
level ("start-up: first frame with the model ... ms"), with the time the window and device
took, so both come from inside the process and Xvfb's own start-up is not counted.

Needs xvfb and mesa-vulkan-drivers. Run from the repository root after
`cargo build --release --bin mdview`:  python3 benches/peers/first_frame.py [--runs 7]
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--binary", default=str(ROOT / "target" / "release" / "mdview"))
    args = parser.parse_args()
    if shutil.which("xvfb-run") is None:
        print("SKIP: no xvfb-run")
        return 0
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    first, device = [], []
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, RUST_LOG="mdview=info", WGPU_BACKEND="vulkan", XDG_RUNTIME_DIR=scratch)
        for _ in range(args.runs):
            out = subprocess.run(
                ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", args.binary,
                 "--screenshot", os.path.join(scratch, "shot.png"), "--screenshot-after-frames", "1", "--exit"],
                capture_output=True, text=True, env=env, timeout=120,
            ).stderr
            f = re.search(r"first frame with the model ([0-9.]+) ms", out)
            d = re.search(r"window and device ready in ([0-9.]+) ms", out)
            if not (f and d):
                print("no start-up lines in the log:\n" + out)
                return 1
            first.append(float(f.group(1)))
            device.append(float(d.group(1)))
    print(f"first frame with the demo model: median {statistics.median(first):.1f} ms "
          f"(min {min(first):.1f}, max {max(first):.1f}, {args.runs} runs)")
    print(f"window and device ready:         median {statistics.median(device):.1f} ms")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
