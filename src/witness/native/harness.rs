//! The C program that runs one version of a function on a witness's inputs natively.
//!
//! Takes a [`Version`], the function, the [`Witness`] and the interpreter's behaviour on it; gives
//! the source of a harness that `#include`s the original file, sets the inputs exactly (scalars
//! through their bit patterns, buffers on the heap with their bytes, structs by their bytes,
//! aliases as the same pointer), calls the function once and writes the results — the return
//! value (a pointer as the buffer it points into and the offset), the globals the interpreter
//! reported and every buffer's final bytes — to the file named by `argv[1]`, in the format
//! `parse_result` in the parent module reads.

use std::path::Path;

use super::{global_type, nameable, Version};
use crate::interp::{self, Value};
use crate::ir::CType;
use crate::witness::memory::Input;
use crate::witness::{Behaviour, Witness};

/// The C name of a scalar type as the harness declares it.
fn c_type(t: &CType) -> Option<&'static str> {
    Some(match t {
        CType::Bool => "_Bool",
        CType::Int { bits, signed } => match (bits, signed) {
            (8, true) => "signed char",
            (8, false) => "unsigned char",
            (16, true) => "short",
            (16, false) => "unsigned short",
            (32, true) => "int",
            (32, false) => "unsigned int",
            (64, true) => "long long",
            (64, false) => "unsigned long long",
            _ => return None,
        },
        CType::Float => "float",
        CType::Double => "double",
        _ => return None,
    })
}

/// A C expression of type `t` denoting exactly `v`.
pub(super) fn c_value(v: &Value, t: &CType) -> Option<String> {
    let ty = c_type(t)?;
    Some(match *v {
        // Through the 64-bit pattern: no literal of the most negative value exists in C.
        Value::Int(i) => format!("({ty}){:#x}ULL", i as u64),
        Value::Double(x) => format!("({ty})dizy_f64(0x{:016x}ULL)", x.to_bits()),
        Value::Float(x) => format!("({ty})dizy_f32(0x{:08x}U)", x.to_bits()),
    })
}

/// An input literal as the witness prints it (`NAN`/`INFINITY` included), as a value of `t`.
pub(super) fn input_value(lit: &str, t: &CType) -> Result<Value, String> {
    let special = match lit.trim_end_matches('f') {
        "NAN" => Some(f64::NAN),
        "INFINITY" => Some(f64::INFINITY),
        "-INFINITY" => Some(f64::NEG_INFINITY),
        _ => None,
    };
    match (special, t) {
        (Some(x), CType::Double) => Ok(Value::Double(x)),
        (Some(x), CType::Float) => Ok(Value::Float(x as f32)),
        _ => interp::parse_arg(lit, t),
    }
}

