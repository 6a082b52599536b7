# Stacked latency breakdown (Figs. 18a, 20): one bar per series value
# (policy, labelled B S D F I) in each cluster (clustercols), stacked from the
# bottom: overlapped, execute only, preload only, interconnect stall, data
# distribution (ms). One panel per facet.
set style fill solid 0.9 border rgb "#333333"
set boxwidth bw absolute
set multiplot layout lay_r, lay_c title plottitle
do for [pk = 1:npanels] {
    ri = (pk - 1) / ncols + 1
    ci = (pk - 1) % ncols + 1
    if (1) {
        rv = rowval(ri)
        cv = colval(ci)
        set title paneltitle(rv, cv)
        set xlabel xlabel offset 0, -1.2
        set ylabel ylabel
        set xrange [0.4 : nclu + 0.6]
        set xtics () norotate scale 0
        unset label
        do for [k = 1:nclu] {
            do for [si = 1:ns] { set xtics add (sershort(serval(si)) barpos(k, si)) }
            if (nclu > 1 || clustercols ne "") {
                set label 100 + k pretty(word(cluster_values, k)) at first k, graph 0 offset 0, -2.2 center
            }
        }
        if (ri == 1 && ci == 1) { set key outside right top } else { unset key }
        undefine STATS_records
        stats $data using (infacet(rv, cv) ? column("latency_ms") : NaN) nooutput
        if (!exists("STATS_records") || STATS_records == 0) {
            eval emptypanel
        } else {
            set yrange [0:*]
            plot for [j = 5:1:-1] for [si = 1:ns] $data \
                using (infacet(rv, cv) && isser(si) ? barpos(cluidx(clustercols), si) : NaN):(csum(j)) \
                with boxes lc rgb comp_color(j) title (si == 1 ? word(comp_names, j) : "")
        }
    }
}
unset multiplot
