/* The observation writer's state path, compiled: lastwill_env._cwriter.

   The same entries as lastwill_env/sparse.py's `state_entries(state, seat)`, in the same
   order (the ones first, then the other values with the zeros dropped), written from a
   GameState in C. sparse.py stays the definition: it loads this module when it was built,
   hands it the layout (`configure`) and falls back to its own Python writer otherwise; the
   tests compare the two entry for entry. Nothing here defines the layout: every offset, the
   clip limits and the draw phase come from `configure` (sparse.py's `_c_layout()`), with the
   view rules' constants of lastwill_env/engine/view.py's `_c_consts()`; the scales are the ones
   sparse.py writes (docs in lastwill_env.obs_layout), pinned by those tests. What a seat sees
   (the errand boys still to place, the actions shown, ...) follows the rules of
   lastwill_env/_lwview.h, the header the compiled view (engine/_cview.c) shares.

   Functions:
     configure(layout: dict)          offsets and the view rules' constants (sparse.py)
     entries(state, seat, ordered, empty) -> (indices, values)
                                      `empty` is numpy.empty; indices intp, values float32
     dense(state, seat, out)          zero the float32 buffer `out` and write the entries
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_lwview.h" /* the view rules and constants shared with engine/_cview.c */

typedef struct {
    long np_, round, final, phase, to_act, start, actions;
    long res_card, res_addon, res_spend, res_left, draws_left, draw_stage, draw_queue;
    long seat0, seat_block, s_plan, s_order, s_boys, s_unknown;
    long board0, used, filled, step, priv, hand, keep, offer0, offer_taken;
    long supply, discards, hidden, box, jokers, market, opera, ext_err, blocked, using_;
    long known0, num_cards, seats, size;
    double high, low;
    long draw_phase;
    LWRules R; /* view.py's `_c_consts()` */
    int ready;
} Layout;

static Layout L;

typedef struct {
    int64_t *on;
    Py_ssize_t non, cap;
    int64_t *ix;
    double *vx;
    Py_ssize_t nix;
} Buf;

#define CAP 8192 /* entries per observation, at most (configure checks the size) */

/* One call's buffers. A call uses the static `WORK` unless another call is still using it (a
   call re-entered through Python code run by an attribute read), then a fresh one. */
typedef struct {
    int64_t on[CAP], ix[CAP], idx[CAP];
    double vx[CAP];
    float val[CAP];
} Work;

static Work WORK;
static int WORK_BUSY = 0;

static Work *work_get(void) {
    if (!WORK_BUSY) {
        WORK_BUSY = 1;
        return &WORK;
    }
    Work *w = (Work *)PyMem_Malloc(sizeof(Work));
    if (w == NULL) PyErr_NoMemory();
    return w;
}

static void work_put(Work *w) {
    if (w == &WORK)
        WORK_BUSY = 0;
    else
        PyMem_Free(w);
}

/* ---- reading the state ------------------------------------------------------------------ */

/* Attribute reads. Each name is made an interned str once (keyed by the C literal's address:
   every call site passes a literal). For an object of exactly the configured state type
   (GameState, whose attributes are __slots__), the slot's offset is found once from the type's
   member descriptor and the slot is read directly; for anything else, PyObject_GetAttr. */
#define MAX_NAMES 64
static const char *NAME_KEYS[MAX_NAMES];
static PyObject *NAME_OBJS[MAX_NAMES];
static Py_ssize_t NAME_OFFSETS[MAX_NAMES]; /* -1: not a plain object slot of STATE_TYPE */
static int NAME_COUNT = 0;
static PyTypeObject *STATE_TYPE = NULL;

static Py_ssize_t slot_offset(PyObject *key) {
    return STATE_TYPE == NULL ? -1 : lw_slot_offset(STATE_TYPE, key);
}

