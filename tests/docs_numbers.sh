#!/usr/bin/env bash
# The numbers the docs quote, held to what the program prints (ctest
# docs_numbers). Every table of latencies, ratios or counts in README.md and
# docs/*.md sits in a block
#
#   <!-- gen: COMMAND -->
#   ...what COMMAND prints...
#   <!-- /gen -->
#
# COMMAND runs under bash in one scratch folder shared by every block, where
# `elk` is the binary under test and these helpers are defined:
#
#   section FIGS[@PROFILE] HEADING [N]
#       the N-th table (default 1) under the summary.md section whose title
#       starts with HEADING, of `elk reproduce --figure FIGS [--profile
#       PROFILE]` (each run once per FIGS@PROFILE for the whole check)
#   rows PATTERN
#       from stdin, a table's two header lines and the rows matching PATTERN
#       (an extended regular expression)
#   beside LABEL FILE
#       the table on stdin with a column LABEL added: the last column of the
#       table in FILE, row by row (the same rows, e.g. another profile's)
#
# A block that differs fails the test with its file:line and a diff: a change
# to the model either updates the docs (ELK_UPDATE_GOLDEN=1 rewrites the
# blocks in place, as for the golden files) or fails here. Blocks marked
# `gen-slow:` (an `elk check` run of minutes) are left as they are unless
# ELK_DOCS_SLOW=1.
#
# usage: docs_numbers.sh ELK SRCDIR [FILE...]   (default: README.md docs/*.md)
set -uo pipefail

ELK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
shift 2
UPDATE=${ELK_UPDATE_GOLDEN:-}
SLOW=${ELK_DOCS_SLOW:-}

# the sanitizer builds run the same code paths in the other tests; these
# reproduce runs would only add minutes there
if [ -n "${ELK_SANITIZED:-}" ]; then
    echo "skipped under the sanitizers"
    exit 77
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/bin" "$WORK/run"
ln -s "$ELK" "$WORK/bin/elk"

cat >"$WORK/lib.sh" <<'EOF'
section() {
    local spec=$1 heading=$2 n=${3:-1}
    local figs=${spec%@*} prof="" dir
    [ "$spec" != "$figs" ] && prof=${spec#*@}
    dir="r-${figs//,/-}${prof:+-$prof}"
    if [ ! -f "$dir/summary.md" ]; then
        elk reproduce --figure "$figs" ${prof:+--profile "$prof"} -o "$dir" --no-plot --quiet -j 2 >/dev/null ||
            return 1
    fi
    awk -v h="## $heading" -v n="$n" '
        index($0, "## ") == 1 { on = index($0, h) == 1; t = 0; inside = 0; next }
        on && /^\|/ { if (!inside) { t++; inside = 1 } if (t == n) print; next }
        on { inside = 0 }' "$dir/summary.md"
}
rows() {
    awk -v p="$1" 'NR <= 2 || $0 ~ p'
}
beside() {
    awk -v label="$1" -F'|' '
        NR == FNR { last[FNR] = $(NF - 1); next }
        { sub(/[ ]*$/, ""); v = FNR == 1 ? " " label " " : FNR == 2 ? "---:" : last[FNR]; print $0 v "|" }' "$2" -
}
EOF

if [ $# -eq 0 ]; then
    set -- "$SRC/README.md" "$SRC"/docs/*.md
fi

failed=0 blocks=0 skipped=0
for f in "$@"; do
    grep -q '^<!-- gen\(-slow\)\?: ' "$f" || continue
    out="$WORK/new.md"
    : >"$out"
    n=0 inblock=0 cmd="" start=0 slow=0 body=""
    while IFS= read -r line || [ -n "$line" ]; do
        n=$((n + 1))
        if [ $inblock -eq 0 ]; then
            printf '%s\n' "$line" >>"$out"
            case $line in
            '<!-- gen: '*' -->' | '<!-- gen-slow: '*' -->')
                inblock=1 start=$n body=""
                slow=0
                case $line in '<!-- gen-slow: '*) slow=1 ;; esac
                cmd=${line#<!-- gen*: }
                cmd=${cmd% -->}
                ;;
            esac
            continue
        fi
        if [ "$line" != '<!-- /gen -->' ]; then
            body+="$line"$'\n'
            continue
        fi
        inblock=0
        blocks=$((blocks + 1))
        if [ $slow -eq 1 ] && [ -z "$SLOW" ]; then
            skipped=$((skipped + 1))
            printf '%s' "$body" >>"$out"
        else
            got=$(cd "$WORK/run" && PATH="$WORK/bin:$PATH" bash -c "source '$WORK/lib.sh'; $cmd" 2>"$WORK/err")
            rc=$?
            if [ $rc -ne 0 ] || [ -z "$got" ]; then
                echo "FAIL ${f#"$SRC"/}:$start: the block's command failed (exit $rc) or printed nothing: $cmd"
                sed 's/^/  /' "$WORK/err" | head -n 20
                failed=$((failed + 1))
                printf '%s' "$body" >>"$out"
            elif [ "$got"$'\n' != "$body" ]; then
                if [ -n "$UPDATE" ]; then
                    echo "updated ${f#"$SRC"/}:$start"
                else
                    echo "FAIL ${f#"$SRC"/}:$start: the docs quote numbers the program no longer prints: $cmd"
                    diff <(printf '%s' "$body") <(printf '%s\n' "$got") | sed 's/^/  /' | head -n 40
                    failed=$((failed + 1))
                fi
                [ -n "$UPDATE" ] && printf '%s\n' "$got" >>"$out" || printf '%s' "$body" >>"$out"
            else
                printf '%s' "$body" >>"$out"
            fi
        fi
        printf '%s\n' "$line" >>"$out"
    done <"$f"
    if [ $inblock -eq 1 ]; then
        echo "FAIL ${f#"$SRC"/}:$start: a gen block without its <!-- /gen -->"
        failed=$((failed + 1))
        continue
    fi
    if [ -n "$UPDATE" ] && ! cmp -s "$out" "$f"; then
        cp "$out" "$f.tmp" && mv "$f.tmp" "$f"
    fi
done

echo "$blocks generated blocks, $failed failed, $skipped slow ones not re-run${UPDATE:+ (blocks updated)}"
[ $failed -eq 0 ]
