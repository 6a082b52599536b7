#!/usr/bin/env bash
# cmake --install into a scratch prefix (issue 11, "Installable"): the binary,
# presets, sweeps, plots, man page and completions land in the usual places;
# the installed elk finds its data beside it from any folder (and after the
# prefix is moved), and the bash completion completes commands, options and
# preset names.
#
# usage: install_cli.sh BUILD_DIR SOURCE_DIR
set -u
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/elk-install-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { :; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
unset ELK_DATADIR
cmake --install "$BUILD" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
P=$tmp/prefix
for f in bin/elk share/elk/presets/chips/ipu-pod4.cfg share/elk/presets/models/tiny.cfg share/elk/sweeps/fig17.cfg \
         share/elk/plots/common.gp share/man/man1/elk.1 share/bash-completion/completions/elk \
         share/zsh/site-functions/_elk; do
    [ -e "$P/$f" ] || fail "not installed: $f"
done
cd "$tmp" || exit 2
[ "$("$P/bin/elk" --datadir)" = "$P/share/elk" ] || fail "installed elk reads its data from $("$P/bin/elk" --datadir)"
"$P/bin/elk" run --chip ipu-mk2 --model tiny --format csv >run.csv 2>run.err || fail "installed elk run: $(cat run.err)"
grep -q '^tiny,ipu-mk2' run.csv || fail "installed elk run printed no tiny rows"
# moved prefix: still finds its data
mv "$P" "$tmp/moved"
[ "$("$tmp/moved/bin/elk" --datadir)" = "$tmp/moved/share/elk" ] || fail "moved install reads $("$tmp/moved/bin/elk" --datadir)"
"$tmp/moved/bin/elk" validate "$tmp/moved/share/elk/presets/chips/wse2.cfg" >/dev/null || fail "moved install: validate"
# bash completion: commands, options, preset names
comp() { # WORDS...: complete the last word
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _elk; printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$tmp/moved/share/bash-completion/completions/elk" "$@"
}
comp "$tmp/moved/bin/elk" ru | grep -qx run || fail "completion: 'elk ru' does not offer run"
comp "$tmp/moved/bin/elk" run --pro | grep -qx -- --profile || fail "completion: 'elk run --pro' does not offer --profile"
comp "$tmp/moved/bin/elk" R | grep -q . && fail "completion: 'elk R' offers the help's last line as a command"
comp "$tmp/moved/bin/elk" tui --bench | grep -qx -- --bench-out || fail "completion: 'elk tui --bench' does not offer --bench-out"
comp "$tmp/moved/bin/elk" run --chip ipu | grep -qx ipu-pod4-mesh || fail "completion: --chip ipu does not offer ipu-pod4-mesh"
comp "$tmp/moved/bin/elk" run --model lla | grep -qx llama2-70b || fail "completion: --model lla does not offer llama2-70b"
man -l "$tmp/moved/share/man/man1/elk.1" >/dev/null 2>&1 || command -v man >/dev/null || true
if [ "$fails" -gt 0 ]; then echo "install: $fails failures"; exit 1; fi
echo "install: ok"
