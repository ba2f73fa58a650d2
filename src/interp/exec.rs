//! Statement execution of the interpreter: frames, instructions, calls and library builtins.
//!
//! Takes an [`Interp`] with a frame pushed by [`Interp::call`]; gives the bottom frame's return
//! value after running the instructions of every frame in order (guards decide whether each
//! executes, `goto` jumps), pushing a frame for a call of a defined function and running the
//! known library functions natively. Frames live on the interpreter's own stack, so recursion
//! depth is bounded by [`super::MAX_CALL_DEPTH`], not by the Rust stack. Expressions are
//! evaluated by `eval`, memory by `memory`.

use super::eval::{as_addr, is_aggregate, norm, scalar_from_bytes, truthy};
use super::memory::{decode, encode, Desc, MemErr, Ptr};
use super::{Data, Frame, Interp, RetVal, RunError, Value, MAX_CALL_DEPTH};
use crate::gcl::{GclFunction, InstrKind};
use crate::ir::{CType, Callee, Expr, Place, VarKind};

/// Whether the interpreter executes library function `name` itself.
pub(super) fn is_builtin(name: &str) -> bool {
    BUILTINS.contains(&name)
        || super::heap::HEAP_FUNCTIONS.contains(&name)
        || super::strings::STRING_FUNCTIONS.contains(&name)
        || super::ctype::knows(name)
        || crate::ir::bit_builtin(name).is_some()
        || super::libm::call(name, &[]).is_some()
}

/// The library functions [`Interp::known_builtin`] executes besides the mathematics,
/// `<ctype.h>`, `<string.h>` and the allocator.
const BUILTINS: &[&str] = &[
    "abs",
    "labs",
    "llabs",
    "printf",
    "puts",
    "putchar",
    "__builtin_expect",
    "memset",
    "memcpy",
    "memmove",
];

impl<'a> Interp<'a> {
    /// Drop every frame left by an aborted run.
    pub(super) fn unwind(&mut self) {
        while let Some(fr) = self.frames.pop() {
            self.free_frame(&fr);
        }
    }

    fn free_frame(&mut self, fr: &Frame) {
        let f = &self.prog.functions[fr.func];
        for (v, &id) in f.func.vars.iter().zip(&fr.objs) {
            if !matches!(v.kind, VarKind::Global(_)) {
                self.mem.free(id);
            }
        }
    }

    pub(super) fn push_frame(&mut self, fi: usize, argv: Vec<Data>) -> Result<(), RunError> {
        let prog = self.prog;
        let gf = &prog.functions[fi];
        if self.frames.len() >= MAX_CALL_DEPTH {
            return Err(RunError::Depth {
                limit: MAX_CALL_DEPTH,
                line: self.line,
            });
        }
        let mut objs = Vec::with_capacity(gf.func.vars.len());
        for (i, v) in gf.func.vars.iter().enumerate() {
            let id = match v.kind {
                VarKind::Global(g) => match self.globals.get(g.index()) {
                    Some(&id) => id,
                    None => return self.unsupported(format!("unknown global `{}`", v.name)),
                },
                _ => {
                    let size = self.size_of(&v.ty);
                    match self.mem.alloc(
                        Desc::Var {
                            func: fi as u32,
                            var: i as u32,
                        },
                        size,
                        false,
                    ) {
                        Ok(id) => id,
                        Err(e) => {
                            let err = self.mem_err(e);
                            let fr = Frame {
                                func: fi,
                                pc: 0,
                                objs,
                                guards: Vec::new(),
                                gdist: Vec::new(),
                                vdist: Default::default(),
                            };
                            self.free_frame(&fr);
                            return Err(err);
                        }
                    }
                }
            };
            objs.push(id);
        }
        let frame = Frame {
            func: fi,
            pc: 0,
            objs,
            guards: vec![false; gf.guards.len()],
            gdist: if self.coverage.is_some() {
                vec![(1.0, 1.0); gf.guards.len()]
            } else {
                vec![]
            },
            vdist: Default::default(),
        };
        // Parameters are initialized from the arguments before the callee runs.
        for (p, a) in gf.func.params.iter().zip(argv) {
            let ty = &gf.func.var(*p).ty;
            let addr = encode(frame.objs[p.index()], 0);
            let r = match a {
                Data::Scalar(v) => match self.convert(v, ty) {
                    Ok(v) => self.store(addr, ty, v),
                    Err(e) => Err(e),
                },
                Data::Agg(b, i) => self.mem.write(addr, &b, &i).map_err(|e| self.mem_err(e)),
            };
            if let Err(e) = r {
                self.free_frame(&frame);
                return Err(e);
            }
        }
        self.frames.push(frame);
        Ok(())
    }

