# Roofline: achieved ycol (TFLOP/s) against xcol (FLOP per HBM byte) on
# log-log axes, one marker per series value, with the compute roof
# (roof_compute, TFLOP/s) and the HBM roof (roof_bw TB/s x intensity).
set logscale xy
set title plottitle
set xlabel xlabel
set ylabel ylabel
undefine STATS_records
stats $data using (column(xcol)):(column(ycol)) nooutput
if (!exists("STATS_records") || STATS_records == 0) { eval emptypanel; exit }
xlo = STATS_min_x / 4.0
xhi = STATS_max_x * 4.0
set xrange [xlo:xhi]
rc = roof_compute eq "" ? NaN : real(roof_compute)
rb = roof_bw eq "" ? NaN : real(roof_bw)
roof(x) = (rc == rc && rb == rb) ? (rb * x < rc ? rb * x : rc) : (rc == rc ? rc : rb * x)
set key bottom right
set samples 400
plot (rc == rc || rb == rb) ? roof(x) : 1/0 with lines lc rgb "#444444" lw 2 title "roof (compute, HBM)", \
     for [si = 1:ns] $data using (isser(si) ? column(xcol) : NaN):(column(ycol)) \
     with points lt sidx(serval(si)) title sername(serval(si))
