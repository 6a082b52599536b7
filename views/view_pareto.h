/* View 2, Pareto: one operator's partition plans (execution space per core
 * vs execution time, log axes), its Pareto front as a line, and the
 * execute-state plan (capital letter) and preload-state option (small
 * letter) each policy chose. [ and ] pick the operator shape, < and > the
 * instance (layer) of that shape. */
#ifndef VIEW_PARETO_H
#define VIEW_PARETO_H

#include "tui.h"

elk_view *view_pareto_new(void);
/* Show operator op (the `/` search of the loop). */
void view_pareto_select(elk_view *v, int op);

#endif
