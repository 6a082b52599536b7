/* View 7, Sensitivity: each knob of the current point one step down and up
 * for the focused policy (elk_sensitivity_run on tui_sens's thread,
 * cancelled by a knob change), ranked by the larger change, as a tornado:
 * faster to the left of the centre, slower to the right. `elk sensitivity`
 * is the same study on the command line. */
#ifndef VIEW_SENSITIVITY_H
#define VIEW_SENSITIVITY_H

#include "tui.h"

elk_view *view_sensitivity_new(void);

#endif
