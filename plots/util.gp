# Utilisation overview (Fig. 18): (a) latency breakdown, (b) HBM utilisation,
# (c) NoC utilisation, (d) achieved TFLOPS; clusters along x (clustercols,
# e.g. model), one bar per series value (policy).
set style fill solid 0.9 border rgb "#333333"
set boxwidth bw absolute
set multiplot layout 2, 2 title plottitle
set xrange [0.4 : nclu + 0.6]
set xtics () scale 0
do for [k = 1:nclu] { set xtics add (pretty(word(cluster_values, k)) k) }

set title "(a) latency breakdown (bars: B S D F I)"
set ylabel "Latency (ms)"
set yrange [0:*]
# the key inside, over headroom kept free of bars (outside, it took half the
# panel and the cluster names collided)
set key inside left top vertical maxrows 3 width -2
set offsets 0, 0, graph 0.4, 0
plot for [j = 5:1:-1] for [si = 1:ns] $data \
    using (isser(si) ? barpos(cluidx(clustercols), si) : NaN):(csum(j)) \
    with boxes lc rgb comp_color(j) title (si == 1 ? word(comp_names, j) : "")

set offsets 0, 0, 0, 0

set title "(b) HBM bandwidth utilisation"
set ylabel "HBM utilisation (%)"
set yrange [0:119]
set ytics 0, 20, 100
set key top center horizontal
plot for [si = 1:ns] $data using (isser(si) ? barpos(cluidx(clustercols), si) : NaN):(100 * column("hbm_util")) \
    with boxes lt sidx(serval(si)) title sername(serval(si))

set title "(c) interconnect utilisation"
set ylabel "NoC utilisation (%)"
set yrange [0:119]
unset key
plot for [si = 1:ns] $data using (isser(si) ? barpos(cluidx(clustercols), si) : NaN):(100 * column("noc_util")) \
    with boxes lt sidx(serval(si)) title sername(serval(si))

set title "(d) achieved throughput"
set ylabel "TFLOPS"
set yrange [0:*]
set ytics autofreq
plot for [si = 1:ns] $data using (isser(si) ? barpos(cluidx(clustercols), si) : NaN):(column("tflops")) \
    with boxes lt sidx(serval(si)) title sername(serval(si))
unset multiplot
