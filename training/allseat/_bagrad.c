/* The weight gradient of the all-seat network's first layer, compiled: training.allseat._bagrad.

   The first layer reads a batch of sparse observations (training/allseat/firstlayer.py): bag b
   holds the pairs offsets[b] .. offsets[b+1]-1 of (indices, values), and its output row is
   sum_k values[k] * weight[indices[k]]. Given the gradient of the output, grad_out (bags x H),
   the weight's gradient is

       out[indices[k]] += values[k] * grad_out[b]      for every pair k of every bag b,

   taken here in that order (bag by bag, pair by pair): exactly what torch's
   `zeros.index_add_(0, indices, values[:, None] * grad_out[bag_of_pair])` computes, at a
   fraction of its cost and of `embedding_bag`'s own backward (which sorts the indices first).
   Each product is rounded before it is added (no fused multiply-add): the x86 versions chosen
   at load time (AVX-512, AVX2, baseline) then give the same bits.

   Functions:
     grad(indices, offsets, values, grad_out, out)
         indices int64 (nnz), offsets int64 (bags), values float32 (nnz), grad_out float32
         (bags x H, C order), out float32 (rows x H, C order, zeroed by the caller). Every
         index and offset is checked before anything is written.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CLONES
#endif

CLONES
static void accumulate(const int64_t *idx, const int64_t *offsets, Py_ssize_t nbags,
                       Py_ssize_t nnz, const float *vals, const float *g, Py_ssize_t h,
                       float *out) {
    for (Py_ssize_t b = 0; b < nbags; b++) {
        Py_ssize_t end = b + 1 < nbags ? offsets[b + 1] : nnz;
        const float *gr = g + b * h;
        for (Py_ssize_t k = offsets[b]; k < end; k++) {
            const float v = vals[k];
            float *o = out + idx[k] * h;
            for (Py_ssize_t j = 0; j < h; j++) {
                const float p = v * gr[j];
                o[j] += p;
            }
        }
    }
}

/* a C-contiguous buffer of `ndim` dimensions and one item format ("q"/"l" int64, "f" float32) */
static int get(PyObject *obj, Py_buffer *view, int ndim, char kind, int writable,
               const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    int ok = PyObject_GetBuffer(obj, view, flags) == 0;
    if (ok) {
        const char *f = view->format ? view->format : "B";
        if (*f == '<' || *f == '=' || *f == '@') f++;
        ok = view->ndim == ndim && f[1] == '\0' &&
             (kind == 'i' ? (view->itemsize == 8 && (*f == 'q' || *f == 'l'))
                          : (view->itemsize == 4 && *f == 'f'));
        if (!ok) PyBuffer_Release(view);
    }
    if (!ok) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s must be a C-contiguous%s %d-d %s array", name,
                     writable ? " writable" : "", ndim, kind == 'i' ? "int64" : "float32");
        return -1;
    }
    return 0;
}

/* the checks: shapes agree, offsets start at 0 and never decrease nor pass nnz, every index
   names a row of `out` */
static int check(Py_buffer *bi, Py_buffer *bo, Py_buffer *bv, Py_buffer *bg, Py_buffer *bw) {
    Py_ssize_t nnz = bi->shape[0], nbags = bo->shape[0], h = bg->shape[1];
    if (bv->shape[0] != nnz) {
        PyErr_Format(PyExc_ValueError, "values has %zd entries, indices %zd", bv->shape[0], nnz);
        return -1;
    }
    if (bg->shape[0] != nbags || bw->shape[1] != h) {
        PyErr_Format(PyExc_ValueError,
                     "grad_out is %zd x %zd and out %zd x %zd: grad_out needs one row per bag "
                     "(%zd) and both the same width",
                     bg->shape[0], h, bw->shape[0], bw->shape[1], nbags);
        return -1;
    }
    const int64_t *off = bo->buf, *idx = bi->buf;
    for (Py_ssize_t b = 0; b < nbags; b++) {
        int64_t lo = b ? off[b - 1] : 0;
        if ((b == 0 && off[0] != 0) || off[b] < lo || off[b] > nnz) {
            PyErr_Format(PyExc_ValueError,
                         "offsets[%zd] = %lld: offsets start at 0 and rise to at most %zd", b,
                         (long long)off[b], nnz);
            return -1;
        }
    }
    Py_ssize_t rows = bw->shape[0];
    for (Py_ssize_t k = 0; k < nnz; k++) {
        if (idx[k] < 0 || idx[k] >= rows) {
            PyErr_Format(PyExc_ValueError, "indices[%zd] = %lld is not a row of out (0-%zd)", k,
                         (long long)idx[k], rows - 1);
            return -1;
        }
    }
    return 0;
}

static PyObject *py_grad(PyObject *self, PyObject *args) {
    PyObject *oi, *oo, *ov, *og, *ow;
    if (!PyArg_ParseTuple(args, "OOOOO", &oi, &oo, &ov, &og, &ow)) return NULL;
    Py_buffer b[5];
    PyObject *objs[5] = {oi, oo, ov, og, ow};
    const int ndim[5] = {1, 1, 1, 2, 2};
    const char kind[5] = {'i', 'i', 'f', 'f', 'f'};
    const char *names[5] = {"indices", "offsets", "values", "grad_out", "out"};
    int got = 0;
    PyObject *res = NULL;
    for (; got < 5; got++)
        if (get(objs[got], &b[got], ndim[got], kind[got], got == 4, names[got]) < 0) goto done;
    if (check(&b[0], &b[1], &b[2], &b[3], &b[4]) < 0) goto done;
    Py_BEGIN_ALLOW_THREADS accumulate(b[0].buf, b[1].buf, b[1].shape[0], b[0].shape[0],
                                      b[2].buf, b[3].buf, b[3].shape[1], b[4].buf);
    Py_END_ALLOW_THREADS res = Py_None;
    Py_INCREF(res);
done:
    for (int i = 0; i < got; i++) PyBuffer_Release(&b[i]);
    return res;
}

static PyMethodDef Methods[] = {
    {"grad", py_grad, METH_VARARGS,
     "grad(indices, offsets, values, grad_out, out): add the first layer's weight gradient "
     "into out"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef Module = {
    PyModuleDef_HEAD_INIT, "training.allseat._bagrad",
    "The weight gradient of the all-seat network's first layer, compiled "
    "(see training.allseat.firstlayer).",
    -1, Methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__bagrad(void) { return PyModule_Create(&Module); }