static PyObject *getattr_named(PyObject *obj, const char *name) {
    int i = 0;
    while (i < NAME_COUNT && NAME_KEYS[i] != name) i++;
    if (i == NAME_COUNT) {
        PyObject *key = PyUnicode_InternFromString(name);
        if (key == NULL) return NULL;
        if (NAME_COUNT == MAX_NAMES) {
            PyObject *v = PyObject_GetAttr(obj, key);
            Py_DECREF(key);
            return v;
        }
        NAME_KEYS[i] = name;
        NAME_OBJS[i] = key; /* kept for the module's life */
        NAME_OFFSETS[i] = slot_offset(key);
        NAME_COUNT++;
    }
    if (NAME_OFFSETS[i] >= 0 && Py_TYPE(obj) == STATE_TYPE) {
        PyObject *v = *(PyObject **)((char *)obj + NAME_OFFSETS[i]);
        if (v != NULL) {
            Py_INCREF(v);
            return v;
        }
    }
    return PyObject_GetAttr(obj, NAME_OBJS[i]); /* also raises for an unset slot */
}

static int get_long(PyObject *obj, const char *name, long *out) {
    PyObject *v = getattr_named(obj, name);
    if (v == NULL) return -1;
    long x = PyLong_AsLong(v);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    *out = x;
    return 0;
}

static int get_truth(PyObject *obj, const char *name, int *out) {
    PyObject *v = getattr_named(obj, name);
    if (v == NULL) return -1;
    int t = PyObject_IsTrue(v);
    Py_DECREF(v);
    if (t < 0) return -1;
    *out = t;
    return 0;
}

/* A new reference to the attribute as a list or tuple (PySequence_Fast), or NULL. */
static PyObject *get_seq(PyObject *obj, const char *name) {
    PyObject *v = getattr_named(obj, name);
    if (v == NULL) return NULL;
    PyObject *f = PySequence_Fast(v, name);
    Py_DECREF(v);
    return f;
}

static int item_long(PyObject *seq, Py_ssize_t i, long *out) {
    long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
    if (x == -1 && PyErr_Occurred()) return -1;
    *out = x;
    return 0;
}

/* ---- the entries ------------------------------------------------------------------------ */

static int push_on(Buf *b, long i) {
    if (b->non >= b->cap) {
        PyErr_SetString(PyExc_ValueError, "observation has more entries than it has values");
        return -1;
    }
    b->on[b->non++] = i;
    return 0;
}

static int push_v(Buf *b, long i, double v) {
    if (b->nix >= b->cap) {
        PyErr_SetString(PyExc_ValueError, "observation has more entries than it has values");
        return -1;
    }
    b->ix[b->nix] = i;
    b->vx[b->nix++] = v;
    return 0;
}

static double clip(double x) { return x > L.high ? L.high : (x < L.low ? L.low : x); }

#define TRY(x) \
    do {               \
        if ((x) < 0) goto fail; \
    } while (0)

/* ones at base + c for every card c of the sequence `seq` from index `from` on */
static int push_cards(Buf *b, PyObject *seq, Py_ssize_t from, long base) {
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t j = from; j < k; j++) {
        long c;
        if (item_long(seq, j, &c) < 0) return -1;
        if (push_on(b, base + c) < 0) return -1;
    }
    return 0;
}

