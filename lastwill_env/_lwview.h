/* What a seat sees, for the compiled modules: lastwill_env/_lwview.h.

   Included by both compiled accelerators of lastwill_env/engine/view.py: the seat view
   (lastwill_env/engine/_cview.c) and the observation writer's state path (lastwill_env/_cwriter.c).
   view.py is the definition; the rules of what a seat sees that both modules need are written
   once here, each named after the view.py function it follows:

     lw_boys_left      errand_boys_left(state)   errand boys still to place, per absolute seat
     lw_in(R->actions) actions_left(state)       actions shown in an action turn only
     lw_to_act         to_act(state, seat)       who decides now, -1 when the game is over
     lw_in(R->order)   plan_order_known(state)   the plan order, from the errands on
     lw_keeps_shown    keeps_shown(state, seat)  the keep choices, to the one keeping only
     lw_slice_start    face_up_discards(state)   (and errand_seq[errand_i:]): a Python slice

   Their constants come from view.py's `_c_consts()` (`lw_read_rules` reads its keys; the
   writer's layout, sparse.py's `_c_layout()`, holds them too). Every function is static
   inline: each module has its own copy. Include after <Python.h>. */
#ifndef LASTWILL_LWVIEW_H
#define LASTWILL_LWVIEW_H

#include <structmember.h> /* PyMemberDef (in Python.h itself from 3.12) */

#ifndef Py_T_OBJECT_EX
#define Py_T_OBJECT_EX 16
#endif

#define MAX_N 5      /* seats at a table, at most (lw_read_rules checks the player counts) */
#define MAX_PLANS 16 /* plan spaces per player count, at most */
#define LW_PHASES 64 /* a phase set holds the phases 0..63 */

typedef unsigned long long lw_phases; /* a set of phases: bit k for phase k */

/* view.py's `_c_consts()` */
typedef struct {
    lw_phases errand, planning, actions, order; /* _ERRAND_PHASES, _PLANNING_PHASES, ... */
    long game_over, min_n, max_n;
    long boys[MAX_N + 1][MAX_PLANS]; /* _ERRAND_BOYS: per player count and plan space */
    long nplans[MAX_N + 1];
} LWRules;

/* ---- small helpers ---------------------------------------------------------------------- */

static inline int lw_as_long(PyObject *o, long *out) {
    long x = PyLong_AsLong(o);
    if (x == -1 && PyErr_Occurred()) return -1;
    *out = x;
    return 0;
}

static inline long lw_mod(long a, long n) { return ((a % n) + n) % n; }

/* the seat p relative to the viewer `seat`; any negative p is -1 */
static inline long lw_rel(long p, long seat, long n) {
    return p >= 0 ? lw_mod(p - seat, n) : -1;
}

static inline int lw_in(lw_phases set, long phase) {
    return phase >= 0 && phase < LW_PHASES && ((set >> phase) & 1ULL);
}

/* where seq[start:] starts in a sequence of k items (Python's rule for a negative start) */
static inline Py_ssize_t lw_slice_start(long start, Py_ssize_t k) {
    if (start < 0) return start + k < 0 ? 0 : start + k;
    return start > k ? k : start;
}

/* The offset of the object slot `name` that `cls` itself defines, or -1 (no error set). */
static inline Py_ssize_t lw_slot_offset(PyTypeObject *cls, PyObject *name) {
    PyObject *descr = PyObject_GetAttr((PyObject *)cls, name);
    if (descr == NULL) {
        PyErr_Clear();
        return -1;
    }
    Py_ssize_t off = -1;
    if (Py_TYPE(descr) == &PyMemberDescr_Type && PyDescr_TYPE(descr) == cls) {
        PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
        if (m->type == Py_T_OBJECT_EX) off = m->offset;
    }
    Py_DECREF(descr);
    return off;
}

/* ---- the rules -------------------------------------------------------------------------- */

/* to_act(state, seat) */
static inline long lw_to_act(const LWRules *R, long phase, long cur, long seat, long n) {
    return phase != R->game_over && cur >= 0 ? lw_mod(cur - seat, n) : -1;
}

/* keeps_shown(state, seat) */
static inline int lw_keeps_shown(long cur, long seat) { return cur == seat; }

/* out[p] += 1 for every seat p of errand_seq[from:] */
static inline int lw_count_errands(PyObject *errand_seq, long from, long n, long *out) {
    PyObject *f = PySequence_Fast(errand_seq, "errand_seq");
    if (f == NULL) return -1;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(f);
    for (Py_ssize_t j = lw_slice_start(from, k); j < k; j++) {
        long p;
        if (lw_as_long(PySequence_Fast_GET_ITEM(f, j), &p) < 0) {
            Py_DECREF(f);
            return -1;
        }
        if (0 <= p && p < n) out[p]++;
    }
    Py_DECREF(f);
    return 0;
}