    /// Run until the bottom frame returns.
    pub(super) fn exec(&mut self) -> Result<RetVal, RunError> {
        let prog = self.prog;
        loop {
            let Some(fr) = self.frames.last_mut() else {
                return Ok(RetVal::Void);
            };
            let gf: &'a GclFunction = &prog.functions[fr.func];
            if fr.pc >= gf.instrs.len() {
                let ret = self.finish_call()?;
                if self.frames.is_empty() {
                    return Ok(ret);
                }
                self.deliver(ret, gf)?;
                continue;
            }
            let ins = &gf.instrs[fr.pc];
            fr.pc += 1;
            self.steps += 1;
            if self.steps > self.budget {
                return Err(RunError::Budget { steps: self.budget });
            }
            if self.steps.is_multiple_of(super::DEADLINE_STEPS)
                && self.deadline.is_some_and(|d| std::time::Instant::now() > d)
            {
                return Err(RunError::Deadline);
            }
            let holds =
                ins.guard.0.iter().all(|l| {
                    fr.guards.get(l.guard.index()).copied().unwrap_or(false) == l.positive
                });
            if let Some((t, max)) = &mut self.trace {
                if self.frames.len() == 1 && t.len() < *max {
                    t.push(((self.frames[0].pc - 1) as u32, holds));
                }
            }
            if let Some(c) = &mut self.coverage {
                if let Some(fr) = self.frames.last() {
                    if let Some(h) = c.get_mut(fr.func).and_then(|f| f.get_mut(fr.pc - 1)) {
                        if holds {
                            h.held = h.held.saturating_add(1);
                        } else {
                            h.failed = true;
                            // how far the guard is from holding: its literals' distances
                            let d: f64 = ins
                                .guard
                                .0
                                .iter()
                                .map(|l| {
                                    let i = l.guard.index();
                                    if fr.guards.get(i).copied().unwrap_or(false) == l.positive {
                                        return 0.0;
                                    }
                                    let (t, f) = fr.gdist.get(i).copied().unwrap_or((1.0, 1.0));
                                    super::distance::normalized(if l.positive { t } else { f })
                                })
                                .sum();
                            h.dist = h.dist.min(d);
                        }
                    }
                }
            }
            if !holds {
                continue;
            }
            self.line = ins.line.0;
            match &ins.kind {
                InstrKind::SetGuard(g, e) => {
                    let v = truthy(self.eval(e)?);
                    if let Some(slot) = self
                        .frames
                        .last_mut()
                        .and_then(|f| f.guards.get_mut(g.index()))
                    {
                        *slot = v;
                    }
                    if self.coverage.is_some() {
                        let d = self.condition_distance(e, v);
                        if let Some(slot) = self
                            .frames
                            .last_mut()
                            .and_then(|f| f.gdist.get_mut(g.index()))
                        {
                            *slot = d;
                        }
                    }
                }
                InstrKind::Goto(l) => {
                    let Some(&to) = gf.labels.get(l.index()) else {
                        return self.unsupported("jump to an unknown label");
                    };
                    if let Some(f) = self.frames.last_mut() {
                        f.pc = to;
                    }
                }
                InstrKind::Assign(p, e) => {
                    self.assign(p, e)?;
                    if let Place::Var(v) = p {
                        self.note_assignment(v.index(), e);
                    }
                }
                InstrKind::Havoc(p) => {
                    let size = self.size_of(&self.place_ty(p)?);
                    let a = self.place_addr(p, false)?;
                    self.mem.havoc(a, size).map_err(|e| self.mem_err(e))?;
                }
                InstrKind::ZeroFill(p) => {
                    let size = self.size_of(&self.place_ty(p)?);
                    let a = self.place_addr(p, false)?;
                    self.mem.fill(a, size, 0).map_err(|e| self.mem_err(e))?;
                }
                InstrKind::Call { dest, callee, args } => {
                    self.call_instr(dest.as_ref(), callee, args)?
                }
            }
        }
    }

