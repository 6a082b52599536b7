# Grouped bars (Fig. 17): clusters along x (clustercols), one bar per series
# value (policy) inside each cluster, one panel per facet.
set style fill solid 0.85 border rgb "#333333"
set boxwidth bw absolute
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
        set xrange [0.4 : nclu + 0.6]
        set xtics () rotate by -30 left
        do for [k = 1:nclu] { set xtics add (pretty(word(cluster_values, k)) k) }
        # the first panel carries the key, in a row over headroom kept free of
        # bars, so it never sits on the data
        if (ri == 1 && ci == 1) { set key inside top center horizontal; set offsets 0, 0, graph 0.18, 0 } \
        else { unset key; set offsets 0, 0, 0, 0 }
        undefine STATS_records
        stats $data using (infacet(rv, cv) ? column(ycol) : NaN) nooutput
        if (!exists("STATS_records") || STATS_records == 0) {
            eval emptypanel
        } else {
            if (logy ne "1") { set yrange [0:*] } else { set autoscale y }
            plot for [si = 1:ns] $data \
                using (infacet(rv, cv) && isser(si) ? barpos(cluidx(clustercols), si) : NaN):(column(ycol)) \
                with boxes lt sidx(serval(si)) title sername(serval(si))
        }
    }
}
unset multiplot
