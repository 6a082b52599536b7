# Helpers shared by every Elk Workbench template. elk (views/elk_gnuplot.c)
# writes one self-contained script: terminal and output, the variables below,
# the data as the datablock $data, then this file, then the figure's template.
#
# Variables (all strings; "" when unused), set by the caller:
#   xcol ycol seriescol     column names (x, y, one line/bar per series value)
#   series_values           the series values in order, space-separated
#   rowcols colcols         facet columns (one panel per value), space-separated
#   row_values col_values   their values ('|' joins the columns of a composite)
#   clustercols cluster_values   bar clusters along x (bars, breakdown, util)
#   plottitle xlabel ylabel logx logy ("1" for a log axis)
#   roof_compute roof_bw    roofline only: TFLOP/s and TB/s ("" = not drawn)
# The numbers are the model's own: nothing here clamps, smooths or jitters.

set datafile separator comma
set datafile columnheaders
# The templates read the data through `using` expressions (strcol, ckey), and
# gnuplot otherwise installs and removes a SIGFPE handler around each one: two
# system calls per expression, half of gnuplot's time on `elk reproduce`'s
# figures (perf: sigaction, sigprocmask). Floating-point exceptions are masked
# on every platform gnuplot runs on, and no template divides integers, so the
# trap has nothing to catch; the PNGs are byte-identical without it.
set datafile nofpe_trap
# a filtered-out row (NaN) is missing, not undefined, so lines join across it
set datafile missing NaN
set encoding utf8

# composite key of the columns named in a space-separated list
ckey(cols) = words(cols) == 0 ? "" : ckey_(cols, 1)
ckey_(cols, i) = i >= words(cols) ? strcol(word(cols, i)) : strcol(word(cols, i)) . "|" . ckey_(cols, i + 1)
# position of w in a space-separated list, 0 if absent
idx(list, w) = idx_(list, w, 1)
idx_(list, w, i) = i > words(list) ? 0 : (word(list, i) eq w ? i : idx_(list, w, i + 1))
# "a|b" -> "a / b" for labels
pretty(s) = strstrt(s, "|") ? s[1:strstrt(s, "|") - 1] . " / " . pretty(s[strstrt(s, "|") + 1:]) : s

# facets
nrows = rowcols eq "" ? 1 : words(row_values)
ncols = colcols eq "" ? 1 : words(col_values)
# panels fill a lay_r x lay_c grid; a single row of more than three panels wraps
npanels = nrows * ncols
lay_c = (rowcols eq "" && ncols > 3) ? (ncols == 4 ? 2 : 3) : ncols
lay_r = (npanels + lay_c - 1) / lay_c
rowval(i) = rowcols eq "" ? "" : word(row_values, i)
colval(i) = colcols eq "" ? "" : word(col_values, i)
infacet(rv, cv) = (rowcols eq "" || ckey(rowcols) eq rv) && (colcols eq "" || ckey(colcols) eq cv)
# part i of "a|b|c"
part(v, i) = i <= 1 ? (strstrt(v, "|") ? v[1:strstrt(v, "|") - 1] : v) : part(v[strstrt(v, "|") + 1:], i - 1)
# a facet value as a reader says it ("HBM 8 TB/s", "mesh", "llama2-70b"), not
# as a column name ("hbm_tbps = 8")
facetval(c, v) = c eq "hbm_tbps" ? "HBM " . v . " TB/s" : c eq "noc_tbps" ? "NoC " . v . " TB/s" : \
    c eq "noc_scale" ? "NoC x" . v : c eq "link_gbps" ? "links " . v . " GB/s" : c eq "sram_kib" ? v . " KiB SRAM" : \
    c eq "cores" ? v . " cores" : c eq "batch" ? "batch " . v : c eq "seq" ? "sequence " . v : \
    c eq "layers" ? v . " layers" : c eq "compute_scale" ? "compute x" . v : c eq "hbm_controllers" ? v . " HBM controllers" : \
    c eq "profile" ? v . " profile" : \
    (c eq "model" || c eq "topology" || c eq "chip" || c eq "part" || c eq "workload" || c eq "policy") ? v : c . " = " . v
