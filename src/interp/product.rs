//! Running a correlating program P ⋈ P' concretely.
//!
//! Takes a [`Correlated`] and C literals for its parameters; gives the old and the new
//! version's return values as C literals, so tests and `dizy correlate --run` can check the
//! product against the two programs. Lives here, not in `correlate`, because the interpreter is
//! a later stage: it may know the correlator, not the other way round.

use super::{format_value, parse_arg, Interp, RunError};
use crate::correlate::Correlated;
use crate::ir::CType;

/// Run the product on `args` (C literals for its parameters: the old function's, then any
/// parameter only the new one has) and give the old and new return values as C literals.
pub fn run_correlated(
    c: &Correlated,
    args: &[String],
    budget: u64,
) -> std::result::Result<(String, String), RunError> {
    let f = c.product();
    if args.len() != f.func.params.len() {
        return Err(RunError::BadArgs(format!(
            "`{}` takes {} argument{}, {} given",
            c.name,
            f.func.params.len(),
            if f.func.params.len() == 1 { "" } else { "s" },
            args.len()
        )));
    }
    let mut vals = vec![];
    for (a, p) in args.iter().zip(&f.func.params) {
        let ty = &f.func.var(*p).ty;
        vals.push(parse_arg(a, ty).map_err(RunError::BadArgs)?);
    }
    // The product returns the old version's `retval`; a second run of the same product that
    // returns the new one's keeps the interpreter unaware of correlation.
    let mut results = vec![];
    for (rv, flag) in [(c.old_retval, c.old_ret), (c.new_retval, c.new_ret)] {
        let mut prog = c.program.clone();
        prog.functions[c.func.index()].retval = rv;
        prog.functions[c.func.index()].ret_flag = flag;
        prog.functions[c.func.index()].func.ret = match rv {
            Some(v) => f.func.var(v).ty.clone(),
            None => CType::Void,
        };
        let mut it = Interp::new(&prog).with_budget(budget);
        let out = it.call(&f.name, &vals)?;
        results.push(match (out.ret, rv) {
            (Some(val), Some(v)) => format_value(&val, &f.func.var(v).ty),
            _ => "void".to_string(),
        });
    }
    let new_s = results.pop().unwrap_or_default();
    let old_s = results.pop().unwrap_or_default();
    Ok((old_s, new_s))
}