/* shared_entries(state): every observer's pieces (sparse.py, same order) */
static int shared(Buf *b, PyObject *s, long n, long phase) {
    int ok = -1;
    PyObject *dq = NULL, *boards = NULL, *used = NULL, *filled = NULL, *step = NULL;
    PyObject *priv = NULL, *mods = NULL, *tokens = NULL, *decks = NULL, *special = NULL;
    PyObject *piles = NULL, *hidden = NULL, *box = NULL, *jokers = NULL, *blocked = NULL;
    long rnd, actions = 0, card, addon, spend, left, draws, stage, ext_left, ext_used, usingc;
    int final, market, opera;

    /* _head */
    TRY(get_long(s, "round", &rnd));
    TRY(get_truth(s, "final", &final));
    if (lw_in(L.R.actions, phase)) TRY(get_long(s, "actions", &actions)); /* actions_left */
    TRY(push_on(b, L.np_ + n - 2));
    TRY(push_on(b, L.round + rnd - 1));
    if (final) TRY(push_on(b, L.final));
    TRY(push_on(b, L.phase + phase));
    if (actions) TRY(push_v(b, L.actions, actions * 0.1));
    /* _resolving */
    TRY(get_long(s, "resolving", &card));
    TRY(get_long(s, "res_addon", &addon));
    TRY(get_long(s, "res_spend", &spend));
    TRY(get_long(s, "res_left", &left));
    TRY(get_long(s, "draw_mand", &draws));
    TRY(get_long(s, "draw_stage", &stage));
    if (card >= 0) TRY(push_on(b, L.res_card + card));
    if (addon) TRY(push_v(b, L.res_addon, addon * 0.25));
    if (spend) TRY(push_v(b, L.res_spend, clip(spend * 0.01)));
    if (left) TRY(push_v(b, L.res_left, left * 0.25));
    if (draws) TRY(push_v(b, L.draws_left, draws * 0.125));
    if (phase == L.draw_phase) TRY(push_on(b, L.draw_stage + stage));
    if ((dq = get_seq(s, "draw_queue")) == NULL) goto fail;
    Py_ssize_t nq = PySequence_Fast_GET_SIZE(dq);
    if (nq) {
        long counts[4] = {0, 0, 0, 0};
        for (Py_ssize_t j = 0; j < nq; j++) {
            long d;
            TRY(item_long(dq, j, &d));
            if (0 <= d && d < 4) counts[d]++;
        }
        for (int d = 0; d < 4; d++)
            if (counts[d]) TRY(push_v(b, L.draw_queue + d, counts[d] * 0.125));
    }
    /* _card_flags: at the cards on the boards */
    if ((boards = get_seq(s, "boards")) == NULL || (used = get_seq(s, "used")) == NULL ||
        (filled = get_seq(s, "filled")) == NULL || (step = get_seq(s, "step")) == NULL ||
        (priv = get_seq(s, "priv")) == NULL)
        goto fail;
    Py_ssize_t ncards = PySequence_Fast_GET_SIZE(used);
    if (PySequence_Fast_GET_SIZE(filled) != ncards || PySequence_Fast_GET_SIZE(step) != ncards ||
        PySequence_Fast_GET_SIZE(priv) != ncards) {
        PyErr_SetString(PyExc_ValueError, "state: used, filled, step and priv differ in length");
        goto fail;
    }
    for (Py_ssize_t p = 0; p < PySequence_Fast_GET_SIZE(boards); p++) {
        PyObject *board = PySequence_Fast(PySequence_Fast_GET_ITEM(boards, p), "board");
        if (board == NULL) goto fail;
        for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(board); j++) {
            long c = 0, u, f, st, pr;
            if (item_long(board, j, &c) < 0 || c < 0 || c >= ncards) {
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_ValueError, "state: board card %ld out of range", c);
                Py_DECREF(board);
                goto fail;
            }
            int t = PyObject_IsTrue(PySequence_Fast_GET_ITEM(used, c));
            if (t < 0 || item_long(filled, c, &f) < 0 || item_long(step, c, &st) < 0 ||
                item_long(priv, c, &pr) < 0) {
                Py_DECREF(board);
                goto fail;
            }
            u = t;
            if ((u && push_on(b, L.used + c) < 0) ||
                (f && push_v(b, L.filled + c, f / 3.0) < 0) ||
                (st && push_v(b, L.step + c, st * 0.2) < 0) ||
                (pr && push_v(b, L.priv + c, pr * 0.5) < 0)) {
                Py_DECREF(board);
                goto fail;
            }
        }
        Py_DECREF(board);
    }
    /* _supply: 14 consecutive values */
    if ((mods = get_seq(s, "mods")) == NULL || (tokens = get_seq(s, "tokens")) == NULL ||
        (decks = get_seq(s, "decks")) == NULL || (special = get_seq(s, "special")) == NULL)
        goto fail;
    if (PySequence_Fast_GET_SIZE(mods) < 4 || PySequence_Fast_GET_SIZE(tokens) < 4 ||
        PySequence_Fast_GET_SIZE(decks) < 4) {
        PyErr_SetString(PyExc_ValueError, "state: mods, tokens and decks need 4 entries each");
        goto fail;
    }
    TRY(get_long(s, "ext_left", &ext_left));
    for (int d = 0; d < 4; d++) {
        long m;
        TRY(item_long(mods, d, &m));
        TRY(push_v(b, L.supply + d, m / 3.0));
    }
    for (int d = 0; d < 4; d++) {
        long t;
        TRY(item_long(tokens, d, &t));
        TRY(push_v(b, L.supply + 4 + d, t * 0.1));
    }
    TRY(push_v(b, L.supply + 8, ext_left / 12.0));
    for (int d = 0; d < 4; d++) {
        Py_ssize_t k = PyObject_Length(PySequence_Fast_GET_ITEM(decks, d));
        if (k < 0) goto fail;
        TRY(push_v(b, L.supply + 9 + d, k * 0.025));
    }
    TRY(push_v(b, L.supply + 13, PySequence_Fast_GET_SIZE(special) / 17.0));
    /* _piles: the face-up cards of each pile (after its first hidden[d]) */
    if ((piles = get_seq(s, "discards")) == NULL || (hidden = get_seq(s, "hidden")) == NULL ||
        (box = get_seq(s, "box")) == NULL || (jokers = get_seq(s, "jokers")) == NULL)
        goto fail;
    if (PySequence_Fast_GET_SIZE(hidden) < 4 || PySequence_Fast_GET_SIZE(piles) < 4) {
        PyErr_SetString(PyExc_ValueError, "state: discards and hidden need 4 entries each");
        goto fail;
    }
    for (Py_ssize_t d = 0; d < PySequence_Fast_GET_SIZE(piles); d++) {
        long skip = 0;
        if (d < PySequence_Fast_GET_SIZE(hidden)) TRY(item_long(hidden, d, &skip));
        PyObject *pile = PySequence_Fast(PySequence_Fast_GET_ITEM(piles, d), "pile");
        if (pile == NULL) goto fail;
        /* face_up_discards: pile[hidden[d]:] */
        int r = push_cards(b, pile, lw_slice_start(skip, PySequence_Fast_GET_SIZE(pile)),
                           L.discards);
        Py_DECREF(pile);
        TRY(r);
    }
    for (int d = 0; d < 4; d++) {
        long h;
        TRY(item_long(hidden, d, &h));
        TRY(push_v(b, L.hidden + d, h * 0.05));
    }
    TRY(push_cards(b, box, 0, L.box));
    Py_ssize_t nj = PySequence_Fast_GET_SIZE(jokers);
    if (nj) TRY(push_v(b, L.jokers, nj * 0.5));
    /* _errands */
    TRY(get_truth(s, "market_used", &market));
    TRY(get_truth(s, "opera_used", &opera));
    TRY(get_long(s, "ext_used", &ext_used));
    TRY(get_long(s, "using", &usingc));
    if ((blocked = get_seq(s, "blocked")) == NULL) goto fail;
    if (market) TRY(push_on(b, L.market));
    if (opera) TRY(push_on(b, L.opera));
    if (ext_used) TRY(push_v(b, L.ext_err, ext_used * 0.5));
    TRY(push_cards(b, blocked, 0, L.blocked));
    if (usingc >= 0) TRY(push_on(b, L.using_ + usingc));
    ok = 0;