facetname_(cols, v, i) = facetval(word(cols, i), part(v, i)) . (i < words(cols) ? ", " . facetname_(cols, v, i + 1) : "")
facetname(cols, v) = cols eq "" ? "" : facetname_(cols, v, 1)
paneltitle(rv, cv) = facetname(colcols, cv) . ((rv ne "" && cv ne "") ? ",  " : "") . facetname(rowcols, rv)

# series: policies keep their colour and marker in every figure
ns = words(series_values)
serval(i) = word(series_values, i)
isser(i) = seriescol eq "" ? 1 : strcol(seriescol) eq serval(i)
sidx(v) = v eq "basic" ? 1 : v eq "static" ? 2 : v eq "elk-dyn" ? 3 : v eq "elk-full" ? 4 : v eq "ideal" ? 5 : 5 + idx(series_values, v)
sername(v) = v eq "basic" ? "Basic" : v eq "static" ? "Static" : v eq "elk-dyn" ? "Elk-Dyn" : v eq "elk-full" ? "Elk-Full" : v eq "ideal" ? "Ideal" : v
sershort(v) = v eq "basic" ? "B" : v eq "static" ? "S" : v eq "elk-dyn" ? "D" : v eq "elk-full" ? "F" : v eq "ideal" ? "I" : v
# Okabe-Ito (colour-blind safe); policies 1-5 are the TUI's colours
# (views/tui_color.c tui_policy_hex): Basic vermillion, Static orange,
# Elk-Dyn sky blue, Elk-Full bluish green, Ideal reddish purple (dashed, the bound)
set linetype 1 lc rgb "#D55E00" lw 2 pt 7 ps 0.9 dt 1
set linetype 2 lc rgb "#E69F00" lw 2 pt 5 ps 0.9 dt 1
set linetype 3 lc rgb "#56B4E9" lw 2 pt 9 ps 1.0 dt 1
set linetype 4 lc rgb "#009E73" lw 2 pt 11 ps 1.0 dt 1
set linetype 5 lc rgb "#CC79A7" lw 2 pt 6 ps 0.9 dt 2
set linetype 6 lc rgb "#0072B2" lw 2 pt 13 ps 0.9 dt 1
set linetype 7 lc rgb "#F0E442" lw 2 pt 4 ps 0.9 dt 1
set linetype 8 lc rgb "#000000" lw 2 pt 8 ps 0.9 dt 1
set linetype 9 lc rgb "#999999" lw 2 pt 10 ps 0.9 dt 1
set linetype 10 lc rgb "#D55E00" lw 2 pt 12 ps 0.9 dt 3
set linetype cycle 10

# clusters of bars: cluster i at x = i, its ns bars side by side
nclu = words(cluster_values)
bw = ns > 0 ? 0.8 / ns : 0.8
barpos(ci, si) = ci + (si - (ns + 1) / 2.0) * bw
cluidx(cols) = cols eq "" ? 1 : idx(cluster_values, ckey(cols))

# latency breakdown components, bottom to top
comp_cols = "overlap_ms exec_ms preload_ms noc_stall_ms dist_ms"
# the TUI's names and colours for the parts (views/view_breakdown.c, tui_brk_hex)
comp_names = "'Overlapped' 'Execute' 'Preload stall' 'Interconnect stall' 'Data distribution'"
comp_color(j) = j == 1 ? "#56B4E9" : j == 2 ? "#0072B2" : j == 3 ? "#E69F00" : j == 4 ? "#D55E00" : "#CC79A7"
nz(v) = v == v ? v : 0
num(c) = nz(column(c))
csum(j) = j < 1 ? 0 : csum(j - 1) + num(word(comp_cols, j))

# gnuplot fails on a plot without one valid point, so templates count a
# panel's points first (stats) and draw an empty panel as such
emptypanel = "set label 99 'no data' at graph 0.5, 0.5 center; set xrange [0:1]; set yrange [0:1]; " . \
             "plot 2 notitle; unset label 99; set autoscale xy"

set grid ytics lc rgb "#dddddd" lw 1
set border 3 lc rgb "#444444"
set tics nomirror
set key top right noopaque samplen 2.5 spacing 1.1
set title noenhanced
set key noenhanced
set xtics noenhanced
set ylabel noenhanced
set xlabel noenhanced
# log axes end at the data, not at the next whole decade
if (logx eq "1") { set logscale x; set autoscale xfixmin; set autoscale xfixmax }
if (logy eq "1") { set logscale y; set autoscale yfixmin; set autoscale yfixmax }
