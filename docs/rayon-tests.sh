#!/usr/bin/env bash
# Runs rayon's and rayon-core's own tests against hypersteal, as `docs/migrating.md` reports.
#
# The tests are not part of this repository: the script takes them from the Cargo registry
# (rayon 1.12 and rayon-core 1.13, this workspace's dev-dependencies, so a build of the
# workspace has fetched them), writes them into a scratch crate that depends on this checkout,
# changes only their imports (`rayon::` and `rayon_core::` to `hypersteal::`; for rayon's unit
# tests of `src/iter` and `src/slice`, `super::*` and `crate::` to public paths; of the unit
# tests of `src/range.rs` and `src/range_inclusive.rs`, only those that use public items), and
# runs `cargo test` there. Nothing else is edited, so a test that does not compile shows an API
# hypersteal lacks.
#
# Usage: docs/rayon-tests.sh [scratch directory]   (default: a fresh temporary directory)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work/tests" "$work/src"

manifest() {
    cargo metadata --format-version 1 --manifest-path "$root/Cargo.toml" |
        grep -o "\"manifest_path\":\"[^\"]*/$1/Cargo.toml\"" | head -n 1 | cut -d'"' -f4
}
rayon=$(dirname "$(manifest rayon-1.12.0)")
core=$(dirname "$(manifest rayon-core-1.13.0)")
echo "rayon tests from $rayon and $core, in $work"

cat >"$work/Cargo.toml" <<EOF
[package]
name = "rayon-tests-on-hypersteal"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
hypersteal = { path = "$root" }
crossbeam-utils = "0.8"
libc = "0.2"
rand = "0.9"
rand_xorshift = "0.4"
scoped-tls = "1.0"

[workspace]
EOF
: >"$work/src/lib.rs"

for test in "$rayon"/tests/*.rs; do
    sed -e 's/\brayon_core::/hypersteal::/g' -e 's/\brayon::/hypersteal::/g' \
        "$test" >"$work/tests/$(basename "$test")"
done
for test in "$core"/tests/*.rs; do
    sed -e 's/\brayon_core::/hypersteal::/g' "$test" >"$work/tests/core_$(basename "$test")"
done
sed -e 's/^use super::\*;/use hypersteal::iter::*;\nuse hypersteal::iter::plumbing::*;\nuse std::collections::LinkedList;/' \
    -e 's/^use rayon_core::\*;/use hypersteal::*;/' -e 's/\bcrate::/hypersteal::/g' \
    "$rayon/src/iter/test.rs" >"$work/tests/unit_iter.rs"
sed -e 's/\bcrate::/hypersteal::/g' "$rayon/src/slice/test.rs" >"$work/tests/unit_slice.rs"

# rayon-core's unit tests; `crate::unwind` is rayon-core's private wrapper of `catch_unwind`.
for test in "$core"/src/*/test.rs "$core"/src/test.rs; do
    module=$(basename "$(dirname "$test")")
    [ "$module" = src ] && module=lib
    {
        sed -e 's/^use super::\*;/use hypersteal::*;/' -e 's/^use super::{/use hypersteal::{/' \
            -e 's/^use crate::unwind;//' -e 's/\bcrate::unwind::/unwind::/g' \
            -e 's/\bcrate::/hypersteal::/g' "$test"
        echo 'mod unwind {'
        echo '    pub fn halt_unwinding<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {'
        echo '        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))'
        echo '    }'
        echo '}'
    } >"$work/tests/core_unit_$module.rs"
done

# The public-API unit tests of the two range modules, each function taken whole.
{
    echo 'use hypersteal::prelude::*;'
    for module in range range_inclusive; do
        for name in test_u32_opt_len test_u64_opt_len test_u128_opt_len test_usize_i64_overflow \
            test_issue_833; do
            awk -v name="$name" -v module="$module" '
                /^#\[/ { attrs = attrs $0 "\n"; next }
                $0 ~ "^fn " name "\\(\\)" { printing = 1; printf "%s", attrs; sub(name, module "_" name) }
                printing { print }
                printing && /^}/ { printing = 0 }
                !/^#\[/ { attrs = "" }
            ' "$rayon/src/$module.rs" | sed -e 's/\bcrate::/hypersteal::/g'
        done
    done
} >"$work/tests/unit_ranges.rs"

cd "$work"
# One test target at a time, so that one that does not compile does not stop the others.
: >"$work/test.log"
for test in tests/*.rs; do
    name=$(basename "$test" .rs)
    if cargo test --test "$name" >>"$work/test.log" 2>&1; then
        status=ok
    elif grep -q "could not compile.*test \"$name\"" "$work/test.log"; then
        status="does not compile"
    else
        status=FAILED
    fi
    result=$(grep -E '^test result' "$work/test.log" | tail -n 1)
    [ "$status" = "does not compile" ] && result=
    printf '%-32s %-17s %s\n' "$name" "$status" "$result"
done
echo "full log: $work/test.log"
