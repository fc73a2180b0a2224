#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each (default 60), in turn, from the repository root.
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). A crash stops the script
# with libFuzzer's report and the reproducer under fuzz/artifacts/<target>/; commit a reproducer
# that found a bug under fuzz/seeds/<target>/ once fixed, so it is replayed by every later run.
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-60}"
# The list first, on its own: inside `for t in $(...)` a missing cargo-fuzz or nightly would give
# an empty list and the script would "pass" having fuzzed nothing.
targets="$(cargo +nightly fuzz list)" || { echo "cargo +nightly fuzz list failed: install cargo-fuzz (see fuzz/README.md)"; exit 1; }
[ -n "$targets" ] || { echo "cargo-fuzz lists no targets"; exit 1; }
for t in $targets; do
    mkdir -p "corpus/$t"
    seeds=()
    [ -d "seeds/$t" ] && seeds=("seeds/$t")
    dict=()
    [ "$t" = expr_parse ] && dict=(-dict=expr.dict)
    echo "== $t (${secs}s)"
    cargo +nightly fuzz run "$t" "corpus/$t" "${seeds[@]}" -- -max_total_time="$secs" \
        -rss_limit_mb=4096 -timeout=20 "${dict[@]}" 2>&1 | grep -E "^#[0-9]+.*DONE|ERROR|SUMMARY|Done [0-9]+ runs" || true
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "$t: crash or failure (see above)"; exit 1; }
done
