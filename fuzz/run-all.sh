#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 60) each, with the seeds from
# `cargo run --example fuzz_seeds`, the target's dictionary, a 512 MB RSS limit and a 2 s
# per-input timeout. Exits non-zero on any crash, timeout or memory excess, and prints the
# failing input's path; keep it under tests/regressions/<target>/ once fixed.
# Usage: fuzz/run-all.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true

# cargo-fuzz needs nightly flags: a nightly toolchain when one is installed, else stable with
# RUSTC_BOOTSTRAP (the same compiler, with its unstable flags allowed).
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  fuzz=(cargo +nightly fuzz)
else
  export RUSTC_BOOTSTRAP=1
  fuzz=(cargo fuzz)
fi
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

cargo run -q --example fuzz_seeds
cd fuzz
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || mapfile -t targets < <("${fuzz[@]}" list)
"${fuzz[@]}" build -O
status=0
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  log="$(mktemp)"
  if "${fuzz[@]}" run -O "$t" "corpus/$t" -- \
      -max_total_time="$seconds" -rss_limit_mb=512 -timeout=2 -dict="dicts/$t.dict" \
      -print_final_stats=1 >"$log" 2>&1; then
    echo "fuzz $t: ok, $(grep -E 'stat::number_of_executed_units' "$log" | awk '{print $2}') runs," \
      "$(grep -oE 'cov: [0-9]+' "$log" | tail -1)"
  else
    status=1
    echo "fuzz $t: FAILED"
    tail -40 "$log"
  fi
  rm -f "$log"
done
exit "$status"
