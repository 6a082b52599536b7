# Shared by the shell tests that drive the built elk (sweep_cli.sh,
# files_cli.sh): sourced as `. cli_lib.sh NAME "$@"` with the test's own
# arguments ELK_BINARY SOURCE_DIR. Sets ELK, SRC, ELK_DATADIR, LC_ALL and a
# scratch folder $tmp (removed on exit), and defines the checks; a test ends
# with `cli_done`, which prints the count and sets the exit status.
set -u
cli_name=$1
shift
if [ $# -ne 2 ]; then
    echo "usage: $0 ELK_BINARY SOURCE_DIR" >&2
    exit 2
fi
ELK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
export ELK_DATADIR=$SRC LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/elk-$cli_name-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0
checks=0

ok() { checks=$((checks + 1)); }
fail() {
    checks=$((checks + 1))
    failed=$((failed + 1))
    echo "FAIL: $*"
}
# expect STATUS CMD...: run, keep stdout/stderr in $tmp/out, $tmp/err
expect() {
    local want=$1
    shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        fail "exit $got (want $want): $*"
        sed 's/^/  stderr: /' "$tmp/err" | head -5
        return 1
    fi
    ok
    return 0
}
contains() { # FILE TEXT
    if grep -qF -- "$2" "$1"; then ok; else
        fail "$1 lacks '$2'"
        sed 's/^/  | /' "$1" | head -5
    fi
}
same() { # A B
    if cmp -s "$1" "$2"; then ok; else
        fail "$1 and $2 differ"
        diff "$1" "$2" | head -5
    fi
}
cli_done() {
    echo "$checks checks, $failed failed"
    [ $failed -eq 0 ]
}