    fn assign(&mut self, p: &Place, e: &Expr) -> Result<(), RunError> {
        let pty = self.place_ty(p)?;
        if is_aggregate(&pty) {
            let (b, i) = self.eval_agg(e)?;
            let a = self.place_addr(p, false)?;
            self.mem.write(a, &b, &i).map_err(|err| self.mem_err(err))
        } else {
            let v = self.eval(e)?;
            let v = self.convert(v, &pty)?;
            let a = self.place_addr(p, false)?;
            self.store(a, &pty, v)
        }
    }

    /// Pop the finished frame and take its return value.
    fn finish_call(&mut self) -> Result<RetVal, RunError> {
        let prog = self.prog;
        let Some(fr) = self.frames.pop() else {
            return Ok(RetVal::Void);
        };
        let gf = &prog.functions[fr.func];
        let ret = match gf.retval {
            None => Ok(RetVal::Void),
            Some(rv) => {
                let ty = gf.func.var(rv).ty.clone();
                let addr = encode(fr.objs[rv.index()], 0);
                let size = self.size_of(&ty);
                if is_aggregate(&ty) {
                    match self.mem.read(addr, size) {
                        Ok((b, i)) => Ok(RetVal::Data(Data::Agg(b.to_vec(), i.to_vec()))),
                        Err(e) => Err(self.mem_err(e)),
                    }
                } else {
                    match self.mem.read_init(addr, size) {
                        Ok(b) => match scalar_from_bytes(&ty, b) {
                            Some(v) => Ok(RetVal::Data(Data::Scalar(v))),
                            None => self.unsupported("return value of unsupported type"),
                        },
                        Err(MemErr::Uninit { .. }) => Ok(RetVal::Missing),
                        Err(e) => Err(self.mem_err(e)),
                    }
                }
            }
        };
        if self.frames.is_empty() && !self.observe.is_empty() {
            self.observed = self.observe_frame(&fr);
        }
        self.free_frame(&fr);
        ret
    }

    /// Store a callee's return value into the destination of the caller's call instruction.
    fn deliver(&mut self, ret: RetVal, callee: &GclFunction) -> Result<(), RunError> {
        let prog = self.prog;
        let Some(fr) = self.frames.last() else {
            return Ok(());
        };
        let ins = &prog.functions[fr.func].instrs[fr.pc - 1];
        self.line = ins.line.0;
        let InstrKind::Call { dest: Some(d), .. } = &ins.kind else {
            return Ok(());
        };
        match ret {
            RetVal::Data(data) => self.store_data(d, data),
            RetVal::Missing => self.ub(format!(
                "the value of `{}` is used, but it reached its end without returning a value",
                callee.name
            )),
            RetVal::Void => self.unsupported(format!(
                "the result of void function `{}` is used",
                callee.name
            )),
        }
    }

    fn store_data(&mut self, d: &Place, data: Data) -> Result<(), RunError> {
        let pty = self.place_ty(d)?;
        let a = self.place_addr(d, false)?;
        match data {
            Data::Scalar(v) => {
                let v = self.convert(v, &pty)?;
                self.store(a, &pty, v)
            }
            Data::Agg(b, i) => self.mem.write(a, &b, &i).map_err(|e| self.mem_err(e)),
        }
    }

