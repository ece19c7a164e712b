/* A seat's view of the state, compiled: lastwill_env.engine._cview.

   The same PlayerView as lastwill_env/engine/view.py's Python `player_view(state, seat)`,
   field for field, built in C. view.py stays the definition: it loads this module when it was
   built, hands it the two classes and its `_c_consts()` (`configure`), and falls back to its own
   Python code otherwise (and for a finished game, whose `results` dict it rotates itself); the
   tests compare the two views over whole games at 2-5 players. The rules of what a seat sees
   (the errand boys still to place, the actions shown, ...) are those of lastwill_env/_lwview.h,
   which the observation writer (lastwill_env/_cwriter.c) shares.

   The state is read through its __slots__: `configure` finds the offset of every GameState slot
   used here and of every PlayerView field, and refuses classes that are not plain slot classes
   with exactly the fields known here. `view(state, seat)` takes a GameState of exactly that
   class (view.py checks the type and the seat first).

   Functions:
     configure(state_type, view_type, consts)   consts: view.py's `_c_consts()`
     view(state, seat) -> PlayerView            results=None (view.py handles game over)
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "../_lwview.h" /* the view rules and constants shared with _cwriter.c */

/* ---- the two classes' slots ------------------------------------------------------------- */

/* GameState slots read here, in the order of S_NAMES */
enum {
    S_N, S_ROUND, S_PHASE, S_CUR, S_START, S_MONEY, S_HANDS, S_BOARDS, S_EXT, S_STEP,
    S_FILLED, S_USED, S_PRIV, S_OFFER, S_OFFER_BOY, S_MODS, S_TOKENS, S_EXT_LEFT, S_DECKS,
    S_SPECIAL, S_DISCARDS, S_HIDDEN, S_BOX, S_JOKERS, S_PLANS, S_BLOCKED, S_ORDER,
    S_ERRAND_SEQ, S_ERRAND_I, S_MARKET_USED, S_OPERA_USED, S_EXT_USED, S_UNKNOWN_USED,
    S_ACTIONS, S_RESOLVING, S_USING, S_KNOWN, S_RES_SPEND, S_RES_ADDON, S_RES_LEFT,
    S_DRAW_QUEUE, S_DRAW_MAND, S_DRAW_STAGE, S_KEEP_SEL, S_FINAL, S_COUNT
};
static const char *S_NAMES[S_COUNT] = {
    "n", "round", "phase", "cur", "start", "money", "hands", "boards", "ext", "step",
    "filled", "used", "priv", "offer", "offer_boy", "mods", "tokens", "ext_left", "decks",
    "special", "discards", "hidden", "box", "jokers", "plans", "blocked", "order",
    "errand_seq", "errand_i", "market_used", "opera_used", "ext_used", "unknown_used",
    "actions", "resolving", "using", "known", "res_spend", "res_addon", "res_left",
    "draw_queue", "draw_mand", "draw_stage", "keep_sel", "final",
};

