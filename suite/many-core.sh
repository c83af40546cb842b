#!/usr/bin/env bash
# The many-core measurement as one prepared script, in two parts, each bounded to under 10
# minutes by its steps' time limits (docs/suite.md, "On a many-core machine"):
#
#   suite/many-core.sh BIN OUT a   # layout, calibration, fine-grained fib, nn and grr-m (os)
#   suite/many-core.sh BIN OUT b   # every policy (hardware), nn and grr-m on the mesh, predictions
#
# BIN holds release builds of `hypersteal-suite` and of the `joins` example, built elsewhere:
#
#   cargo build --release -p hypersteal-suite && cargo build --release --example joins
#   mkdir -p device-bin && cp target/release/hypersteal-suite target/release/examples/joins device-bin/
#
# OUT receives everything: `lscpu.txt`, the recorded layout (`sysfs/`, a test fixture as
# `tests/fixtures/hardware/` holds them), both placements' maps, `calibration.json`,
# `joins.txt` (fib(35) with a join at every call at 1, 2, 4, ... workers against rayon and
# chili), the suite's reports (every workload at its quick size at 1, 2, 4, ... workers):
# `hardware/` (every policy on the hypercube under the hardware placement, with rayon and
# chili), `neighbours-hardware/` (nn and grr-m on the mesh, hardware placement) and
# `neighbours-os/` (nn and grr-m on hypercube and mesh under the OS's numbering), and
# `prediction-*.md` (the simulator's speedups at the calibrated costs beside the measured ones).
# The whole matrix of every policy, topology and placement takes hours; these are the rows that
# say which policy wins and whether the placement matters for the neighbourhood policies.
# Every step runs under a time limit and adds its exit status (124: the limit) and seconds to
# `steps.txt`; a step that finished has written its files, one cut short leaves only what it
# printed.
set -uo pipefail

if [ $# -ne 3 ] || { [ "$3" != a ] && [ "$3" != b ]; }; then
  echo "usage: $0 BIN OUT a|b" >&2
  exit 2
fi
BIN=$1 OUT=$2 PART=$3
for exe in hypersteal-suite joins; do
  if [ ! -x "$BIN/$exe" ]; then
    echo "$0: $BIN/$exe is missing or not executable (see the comment at the top)" >&2
    exit 2
  fi
done
mkdir -p "$OUT"
SUITE=$BIN/hypersteal-suite
CPUS=$(nproc)
# 1, 2, 4, ... up to the CPUs this process may use, and that number.
THREADS=1
t=2
while [ "$t" -lt "$CPUS" ]; do THREADS=$THREADS,$t; t=$((t * 2)); done
[ "$CPUS" -gt 1 ] && THREADS=$THREADS,$CPUS

# step NAME SECONDS COMMAND...: runs COMMAND under a limit, stdout to NAME.txt, stderr to
# NAME.err, and one line to steps.txt: the name, the exit status (124: the limit), the seconds.
step() {
  local name=$1 limit=$2
  shift 2
  local t0=$SECONDS
  echo "== $name (limit ${limit} s)" >&2
  timeout --kill-after=5 "$limit" "$@" >"$OUT/$name.txt" 2>"$OUT/$name.err"
  local rc=$?
  echo "$name rc=$rc $((SECONDS - t0)) s" | tee -a "$OUT/steps.txt" >&2
}

# matrix NAME SECONDS PLACEMENT POLICIES TOPOLOGIES [--no-baselines]: the suite's matrix into
# $OUT/NAME: every workload at its quick size, at every count of $THREADS, exactly 9 timed
# runs a point after one warm-up (the medians of 9 the reports need, in a bounded time).
matrix() {
  local name=$1 limit=$2 placement=$3 policies=$4 topologies=$5
  shift 5
  step "run-$name" "$limit" "$SUITE" run --workload all --quick-sizes --policy "$policies" \
    --topology "$topologies" --threads "$THREADS" --runs 9 --max-runs 9 --schedules none \
    --no-tasks --placement "$placement" --out "$OUT/$name" "$@"
}

predict() {
  if [ -f "$OUT/calibration.json" ] && [ -f "$OUT/$1/results.json" ]; then
    step "predict-$1" 60 "$SUITE" predict --calibration "$OUT/calibration.json" \
      --results "$OUT/$1" --out "$OUT/$1"
    cp "$OUT/$1/prediction.md" "$OUT/prediction-$1.md" 2>/dev/null
  fi
}

case $PART in
a)
  echo "threads $THREADS on $CPUS CPUs" >"$OUT/steps.txt"
  lscpu >"$OUT/lscpu.txt" 2>&1
  step map-hardware 20 "$SUITE" topology --threads "$CPUS" --placement hardware \
    --record "$OUT/sysfs"
  step map-os 20 "$SUITE" topology --threads "$CPUS" --placement os
  step calibrate 150 "$SUITE" calibrate --name "${CPUS}-core" --threads "$THREADS" --runs 9 \
    --out "$OUT/calibration.json"
  step joins 120 env HYPERSTEAL_PIN=1 "$BIN/joins" 35 9 "$THREADS"
  matrix neighbours-os 200 os nn,grr-m hypercube,mesh --no-baselines
  ;;
b)
  matrix hardware 330 hardware all hypercube
  matrix neighbours-hardware 100 hardware nn,grr-m mesh --no-baselines
  predict hardware
  predict neighbours-hardware
  ;;
esac
echo "done: $OUT" >&2