    fn call_instr(
        &mut self,
        dest: Option<&Place>,
        callee: &Callee,
        args: &[Expr],
    ) -> Result<(), RunError> {
        let name: String = match callee {
            // The inliner's induction marker reads the result it names, which need not be
            // initialized where the unfolded body left it so.
            Callee::Direct(n) if n == crate::ir::INDUCTION => return Ok(()),
            Callee::Direct(n) => n.clone(),
            Callee::Indirect(e) => {
                let v = self.eval(e)?;
                match decode(as_addr(v)) {
                    Ptr::Func(i) => match self.fn_names.get(i as usize) {
                        // A member an input pointed at a stub: its result type is the
                        // pointer's.
                        Some(n) if self.stubs.contains(n) => {
                            if let Some(CType::Func(ft)) = e.ty.pointee() {
                                self.env_ret.insert(n.clone(), ft.ret.clone());
                            }
                            n.clone()
                        }
                        Some(n) => n.clone(),
                        None => return self.ub("call through an invalid function pointer"),
                    },
                    Ptr::Null => return self.ub("call through a null function pointer"),
                    _ => {
                        return self.ub("call through a pointer that does not point to a function")
                    }
                }
            }
        };
        let mut argv = Vec::with_capacity(args.len());
        for a in args {
            argv.push(if is_aggregate(&a.ty) {
                let (b, i) = self.eval_agg(a)?;
                Data::Agg(b, i)
            } else {
                Data::Scalar(self.eval(a)?)
            });
        }
        if let Some(&fi) = self.funcs.get(name.as_str()) {
            let f = &self.prog.functions[fi].func;
            if argv.len() < f.params.len() || (argv.len() > f.params.len() && !f.variadic) {
                return self.ub(format!(
                    "`{name}` called with {} arguments but takes {}",
                    argv.len(),
                    f.params.len()
                ));
            }
            return self.push_frame(fi, argv);
        }
        let r = match self.builtin(&name, &argv)? {
            Some((v, _)) => Data::Scalar(v),
            None => {
                let r = self.environment(&name)?;
                self.trace_env_call(&name, args, &argv);
                r
            }
        };
        if let Some(d) = dest {
            self.store_data(d, r)?;
        }
        Ok(())
    }

    /// Record a call of environment function `name` with arguments `args` (values `argv`).
    fn trace_env_call(&mut self, name: &str, args: &[Expr], argv: &[Data]) {
        self.env_count += 1;
        if self.env_trace.len() >= super::MAX_ENV_TRACE {
            return;
        }
        let args = args
            .iter()
            .zip(argv)
            .map(|(e, d)| match d {
                Data::Scalar(v) if e.ty.is_pointer() => {
                    let t = self.target(as_addr(*v));
                    // A string the caller made (a literal, a local buffer): its text.
                    let chars =
                        e.ty.pointee()
                            .is_some_and(|p| matches!(p, CType::Int { bits: 8, .. }));
                    match (&t, chars) {
                        (super::Target::Other, true) => match self.c_string(*v, Some(256)) {
                            Ok(text) => super::CallArg::String(text),
                            Err(_) => super::CallArg::Pointer(t),
                        },
                        _ => super::CallArg::Pointer(t),
                    }
                }
                Data::Scalar(v) => super::CallArg::Value(*v, e.ty.clone()),
                Data::Agg(..) => super::CallArg::Aggregate,
            })
            .collect();
        self.env_trace.push(super::EnvCall {
            name: name.to_string(),
            args,
        });
    }