fail:
    Py_XDECREF(dq);
    Py_XDECREF(boards);
    Py_XDECREF(used);
    Py_XDECREF(filled);
    Py_XDECREF(step);
    Py_XDECREF(priv);
    Py_XDECREF(mods);
    Py_XDECREF(tokens);
    Py_XDECREF(decks);
    Py_XDECREF(special);
    Py_XDECREF(piles);
    Py_XDECREF(hidden);
    Py_XDECREF(box);
    Py_XDECREF(jokers);
    Py_XDECREF(blocked);
    return ok;
}

/* view.py's `errand_boys_left(state)`: per absolute seat (_lwview.h) */
static int boys_left(PyObject *s, long n, long phase, long *boys) {
    long from;
    if (get_long(s, "errand_i", &from) < 0) return -1;
    PyObject *seq = getattr_named(s, "errand_seq"), *plans = NULL;
    int r = -1;
    if (seq != NULL && (plans = getattr_named(s, "plans")) != NULL)
        r = lw_boys_left(&L.R, n, phase, seq, from, plans, boys);
    Py_XDECREF(seq);
    Py_XDECREF(plans);
    return r;
}

/* the observer's pieces (state_entries after shared_entries, same order) */
static int own(Buf *b, PyObject *s, long seat, long n, long phase) {
    int ok = -1;
    PyObject *order = NULL, *hands = NULL, *money = NULL, *ext = NULL, *boards = NULL;
    PyObject *plans = NULL, *unknown = NULL, *known = NULL, *keep = NULL, *offer = NULL;
    PyObject *offer_boy = NULL;
    long cur, start, pos[MAX_N], boys[MAX_N];

    TRY(get_long(s, "cur", &cur));
    TRY(get_long(s, "start", &start));
    /* _turn */
    long to_act = lw_to_act(&L.R, phase, cur, seat, n);
    if (to_act >= 0) TRY(push_on(b, L.to_act + to_act));
    TRY(push_on(b, L.start + lw_mod(start - seat, n)));
    for (long p = 0; p < n; p++) pos[p] = -1;
    if (lw_in(L.R.order, phase)) { /* plan_order_known */
        if ((order = get_seq(s, "order")) == NULL) goto fail;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(order); i++) {
            long p;
            TRY(item_long(order, i, &p));
            if (0 <= p && p < n) pos[p] = i;
        }
    }
    TRY(boys_left(s, n, phase, boys));
    if ((hands = get_seq(s, "hands")) == NULL || (money = get_seq(s, "money")) == NULL ||
        (ext = get_seq(s, "ext")) == NULL || (boards = get_seq(s, "boards")) == NULL ||
        (plans = get_seq(s, "plans")) == NULL || (unknown = get_seq(s, "unknown_used")) == NULL ||
        (known = get_seq(s, "known")) == NULL)
        goto fail;
    if (PySequence_Fast_GET_SIZE(hands) < n || PySequence_Fast_GET_SIZE(money) < n ||
        PySequence_Fast_GET_SIZE(ext) < n || PySequence_Fast_GET_SIZE(boards) < n ||
        PySequence_Fast_GET_SIZE(plans) < n || PySequence_Fast_GET_SIZE(unknown) < n ||
        PySequence_Fast_GET_SIZE(known) < n) {
        PyErr_SetString(PyExc_ValueError, "state: a per-seat list is shorter than the seats");
        goto fail;
    }
    /* _seat_blocks, relative seat r = absolute seat (seat + r) % n */
    for (long r = 0; r < n; r++) {
        long p = (seat + r) % n, bb = L.seat0 + r * L.seat_block, m, e, pl;
        int unk;
        PyObject *board = PySequence_Fast(PySequence_Fast_GET_ITEM(boards, p), "board");
        if (board == NULL) goto fail;
        Py_ssize_t nb = PySequence_Fast_GET_SIZE(board);
        Py_ssize_t hs = PyObject_Length(PySequence_Fast_GET_ITEM(hands, p));
        int bad = hs < 0 || item_long(money, p, &m) < 0 || item_long(ext, p, &e) < 0 ||
                  item_long(plans, p, &pl) < 0 ||
                  (unk = PyObject_IsTrue(PySequence_Fast_GET_ITEM(unknown, p))) < 0;
        if (!bad)
            bad = push_on(b, bb) < 0 || push_v(b, bb + 1, clip(m * 0.01)) < 0 ||
                  push_v(b, bb + 2, hs * 0.1) < 0 || push_v(b, bb + 3, e * 0.25) < 0 ||
                  push_v(b, bb + 4, nb * 0.1) < 0 || push_v(b, bb + L.s_boys, boys[p] * 0.5) < 0 ||
                  (pl >= 0 && push_on(b, bb + L.s_plan + pl) < 0) ||
                  (pos[p] >= 0 && push_on(b, bb + L.s_order + pos[p]) < 0) ||
                  (unk && push_on(b, bb + L.s_unknown) < 0) ||
                  push_cards(b, board, 0, L.board0 + r * L.num_cards) < 0;
        Py_DECREF(board);
        if (bad) goto fail;
        PyObject *kh = PySequence_Fast(PySequence_Fast_GET_ITEM(known, p), "known");
        if (kh == NULL) goto fail;
        int r2 = push_cards(b, kh, 0, L.known0 + r * L.num_cards);
        Py_DECREF(kh);
        TRY(r2);
    }
    /* own hand, keep choices (only the one keeping) */
    {
        PyObject *hand = PySequence_Fast(PySequence_Fast_GET_ITEM(hands, seat), "hand");
        if (hand == NULL) goto fail;
        int r2 = push_cards(b, hand, 0, L.hand);
        Py_DECREF(hand);
        TRY(r2);
    }
    if (lw_keeps_shown(cur, seat)) {
        if ((keep = get_seq(s, "keep_sel")) == NULL) goto fail;
        TRY(push_cards(b, keep, 0, L.keep));
    }
    /* _offers */
    if ((offer = get_seq(s, "offer")) == NULL || (offer_boy = get_seq(s, "offer_boy")) == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(offer); i++) {
        long c;
        TRY(item_long(offer, i, &c));
        if (c >= 0) TRY(push_on(b, L.offer0 + i * L.num_cards + c));
    }
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(offer_boy); i++) {
        long p;
        TRY(item_long(offer_boy, i, &p));
        if (p >= 0) TRY(push_on(b, L.offer_taken + i * L.seats + lw_mod(p - seat, n)));
    }
    ok = 0;