/// The harness for one version: call `func` on the witness's inputs (buffers on the heap,
/// with exactly their bytes), write the return value, the globals of `claimed` and the final
/// bytes of every buffer to the file named by `argv[1]`.
pub(super) fn harness(
    v: &Version,
    func: &str,
    w: &Witness,
    claimed: &Behaviour,
) -> Result<String, String> {
    let f = &v
        .prog
        .function(func)
        .ok_or_else(|| format!("no function `{func}`"))?
        .func;
    if f.params.len() != w.inputs.len() || f.params.len() != w.args.len() || f.variadic {
        return Err(format!(
            "`{func}` takes {} parameters, the witness gives {}",
            f.params.len(),
            w.inputs.len()
        ));
    }
    // Memory inputs and results are built and read byte by byte in dizy's layout, whose
    // bit-fields are not packed as the compiler packs them.
    let structs = &v.prog.program.structs;
    if f.params
        .iter()
        .map(|p| &f.var(*p).ty)
        .chain(std::iter::once(&f.ret))
        .any(|t| crate::ir::reaches_bitfields(structs, t))
    {
        return Err(format!(
            "`{func}` takes or returns structs with bit-fields, which dizy lays out apart (not packed as the compiler does)"
        ));
    }
    let source = v
        .source
        .canonicalize()
        .map_err(|e| format!("{}: {e}", v.source.display()))?;
    let mut s = String::new();
    s.push_str("#include <stdio.h>\n");
    for h in &v.prog.program.prelude {
        s.push_str(&format!("#include <{h}>\n"));
    }
    // The harness has its own `main`; the analysed one (if any) is called by its new name.
    s.push_str("#define main dizy_user_main\n");
    s.push_str(&format!(
        "#include \"{}\"\n#undef main\n\n",
        c_string(&source)
    ));
    s.push_str(
        "static double dizy_f64(unsigned long long b) { double x; __builtin_memcpy(&x, &b, 8); return x; }\n\
         static float dizy_f32(unsigned int b) { float x; __builtin_memcpy(&x, &b, 4); return x; }\n\
         /* Where pointer p points: 0, @K:OFF (into the buffer of parameter K), or x (elsewhere). */\n\
         static unsigned char *dizy_bufs[64]; static unsigned long long dizy_sizes[64];\n\
         static void dizy_target(FILE *o, const void *p)\n{\n\
         \x20   unsigned long long a = (unsigned long long)(__UINTPTR_TYPE__)p;\n\
         \x20   if (!a) { fprintf(o, \" 0\"); return; }\n\
         \x20   for (int k = 0; k < 64; k++) {\n\
         \x20       unsigned long long b = (unsigned long long)(__UINTPTR_TYPE__)dizy_bufs[k];\n\
         \x20       if (dizy_bufs[k] && a >= b && a <= b + dizy_sizes[k]) { fprintf(o, \" @%d:%llu\", k, a - b); return; }\n\
         \x20   }\n\
         \x20   fprintf(o, \" x\");\n}\n\n\
         int main(int dizy_argc, char **dizy_argv)\n{\n",
    );
    let mut args = vec![];
    // Buffers by parameter index, with their sizes and whether they hold pointers.
    let mut buffers: Vec<(usize, usize, bool)> = vec![];
    if f.params.len() > 64 {
        return Err("more than 64 parameters".into());
    }
    for (i, ((p, (name, lit)), input)) in f.params.iter().zip(&w.inputs).zip(&w.args).enumerate() {
        let t = &f.var(*p).ty;
        let (input, links) = match input {
            Input::Linked(base, links) => (&**base, &links[..]),
            _ => (input, &[][..]),
        };
        match input {
            Input::Scalar(_) => {
                let val = input_value(lit, t).map_err(|e| format!("input {name} = {lit}: {e}"))?;
                let (Some(ty), Some(e)) = (c_type(t), c_value(&val, t)) else {
                    return Err(format!("parameter `{name}` is not an arithmetic scalar"));
                };
                s.push_str(&format!("    {ty} dizy_a{i} = {e};\n"));
                args.push(format!("dizy_a{i}"));
            }
            Input::Null => args.push("(void *)0".into()),
            Input::Buffer(b) | Input::Misaligned(b, _) => {
                // On the heap: memory without a declared type, any element type may live there.
                // malloc's blocks are 16-byte aligned, as the interpreter's objects are; a
                // misaligned buffer starts `off` bytes into its block (AddressSanitizer cannot
                // poison part of an 8-byte granule, so a read of those bytes goes unseen here;
                // the interpreter reports it).
                let off = input.misalignment();
                s.push_str(&format!(
                    "    unsigned char *dizy_b{i} = __builtin_malloc({});\n    if (!dizy_b{i}) return 3;\n\
                     \x20   if (((unsigned long)(__UINTPTR_TYPE__)dizy_b{i}) & 15) return 3;\n\
                     \x20   dizy_b{i} += {off};\n\
                     \x20   __builtin_memcpy(dizy_b{i}, \"{}\", {});\n",
                    (b.len() + usize::from(off)).max(1),
                    octal_bytes(b),
                    b.len()
                ));
                args.push(format!("(void *)dizy_b{i}"));
                s.push_str(&format!(
                    "    dizy_bufs[{i}] = dizy_b{i}; dizy_sizes[{i}] = {};\n",
                    b.len()
                ));
                buffers.push((i, b.len(), t.pointee().is_some_and(CType::is_pointer)));
            }
            Input::SameAs(j) => args.push(format!("(void *)dizy_b{j}")),
            Input::Within(j, off) => args.push(format!("(void *)(dizy_b{j} + {off})")),
            // The interpreter's run never accessed it: any valid address serves.
            Input::Opaque => {
                s.push_str(&format!("    static long double dizy_o{i}[64];\n"));
                args.push(format!("(void *)dizy_o{i}"));
            }
            Input::Aggregate(b) => {
                let CType::Struct(id) = t else {
                    return Err(format!("parameter `{name}` is not a struct"));
                };
                let d = &v.prog.program.structs[id.index()];
                let kw = if d.is_union { "union" } else { "struct" };
                let spelled = match &d.typedef_name {
                    _ if !d.name.is_empty() => format!("{kw} {}", d.name),
                    Some(t) => t.clone(),
                    None => {
                        return Err(format!(
                            "the type of parameter `{name}` has no tag or typedef the harness could name"
                        ))
                    }
                };
                s.push_str(&format!(
                    "    {spelled} dizy_a{i};\n    __builtin_memcpy(&dizy_a{i}, \"{}\", {});\n",
                    octal_bytes(b),
                    b.len()
                ));
                args.push(format!("dizy_a{i}"));
            }
            Input::Linked(..) => return Err(format!("parameter `{name}` links twice")),
        }
        // Pointer members set to fresh heap buffers, as the interpreter's `Arg::Linked`.
        let object = match input {
            Input::Buffer(_) | Input::Misaligned(..) => format!("dizy_b{i}"),
            Input::Aggregate(_) => format!("(unsigned char *)&dizy_a{i}"),
            _ if links.is_empty() => String::new(),
            _ => return Err(format!("parameter `{name}` links members of no object")),
        };
        if links.iter().any(|l| l.func.is_some()) {
            return Err(format!(
                "parameter `{name}` has function-pointer members the witness points at functions of its own, which the harness does not define"
            ));
        }
        // The fresh buffers first (a link may point into a later one), then the pointers.
        for (j, l) in links.iter().enumerate().filter(|(_, l)| l.into.is_none()) {
            let b = &l.bytes;
            s.push_str(&format!(
                "    unsigned char *dizy_l{i}_{j} = __builtin_malloc({});
    if (!dizy_l{i}_{j}) return 3;
                 \x20   __builtin_memcpy(dizy_l{i}_{j}, \"{}\", {});
",
                b.len().max(1),
                octal_bytes(b),
                b.len()
            ));
        }
        for (j, l) in links.iter().enumerate() {
            let Some((off, parent)) = l.path.split_last() else {
                return Err(format!("parameter `{name}` links a member with no place"));
            };
            // Into the object, or into the buffer of an earlier link.
            let into = if parent.is_empty() {
                object.clone()
            } else {
                match links[..j]
                    .iter()
                    .position(|p| p.path == parent && p.into.is_none())
                {
                    Some(p) => format!("dizy_l{i}_{p}"),
                    None => return Err(format!("parameter `{name}` links into no buffer")),
                }
            };
            let value = match l.into {
                None => format!("dizy_l{i}_{j}"),
                Some((t, o)) if links.get(t).is_some_and(|t| t.into.is_none()) => {
                    format!("dizy_l{i}_{t} + {o}")
                }
                Some(_) => return Err(format!("parameter `{name}` links into no buffer")),
            };
            s.push_str(&format!(
                "    {{ unsigned char *dizy_p = {value}; __builtin_memcpy({into} + {off}, &dizy_p, sizeof(void *)); }}\n"
            ));
        }
    }
    // Globals the witness sets, numbered after the parameters (as the interpreter numbers its
    // buffers): assigned after the file's initializers ran, right before the call.
    let np = f.params.len();
    if np + w.global_args.len() > 64 {
        return Err("more than 64 inputs".into());
    }
    for (j, ((name, lit), input)) in w.global_inputs.iter().zip(&w.global_args).enumerate() {
        let i = np + j;
        let t = global_type(v, func, name).ok_or_else(|| format!("global `{name}` not found"))?;
        if !nameable(name) {
            return Err(format!("global `{name}` cannot be named in C"));
        }
        match input {
            Input::Scalar(_) => {
                let val = input_value(lit, t).map_err(|e| format!("global {name} = {lit}: {e}"))?;
                let e = c_value(&val, t)
                    .ok_or_else(|| format!("global `{name}` is not an arithmetic scalar"))?;
                s.push_str(&format!("    {name} = {e};\n"));
            }
            Input::Null => s.push_str(&format!("    {name} = (void *)0;\n")),
            Input::Buffer(b) => {
                s.push_str(&format!(
                    "    unsigned char *dizy_b{i} = __builtin_malloc({});\n    if (!dizy_b{i}) return 3;\n\
                     \x20   __builtin_memcpy(dizy_b{i}, \"{}\", {});\n\
                     \x20   dizy_bufs[{i}] = dizy_b{i}; dizy_sizes[{i}] = {};\n\
                     \x20   {name} = (void *)dizy_b{i};\n",
                    b.len().max(1),
                    octal_bytes(b),
                    b.len(),
                    b.len()
                ));
                buffers.push((i, b.len(), t.pointee().is_some_and(CType::is_pointer)));
            }
            _ => {
                return Err(format!(
                    "global `{name}`: the harness sets only numbers and buffers"
                ))
            }
        }
    }
    let callee = if func == "main" {
        "dizy_user_main"
    } else {
        func
    };
    let call = format!("{callee}({})", args.join(", "));
    s.push_str("    (void)dizy_argc;\n");
    let ret = if f.ret == CType::Void {
        s.push_str(&format!("    {call};\n"));
        None
    } else {
        s.push_str(&format!("    __typeof__({call}) dizy_r = {call};\n"));
        Some(("dizy_r".to_string(), f.ret.clone()))
    };
    // The result file is opened after the call: a run that never returns leaves none.
    s.push_str(
        "    fflush(stdout);\n    FILE *dizy_out = fopen(dizy_argv[1], \"w\");\n\
         \x20   if (!dizy_out) return 3;\n",
    );
    let emit = |label: &str, expr: &str, t: &CType| -> Result<String, String> {
        let line = match t {
            CType::Bool | CType::Int { signed: false, .. } => {
                format!("\"{label} %llu\\n\", (unsigned long long){expr}")
            }
            CType::Int { signed: true, .. } => format!("\"{label} %lld\\n\", (long long){expr}"),
            CType::Double => format!(
                "\"{label} %llx\\n\", ({{ double dizy_d = {expr}; unsigned long long dizy_b; \
                 __builtin_memcpy(&dizy_b, &dizy_d, 8); dizy_b; }})"
            ),
            CType::Float => format!(
                "\"{label} %x\\n\", ({{ float dizy_d = {expr}; unsigned int dizy_b; \
                 __builtin_memcpy(&dizy_b, &dizy_d, 4); dizy_b; }})"
            ),
            CType::Ptr(_) => format!("\"{label} %d\\n\", {expr} != 0"),
            _ => return Err(format!("`{label}` is not a scalar")),
        };
        Ok(format!("    fprintf(dizy_out, {line});\n"))
    };
    match &ret {
        // A pointer is written as the buffer it points into and the offset.
        Some((r, CType::Ptr(_))) => s.push_str(&format!(
            "    fprintf(dizy_out, \"return\");\n    dizy_target(dizy_out, (const void *){r});\n    fprintf(dizy_out, \"\\n\");\n"
        )),
        Some((r, t)) => s.push_str(&emit("return", r, t)?),
        None => {}
    }
    for (g, _) in claimed.globals.iter().filter(|(g, _)| nameable(g)) {
        let t = global_type(v, func, g).ok_or_else(|| format!("global `{g}` not found"))?;
        let line = emit(&format!("global {g}"), g, t)?;
        s.push_str(&line);
    }
    for (i, n, pointers) in &buffers {
        if *pointers {
            // Slots holding pointers: where each points, not its address.
            s.push_str(&format!(
                "    fprintf(dizy_out, \"memp {i}\");\n    for (int dizy_k = 0; dizy_k < {n} / 8; dizy_k++) {{ void *dizy_v; __builtin_memcpy(&dizy_v, dizy_b{i} + 8 * dizy_k, 8); dizy_target(dizy_out, dizy_v); }}\n    fprintf(dizy_out, \"\\n\");\n"
            ));
        } else {
            s.push_str(&format!(
                "    fprintf(dizy_out, \"mem {i} \");\n    for (int dizy_k = 0; dizy_k < {n}; dizy_k++) fprintf(dizy_out, \"%02x\", dizy_b{i}[dizy_k]);\n    fprintf(dizy_out, \"\\n\");\n"
            ));
        }
    }
    s.push_str("    return fclose(dizy_out) != 0;\n}\n");
    Ok(s)
}

/// A second translation unit that defines the functions the file does not define as the
/// witness states them (each returns one value, whatever its arguments, and writes no memory);
/// `None` when the runs called none. Written without prototypes (`long f() { … }`): the harness
/// links them by name, and a callee's ignored arguments cannot clash with its declaration.
pub(super) fn stubs(v: &Version, w: &Witness) -> Result<Option<String>, String> {
    if w.externals.is_empty() {
        return Ok(None);
    }
    if w.externals.len() != w.external_args.len() {
        return Err("the witness does not give the undefined functions' results as values".into());
    }
    let mut s = String::from(
        "/* dizy: what the functions the file does not define return in the witness */
         static double dizy_f64(unsigned long long b) { union { unsigned long long u; double d; } x; x.u = b; return x.d; }
         static float dizy_f32(unsigned int b) { union { unsigned int u; float f; } x; x.u = b; return x.f; }
",
    );
    for (k, ((name, text), input)) in w.externals.iter().zip(&w.external_args).enumerate() {
        let ret = crate::witness::return_type(&v.prog.program, name);
        let cannot = || format!("`{name}` returns {text}, which the harness cannot define");
        match (input, &ret) {
            (_, CType::Void) => s.push_str(&format!("void {name}() {{}}\n")),
            (Input::Null, t) if t.is_pointer() => {
                s.push_str(&format!("void *{name}() {{ return 0; }}\n"))
            }
            (Input::Buffer(b), t) if t.is_pointer() => s.push_str(&format!(
                "static unsigned char dizy_e{k}[{}] = \"{}\";\nvoid *{name}() {{ return dizy_e{k}; }}\n",
                b.len().max(1),
                octal_bytes(b)
            )),
            (Input::Scalar(lit), t) => {
                let val = input_value(lit, t).map_err(|_| cannot())?;
                let (Some(ty), Some(e)) = (c_type(t), c_value(&val, t)) else {
                    return Err(cannot());
                };
                s.push_str(&format!("{ty} {name}() {{ return {e}; }}\n"));
            }
            _ => return Err(cannot()),
        }
    }
    // The harness names a pointer by the buffers it made; one into a stub's object it could
    // not name as the interpreter does.
    for b in [&w.old, &w.new] {
        let texts = std::iter::once(&b.ret)
            .chain(b.globals.iter().map(|g| &g.1))
            .chain(b.memory.iter().map(|m| &m.1));
        for t in texts {
            if let Some((n, _)) = w
                .externals
                .iter()
                .find(|(n, _)| t.contains(&format!("{n}()")))
            {
                return Err(format!(
                    "a result points into the object `{n}` returned, which the harness cannot name"
                ));
            }
        }
    }
    Ok(Some(s))
}

/// Bytes as the body of a C string literal, every byte an octal escape (three digits, so no
/// escape runs into the next).
fn octal_bytes(b: &[u8]) -> String {
    b.iter().map(|x| format!("\\{x:03o}")).collect()
}

/// A path as the body of a C string literal.
fn c_string(p: &Path) -> String {
    p.display()
        .to_string()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}
