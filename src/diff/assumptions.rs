//! The assumptions every report states: the semantics dizy analyses under and the analysis
//! settings, from the [`DiffOptions`] of the run.

use super::DiffOptions;
use crate::analysis::{self, Overflow};
use crate::diag::{Note, NoteKind};

pub fn assumptions(opts: &DiffOptions) -> Vec<Note> {
    let domain = match opts.analysis.proof_domain {
        Some(first) if first != opts.analysis.domain => format!(
            "{first} first for a proof, then {} for a function the {first} analysis does not prove equivalent (every Δ a report shows is from it, except where a witness was found before the analysis: that Δ is from {first})",
            opts.analysis.domain
        ),
        _ => opts.analysis.domain.to_string(),
    };
    let mut a = vec![];
    a.push(match opts.analysis.overflow {
        Overflow::Math => "signed integers are mathematical: signed overflow is undefined behaviour and is not modelled".to_string(),
        Overflow::Wrap => "signed integer arithmetic wraps around (two's complement, as with -fwrapv)".to_string(),
    });
    a.push("unsigned integer arithmetic wraps modulo 2^width".into());
    a.push(match opts.analysis.floats {
        analysis::Floats::Ieee => "floating point is IEEE 754 as compiled for x86-64 (SSE, round to nearest, no fast-math): NaN, infinities and rounding are possible; floating values are compared as numbers (NaN equal to NaN, so 0.0 and -0.0 are the same value)".to_string(),
        analysis::Floats::Real => "floating-point values are analysed as real numbers (--floats real: proofs do not cover NaN, infinities or rounding); witnesses are executed in IEEE arithmetic".to_string(),
    });
    a.push(
        "both versions start from equal inputs: parameters (by position) and globals (by name) that both versions declare with the same type and initializer; a changed initializer makes every function that can read it (directly, through callees or function pointers) changed"
            .into(),
    );
    a.push("observable behaviour: the return value (aggregates field by field; none where one version returns `void`, or where both reach the end of the function without `return`: a caller using that value has undefined behaviour), globals the call changes, output and calls to functions outside the file with their arguments, and termination; equivalent means equal behaviour on every input, including that one version returns exactly when the other does (partially-equivalent: equal wherever both return)".into());
    a.push("memory: struct fields and array elements of variables at known offsets are tracked like variables (a bit-field as a slot of its own, holding what the field holds; `sizeof` of its struct an unknown constant); pointers are byte addresses, both versions start from the same memory (pointer parameters may alias), reads and writes through pointers are facts over addresses and values, and where both versions return the memory they wrote through pointers is compared; where both versions access the same bytes the address is assumed valid (undefined behaviour in both otherwise); addresses of locals, string literals, globals and pointers made from integers are unknown; stores through pointers and calls forget the globals and address-taken variables of their version, except that a global both versions hold equal stays equal across a matched pair of stores of equal values at equal addresses or of calls of one external function on equal arguments (globals are the same objects in both versions); a witness points each pointer parameter at a fresh buffer holding exactly the bytes it shows (16-byte aligned unless it says by how much it is not), at or into the buffer of an earlier parameter (aliasing; `end = p + 6`), or at NULL, may point pointer members of the structs it passes at fresh buffers of their own or into the buffer of another such member (a cursor and its limit), and their members at buffers too (two levels; a `void *` member at the largest struct the file converts a `void *` to), and compares the buffers' final contents (pointer members by whether they are null) and what a returned pointer points to where no input names it (to a string's terminator, at most 256 bytes); equivalent covers the inputs on which neither version has undefined behaviour, while a witness may show an invalid memory access (out of bounds, null, dangling) in one version where the other returns normally: a difference (with --validate native confirmed by AddressSanitizer)".into());
    a.push("an unknown function called with equal arguments at matched points returns equal results and has equal effects in both versions; calls to it are compared as effects; a witness may choose what a function the file does not define returns (one value per function whatever its arguments, the same in both versions, no memory written; listed with the witness and defined so by the native harness; a function-pointer member of a struct the witness passes may point at such a function of its own, named by the member, `m->procs.alloc`, which the native harness does not build), never for a library function (declared in a system header, or a standard C or POSIX name); it gives undeclared names used as constants distinct values (powers of two first, the same in both versions; listed with the witness, `-D` for the native harness); a witness also compares the calls of such functions with their arguments (a pointer by what it points into, a string of the caller's by its text), which the native harness does not record; `malloc`, `calloc`, `realloc`, `strdup` and `free` run as glibc's allocator (a bad or double `free` is an invalid memory access)".into());
    a.push(format!(
        "numeric domain {domain}, canonization {} at {} points, widening after {} iterations",
        canon_name(opts.analysis.canon),
        point_name(opts.analysis.canon_point),
        opts.analysis.widen_delay
    ));
    if !opts.no_fallback {
        a.push("a function whose analysis does not finish in half of its time (or exceeds a size or memory bound) is analysed again, in the time left, with one sub-state per point and then with the interval domain: less precise, still sound; its notes say so".into());
    }
    a.into_iter()
        .map(|text| Note::new(NoteKind::Semantics, text))
        .collect()
}

pub fn canon_name(c: analysis::Canon) -> &'static str {
    match c {
        analysis::Canon::JoinEquiv => "join-equiv",
        analysis::Canon::JoinAll => "join-all",
        analysis::Canon::ByGuards => "by-guards",
        analysis::Canon::None => "none",
    }
}

pub fn point_name(c: analysis::CanonPoint) -> &'static str {
    match c {
        analysis::CanonPoint::Diff => "diff",
        analysis::CanonPoint::Converge => "converge",
        analysis::CanonPoint::Join => "join",
    }
}
