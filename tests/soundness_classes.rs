//! The classes of wrong verdicts found outside the fuzzer's generator, one pair per form, each
//! with the verdicts it may and may not get.
//!
//! Every pair here once got `equivalent` or `unchanged` (or a witness that was no difference)
//! although the two versions behave differently when compiled: changed initializers behind
//! unchanged text, aggregates returned by value, termination, IEEE floating point, calls
//! through function pointers, helpers with effects, and witnesses differing only in the sign of
//! zero. A pair's `different` verdict must come with a witness that native execution confirms
//! (`--validate native`), where the native harness can run the function (scalar results).

mod common;

use std::process::Command;
use std::time::Duration;

use common::run_with_timeout;
use serde_json::Value as Json;

/// What a function's verdict must be.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Want {
    /// The versions give different results on some terminating input: never `equivalent`,
    /// `unchanged` or `partially-equivalent`.
    Differs,
    /// The versions differ only in termination: never `equivalent` or `unchanged`.
    DiffersInTermination,
    /// `different`, with a witness (validated natively when the harness can run it).
    Witness,
    /// The versions behave alike: never `different`.
    Same,
}

struct Case {
    name: &'static str,
    old: &'static str,
    new: &'static str,
    /// `(function, want)`; whole-file mode unless `only` is set.
    functions: &'static [(&'static str, Want)],
    only: bool,
}

