/* View 6, Network: the event simulator's replay of the focused policy on
 * the current point (computed by tui_netsim, cancellable): mesh/torus link
 * utilisation as a heat map on the grid, ingress ports and chip-to-chip
 * links as bars, the HBM controllers' utilisation, and the hottest links. */
#ifndef VIEW_NETWORK_H
#define VIEW_NETWORK_H

#include "tui.h"

elk_view *view_network_new(void);

#endif