/* PlayerView fields, in the order of V_NAMES (the dataclass's own order does not matter) */
enum {
    V_NUM_PLAYERS, V_SEAT, V_ROUND, V_PHASE, V_TO_ACT, V_START_PLAYER, V_MONEY, V_HAND,
    V_HAND_SIZES, V_BOARDS, V_EXTENSIONS, V_VALUE_STEP, V_FILLED_SLOTS, V_USED,
    V_PRIVILEGE_LEFT, V_OFFER, V_OFFER_TAKEN_BY, V_MODIFIERS, V_TOKENS, V_EXTENSIONS_LEFT,
    V_DECK_SIZES, V_SPECIAL_DECK_SIZE, V_DISCARDS, V_HIDDEN_DISCARDS, V_BOX,
    V_JOKERS_IN_SUPPLY, V_PLANS, V_BLOCKED_PLANS, V_PLAN_ORDER, V_MARKET_USED, V_OPERA_USED,
    V_EXTENSION_ERRANDS, V_UNKNOWN_USED, V_ERRAND_BOYS_LEFT, V_ACTIONS, V_RESOLVING, V_USING,
    V_KNOWN_HANDS, V_RESOLVING_SPEND, V_RESOLVING_ADDON, V_RESOLVING_LEFT, V_DRAW_QUEUE,
    V_DRAWS_LEFT, V_DRAW_STAGE, V_KEEP_SELECTED, V_FINAL_ROUND, V_RESULTS, V_COUNT
};
static const char *V_NAMES[V_COUNT] = {
    "num_players", "seat", "round", "phase", "to_act", "start_player", "money", "hand",
    "hand_sizes", "boards", "extensions", "value_step", "filled_slots", "used",
    "privilege_left", "offer", "offer_taken_by", "modifiers", "tokens", "extensions_left",
    "deck_sizes", "special_deck_size", "discards", "hidden_discards", "box",
    "jokers_in_supply", "plans", "blocked_plans", "plan_order", "market_used", "opera_used",
    "extension_errands", "unknown_used", "errand_boys_left", "actions", "resolving", "using",
    "known_hands", "resolving_spend", "resolving_addon", "resolving_left", "draw_queue",
    "draws_left", "draw_stage", "keep_selected", "final_round", "results",
};

typedef struct {
    PyTypeObject *state_type, *view_type;
    Py_ssize_t s_off[S_COUNT], v_off[V_COUNT];
    LWRules R; /* view.py's `_c_consts()` */
    int ready;
} Config;

static Config C;

/* The offset of `cls`'s object slot `name`, or -1 with an error set. */
static Py_ssize_t member_offset(PyTypeObject *cls, const char *name) {
    PyObject *key = PyUnicode_FromString(name);
    if (key == NULL) return -1;
    Py_ssize_t off = lw_slot_offset(cls, key);
    Py_DECREF(key);
    if (off < 0)
        PyErr_Format(PyExc_TypeError, "%s.%s is not an object slot of that class", cls->tp_name,
                     name);
    return off;
}

/* A borrowed reference to the state's slot, or NULL with AttributeError when it is unset. */
static PyObject *slot(PyObject *s, int k) {
    PyObject *v = *(PyObject **)((char *)s + C.s_off[k]);
    if (v == NULL) PyErr_Format(PyExc_AttributeError, "GameState.%s is not set", S_NAMES[k]);
    return v;
}

/* ---- small builders (each returns a new reference or NULL) ------------------------------ */

/* tuple(seq) */
static PyObject *copy(PyObject *seq) { return PySequence_Tuple(seq); }

/* _rot(seq, seat, n): tuple(seq[seat:] + seq[:seat]) */
static PyObject *rot(PyObject *seq, long seat) {
    PyObject *f = PySequence_Fast(seq, "a per-seat list");
    if (f == NULL) return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(f);
    PyObject *t = PyTuple_New(k);
    if (t != NULL) {
        PyObject **items = PySequence_Fast_ITEMS(f);
        Py_ssize_t start = seat < k ? seat : 0; /* seq[seat:] is empty past the end */
        for (Py_ssize_t i = 0; i < k; i++) {
            Py_ssize_t j = start + i < k ? start + i : start + i - k;
            Py_INCREF(items[j]);
            PyTuple_SET_ITEM(t, i, items[j]);
        }
    }
    Py_DECREF(f);
    return t;
}

/* tuple([rel(p) for p in seq]) */
static PyObject *rel_tuple(PyObject *seq, long seat, long n) {
    PyObject *f = PySequence_Fast(seq, "a list of seats");
    if (f == NULL) return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(f);
    PyObject *t = PyTuple_New(k);
    for (Py_ssize_t i = 0; t != NULL && i < k; i++) {
        long p;
        PyObject *x = NULL;
        if (lw_as_long(PySequence_Fast_GET_ITEM(f, i), &p) == 0)
            x = PyLong_FromLong(lw_rel(p, seat, n));
        if (x == NULL) Py_CLEAR(t);
        else PyTuple_SET_ITEM(t, i, x);
    }
    Py_DECREF(f);
    return t;
}