const CASES: &[Case] = &[
    // 0. Functions defined in headers beside the file (each version has its own): a changed
    // `static inline` helper changes its callers, lowered or rejected (`va_arg`), also when
    // reached only through another header function.
    Case {
        name: "header_inline_function",
        old: "#include \"h.h\"\nint f(int a) { return hf(a) * 2; }\nint g(int a) { return a; }\n//--- h.h\nstatic inline int hf(int x) { return x + 1; }\n",
        new: "#include \"h.h\"\nint f(int a) { return hf(a) * 2; }\nint g(int a) { return a; }\n//--- h.h\nstatic inline int hf(int x) { return x + 2; }\n",
        functions: &[("f", Want::Witness), ("g", Want::Same)],
        only: false,
    },
    Case {
        name: "header_function_through_header_function",
        old: "#include \"h.h\"\nint f(int a) { return outer(a); }\n//--- h.h\nstatic int inner(int x) { return x > 3; }\nstatic inline int outer(int x) { return inner(x) + 1; }\n",
        new: "#include \"h.h\"\nint f(int a) { return outer(a); }\n//--- h.h\nstatic int inner(int x) { return x > 4; }\nstatic inline int outer(int x) { return inner(x) + 1; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    Case {
        name: "header_rejected_function",
        old: "#include \"h.h\"\nint f(int a) { return hv(1, a); }\n//--- h.h\n#include <stdarg.h>\nstatic int hv(int n, ...) { va_list ap; va_start(ap, n); int r = va_arg(ap, int); va_end(ap); return r + 1; }\n",
        new: "#include \"h.h\"\nint f(int a) { return hv(1, a); }\n//--- h.h\n#include <stdarg.h>\nstatic int hv(int n, ...) { va_list ap; va_start(ap, n); int r = va_arg(ap, int); va_end(ap); return r + 2; }\n",
        functions: &[("f", Want::Differs)],
        only: false,
    },
    // 1. Changed initializers behind unchanged text (whole-file mode).
    Case {
        name: "global_scalar_init",
        old: "int g = 1;\nint f(int x) { return x + g; }\n",
        new: "int g = 2;\nint f(int x) { return x + g; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    Case {
        name: "file_static_init",
        old: "static int g = 1;\nint f(int x) { return x * g; }\n",
        new: "static int g = 3;\nint f(int x) { return x * g; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    Case {
        name: "static_const_observable",
        old: "static const int K = 3;\nint f(int x) { return x + K; }\n",
        new: "static const int K = 4;\nint f(int x) { return x + K; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    Case {
        name: "static_const_not_observable",
        old: "static const int K = 3;\nint f(int x) { return K > 0 ? x : -x; }\n",
        new: "static const int K = 4;\nint f(int x) { return K > 0 ? x : -x; }\n",
        functions: &[("f", Want::Same)],
        only: false,
    },
    Case {
        name: "global_array_init",
        old: "int t[3] = {1, 2, 3};\nint f(int i) { return t[i & 1]; }\n",
        new: "int t[3] = {1, 5, 3};\nint f(int i) { return t[i & 1]; }\n",
        functions: &[("f", Want::Differs)],
        only: false,
    },
    Case {
        name: "const_array_init",
        old: "static const int t[] = {1, 2, 3};\nint f(int i) { return t[2] + i; }\n",
        new: "static const int t[] = {1, 2, 4};\nint f(int i) { return t[2] + i; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    Case {
        name: "global_through_helper",
        old: "static int g = 1;\nstatic int get(void) { return g; }\nint f(int x) { return get() + x; }\n",
        new: "static int g = 2;\nstatic int get(void) { return g; }\nint f(int x) { return get() + x; }\n",
        functions: &[("f", Want::Witness), ("get", Want::Witness)],
        only: false,
    },
    Case {
        name: "global_only_printed",
        old: "#include <stdio.h>\nint g = 1;\nvoid f(void) { printf(\"%d\\n\", g); }\n",
        new: "#include <stdio.h>\nint g = 2;\nvoid f(void) { printf(\"%d\\n\", g); }\n",
        functions: &[("f", Want::Differs)],
        only: false,
    },
    Case {
        name: "volatile_global_init",
        old: "volatile int v = 1;\nint f(void) { return v; }\n",
        new: "volatile int v = 2;\nint f(void) { return v; }\n",
        functions: &[("f", Want::Differs)],
        only: false,
    },
    Case {
        name: "volatile_reads_are_not_equal",
        old: "volatile int v;\nint f(void) { return v - v; }\n",
        new: "volatile int v;\nint f(void) { return 0; }\n",
        functions: &[("f", Want::Differs)],
        only: false,
    },
    Case {
        name: "static_local_init",
        old: "int f(int x) { static int c = 0; c += x; return c; }\n",
        new: "int f(int x) { static int c = 1; c += x; return c; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    Case {
        name: "csmith_checksum",
        old: "#include <stdint.h>\n#include <stdio.h>\nstatic int32_t g_2 = 6L;\nstatic int32_t func_1(void) { return g_2; }\nint main(void) { printf(\"checksum = %d\\n\", func_1()); return 0; }\n",
        new: "#include <stdint.h>\n#include <stdio.h>\nstatic int32_t g_2 = 7L;\nstatic int32_t func_1(void) { return g_2; }\nint main(void) { printf(\"checksum = %d\\n\", func_1()); return 0; }\n",
        functions: &[("func_1", Want::Witness), ("main", Want::Differs)],
        only: false,
    },
    // 2. Aggregates returned by value.
    Case {
        name: "struct_return_guarded_field",
        old: "typedef struct { int a, b; } P;\nP mk(int t, int v) { P o; o.a = t; o.b = 0; if (t > 0) o.b = v; return o; }\n",
        new: "typedef struct { int a, b; } P;\nP mk(int t, int v) { P o; o.a = t; o.b = 0; if (t < 0) o.b = v; return o; }\n",
        functions: &[("mk", Want::Witness)],
        only: false,
    },
    Case {
        name: "struct_return_swapped_fields",
        old: "typedef struct { int a, b; } P;\nP sw(int x, int y) { P p; p.a = x; p.b = y; return p; }\n",
        new: "typedef struct { int a, b; } P;\nP sw(int x, int y) { P p; p.a = y; p.b = x; return p; }\n",
        functions: &[("sw", Want::Witness)],
        only: false,
    },
    Case {
        name: "struct_return_nested_and_array",
        old: "struct In { int x; char c; };\nstruct S { int a; struct In in; int arr[3]; };\nstruct S f(int t) { struct S s = {0}; s.a = t; s.in.x = t + 1; s.arr[1] = t; return s; }\n",
        new: "struct In { int x; char c; };\nstruct S { int a; struct In in; int arr[3]; };\nstruct S f(int t) { struct S s = {0}; s.a = t; s.in.x = t + 1; s.arr[2] = t; return s; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    Case {
        name: "struct_return_nested_field",
        old: "struct In { int x; int y; };\nstruct S { struct In in; };\nstruct S f(int t) { struct S s; s.in.x = t; s.in.y = 0; return s; }\n",
        new: "struct In { int x; int y; };\nstruct S { struct In in; };\nstruct S f(int t) { struct S s; s.in.x = 0; s.in.y = t; return s; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    // Fields compared by name: the same struct value after a reordering of the declaration is
    // no difference (a witness was once made of it), while the changed field still is.
    Case {
        name: "struct_fields_reordered",
        old: "struct In { long y; int x; short arr[3]; };\nstruct S { char tag; struct In in; int a; };\nstruct S f(unsigned b) { struct S st = {.a = 8, .in = {.x = 3, .arr = {-2, -2, 4}}, .tag = 'm'}; st.in.arr[0] = b; return st; }\n",
        new: "struct In { short arr[3]; int x; long y; };\nstruct S { char tag; struct In in; int a; };\nstruct S f(unsigned b) { struct S st = {.a = 8, .in = {.x = 3, .arr = {-2, -2, 4}}, .tag = 'm'}; st.in.arr[0] = 0; return st; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    Case {
        name: "union_return",
        old: "union U { int i; float f; };\nunion U u(int t) { union U r; r.i = t; return r; }\n",
        new: "union U { int i; float f; };\nunion U u(int t) { union U r; r.i = t + 1; return r; }\n",
        functions: &[("u", Want::Witness)],
        only: false,
    },
    Case {
        name: "struct_parameter_returned",
        old: "struct S { int a, b; };\nstruct S f(struct S s) { s.a = 1; return s; }\n",
        new: "struct S { int a, b; };\nstruct S f(struct S s) { s.b = 1; return s; }\n",
        functions: &[("f", Want::Differs)],
        only: false,
    },
    Case {
        name: "struct_global_whole_store",
        old: "struct S { int a, b; };\nstruct S gs;\nstatic void put(int x) { struct S t = {x, 0}; gs = t; }\nvoid f(int x) { put(x); }\n",
        new: "struct S { int a, b; };\nstruct S gs;\nstatic void put(int x) { struct S t = {x, 1}; gs = t; }\nvoid f(int x) { put(x); }\n",
        functions: &[("f", Want::Differs), ("put", Want::Differs)],
        only: false,
    },
    // 3. Termination.
    Case {
        name: "loop_from_odd_value",
        old: "int f(int x) { while (x != 0) x -= 2; return 0; }\n",
        new: "int f(int x) { return 0; }\n",
        functions: &[("f", Want::DiffersInTermination)],
        only: false,
    },
    Case {
        name: "counter_never_incremented",
        old: "int f(int n) { int s = 0, i = 0; while (i < n) s++; return 0; }\n",
        new: "int f(int n) { return 0; }\n",
        functions: &[("f", Want::DiffersInTermination)],
        only: false,
    },
    Case {
        name: "counter_steps_over_bound",
        old: "int f(int n) { int s = 0; for (int i = 0; i != n; i += 2) s++; return 0; }\n",
        new: "int f(int n) { return 0; }\n",
        functions: &[("f", Want::DiffersInTermination)],
        only: false,
    },
    // 4. Floating point beyond the reals.
    Case {
        name: "nan_self_compare",
        old: "int f(double x) { return x != x; }\n",
        new: "int f(double x) { return 0; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    Case {
        name: "plus_one_greater",
        old: "int f(double x) { return x + 1.0 > x; }\n",
        new: "int f(double x) { return 1; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    // 5. Calls through function pointers.
    Case {
        name: "function_pointer_target",
        old: "static int k(int x) { return x + 1; }\nint (*fp)(int) = k;\nint run(int x) { return fp(x); }\n",
        new: "static int k(int x) { return x + 2; }\nint (*fp)(int) = k;\nint run(int x) { return fp(x); }\n",
        functions: &[("run", Want::Differs)],
        only: false,
    },
    Case {
        name: "function_pointer_table",
        old: "static int k1(int x) { return x + 1; }\nstatic int k2(int x) { return x + 2; }\nstatic int (*const tbl[2])(int) = { k1, k2 };\nint run(int i, int x) { return tbl[i & 1](x); }\n",
        new: "static int k1(int x) { return x + 1; }\nstatic int k2(int x) { return x + 3; }\nstatic int (*const tbl[2])(int) = { k1, k2 };\nint run(int i, int x) { return tbl[i & 1](x); }\n",
        functions: &[("run", Want::Differs)],
        only: false,
    },
    Case {
        name: "function_pointer_void_effect",
        old: "#include <stdio.h>\nstatic void h(int x) { printf(\"%d\\n\", x); }\nvoid (*fp)(int) = h;\nvoid run(int x) { fp(x); }\n",
        new: "#include <stdio.h>\nstatic void h(int x) { printf(\"%d\\n\", x + 1); }\nvoid (*fp)(int) = h;\nvoid run(int x) { fp(x); }\n",
        functions: &[("run", Want::Differs)],
        only: true,
    },
    // Helpers with output are effects: their calls are compared, not only their results.
    Case {
        name: "helper_output_arguments",
        old: "#include <stdio.h>\nstatic void h(int x) { printf(\"%d\\n\", x); }\nvoid f(int x) { h(x + 1); }\n",
        new: "#include <stdio.h>\nstatic void h(int x) { printf(\"%d\\n\", x); }\nvoid f(int x) { h(x + 2); }\n",
        functions: &[("f", Want::Differs)],
        only: false,
    },
    // A jump to the very next instruction: the jump and the fallthrough reach it from the same
    // place (the analysis once kept only one of the two, and lost every state).
    Case {
        name: "goto_next_instruction",
        old: "int f(int a) { return 1; }\n",
        new: "int f(int a) { goto F2; F2:; return 0; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    // A loop written with gotos whose exit jump lands just past the back edge (found by the
    // fuzzer): the jump was kept inside the product loop, so the product left the loop when
    // the old version did, with the new one still iterating — and 7 iterations against 8 were
    // called equivalent.
    Case {
        name: "goto_loop_exit",
        old: "int f(int a) { int y = 0, i = 0; L: if (!(i < 7)) goto E; y++; i++; goto L; E: return y; }\n",
        new: "int f(int a) { int y = 0, i = 0; L: if (!(i < 8)) goto E; y++; i++; goto L; E: return y; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    // Functions the frontend cannot lower (here: an undeclared macro constant) are known only
    // by their text: the same text calling a changed function was `unchanged`, and a caller of
    // a changed one of them was `unchanged` too (the call taken as an unknown function's).
    Case {
        name: "rejected_caller_of_changed",
        old: "int helper(int x) { return x + 1; }\nint client(int y) { return helper(y) + UNKNOWN_CONST; }\n",
        new: "int helper(int x) { return x + 2; }\nint client(int y) { return helper(y) + UNKNOWN_CONST; }\n",
        functions: &[("helper", Want::Witness), ("client", Want::Differs)],
        only: false,
    },
    Case {
        name: "caller_of_changed_rejected",
        old: "int mid(int x) { return x + UNKNOWN_CONST; }\nint client2(int y) { return mid(y); }\nint far(int z) { return client2(z) * UNKNOWN_CONST; }\n",
        new: "int mid(int x) { return x + UNKNOWN_CONST + 1; }\nint client2(int y) { return mid(y); }\nint far(int z) { return client2(z) * UNKNOWN_CONST; }\n",
        functions: &[("client2", Want::Differs), ("far", Want::Differs)],
        only: false,
    },
    Case {
        name: "rejected_calls_changed_through_pointer",
        old: "int helper(int x) { return x + 1; }\nint (*hp)(int) = helper;\nint client(int y) { return hp(y) + UNKNOWN_CONST; }\n",
        new: "int helper(int x) { return x + 2; }\nint (*hp)(int) = helper;\nint client(int y) { return hp(y) + UNKNOWN_CONST; }\n",
        functions: &[("client", Want::Differs)],
        only: false,
    },
    Case {
        name: "rejected_calls_changed_through_local_pointer",
        old: "int helper(int x) { return x + 1; }\nint (*hp)(int) = helper;\nint client(int y) { int (*fp)(int); fp = hp; return fp(y) + UNKNOWN_CONST; }\n",
        new: "int helper(int x) { return x + 2; }\nint (*hp)(int) = helper;\nint client(int y) { int (*fp)(int); fp = hp; return fp(y) + UNKNOWN_CONST; }\n",
        functions: &[("client", Want::Differs)],
        only: false,
    },
    // 6. Witnesses that differ only in the sign of zero.
    Case {
        name: "times_zero",
        old: "double f(double x) { return x * 0.0; }\n",
        new: "double f(double x) { return 0.0; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    Case {
        name: "negated_difference",
        old: "double f(double x) { return -(x - 1); }\n",
        new: "double f(double x) { return 1 - x; }\n",
        functions: &[("f", Want::Same)],
        only: false,
    },
    // 7. Rewritten conditions whose guards the correlation pairs (the bodies match): the
    // analysis must not take a changed condition for the same one.
    Case {
        name: "paired_guard_unsigned_negation",
        old: "unsigned f(unsigned x) { unsigned r = 1; if (x < 8u) { r = x * 3u; r += 2u; } return r; }\n",
        new: "unsigned f(unsigned x) { unsigned r = 1; if (-x > -8u) { r = x * 3u; r += 2u; } return r; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    Case {
        name: "paired_guard_changed_bound",
        old: "int f(int x) { int r = 1; if (x < 8) { r = x * 3; r += 2; } return r; }\n",
        new: "int f(int x) { int r = 1; if (-x > -9) { r = x * 3; r += 2; } return r; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    Case {
        name: "paired_guard_float_negation_same",
        old: "int f(double x) { int r = 1; if (x < 8.0) { r = 3; } return r; }\n",
        new: "int f(double x) { int r = 1; if (-x > -8.0) { r = 3; } return r; }\n",
        functions: &[("f", Want::Same)],
        only: false,
    },
    // Conditions negated with their branches swapped: paired as opposites, which must hold
    // only where the complement is exact (not `<` against `>=` over floats: NaN) and over the
    // same operands.
    Case {
        name: "negated_condition_swapped_branches",
        old: "int f(int x, int y) { int r; if (x != 3) { r = y * 2; r += 1; } else { r = y - 4; r *= 3; } return r; }\n",
        new: "int f(int x, int y) { int r; if (x == 3) { r = y - 4; r *= 3; } else { r = y * 2; r += 1; } return r; }\n",
        functions: &[("f", Want::Same)],
        only: false,
    },
    Case {
        name: "negated_condition_other_operand",
        old: "int f(int x, int y) { int r; if (x != 3) { r = y * 2; r += 1; } else { r = y - 4; r *= 3; } return r; }\n",
        new: "int f(int x, int y) { int r; if (x == 4) { r = y - 4; r *= 3; } else { r = y * 2; r += 1; } return r; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    // Outcomes of floating comparisons remembered along a path: not past a write of an operand.
    Case {
        name: "stale_comparison_outcome",
        old: "int f(double x) { int r = 0; if (x < 1.0) r = 1; x = x * 2.0; if (x < 1.0) r = r + 2; return r; }\n",
        new: "int f(double x) { int r = 0; if (x < 1.0) { r = 1; x = x * 2.0; r = r + 2; } else { x = x * 2.0; } return r; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    Case {
        name: "split_disjunction_other_comparison",
        old: "double f(double x, double a) { if (x < 0.0 || a <= 0.0) return -1.0; return x * a + 1.0; }\n",
        new: "double f(double x, double a) { if (x < 0.0) return -1.0; if (a < 0.0) return -1.0; return x * a + 1.0; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    // A difference only where two objects built from the parameter groups are equal with
    // distinct fields (a hash collision check): the search tries repeated groups.
    Case {
        name: "repeated_parameter_groups",
        old: "#include <stdio.h>\ntypedef struct { int x; long y; int z; } obj;\nobj make(int x, long y, int z) { obj o; o.x = x; o.y = y; o.z = z; return o; }\nint hash(obj o) { int h = o.x; h = h * 31 + (int)(o.y % 1000); h = h * 31 + o.z; return h; }\nvoid f(int x1, long y1, int z1, int x2, long y2, int z2) { obj a = make(x1, y1, z1); obj b = make(x2, y2, z2); if (hash(a) == hash(b)) printf(\"same\\n\"); }\n",
        new: "#include <stdio.h>\ntypedef struct { int x; long y; int z; } obj;\nobj make(int x, long y, int z) { obj o; o.x = x; o.y = y; o.z = z; return o; }\nint hash(obj o) { int h = o.x; h = h * 31 + (int)(o.y % 1000); h = h * 31 + o.z; return h; }\nvoid f(int x1, long y1, int z1, int x2, long y2, int z2) { obj a = make(x1, y1, z1); obj b = make(z2, y2, x2); if (hash(a) == hash(b)) printf(\"same\\n\"); }\n",
        functions: &[("f", Want::Witness)],
        only: true,
    },
    // A local is in scope in its own initializer: `int x = x + 1;` reads the new, unset `x`
    // (its value is indeterminate), not the parameter `x`, which dizy once read there
    // (`equivalent`).
    Case {
        name: "local_read_in_its_own_initializer",
        old: "int f(int x) { { int x = x + 1; return x; } }\n",
        new: "int f(int x) { { int y = x + 1; return y; } }\n",
        functions: &[("f", Want::Differs)],
        only: false,
    },
    // A store at an index the analysis does not know may hit any element of the array: it
    // once forgot only the first element (`arr[i] = x` left `arr[3]` at its old value, so
    // `equivalent`), in plain, two-dimensional and struct-embedded arrays alike, and in the
    // fuzzer's loop form (seed 362, pair 544).
    Case {
        name: "store_at_unknown_index",
        old: "struct P { int a; int b; };\nstruct Q { int k; int arr[3]; };\nint f(int a, int x, int i) { int arr[4] = {3, 72, 8, 82}; if (i >= 0 && i < 4) arr[i] = x; return arr[3] + a; }\nint g(int i, int j, int x) { int m[2][3] = {{1, 2, 3}, {4, 5, 6}}; if (i >= 0 && i < 2 && j >= 0 && j < 3) m[i][j] = x; return m[1][2]; }\nint h(int i, int x) { struct P s[3] = {{1, 2}, {3, 4}, {5, 6}}; if (i >= 0 && i < 3) s[i].b = x; return s[2].b; }\nint k(int i, int x) { struct Q q = {7, {1, 2, 3}}; if (i >= 0 && i < 3) q.arr[i] = x; return q.arr[2] + q.k; }\nint u(int i, int x) { struct Q q = {7, {1, 2, 3}}; if (i >= 0 && i < 3) q.arr[i] = x; return q.k; }\nint l(int a) { int x = 0; int arr[4] = {3, 72, 8, 82}; int i0; for (i0 = 0; i0 < 4; i0++) { arr[i0] += x / 4; x += arr[i0]; } return arr[3] + a; }\n",
        new: "struct P { int a; int b; };\nstruct Q { int k; int arr[3]; };\nint f(int a, int x, int i) { int arr[4] = {3, 72, 8, 82}; return arr[3] + a; }\nint g(int i, int j, int x) { int m[2][3] = {{1, 2, 3}, {4, 5, 6}}; return m[1][2]; }\nint h(int i, int x) { struct P s[3] = {{1, 2}, {3, 4}, {5, 6}}; return s[2].b; }\nint k(int i, int x) { struct Q q = {7, {1, 2, 3}}; return q.arr[2] + q.k; }\nint u(int i, int x) { struct Q q = {7, {1, 2, 3}}; return q.k; }\nint l(int a) { int x = 0; int arr[4] = {3, 72, 8, 82}; return arr[3] + a; }\n",
        functions: &[
            ("f", Want::Witness),
            ("g", Want::Witness),
            ("h", Want::Witness),
            ("k", Want::Witness),
            ("u", Want::Same),
            ("l", Want::Witness),
        ],
        only: false,
    },
    Case {
        name: "negated_float_order_is_not_a_complement",
        old: "int f(double x, int y) { int r; if (x < 0.5) { r = y * 2; r += 1; } else { r = y - 4; r *= 3; } return r; }\n",
        new: "int f(double x, int y) { int r; if (x >= 0.5) { r = y - 4; r *= 3; } else { r = y * 2; r += 1; } return r; }\n",
        functions: &[("f", Want::Witness)],
        only: false,
    },
    Case {
        // A patch retypes a parameter (`int length` → `size_t length`): a witness takes only
        // values both types hold, so `g`, which differs only on negative values, has none.
        name: "retyped_parameter",
        old: "int f(int n) { if (n > 10) return 1; return 0; }\nint g(int n) { if (n < 0) return 1; return 0; }\n",
        new: "int f(unsigned long n) { if (n > 20) return 1; return 0; }\nint g(unsigned long n) { return 0; }\n",
        functions: &[("f", Want::Witness), ("g", Want::Same)],
        only: false,
    },
    // Bit-fields: dizy lays each out as a slot of its own, so every read and store keeps the
    // value the packed field holds, and what depends on the packing is opaque. A 1-bit field
    // once stored 3 as 3 (a witness no run of the compiled code gives), and `sizeof` of the
    // struct was that of the unpacked slots (`equivalent` against the wrong constant).
    Case {
        name: "bitfield_store_truncates",
        old: "struct S { unsigned a : 1; unsigned b : 1; int c : 3; };
int f(struct S *s) { s->a = 1; s->b = 0; return 0; }
int g(int x) { struct S s = {0, 0, 0}; s.c = x; return s.c; }
int h(struct S *s, int x) { s->c = x; s->a = x; return s->c * 2 + s->a; }
int k(int x) { struct S s = {1, 1, 5}; s.c += x; return s.c; }
",
        new: "struct S { unsigned a : 1; unsigned b : 1; int c : 3; };
int f(struct S *s) { s->a = 3; s->b = 2; return 0; }
int g(int x) { struct S s = {0, 0, 0}; s.c = x; return x; }
int h(struct S *s, int x) { s->c = x & 7; s->a = x & 1; return s->c * 2 + s->a; }
int k(int x) { struct S s = {1, 1, -3}; s.c += x; return s.c; }
",
        functions: &[
            ("f", Want::Same),
            ("g", Want::Witness),
            ("h", Want::Same),
            ("k", Want::Same),
        ],
        only: false,
    },
    Case {
        // An unsigned bit-field narrower than `int` promotes to `int`: `s.a - 5` may be
        // negative.
        name: "bitfield_promotes_to_int",
        old: "struct S { unsigned a : 3; unsigned long b : 40; };\nint f(int x) { struct S s; s.a = x; s.b = x; return s.a - 5 < 0; }\nint g(int x) { struct S s; s.b = x; return s.b - 5 < 0; }\n",
        new: "struct S { unsigned a : 3; unsigned long b : 40; };\nint f(int x) { return (x & 7) < 5; }\nint g(int x) { return 0; }\n",
        functions: &[("f", Want::Same), ("g", Want::Same)],
        only: false,
    },
    Case {
        name: "bitfield_struct_size",
        old: "struct S { unsigned a : 1; unsigned b : 1; };
unsigned long f(int x) { return sizeof(struct S) + x; }
unsigned long g(int x) { return sizeof(struct S) + x; }
",
        new: "struct S { unsigned a : 1; unsigned b : 1; };
unsigned long f(int x) { return 8 + x; }
unsigned long g(int x) { return 4 + x; }
",
        functions: &[("f", Want::Differs), ("g", Want::Same)],
        only: false,
    },
];

/// Write one version into `dir/<version>/`: the text up to the first `//--- NAME` line is
/// `main.c`; each such line starts a header `NAME` beside it.
fn write_version(dir: &std::path::Path, version: &str, text: &str) -> std::path::PathBuf {
    let d = dir.join(version);
    std::fs::create_dir_all(&d).unwrap();
    let mut parts = text.split("//--- ");
    let main = d.join("main.c");
    std::fs::write(&main, parts.next().unwrap()).unwrap();
    for h in parts {
        let (name, body) = h.split_once('\n').unwrap();
        std::fs::write(d.join(name.trim()), body).unwrap();
    }
    main
}

fn dizy(dir: &std::path::Path, case: &Case) -> Json {
    let (o, n) = (
        write_version(dir, "old", case.old),
        write_version(dir, "new", case.new),
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dizy"));
    cmd.args([
        "diff",
        "--format",
        "json",
        "--timeout",
        "20",
        "--validate",
        "native",
    ])
    .arg(&o)
    .arg(&n);
    if case.only {
        for (f, _) in case.functions {
            cmd.args(["--function", f]);
        }
    }
    let out = run_with_timeout(&mut cmd, None, Duration::from_secs(120));
    assert!(
        !out.timed_out && matches!(out.code(), Some(0..=2)),
        "{}: dizy failed: {:?}\n{}",
        case.name,
        out.status,
        out.stderr
    );
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{}: no JSON ({e}): {}", case.name, out.stderr))
}

/// Whether the native harness can run `f`: a scalar (or void) result.
fn scalar_result(src: &str, f: &str) -> bool {
    let line = src
        .lines()
        .find(|l| l.contains(&format!(" {f}(")))
        .unwrap_or("");
    !line.starts_with("struct") && !line.starts_with("union") && !line.starts_with("P ")
}

#[test]
fn every_class_gets_a_right_verdict() {
    let mut failures = vec![];
    for case in CASES {
        let dir = tempfile::tempdir().unwrap();
        let report = dizy(dir.path(), case);
        for (name, want) in case.functions {
            let Some(f) = report["functions"]
                .as_array()
                .and_then(|a| a.iter().find(|x| x["name"] == *name))
            else {
                failures.push(format!("{}: no verdict for {name}", case.name));
                continue;
            };
            let verdict = f["verdict"].as_str().unwrap_or("");
            let bad = match want {
                Want::Differs => {
                    matches!(verdict, "equivalent" | "unchanged" | "partially-equivalent")
                }
                Want::DiffersInTermination => matches!(verdict, "equivalent" | "unchanged"),
                Want::Witness => verdict != "different",
                Want::Same => verdict == "different",
            };
            if bad {
                failures.push(format!(
                    "{}: {name} is {verdict}, wanted {want:?}; notes {}",
                    case.name, f["notes"]
                ));
                continue;
            }
            if verdict == "different" && scalar_result(case.old, name) {
                let by = f["witness"]["validated_by"].as_str().unwrap_or("");
                let notes = f["notes"].to_string();
                // Native validation refutes a false witness (the verdict then drops); a witness
                // it cannot run (no native harness for it) is noted as such.
                if !by.contains("native") && !notes.contains("native validation not applicable") {
                    failures.push(format!(
                        "{}: {name}'s witness is not confirmed natively: {by}; notes {notes}",
                        case.name
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The note for a difference only in the sign of zero names the input, and no witness is made
/// of it.
#[test]
fn sign_of_zero_is_a_note_not_a_witness() {
    let case = &CASES
        .iter()
        .find(|c| c.name == "negated_difference")
        .expect("case");
    let dir = tempfile::tempdir().unwrap();
    let report = dizy(dir.path(), case);
    let f = &report["functions"][0];
    assert!(f["witness"].is_null(), "{f}");
    assert!(
        f["notes"].to_string().contains("sign of a zero"),
        "a note names the sign-of-zero input: {}",
        f["notes"]
    );
}

/// A non-void function whose end both versions reach without `return` has no value to compare
/// there (a caller using it has undefined behaviour in both): equal otherwise, it is
/// equivalent. Where only one version returns a value, or the versions write different globals
/// before falling off, they differ.
#[test]
fn falling_off_the_end_in_both_versions_is_no_difference() {
    let cases: &[(&str, &str, &str, &[&str])] = &[
        (
            "both_fall_off",
            "int f(int x) { if (x) return 1; }\n",
            "int f(int x) { if (x < 0 || x > 0) return 1; }\n",
            &["equivalent"],
        ),
        (
            "one_falls_off",
            "int f(int x) { if (x) return 1; }\n",
            "int f(int x) { if (x) return 1; return 0; }\n",
            &["different"],
        ),
        (
            "globals_before_falling_off",
            "int g;\nint f(int x) { if (x) return 1; g = 1; }\n",
            "int g;\nint f(int x) { if (x) return 1; g = 2; }\n",
            &["different"],
        ),
    ];
    for (name, old, new, allowed) in cases {
        let case = Case {
            name,
            old,
            new,
            functions: &[],
            only: false,
        };
        let dir = tempfile::tempdir().unwrap();
        let report = dizy(dir.path(), &case);
        let f = report["functions"]
            .as_array()
            .and_then(|a| a.iter().find(|x| x["name"] == "f"))
            .unwrap_or_else(|| panic!("{name}: no verdict for f: {report}"));
        let verdict = f["verdict"].as_str().unwrap_or("");
        assert!(allowed.contains(&verdict), "{name}: {verdict}: {f}");
        if verdict == "different" {
            // the witness is x = 0, the input on which the end is reached, confirmed natively
            // (as far as native code can observe: the missing value is the interpreter's)
            let w = &f["witness"];
            assert_eq!(w["inputs"]["x"], "0", "{name}: {w}");
            assert!(
                w["validated_by"]
                    .as_str()
                    .is_some_and(|v| v.contains("native")),
                "{name}: {w}"
            );
            // the old version reaches its end in both cases
            assert_eq!(w["old"]["reaches_end_without_return"], true, "{name}: {w}");
            if *name == "one_falls_off" {
                assert!(
                    w["old"]["return"].is_null() && w["new"]["return"] == "0",
                    "{w}"
                );
            }
        }
    }
}