fail:
    Py_XDECREF(order);
    Py_XDECREF(hands);
    Py_XDECREF(money);
    Py_XDECREF(ext);
    Py_XDECREF(boards);
    Py_XDECREF(plans);
    Py_XDECREF(unknown);
    Py_XDECREF(known);
    Py_XDECREF(keep);
    Py_XDECREF(offer);
    Py_XDECREF(offer_boy);
    return ok;
}

/* Write seat's entries into w->idx[0..k) and w->val[0..k), the ones first, then the non-zero
   values (sparse.py's `_result` order); k, or -1 with an exception set. Every index is
   checked against the observation's size. */
static Py_ssize_t write_entries(Work *w, PyObject *s, PyObject *seat_obj) {
    if (!L.ready) {
        PyErr_SetString(PyExc_RuntimeError, "lastwill_env._cwriter: configure() was not called");
        return -1;
    }
    long seat = PyLong_AsLong(seat_obj), n, phase;
    if (seat == -1 && PyErr_Occurred()) return -1;
    if (get_long(s, "n", &n) < 0 || get_long(s, "phase", &phase) < 0) return -1;
    if (n < L.R.min_n || n > L.R.max_n || n > MAX_N) {
        PyErr_Format(PyExc_ValueError, "state: %ld players, allowed %ld to %ld", n, L.R.min_n,
                     L.R.max_n);
        return -1;
    }
    if (seat < 0 || seat >= n) {
        PyErr_Format(PyExc_ValueError, "seat %ld is not a seat of a %ld-player game", seat, n);
        return -1;
    }
    Buf b = {w->on, 0, CAP, w->ix, w->vx, 0};
    if (shared(&b, s, n, phase) < 0 || own(&b, s, seat, n, phase) < 0) return -1;
    Py_ssize_t k = 0;
    for (Py_ssize_t j = 0; j < b.non; j++, k++) {
        w->idx[k] = w->on[j];
        w->val[k] = 1.0f;
    }
    for (Py_ssize_t j = 0; j < b.nix; j++) {
        float v = (float)w->vx[j];
        if (v != 0.0f) {
            w->idx[k] = w->ix[j];
            w->val[k++] = v;
        }
    }
    for (Py_ssize_t j = 0; j < k; j++) {
        if (w->idx[j] < 0 || w->idx[j] >= L.size) {
            PyErr_Format(PyExc_ValueError, "state: observation index %lld outside 0..%ld",
                         (long long)w->idx[j], L.size - 1);
            return -1;
        }
    }
    return k;
}