/* tuple(sorted(x)) */
static PyObject *sorted_tuple(PyObject *x) {
    PyObject *l = PySequence_List(x);
    if (l == NULL) return NULL;
    PyObject *t = NULL;
    if (PyList_Sort(l) == 0) t = PyList_AsTuple(l);
    Py_DECREF(l);
    return t;
}

/* A per-seat builder applied to the list `seqs` in the viewer's seat order:
   tuple([f(seqs[p]) for p in order]), order = seat, seat+1, ..., seat-1 */
typedef PyObject *(*per_seat_fn)(PyObject *);

static PyObject *len_of(PyObject *x) {
    Py_ssize_t k = PyObject_Length(x);
    return k < 0 ? NULL : PyLong_FromSsize_t(k);
}

static PyObject *by_seat(PyObject *seqs, long seat, long n, per_seat_fn f) {
    PyObject *fs = PySequence_Fast(seqs, "a per-seat list");
    if (fs == NULL) return NULL;
    if (PySequence_Fast_GET_SIZE(fs) < n) {
        Py_DECREF(fs);
        PyErr_SetString(PyExc_IndexError, "a per-seat list is shorter than the table");
        return NULL;
    }
    PyObject *t = PyTuple_New(n);
    for (long i = 0; t != NULL && i < n; i++) {
        PyObject *x = f(PySequence_Fast_GET_ITEM(fs, (seat + i) % n));
        if (x == NULL) Py_CLEAR(t);
        else PyTuple_SET_ITEM(t, i, x);
    }
    Py_DECREF(fs);
    return t;
}

/* tuple([f(x) for x in seqs]) */
static PyObject *each(PyObject *seqs, per_seat_fn f) {
    PyObject *fs = PySequence_Fast(seqs, "a list");
    if (fs == NULL) return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(fs);
    PyObject *t = PyTuple_New(k);
    for (Py_ssize_t i = 0; t != NULL && i < k; i++) {
        PyObject *x = f(PySequence_Fast_GET_ITEM(fs, i));
        if (x == NULL) Py_CLEAR(t);
        else PyTuple_SET_ITEM(t, i, x);
    }
    Py_DECREF(fs);
    return t;
}

/* tuple([tuple(disc[d][hidden[d]:]) for d in range(4)]) */
static PyObject *face_up(PyObject *disc, PyObject *hidden) {
    PyObject *fd = PySequence_Fast(disc, "discards");
    if (fd == NULL) return NULL;
    PyObject *fh = PySequence_Fast(hidden, "hidden");
    if (fh == NULL) {
        Py_DECREF(fd);
        return NULL;
    }
    PyObject *t = NULL;
    if (PySequence_Fast_GET_SIZE(fd) < 4 || PySequence_Fast_GET_SIZE(fh) < 4)
        PyErr_SetString(PyExc_IndexError, "discards: fewer than 4 piles");
    else
        t = PyTuple_New(4);
    for (Py_ssize_t d = 0; t != NULL && d < 4; d++) {
        PyObject *x = NULL;
        Py_ssize_t h = PyNumber_AsSsize_t(PySequence_Fast_GET_ITEM(fh, d), PyExc_OverflowError);
        if (!(h == -1 && PyErr_Occurred())) {
            PyObject *part = PySequence_GetSlice(PySequence_Fast_GET_ITEM(fd, d), h, PY_SSIZE_T_MAX);
            if (part != NULL) {
                x = PySequence_Tuple(part);
                Py_DECREF(part);
            }
        }
        if (x == NULL) Py_CLEAR(t);
        else PyTuple_SET_ITEM(t, d, x);
    }
    Py_DECREF(fd);
    Py_DECREF(fh);
    return t;
}

