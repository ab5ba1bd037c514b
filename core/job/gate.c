/*
 * gate.c - at most so many jobs streaming at once (see gate.h).
 */
#include "gate.h"

static void on_turn(uv_idle_t *h)
{
    struct cairn_gate *g = h->data;

    uv_idle_stop(&g->turn);
    while (g->first != NULL && g->in < g->width) {
        struct cairn_gate_link *l = g->first;

        g->first = l->next;
        if (g->first == NULL)
            g->last = NULL;
        g->in++;
        l->go(l); /* may leave, or enter others: they wait their turn */
    }
}

void cairn_gate_init(struct cairn_gate *g, uv_loop_t *loop, size_t width)
{
    *g = (struct cairn_gate){ .width = width > 0 ? width : 1 };
    /* libuv's uv_idle_init() cannot fail: it only links the handle. */
    uv_idle_init(loop, &g->turn);
    g->turn.data = g;
}

int cairn_gate_enter(struct cairn_gate *g, struct cairn_gate_link *l)
{
    /* Behind those waiting, never past them. */
    if (g->first == NULL && g->in < g->width) {
        g->in++;
        return 1;
    }
    l->next = NULL;
    if (g->last != NULL)
        g->last->next = l;
    else
        g->first = l;
    g->last = l;
    return 0;
}

void cairn_gate_leave(struct cairn_gate *g)
{
    g->in--;
    if (g->first != NULL)
        uv_idle_start(&g->turn, on_turn);
}

void cairn_gate_close(struct cairn_gate *g)
{
    if (!uv_is_closing((uv_handle_t *)&g->turn))
        uv_close((uv_handle_t *)&g->turn, NULL);
}