typedef struct {
    int64_t i;
    float v;
} Pair;

static int cmp_pair(const void *a, const void *b) {
    int64_t x = ((const Pair *)a)->i, y = ((const Pair *)b)->i;
    return (x > y) - (x < y);
}

/* sort w's k entries by index (the indices are distinct: each is written once) */
static int sort_entries(Work *w, Py_ssize_t k) {
    Pair *pairs = (Pair *)PyMem_Malloc((size_t)(k ? k : 1) * sizeof(Pair));
    if (pairs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t j = 0; j < k; j++) {
        pairs[j].i = w->idx[j];
        pairs[j].v = w->val[j];
    }
    qsort(pairs, (size_t)k, sizeof(Pair), cmp_pair);
    for (Py_ssize_t j = 0; j < k; j++) {
        w->idx[j] = pairs[j].i;
        w->val[j] = pairs[j].v;
    }
    PyMem_Free(pairs);
    return 0;
}

static PyObject *DT_INT64, *DT_FLOAT32; /* "int64", "float32" (made at import) */

/* a new 1-d array empty(k, dtype) and its writable buffer */
static PyObject *new_array(PyObject *empty, Py_ssize_t k, PyObject *dtype, Py_ssize_t itemsize,
                           Py_buffer *view) {
    PyObject *size = PyLong_FromSsize_t(k);
    if (size == NULL) return NULL;
    PyObject *arr = PyObject_CallFunctionObjArgs(empty, size, dtype, NULL);
    Py_DECREF(size);
    if (arr == NULL) return NULL;
    if (PyObject_GetBuffer(arr, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    if (view->len != k * itemsize) {
        PyBuffer_Release(view);
        Py_DECREF(arr);
        PyErr_Format(PyExc_ValueError, "empty(%zd, %R) gave %zd bytes", k, dtype, view->len);
        return NULL;
    }
    return arr;
}

/* entries(state, seat, ordered, empty) -> (indices, values): `empty` is numpy.empty; indices
   int64 (numpy's intp on the 64-bit platforms sparse.py loads this module on), values float32 */
static PyObject *py_entries(PyObject *self, PyObject *args) {
    PyObject *s, *seat, *empty, *ai = NULL, *av = NULL, *out = NULL;
    int ordered;
    if (!PyArg_ParseTuple(args, "OOpO", &s, &seat, &ordered, &empty)) return NULL;
    Work *w = work_get();
    if (w == NULL) return NULL;
    Py_ssize_t k = write_entries(w, s, seat);
    if (k < 0 || (ordered && sort_entries(w, k) < 0)) goto done;
    Py_buffer bi, bv;
    if ((ai = new_array(empty, k, DT_INT64, 8, &bi)) == NULL) goto done;
    memcpy(bi.buf, w->idx, (size_t)k * 8);
    PyBuffer_Release(&bi);
    if ((av = new_array(empty, k, DT_FLOAT32, 4, &bv)) == NULL) goto done;
    memcpy(bv.buf, w->val, (size_t)k * 4);
    PyBuffer_Release(&bv);
    out = PyTuple_Pack(2, ai, av);
done:
    work_put(w);
    Py_XDECREF(ai);
    Py_XDECREF(av);
    return out;
}

/* dense(state, seat, out): zero the float32 buffer `out` (at least the observation's size) and
   write the entries into it */
static PyObject *py_dense(PyObject *self, PyObject *args) {
    PyObject *s, *seat, *out;
    if (!PyArg_ParseTuple(args, "OOO", &s, &seat, &out)) return NULL;
    Py_buffer bo;
    if (PyObject_GetBuffer(out, &bo, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (bo.itemsize != 4 || bo.format == NULL || strcmp(bo.format, "f") != 0 ||
        bo.len < L.size * 4) {
        PyBuffer_Release(&bo);
        PyErr_Format(PyExc_ValueError, "out must be a contiguous float32 buffer of %ld values",
                     L.size);
        return NULL;
    }
    Work *w = work_get();
    if (w == NULL) {
        PyBuffer_Release(&bo);
        return NULL;
    }
    Py_ssize_t k = write_entries(w, s, seat);
    if (k >= 0) {
        float *o = (float *)bo.buf;
        memset(o, 0, (size_t)bo.len);
        for (Py_ssize_t j = 0; j < k; j++) o[w->idx[j]] = w->val[j];
    }
    work_put(w);
    PyBuffer_Release(&bo);
    if (k < 0) return NULL;
    Py_RETURN_NONE;
}

/* ---- the module ------------------------------------------------------------------------- */

static int dict_double(PyObject *d, const char *key, double *out) {
    PyObject *v = PyDict_GetItemString(d, key);
    if (v == NULL) {
        PyErr_Format(PyExc_KeyError, "layout: %s missing", key);
        return -1;
    }
    double x = PyFloat_AsDouble(v);
    if (x == -1.0 && PyErr_Occurred()) return -1;
    *out = x;
    return 0;
}

/* configure(layout): sparse.py's `_c_layout()` */
static PyObject *py_configure(PyObject *self, PyObject *args) {
    PyObject *d;
    if (!PyArg_ParseTuple(args, "O!", &PyDict_Type, &d)) return NULL;
    Layout l;
    memset(&l, 0, sizeof(l));
    struct {
        const char *key;
        long *dst;
    } keys[] = {
        {"num_players", &l.np_},      {"round", &l.round},
        {"final_round", &l.final},    {"phase", &l.phase},
        {"to_act", &l.to_act},        {"start_player", &l.start},
        {"actions_left", &l.actions}, {"resolving_card", &l.res_card},
        {"resolving_addon", &l.res_addon}, {"resolving_spend", &l.res_spend},
        {"resolving_left", &l.res_left}, {"draws_left", &l.draws_left},
        {"draw_stage", &l.draw_stage}, {"draw_queue", &l.draw_queue},
        {"seat0", &l.seat0},          {"seat_block", &l.seat_block},
        {"seat.plan", &l.s_plan},     {"seat.order", &l.s_order},
        {"seat.errand_boys_left", &l.s_boys}, {"seat.unknown_used", &l.s_unknown},
        {"board0", &l.board0},        {"card_used", &l.used},
        {"card_filled_slots", &l.filled}, {"card_value_step", &l.step},
        {"card_privilege_left", &l.priv}, {"own_hand", &l.hand},
        {"keep_selected", &l.keep},   {"offer0", &l.offer0},
        {"offer_taken_by", &l.offer_taken}, {"supply", &l.supply},
        {"discards", &l.discards},    {"hidden_discards", &l.hidden},
        {"box", &l.box},              {"jokers_in_supply", &l.jokers},
        {"market_used", &l.market},   {"opera_used", &l.opera},
        {"extension_errands", &l.ext_err}, {"blocked_plans", &l.blocked},
        {"using_card", &l.using_},    {"known_hand0", &l.known0},
        {"num_cards", &l.num_cards},  {"seats", &l.seats},
        {"size", &l.size},            {"draw_phase", &l.draw_phase},
    };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (lw_dict_long(d, keys[i].key, keys[i].dst, "layout") < 0) return NULL;
    if (dict_double(d, "high", &l.high) < 0 || dict_double(d, "low", &l.low) < 0) return NULL;
    if (l.size <= 0 || l.size > CAP) {
        PyErr_SetString(PyExc_ValueError, "layout: size out of range");
        return NULL;
    }
    if (lw_read_rules(d, &l.R, "layout") < 0) return NULL; /* view.py's `_c_consts()` */
    PyObject *st = PyDict_GetItemString(d, "state_type");
    if (st == NULL || !PyType_Check(st)) {
        PyErr_SetString(PyExc_KeyError, "layout: state_type missing (the GameState class)");
        return NULL;
    }
    Py_INCREF(st);
    Py_XSETREF(STATE_TYPE, (PyTypeObject *)st);
    for (int i = 0; i < NAME_COUNT; i++) NAME_OFFSETS[i] = slot_offset(NAME_OBJS[i]);
    l.ready = 1;
    L = l;
    Py_RETURN_NONE;
}

static PyMethodDef Methods[] = {
    {"configure", py_configure, METH_VARARGS, "configure(layout): the layout from sparse.py"},
    {"entries", py_entries, METH_VARARGS,
     "entries(state, seat, ordered, empty) -> (indices, values)"},
    {"dense", py_dense, METH_VARARGS, "dense(state, seat, out): the dense observation"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef Module = {
    PyModuleDef_HEAD_INIT, "lastwill_env._cwriter",
    "The observation writer's state path, compiled (see lastwill_env.sparse).", -1, Methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cwriter(void) {
    if (DT_INT64 == NULL && (DT_INT64 = PyUnicode_InternFromString("int64")) == NULL) return NULL;
    if (DT_FLOAT32 == NULL && (DT_FLOAT32 = PyUnicode_InternFromString("float32")) == NULL)
        return NULL;
    return PyModule_Create(&Module);
}
