#!/usr/bin/env bash
# Coverage-guided fuzzing of the readers of outside input (docs/reliability.md):
# builds the libFuzzer targets in Fuzz/ with AddressSanitizer
# (-sanitize=fuzzer,address) and runs each for RUNS executions, starting
# from its seed corpus (Fuzz/Seeds/TARGET plus the repository's own files
# of that kind). A crash, a sanitizer report, a failed check, a leak or an
# input that takes over 10 s fails the script and leaves the input in
# .build-fuzz/artifacts/.
#
#   bash scripts/fuzz.sh                 # every target, 20000 runs each (what CI runs)
#   bash scripts/fuzz.sh 10000000        # the long run
#   FUZZ_TARGETS=FuzzTOML bash scripts/fuzz.sh 100000
#   FUZZ_JOBS=2 bash scripts/fuzz.sh ...  # targets in parallel
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
RUNS="${1:-20000}"
TARGETS="${FUZZ_TARGETS:-FuzzTOML FuzzRecording FuzzOSC FuzzFrameProtocol FuzzControlLine}"
OUT="${FUZZ_OUT:-.build-fuzz}"
FLAGS=(--package-path Fuzz --build-path "$OUT" -c release
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld)

echo "== fuzz: building the targets (AddressSanitizer, libFuzzer)" >&2
swift build "${FLAGS[@]}" 2>&1 | grep -v "Cannot export local symbol" >&2
BIN="$(swift build "${FLAGS[@]}" --show-bin-path)"

# The seed corpus of a target: its committed seeds and the repository's files.
seed() {
  local target=$1 corpus=$2
  cp Fuzz/Seeds/"$target"/* "$corpus"/ 2>/dev/null || true
  case $target in
    FuzzTOML)
      for f in boards/*.toml scenarios/*.toml regions/*.toml calibration/*.toml calibration/plans/*.toml \
        Tests/Fixtures/calibration/*.toml; do cp "$f" "$corpus/$(echo "$f" | tr / _)"; done ;;
    FuzzControlLine) cp scenarios/*.control "$corpus"/ ;;
  esac
}

run() {
  local target=$1 corpus="$OUT/corpus/$1" log="$OUT/logs/$1.log"
  mkdir -p "$corpus" "$OUT/artifacts" "$OUT/logs"
  seed "$target" "$corpus"
  local start=$SECONDS
  if ! "$BIN/$target" -runs="$RUNS" -timeout=10 -max_len=16384 -print_final_stats=1 \
    -artifact_prefix="$OUT/artifacts/$target-" "$corpus" >"$log" 2>&1; then
    tail -40 "$log" >&2
    echo "scripts/fuzz.sh: $target failed: the input is in $OUT/artifacts/ (log $log)" >&2
    return 1
  fi
  local execs cov
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  echo "$target: $execs executions in $((SECONDS - start)) s, no crash; $cov, corpus $(ls "$corpus" | wc -l) inputs" >&2
}

# Readers of files get their input through a scratch file: on tmpfs when there is one.
if [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0"
export -f run seed
export BIN OUT RUNS
if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then
  printf '%s\n' $TARGETS | xargs -P "$FUZZ_JOBS" -I{} bash -c 'run {}'
else
  for t in $TARGETS; do run "$t"; done
fi