    /// A call of function `name`, which the program does not define and the interpreter does
    /// not know: what the [`World`](super::World) says it returns, where there is a world and
    /// the function may be environment.
    fn environment(&mut self, name: &str) -> Result<Data, RunError> {
        let prog = &self.prog.program;
        let cannot = || format!("call to external function `{name}` cannot be executed");
        if self.world.is_none() {
            return self.unsupported(cannot());
        }
        // The checks scan the program's tables: once per function and run.
        let ret = match self.env_ret.get(name) {
            Some(t) => t.clone(),
            None => {
                if prog.rejected.iter().any(|(n, _)| n == name) {
                    return self.unsupported(format!(
                        "{}: the file defines it, but it could not be lowered",
                        cannot()
                    ));
                }
                if !super::world::is_environment(prog, name) {
                    return self.unsupported(format!("{}: a library function", cannot()));
                }
                let ret = prog
                    .externs
                    .iter()
                    .find(|(n, _)| n == name)
                    .map_or(CType::INT, |(_, ft)| ft.ret.clone());
                self.env_ret.insert(name.to_string(), ret.clone());
                ret
            }
        };
        let result = self
            .world
            .as_ref()
            .and_then(|w| w.results.get(name).cloned());
        if !self.env_called.iter().any(|n| n == name) {
            self.env_called.push(name.to_string());
        }
        if ret == CType::Void {
            return Ok(Data::Scalar(Value::Int(0)));
        }
        if is_aggregate(&ret) {
            let n = self.size_of(&ret) as usize;
            return match result {
                None => Ok(Data::Agg(vec![0; n], vec![true; n])),
                Some(_) => self.unsupported(format!("{}: it returns a structure", cannot())),
            };
        }
        match result {
            None => self.convert(Value::Int(0), &ret).map(Data::Scalar),
            Some(super::ExtResult::Scalar(v)) => self.convert(v, &ret).map(Data::Scalar),
            Some(super::ExtResult::Buffer(bytes)) if ret.is_pointer() => {
                let id = match self.world_objs.iter().find(|(n, _)| n == name) {
                    Some(&(_, id)) => id,
                    None => {
                        let k = self.world_objs.len() as u32;
                        let id = self
                            .mem
                            .alloc(Desc::External(k), bytes.len() as u64, true)
                            .map_err(|e| self.mem_err(e))?;
                        if let Some(o) = self.mem.obj_mut(id) {
                            o.bytes.copy_from_slice(&bytes);
                            o.escaped = true;
                        }
                        self.world_objs.push((name.to_string(), id));
                        id
                    }
                };
                Ok(Data::Scalar(Value::Int(i128::from(encode(id, 0)))))
            }
            Some(super::ExtResult::Buffer(_)) => {
                self.unsupported(format!("{}: a buffer for a non-pointer result", cannot()))
            }
        }
    }

    /// The bytes of the NUL-terminated string at `v` (without the NUL), at most `limit`:
    /// reading past its object or an uninitialized byte is the error a read would be.
    pub(super) fn c_string(&self, v: Value, limit: Option<usize>) -> Result<Vec<u8>, RunError> {
        let s = as_addr(v);
        let mut out = vec![];
        while limit.is_none_or(|l| out.len() < l) {
            let (a, _) = self
                .mem
                .ptr_add(s, out.len() as i128)
                .map_err(|e| self.mem_err(e))?;
            let b = self.mem.read_init(a, 1).map_err(|e| self.mem_err(e))?[0];
            if b == 0 {
                break;
            }
            out.push(b);
        }
        Ok(out)
    }

    /// Copy `n` bytes from `s` to `d` with their initialization (as `memmove` does).
    pub(super) fn copy_bytes(&mut self, d: u64, s: u64, n: u64) -> Result<(), RunError> {
        if n == 0 {
            return Ok(());
        }
        let (b, i) = self
            .mem
            .read(s, n)
            .map(|(b, i)| (b.to_vec(), i.to_vec()))
            .map_err(|e| self.mem_err(e))?;
        self.mem.write(d, &b, &i).map_err(|e| self.mem_err(e))
    }

    /// `Ok` when library function `name` got `n` arguments (`vals`); a call with others cannot
    /// be executed.
    pub(super) fn arity(&self, name: &str, vals: &[Value], n: usize) -> Result<(), RunError> {
        if vals.len() == n {
            Ok(())
        } else {
            self.unsupported(format!(
                "`{name}` called with {} arguments, expected {n}",
                vals.len()
            ))
        }
    }

    /// Library functions executed natively when the program does not define them; `None` for
    /// a function the interpreter does not know.
    fn builtin(&mut self, name: &str, args: &[Data]) -> Result<Option<(Value, CType)>, RunError> {
        if !is_builtin(name) {
            return Ok(None);
        }
        self.known_builtin(name, args).map(Some)
    }

