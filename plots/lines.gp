# Lines against a knob (Figs. 19, 21, 22, 23, 24): ycol against xcol, one
# line per series value (policy), one panel per (rowcols, colcols) facet.
# Points are joined in x order (smooth unique); every value is drawn as
# computed, with no clamp.
set multiplot layout lay_r, lay_c title plottitle
do for [pk = 1:npanels] {
    ri = (pk - 1) / ncols + 1
    ci = (pk - 1) % ncols + 1
    if (1) {
        rv = rowval(ri)
        cv = colval(ci)
        set title paneltitle(rv, cv)
        set xlabel xlabel
        set ylabel ylabel
        # the first panel carries the key, in a row over headroom kept free of
        # lines, so it never sits on the data
        if (ri == 1 && ci == 1) { set key inside top center horizontal samplen 1.5 width -1; set offsets 0, 0, graph 0.3, 0 } \
        else { unset key; set offsets 0, 0, 0, 0 }
        undefine STATS_records
        stats $data using (infacet(rv, cv) ? column(xcol) : NaN):(column(ycol)) nooutput
        if (!exists("STATS_records") || STATS_records == 0) {
            eval emptypanel
        } else {
            if (logy ne "1") { set yrange [0:*] } else { set autoscale y }
            plot for [si = 1:ns] $data \
                using (infacet(rv, cv) && isser(si) ? column(xcol) : NaN):(column(ycol)) \
                smooth unique with linespoints lt sidx(serval(si)) dt 1 + (serval(si) eq "ideal") \
                title sername(serval(si))
        }
    }
}
unset multiplot