/* out[p] = the errand boys of seat p's plan (0 before it chose one) */
static inline int lw_plan_boys(const LWRules *R, PyObject *plans, long n, long *out) {
    PyObject *f = PySequence_Fast(plans, "plans");
    if (f == NULL) return -1;
    int ok = -1;
    if (PySequence_Fast_GET_SIZE(f) != n) {
        PyErr_SetString(PyExc_ValueError, "plans: not one per seat");
        goto done;
    }
    for (long p = 0; p < n; p++) {
        long k;
        if (lw_as_long(PySequence_Fast_GET_ITEM(f, p), &k) < 0) goto done;
        if (k >= R->nplans[n]) {
            PyErr_Format(PyExc_IndexError, "plan %ld does not exist at %ld players", k, n);
            goto done;
        }
        out[p] = k >= 0 ? R->boys[n][k] : 0;
    }
    ok = 0;
done:
    Py_DECREF(f);
    return ok;
}

/* errand_boys_left(state): out[p] for each absolute seat p < n (n within the rules' counts) */
static inline int lw_boys_left(const LWRules *R, long n, long phase, PyObject *errand_seq,
                               long errand_i, PyObject *plans, long *out) {
    for (long p = 0; p < n; p++) out[p] = 0;
    if (lw_in(R->errand, phase)) return lw_count_errands(errand_seq, errand_i, n, out);
    if (lw_in(R->planning, phase)) return lw_plan_boys(R, plans, n, out);
    return 0;
}

/* ---- reading `_c_consts()` -------------------------------------------------------------- */

/* d[key] as a long; `what` names the dict in the error ("consts", "layout") */
static inline int lw_dict_long(PyObject *d, const char *key, long *out, const char *what) {
    PyObject *v = PyDict_GetItemString(d, key); /* borrowed */
    if (v == NULL) {
        PyErr_Format(PyExc_KeyError, "%s: %s missing", what, key);
        return -1;
    }
    return lw_as_long(v, out);
}

/* d[key], a sequence of phases, as a phase set */
static inline int lw_dict_phases(PyObject *d, const char *key, lw_phases *out,
                                 const char *what) {
    PyObject *v = PyDict_GetItemString(d, key);
    if (v == NULL) {
        PyErr_Format(PyExc_KeyError, "%s: %s missing", what, key);
        return -1;
    }
    PyObject *f = PySequence_Fast(v, key);
    if (f == NULL) return -1;
    *out = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(f); i++) {
        long ph = 0;
        if (lw_as_long(PySequence_Fast_GET_ITEM(f, i), &ph) < 0 || ph < 0 || ph >= LW_PHASES) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "%s: %s: phase %ld", what, key, ph);
            Py_DECREF(f);
            return -1;
        }
        *out |= 1ULL << ph;
    }
    Py_DECREF(f);
    return 0;
}

/* R->boys[n] and R->nplans[n] from row, the errand boys per plan space at n players */
static inline int lw_boys_row(LWRules *R, long n, PyObject *row, const char *what) {
    PyObject *f = PySequence_Fast(row, "errand_boys row");
    if (f == NULL) return -1;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(f);
    if (k > MAX_PLANS) {
        Py_DECREF(f);
        PyErr_Format(PyExc_ValueError, "%s: too many plans", what);
        return -1;
    }
    R->nplans[n] = (long)k;
    for (Py_ssize_t j = 0; j < k; j++)
        if (lw_as_long(PySequence_Fast_GET_ITEM(f, j), &R->boys[n][j]) < 0) {
            Py_DECREF(f);
            return -1;
        }
    Py_DECREF(f);
    return 0;
}

/* d["errand_boys"]: {n: (errand boys per plan space)} for each player count */
static inline int lw_dict_boys(PyObject *d, LWRules *R, const char *what) {
    PyObject *boys = PyDict_GetItemString(d, "errand_boys");
    if (boys == NULL || !PyDict_Check(boys)) {
        PyErr_Format(PyExc_KeyError, "%s: errand_boys missing", what);
        return -1;
    }
    for (long n = R->min_n; n <= R->max_n; n++) {
        PyObject *key = PyLong_FromLong(n);
        if (key == NULL) return -1;
        PyObject *row = PyDict_GetItemWithError(boys, key);
        Py_DECREF(key);
        if (row == NULL) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_KeyError, "%s: errand_boys[%ld]", what, n);
            return -1;
        }
        if (lw_boys_row(R, n, row, what) < 0) return -1;
    }
    return 0;
}

/* *R from d, which holds view.py's `_c_consts()` */
static inline int lw_read_rules(PyObject *d, LWRules *R, const char *what) {
    memset(R, 0, sizeof(*R));
    if (lw_dict_phases(d, "errand_phases", &R->errand, what) < 0 ||
        lw_dict_phases(d, "planning_phases", &R->planning, what) < 0 ||
        lw_dict_phases(d, "action_phases", &R->actions, what) < 0 ||
        lw_dict_phases(d, "order_phases", &R->order, what) < 0 ||
        lw_dict_long(d, "game_over", &R->game_over, what) < 0 ||
        lw_dict_long(d, "min_players", &R->min_n, what) < 0 ||
        lw_dict_long(d, "max_players", &R->max_n, what) < 0)
        return -1;
    if (R->min_n < 1 || R->max_n > MAX_N || R->min_n > R->max_n) {
        PyErr_Format(PyExc_ValueError, "%s: player counts out of range", what);
        return -1;
    }
    return lw_dict_boys(d, R, what);
}

#endif /* LASTWILL_LWVIEW_H */
