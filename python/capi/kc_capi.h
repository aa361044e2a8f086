/* The C ABI of kernel-contract for bindings loaded without a compiler (the Python package loads it
 * through ctypes): one shared library serves every Python version, since nothing here names an
 * interpreter. Handles are opaque; every call that can fail returns non-zero (or NULL) and leaves
 * its message in kc_last_error(). Callbacks return 0, or non-zero after kc_set_error(), which the
 * harness then raises as an Error naming the hook (a launch's: an ERROR line with that text).
 *
 * Arguments that are lists or records travel as JSON text (a family's arguments, a builder
 * method's), so the ABI stays a handful of functions as the families grow. */
#ifndef KC_CAPI_H
#define KC_CAPI_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KC_CAPI_VERSION 1

typedef struct kc_entry kc_entry;      /* an Entry being built (kc/spec.hpp) */
typedef struct kc_buffers kc_buffers;  /* the harness's buffers a launch gets (kc/rig.hpp Buffers) */
typedef struct kc_shape kc_shape;      /* a named shape (kc/types.hpp Shape) */
typedef struct kc_case kc_case;        /* a prepared case, host copies of every buffer (kc/rig.hpp Case) */

int kc_capi_version(void);
const char* kc_last_error(void);
void kc_set_error(const char* text);

/* Element types in kc::DType's order (f64 f32 f16 bf16 i64 i32 u32 u16 u8 i8); NULL past the end. */
const char* kc_dtype_name(int dtype);
size_t kc_dtype_size(int dtype);

/* Hooks. ud is the binding's own value (the Python package: a key into its table of callables). */
typedef int (*kc_shape_fn)(void* ud, const kc_shape* s, double* out);             /* depth, dot depth */
typedef int (*kc_launch_fn)(void* ud, const kc_buffers* b);                       /* launch, replaced */
typedef int (*kc_text_fn)(void* ud, const void* arg, char* out, size_t cap);      /* pick (kc_shape), rule (kc_case) */
typedef int (*kc_void_fn)(void* ud);                                              /* release */
typedef int (*kc_factory_fn)(void* ud, kc_entry** out);                           /* builds an entry */

/* An entry from a family: "rows.sum", "dense.projection", "attention.decode", ... with its
 * arguments as a JSON object ({"in": "f32", "out": "f32"}); fn/ud: the attention Steps' dot depth
 * (NULL: d). NULL on error (an unknown family or argument is named). */
kc_entry* kc_entry_family(const char* family, const char* json, kc_shape_fn fn, void* ud);
void kc_entry_free(kc_entry* e);
/* A builder method with JSON arguments: served, tile, range, ops, ulp, hidden, in_place, chained,
 * launches, known, control, note. */
int kc_entry_apply(kc_entry* e, const char* method, const char* json);
int kc_entry_sums(kc_entry* e, int acc_dtype, kc_shape_fn depth, void* ud, int ops, int mids);
int kc_entry_launch(kc_entry* e, kc_launch_fn fn, void* ud);
int kc_entry_replaces(kc_entry* e, const char* name, kc_launch_fn fn, void* ud);
int kc_entry_picks(kc_entry* e, const char* forms_json, kc_text_fn fn, void* ud);
int kc_entry_rule(kc_entry* e, const char* text, kc_text_fn fn, void* ud);
int kc_entry_release(kc_entry* e, kc_void_fn fn, void* ud);
/* The entry's spec as JSON (name, dims, launches, control gate, ...), for the binding's listings. */
char* kc_entry_describe(const kc_entry* e);
void kc_free_text(char* text);

/* A helper of a family, JSON in and out: "dense.slice_depth", "attention.geometry", "attention.scale",
 * "affine.words_per_row". The result is freed with kc_free_text. NULL on error. */
char* kc_call(const char* fn, const char* json);

/* Registers an entry the harness builds when it needs it (the binding's factory), as KC_KERNEL does. */
int kc_register(const char* name, const char* backend, const char* file, int line, int control, kc_factory_fn make,
                void* ud);
size_t kc_registered(void);

/* Shapes, buffers and cases, read in hooks. Names stay valid while the hook runs. */
int kc_shape_rank(const kc_shape* s);
int kc_shape_dim(const kc_shape* s, int i, const char** name, int64_t* value);
int kc_buffers_size(const kc_buffers* b);
int kc_buffers_slot(const kc_buffers* b, int i, const char** name, int* dtype, uint64_t* count, int* role, void** ptr);
const kc_shape* kc_buffers_shape(const kc_buffers* b);
void* kc_buffers_stream(const kc_buffers* b);
int kc_case_size(const kc_case* c);
int kc_case_buffer(const kc_case* c, int i, const char** name, int* dtype, uint64_t* count, int* role, void** ptr);
const kc_shape* kc_case_shape(const kc_case* c);

/* A DLPack (v0.8) DLManagedTensor over count elements at data, 1-D and compact; the consumer calls
 * its deleter, or kc_dlpack_delete where none took it. dtype_code: DLPack's (0 int, 1 uint, 2 float,
 * 4 bfloat); device_type: 1 CPU, 2 CUDA. */
void* kc_dlpack_new(void* data, uint8_t dtype_code, uint8_t bits, int64_t count, int32_t device_type,
                    int32_t device_id);
void kc_dlpack_delete(void* managed);

/* Backends: "" where name can run kernels here, else why not; NULL for a name no backend has. */
const char* kc_backend_absent(const char* name);
/* A launch whose kernel a JIT loads by module (Triton): its launch name, the kernel's device name,
 * and the most threads a block and dynamic shared bytes it uses, so the CUDA backend's launch
 * watch knows it by its device name (gate 5 at run time). Non-zero without the CUDA backend. */
int kc_cuda_module_launch(const char* name, const char* symbol, int threads, uint64_t dyn_smem);

/* Gate 5 for cubins a binding compiled (Triton's): one CUDA audit as kernel-contract-limits runs it,
 * JSON {"binaries": [...], "launches": [launches.tsv ...], "records": dir, "sms": [90, ...], "only":
 * launch text, "write": false}; with "write" true the records are written (--write-records).
 * Returns JSON {"lines": [{launch, chip, control, problem, message}], "notes", "errors", "records",
 * "written"}, freed with kc_free_text; NULL on error. */
char* kc_cuda_audit(const char* json);
/* Hands gathered audit results ({"backend", "lines", "notes", "errors"}) to the next kc_main as an
 * auditor: its lines join the run's gate 5 lines and SUMMARY. */
int kc_audit_results(const char* json);

/* The kernel-contract command line over every backend and gate 5's auditors. self: the command
 * that runs this program again (the interpreter, its arguments), for the fresh processes each
 * entry runs in. Returns the exit code (a fresh process ends inside, through _Exit). */
int kc_main(int argc, const char* const* argv, int nself, const char* const* self);

#ifdef __cplusplus
}
#endif
#endif
