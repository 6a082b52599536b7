# Tornado (elk sensitivity): one row per knob, largest effect on top; a bar
# from 0 to the latency change (%) when the knob steps down, one when it
# steps up. $data columns: knob,label,down_pct,up_pct (rows ranked, largest
# first; an empty cell is a step the model refused).
set style fill solid 0.85 border rgb "#333333"
stats $data using 0 nooutput
nk = STATS_records
set title plottitle
set xlabel xlabel
set ylabel ""
set yrange [0.4 : nk + 0.6]
set ytics () nomirror
do for [k = 1:nk] { set ytics add (word(tornado_labels, k) nk + 1 - k) }
set grid xtics
set xzeroaxis lt -1 lw 1.5
set key outside top center horizontal
# a box centred at half the change, half as wide: a bar from 0 to the change
plot $data using (column("down_pct") / 2):(nk - $0):(abs(column("down_pct")) / 2):(0.18) \
         with boxxyerror lc rgb "#0072B2" title "one step down", \
     $data using (column("up_pct") / 2):(nk - $0):(abs(column("up_pct")) / 2):(0.18) \
         with boxxyerror lc rgb "#E69F00" title "one step up"