static PyObject *long_tuple(const long *xs, long k) {
    PyObject *t = PyTuple_New(k);
    for (long i = 0; t != NULL && i < k; i++) {
        PyObject *x = PyLong_FromLong(xs[i]);
        if (x == NULL) Py_CLEAR(t);
        else PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

/* errand_boys_left: view.py's `errand_boys_left(state)` rotated to the viewer (_lwview.h) */
static PyObject *boys_left(PyObject *s, long n, long seat, long phase) {
    long boys[MAX_N], out[MAX_N];
    PyObject *seq = slot(s, S_ERRAND_SEQ), *io = slot(s, S_ERRAND_I), *plans = slot(s, S_PLANS);
    long from;
    if (seq == NULL || io == NULL || plans == NULL || lw_as_long(io, &from) < 0) return NULL;
    if (lw_boys_left(&C.R, n, phase, seq, from, plans, boys) < 0) return NULL;
    for (long i = 0; i < n; i++) out[i] = boys[(seat + i) % n];
    return long_tuple(out, n);
}

/* ---- the view --------------------------------------------------------------------------- */

/* v[V_x] = new reference or NULL (then the whole build fails) */
static int build(PyObject *s, long seat, PyObject **v) {
    PyObject *o;
    long n, phase, x;
#define GET(k) ((o = slot(s, (k))) == NULL ? -1 : 0)
#define SET(field, expr)                       \
    do {                                       \
        if ((v[field] = (expr)) == NULL) return -1; \
    } while (0)
#define SAME(field, k)          \
    do {                        \
        if (GET(k) < 0) return -1; \
        Py_INCREF(o);           \
        v[field] = o;           \
    } while (0)
#define LONG(k, dst) (GET(k) < 0 || lw_as_long(o, (dst)) < 0 ? -1 : 0)

    if (LONG(S_N, &n) < 0 || LONG(S_PHASE, &phase) < 0) return -1;
    if (n < C.R.min_n || n > C.R.max_n) {
        PyErr_Format(PyExc_ValueError, "n=%ld is not a player count of this game", n);
        return -1;
    }
    if (seat >= n) {
        PyErr_Format(PyExc_ValueError, "seat %ld is not at this table; seats are 0..%ld", seat, n - 1);
        return -1;
    }
    SAME(V_NUM_PLAYERS, S_N);
    SET(V_SEAT, PyLong_FromLong(seat));
    SAME(V_ROUND, S_ROUND);
    SAME(V_PHASE, S_PHASE);
    if (LONG(S_CUR, &x) < 0) return -1;
    SET(V_TO_ACT, PyLong_FromLong(lw_to_act(&C.R, phase, x, seat, n)));
    if (LONG(S_START, &x) < 0) return -1;
    SET(V_START_PLAYER, PyLong_FromLong(lw_rel(x, seat, n)));
    if (GET(S_MONEY) < 0) return -1;
    SET(V_MONEY, rot(o, seat));
    if (GET(S_HANDS) < 0) return -1;
    PyObject *hands = o;
    {
        PyObject *own = PySequence_GetItem(hands, seat);
        if (own == NULL) return -1;
        v[V_HAND] = sorted_tuple(own);
        Py_DECREF(own);
        if (v[V_HAND] == NULL) return -1;
    }
    SET(V_HAND_SIZES, by_seat(hands, seat, n, len_of));
    if (GET(S_BOARDS) < 0) return -1;
    SET(V_BOARDS, by_seat(o, seat, n, copy));
    if (GET(S_EXT) < 0) return -1;
    SET(V_EXTENSIONS, rot(o, seat));
    if (GET(S_STEP) < 0) return -1;
    SET(V_VALUE_STEP, copy(o));
    if (GET(S_FILLED) < 0) return -1;
    SET(V_FILLED_SLOTS, copy(o));
    if (GET(S_USED) < 0) return -1;
    SET(V_USED, copy(o));
    if (GET(S_PRIV) < 0) return -1;
    SET(V_PRIVILEGE_LEFT, copy(o));
    if (GET(S_OFFER) < 0) return -1;
    SET(V_OFFER, copy(o));
    if (GET(S_OFFER_BOY) < 0) return -1;
    SET(V_OFFER_TAKEN_BY, rel_tuple(o, seat, n));
    if (GET(S_MODS) < 0) return -1;
    SET(V_MODIFIERS, copy(o));
    if (GET(S_TOKENS) < 0) return -1;
    SET(V_TOKENS, copy(o));
    SAME(V_EXTENSIONS_LEFT, S_EXT_LEFT);
    if (GET(S_DECKS) < 0) return -1;
    SET(V_DECK_SIZES, each(o, len_of));
    if (GET(S_SPECIAL) < 0) return -1;
    SET(V_SPECIAL_DECK_SIZE, len_of(o));
    {
        PyObject *disc, *hidden;
        if (GET(S_DISCARDS) < 0) return -1;
        disc = o;
        if (GET(S_HIDDEN) < 0) return -1;
        hidden = o;
        SET(V_DISCARDS, face_up(disc, hidden));
        SET(V_HIDDEN_DISCARDS, copy(hidden));
    }
    if (GET(S_BOX) < 0) return -1;
    SET(V_BOX, copy(o));
    if (GET(S_JOKERS) < 0) return -1;
    SET(V_JOKERS_IN_SUPPLY, len_of(o));
    if (GET(S_PLANS) < 0) return -1;
    SET(V_PLANS, rot(o, seat));
    if (GET(S_BLOCKED) < 0) return -1;
    SET(V_BLOCKED_PLANS, copy(o));
    if (lw_in(C.R.order, phase)) {
        if (GET(S_ORDER) < 0) return -1;
        SET(V_PLAN_ORDER, rel_tuple(o, seat, n));
    } else {
        SET(V_PLAN_ORDER, PyTuple_New(0));
    }
    SAME(V_MARKET_USED, S_MARKET_USED);
    SAME(V_OPERA_USED, S_OPERA_USED);
    SAME(V_EXTENSION_ERRANDS, S_EXT_USED);
    if (GET(S_UNKNOWN_USED) < 0) return -1;
    SET(V_UNKNOWN_USED, rot(o, seat));
    SET(V_ERRAND_BOYS_LEFT, boys_left(s, n, seat, phase));
    if (lw_in(C.R.actions, phase)) SAME(V_ACTIONS, S_ACTIONS);
    else SET(V_ACTIONS, PyLong_FromLong(0));
    SAME(V_RESOLVING, S_RESOLVING);
    SAME(V_USING, S_USING);
    if (GET(S_KNOWN) < 0) return -1;
    SET(V_KNOWN_HANDS, by_seat(o, seat, n, sorted_tuple));
    SAME(V_RESOLVING_SPEND, S_RES_SPEND);
    SAME(V_RESOLVING_ADDON, S_RES_ADDON);
    SAME(V_RESOLVING_LEFT, S_RES_LEFT);
    if (GET(S_DRAW_QUEUE) < 0) return -1;
    SET(V_DRAW_QUEUE, copy(o));
    SAME(V_DRAWS_LEFT, S_DRAW_MAND);
    SAME(V_DRAW_STAGE, S_DRAW_STAGE);
    if (LONG(S_CUR, &x) < 0) return -1;
    if (lw_keeps_shown(x, seat)) {
        if (GET(S_KEEP_SEL) < 0) return -1;
        SET(V_KEEP_SELECTED, sorted_tuple(o));
    } else {
        SET(V_KEEP_SELECTED, PyTuple_New(0));
    }
    SAME(V_FINAL_ROUND, S_FINAL);
    Py_INCREF(Py_None);
    v[V_RESULTS] = Py_None;
    return 0;
#undef GET
#undef SET
#undef SAME
#undef LONG
}

static PyObject *py_view(PyObject *self, PyObject *args) {
    PyObject *s;
    long seat;
    if (!PyArg_ParseTuple(args, "Ol", &s, &seat)) return NULL;
    if (!C.ready) {
        PyErr_SetString(PyExc_RuntimeError, "lastwill_env.engine._cview: configure() was not called");
        return NULL;
    }
    if (Py_TYPE(s) != C.state_type) {
        PyErr_Format(PyExc_TypeError, "view() takes a %s, not %s", C.state_type->tp_name,
                     Py_TYPE(s)->tp_name);
        return NULL;
    }
    if (seat < 0 || seat >= MAX_N) {
        PyErr_Format(PyExc_ValueError, "seat %ld is out of range", seat);
        return NULL;
    }
    PyObject *v[V_COUNT] = {NULL};
    if (build(s, seat, v) < 0) {
        for (int i = 0; i < V_COUNT; i++) Py_XDECREF(v[i]);
        return NULL;
    }
    PyObject *out = C.view_type->tp_alloc(C.view_type, 0);
    if (out == NULL) {
        for (int i = 0; i < V_COUNT; i++) Py_XDECREF(v[i]);
        return NULL;
    }
    for (int i = 0; i < V_COUNT; i++) *(PyObject **)((char *)out + C.v_off[i]) = v[i];
    return out;
}

/* ---- configure -------------------------------------------------------------------------- */

/* configure(state_type, view_type, consts): view.py's `_c_consts()` */
static PyObject *py_configure(PyObject *self, PyObject *args) {
    PyObject *st, *vt, *d;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyType_Type, &st, &PyType_Type, &vt, &PyDict_Type, &d))
        return NULL;
    Config c;
    memset(&c, 0, sizeof(c));
    c.state_type = (PyTypeObject *)st;
    c.view_type = (PyTypeObject *)vt;
    for (int k = 0; k < S_COUNT; k++)
        if ((c.s_off[k] = member_offset(c.state_type, S_NAMES[k])) < 0) return NULL;
    for (int k = 0; k < V_COUNT; k++)
        if ((c.v_off[k] = member_offset(c.view_type, V_NAMES[k])) < 0) return NULL;
    PyObject *own = PyObject_GetAttrString(vt, "__slots__"); /* a slots dataclass: its fields */
    Py_ssize_t nslots = own == NULL ? -1 : PyObject_Length(own);
    Py_XDECREF(own);
    if (nslots < 0) return NULL;
    if (nslots != V_COUNT) {
        PyErr_Format(PyExc_ValueError, "%s has %zd fields; this module builds the %d of PlayerView",
                     c.view_type->tp_name, nslots, V_COUNT);
        return NULL;
    }
    if (c.view_type->tp_dictoffset != 0 || c.view_type->tp_itemsize != 0) {
        PyErr_SetString(PyExc_TypeError, "the view class must be a plain slot class");
        return NULL;
    }
    if (lw_read_rules(d, &c.R, "consts") < 0) return NULL;
    Py_INCREF(st);
    Py_INCREF(vt);
    Py_XDECREF(C.state_type);
    Py_XDECREF(C.view_type);
    c.ready = 1;
    C = c;
    Py_RETURN_NONE;
}

static PyMethodDef Methods[] = {
    {"configure", py_configure, METH_VARARGS,
     "configure(state_type, view_type, consts): the classes and constants from view.py"},
    {"view", py_view, METH_VARARGS, "view(state, seat) -> PlayerView (results None)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef Module = {
    PyModuleDef_HEAD_INIT, "lastwill_env.engine._cview",
    "A seat's view of the state, compiled (see lastwill_env.engine.view).", -1, Methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cview(void) { return PyModule_Create(&Module); }
