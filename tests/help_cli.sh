#!/usr/bin/env bash
# Every option of every command is documented: for each command `elk --help`
# lists, each option in its elk_opt table (read from app/*.c: the table in
# the function elk_cmd_NAME, NAME with '-' for '_') appears as --OPTION in
# `elk NAME --help` (which the shell completions scrape) and in the command's
# section of the man page docs/elk.1 (.SS "elk NAME..."). --help itself,
# which every command has, is not listed.
#
# usage: help_cli.sh ELK_BINARY SOURCE_DIR
# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh" help_cli "$@"

# Commands whose --help is still written by hand (app/cmd_sweep.c, converted
# to elk_cli_opts_help after its split): their gaps are reported, not failed.
pending=" "

# "NAME OPTION" for every option of every table
awk '
/^int elk_cmd_[a-z_]+\(int argc/ { fn = $2; sub(/^elk_cmd_/, "", fn); sub(/\(.*/, "", fn); gsub(/_/, "-", fn) }
/elk_opt [a-z_]+\[\] = \{/ { intab = 1 }
intab {
    s = $0
    while (match(s, /\{"[a-z][a-z0-9-]*", [01],/)) {
        n = substr(s, RSTART + 2); sub(/".*/, "", n); print fn, n
        s = substr(s, RSTART + RLENGTH)
    }
}
intab && /\};/ { intab = 0 }
' "$SRC"/app/*.c >"$tmp/tables"
sed 's/\\-/-/g' "$SRC/docs/elk.1" >"$tmp/man"

commands=$("$ELK" --help | awk '/^commands:/ {on = 1; next} on && !NF {exit} on {print $1}')
[ -n "$commands" ] && ok || fail "elk --help lists no commands"
# a word --OPTION, not a prefix of a longer one (--plot of --plot-format)
has_flag() { grep -qE -- "(^|[^a-z0-9-])--$2([^a-z0-9-]|\$)" "$1"; }
for c in $commands; do
    if ! grep -q "^$c " "$tmp/tables"; then
        fail "$c: no elk_opt table found in app/*.c (in elk_cmd_${c//-/_})"
        continue
    fi
    awk -v c="elk $c" '/^\.S[HS]/ {on = index($0, "\"" c " ") || index($0, "\"" c ":")} on' "$tmp/man" >"$tmp/man.$c"
    [ -s "$tmp/man.$c" ] && ok || fail "docs/elk.1 has no section on elk $c"
    if expect 0 "$ELK" "$c" --help; then contains "$tmp/out" "usage: elk $c"; fi
    missing=
    for o in $(awk -v c="$c" '$1 == c && $2 != "help" {print $2}' "$tmp/tables"); do
        has_flag "$tmp/out" "$o" || missing="$missing --$o"
        has_flag "$tmp/man.$c" "$o" && ok || fail "docs/elk.1 lacks --$o in its section on elk $c"
    done
    if [[ $pending == *" $c "* ]]; then
        [ -n "$missing" ] && echo "pending: elk $c --help lacks$missing" && ok ||
            fail "elk $c --help lists every option now: take it off the pending list"
    elif [ -n "$missing" ]; then
        fail "elk $c --help lacks$missing"
    else
        ok
    fi
done
cli_done
