# Pareto: points in (xcol, ycol), one marker per series value; a series
# named "front" (elk plans) is drawn as the staircase of the Pareto front.
set title plottitle
set xlabel xlabel
set ylabel ylabel
set key top right
undefine STATS_records
stats $data using (column(xcol)):(column(ycol)) nooutput
if (!exists("STATS_records") || STATS_records == 0) { eval emptypanel; exit }
plot for [si = ns:1:-1] $data using (isser(si) ? column(xcol) : NaN):(column(ycol)) \
    with points lt (serval(si) eq "front" ? 4 : 1 + si) pt (serval(si) eq "front" ? 7 : 6) \
    title serval(si), \
    for [si = 1:ns] $data using (isser(si) && serval(si) eq "front" ? column(xcol) : NaN):(column(ycol)) \
    smooth unique with steps lt 4 notitle