    fn known_builtin(&mut self, name: &str, args: &[Data]) -> Result<(Value, CType), RunError> {
        let vals: Vec<Value> = args
            .iter()
            .map(|a| match a {
                Data::Scalar(v) => *v,
                Data::Agg(..) => Value::Int(0),
            })
            .collect();
        let int = |i: usize| match vals.get(i) {
            Some(Value::Int(x)) => *x,
            Some(Value::Float(x)) => *x as i128,
            Some(Value::Double(x)) => *x as i128,
            None => 0,
        };
        let want = |n: usize| self.arity(name, &vals, n);
        if let Some(r) = super::libm::call(name, &vals) {
            return r.or_else(|msg| self.unsupported(msg));
        }
        if let Some(r) = super::bits::call(name, int(0)) {
            want(1)?;
            return match r {
                Ok((v, t)) => Ok((Value::Int(v), t)),
                Err(msg) => self.ub(msg),
            };
        }
        if super::ctype::knows(name) {
            want(1)?;
            let c = norm(int(0), 32, true);
            return match super::ctype::call(name, c) {
                Ok(v) => Ok((Value::Int(v), CType::INT)),
                Err(msg) => self.ub(msg),
            };
        }
        let void_ptr = CType::Ptr(Box::new(CType::Void));
        match name {
            "abs" | "labs" | "llabs" => {
                want(1)?;
                let bits = if name == "abs" { 32 } else { 64 };
                let x = norm(int(0), bits, true);
                if x == -(1i128 << (bits - 1)) {
                    return self.ub(format!("`{name}` of the most negative value overflows"));
                }
                let ty = if bits == 32 { CType::INT } else { CType::LONG };
                Ok((Value::Int(x.abs()), ty))
            }
            "printf" | "puts" => {
                let Some(&first) = vals.first() else {
                    return self.unsupported(format!("`{name}` without arguments"));
                };
                let text = self.c_string(first, None)?;
                let out = if name == "puts" {
                    want(1)?;
                    let mut t = text;
                    t.push(b'\n');
                    t
                } else {
                    let mut read = |v: Value, limit: Option<usize>| self.c_string(v, limit);
                    match super::format::render(&text, &vals[1..], &mut read)? {
                        Ok(t) => t,
                        Err(super::format::FormatError::MissingArgument) => {
                            return self.ub("`printf` with fewer arguments than its format uses")
                        }
                        Err(super::format::FormatError::Unsupported(what)) => {
                            return self.unsupported(format!("`printf` with {what}"))
                        }
                    }
                };
                let n = out.len() as i128;
                self.output.extend(out);
                // `puts` returns a non-negative value: glibc's is the count written.
                Ok((Value::Int(n), CType::INT))
            }
            "putchar" => {
                want(1)?;
                let c = int(0) as u8;
                self.output.push(c);
                Ok((Value::Int(i128::from(c)), CType::INT))
            }
            "__builtin_expect" => {
                want(2)?;
                Ok((Value::Int(norm(int(0), 64, true)), CType::LONG))
            }
            "memset" => {
                want(3)?;
                let (p, c, n) = (
                    as_addr(vals[0]),
                    int(1) as u8,
                    norm(int(2), 64, false) as u64,
                );
                if n > 0 {
                    self.big_op(n)?;
                    self.mem.fill(p, n, c).map_err(|e| self.mem_err(e))?;
                }
                Ok((vals[0], void_ptr))
            }
            "memcpy" | "memmove" => {
                want(3)?;
                let (d, s, n) = (
                    as_addr(vals[0]),
                    as_addr(vals[1]),
                    norm(int(2), 64, false) as u64,
                );
                self.big_op(n)?;
                self.copy_bytes(d, s, n)?;
                Ok((vals[0], void_ptr))
            }
            n if super::heap::HEAP_FUNCTIONS.contains(&n) => self.heap_call(n, &vals),
            n if super::strings::STRING_FUNCTIONS.contains(&n) => self.string_call(n, &vals),
            _ => self.unsupported(format!("`{name}` is no builtin")),
        }
    }
}
