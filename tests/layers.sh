#!/usr/bin/env bash
# The layers of the source tree, enforced (ctest layers). Every
# `#include "..."` in app/, core/, plots/ and views/ is read; a file
# may include its own layer or one below, never one above, and the units
# (below) may not include each other in a circle. The allowed order is
# written once, here:
#
#   base < machine < model < network < cost < plan < sched < sim < explore
#        < plots < views < app
#
# core/ holds base .. explore (a library that knows nothing of ncurses or
# gnuplot), views/ the TUI, app/ the command line. A unit is a .c/.h pair,
# or the files a row below groups (one header, several sources). KNOWN lists
# the edges not yet removed; an edge in it that no longer exists fails too,
# so the list only shrinks.
#
# usage: layers.sh SRCDIR
set -uo pipefail
SRC=$(cd "$1" && pwd)

# unit layer files...   (a file named here belongs to the unit; any other
# core file elk_X.c / elk_X.h is unit elk_X and must be named)
UNITS='
elk_status    base     elk_status
elk_num       base     elk_num
elk_file      base     elk_file
elk_csv       base     elk_csv
elk_cfg       base     elk_cfg
elk_thread    base     elk_thread
elk_chip      machine  elk_chip
elk_model     model    elk_model
elk_graph     model    elk_graph
elk_hf        model    elk_hf
elk_point     model    elk_point
network       network  elk_flow elk_tree elk_noc elk_grid
elk_cost      cost     elk_cost
elk_fit       cost     elk_fit
elk_plan      plan     elk_plan
elk_plan_art  plan     elk_plan_art
elk_plan_cache plan    elk_plan_cache
elk_sched     sched    elk_sched elk_sched_int elk_sched_run elk_sched_exact elk_problem
elk_bound     sched    elk_bound
elk_retime    sched    elk_retime
elk_calib     sched    elk_calib
elk_noise     sched    elk_noise
elk_sim       sim      elk_sim
elk_trace     sim      elk_trace
elk_sweep     explore  elk_sweep elk_sweep_int elk_sweep_run elk_sweep_csv elk_sweep_carry
elk_check     explore  elk_check
elk_balance   explore  elk_balance
elk_report    explore  elk_report
gnuplot       plots    elk_gnuplot
'
ORDER="base machine model network cost plan sched sim explore plots views app"

# Edges still to remove: "from-unit to-unit", one a line.
KNOWN='
'

cd "$SRC" || exit 1
files=$(ls core/*.c core/*.h plots/*.c plots/*.h views/*.c views/*.h app/*.c app/*.h 2>/dev/null)
out=$(
    for f in $files; do
        grep -o '^#include "[A-Za-z0-9_]*\.h"' "$f" | sed 's/^#include "//; s/\.h"$//' | sed "s|^|$f |"
    done | awk -v units="$UNITS" -v order="$ORDER" -v known="$KNOWN" '
    function stem(path,   s) { s = path; sub(/.*\//, "", s); sub(/\.[ch]$/, "", s); return s }
    function unit_of(path,   s, d) {
        s = stem(path); d = path; sub(/\/.*/, "", d)
        if (d == "views") return s in U ? U[s] : "views"
        if (d == "plots") return s in U ? U[s] : ""
        if (d == "app") return "app"
        return s in U ? U[s] : ""
    }
    function layer_of(u) { return u == "views" ? "views" : u == "app" ? "app" : L[u] }
    # depth-first search for a circle through the unit graph
    function dfs(u,   v, k) {
        state[u] = 1; stack[++sp] = u
        for (k = 1; k <= nout[u]; k++) {
            v = out[u, k]
            if (state[v] == 1) { report_cycle(v); continue }
            if (state[v] == 0) dfs(v)
        }
        sp--; state[u] = 2
    }
    function report_cycle(v,   i, s) {
        s = v
        for (i = sp; i >= 1 && stack[i] != v; i--) s = stack[i] " -> " s
        s = v " -> " s
        if (!(s in seen_cycle)) { seen_cycle[s] = 1; cycles[++ncycles] = s }
    }
    BEGIN {
        n = split(units, ln, "\n")
        for (i = 1; i <= n; i++) {
            m = split(ln[i], w, " ")
            if (m < 3) continue
            L[w[1]] = w[2]
            for (j = 3; j <= m; j++) U[w[j]] = w[1]
        }
        L["views"] = "views"; L["app"] = "app"
        m = split(order, o, " ")
        for (i = 1; i <= m; i++) rank[o[i]] = i
        n = split(known, kn, "\n")
        for (i = 1; i <= n; i++) if (kn[i] ~ /[a-z]/) { K[kn[i]] = 1 }
    }
    {
        from = unit_of($1); to = $2
        if (from == "") { printf "unknown unit: %s (name it in tests/layers.sh)\n", $1; bad++; next }
        if (to in U) tu = U[to]
        else if (to ~ /^(tui|view)_/ || to == "tui") tu = "views"
        else if (to ~ /^(elk_cli|sweep_io|repro_)/) tu = "app"
        else { printf "unknown header: %s in %s (name its unit in tests/layers.sh)\n", to ".h", $1; bad++; next }
        if (tu == from) next
        edge = from " " tu
        if (edge in E) next
        E[edge] = $1
        if (rank[layer_of(tu)] > rank[layer_of(from)]) up[edge] = 1
        out[from, ++nout[from]] = tu
        nodes[from] = 1; nodes[tu] = 1
    }
    END {
        for (u in nodes) if (!(u in state)) state[u] = 0
        for (u in nodes) if (state[u] == 0) dfs(u)
        # an edge is allowed only if it is neither upward nor on a circle,
        # or is a known one
        for (e in up) {
            printf "%s include: %s (%s -> %s)\n", e in K ? "known upward" : "upward", E[e], layer_of(substr(e, 1, index(e, " ") - 1)), layer_of(substr(e, index(e, " ") + 1))
            if (!(e in K)) bad++
        }
        for (i = 1; i <= ncycles; i++) {
            c = cycles[i]; ok = 0
            n = split(c, p, " -> ")
            for (j = 1; j < n; j++) if ((p[j] " " p[j + 1]) in K) ok = 1
            printf "%s: %s\n", ok ? "known circle" : "circle", c
            if (!ok) bad++
        }
        for (e in K) if (!(e in E)) { printf "known edge gone: %s (delete it from KNOWN in tests/layers.sh)\n", e; bad++ }
        nup = 0; for (e in up) nup++
        printf "%d unit edges, %d upward, %d circles, %d known edges left\n", length(E), nup, ncycles, length(K)
        exit bad > 0
    }'
)
rc=$?
echo "$out"
exit $rc
