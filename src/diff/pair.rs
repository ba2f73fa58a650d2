//! A file pair's functions: what the driver knows about both loaded programs before it analyses
//! any function, and each function's finished report.
//!
//! Takes the two programs and the options; gives a [`Pair`] (the changes between the versions,
//! the functions to report, the programs with changed callees inlined) whose
//! [`Pair::function`] runs one function (see [`super::function`]) and adds what the pair knows
//! about it (changed callees, why it counts as changed, what was inlined). The diff driver
//! builds one per file pair; a worker process (see [`super::workers`]) builds the same one from
//! the same files and options, which is what makes its reports those of the driver.

use std::collections::BTreeSet;

use super::function::{one_function, FunctionTime, Known};
use super::{details, DiffOptions, FunctionReport, Verdict};
use crate::changes::{self, Changes};
use crate::diag::{Note, NoteKind};
use crate::gcl::GclProgram;
use crate::inline::Version;

pub(super) struct Pair<'a> {
    pub po: &'a GclProgram,
    pub pn: &'a GclProgram,
    defined_o: BTreeSet<String>,
    defined_n: BTreeSet<String>,
    ch: Changes,
    /// The versions with changed callees inlined into the reported functions.
    vo: Version,
    vn: Version,
    /// The functions the report covers: those the user named, else every function the two
    /// files define (or whose definition the frontend rejected).
    pub names: BTreeSet<String>,
}

impl<'a> Pair<'a> {
    pub fn new(po: &'a GclProgram, pn: &'a GclProgram, opts: &DiffOptions) -> Pair<'a> {
        let ch = changes::changes(po, pn);
        let defined = |p: &GclProgram| -> BTreeSet<String> {
            p.functions.iter().map(|f| f.name.clone()).collect()
        };
        let mut names: BTreeSet<String> = BTreeSet::new();
        if opts.functions.is_empty() {
            // Functions of headers are not the file's: a change to one shows in its callers.
            for p in [po, pn] {
                names.extend(p.file_functions().map(|f| f.name.clone()));
                names.extend(p.file_rejected().map(|(n, _)| n.clone()));
            }
        } else {
            names.extend(opts.functions.iter().cloned());
        }
        // Client-specific impact: changed callees are inlined into the analysed functions; the
        // witness search still runs the original programs.
        let (vo, vn) = if opts.no_inline {
            (Default::default(), Default::default())
        } else {
            (
                crate::inline::inline_gcl(po, &names, &ch.old, &opts.inline),
                crate::inline::inline_gcl(pn, &names, &ch.new, &opts.inline),
            )
        };
        Pair {
            po,
            pn,
            defined_o: defined(po),
            defined_n: defined(pn),
            ch,
            vo,
            vn,
            names,
        }
    }

    /// Whether `name` goes through the analysis; otherwise its report (unchanged, added,
    /// removed, rejected) is known at once.
    pub fn needs_analysis(&self, name: &str, opts: &DiffOptions) -> bool {
        let rejected = |p: &GclProgram| p.program.rejected.iter().any(|(n, _)| n == name);
        self.defined_o.contains(name)
            && self.defined_n.contains(name)
            && !rejected(self.po)
            && !rejected(self.pn)
            && (!opts.functions.is_empty() || self.ch.changed(name))
    }

    /// The report of one function (without its definition lines: the driver adds those).
    pub fn function(&self, name: &str, opts: &DiffOptions) -> FunctionReport {
        let (po, pn, ch) = (self.po, self.pn, &self.ch);
        let (vo, vn) = (&self.vo, &self.vn);
        let known = Known {
            defined_o: &self.defined_o,
            defined_n: &self.defined_n,
            changes: ch,
        };
        let inl = (vo.gcl.as_ref().unwrap_or(po), vn.gcl.as_ref().unwrap_or(pn));
        let was_inlined = |v: &Version| {
            v.gcl.is_some() && v.outcomes.get(name).is_some_and(|o| !o.inlined.is_empty())
        };
        let inlined_here = was_inlined(vo) || was_inlined(vn);
        let budget = FunctionTime::new(opts.limits.timeout, inlined_here);
        let mut r = one_function(po, pn, inl, name, &known, opts, &budget);
        let failed = matches!(
            r.verdict,
            Verdict::Timeout | Verdict::Error | Verdict::Unsupported
        );
        let fell_back = failed && inlined_here;
        if fell_back {
            // Inlining made the function too big or hit a limit: fall back to opaque calls,
            // within what is left of the same budget.
            let why = r.error.clone().unwrap_or_default();
            let rest = budget.fallback();
            r = one_function(po, pn, (po, pn), name, &known, opts, &rest);
            r.notes.push(Note::new(
                NoteKind::Analysis,
                format!("analysis with inlined callees failed ({why}); changed callees kept as unknown calls"),
            ));
        }
        if opts.details && matches!(r.verdict, Verdict::Timeout | Verdict::Error) {
            // No analysis to show, but both versions still run: the sample shows what they do.
            r.input_plane = details::input_plane(po, pn, name, None, &[], opts);
        }
        r.own_changed = ch.own.contains(name);
        r.changed_callees = ch.changed_callees(name);
        if r.verdict != Verdict::Unchanged && !r.own_changed {
            for why in ch.why.get(name).into_iter().flatten() {
                let why = Note::new(NoteKind::Change, why.clone());
                if !r.notes.contains(&why) {
                    r.notes.push(why);
                }
            }
        }
        if fell_back
            || matches!(
                r.verdict,
                Verdict::Unchanged | Verdict::Added | Verdict::Removed
            )
        {
            return r;
        }
        let mut inlined = BTreeSet::new();
        for o in [vo.outcomes.get(name), vn.outcomes.get(name)]
            .into_iter()
            .flatten()
        {
            inlined.extend(o.inlined.iter().cloned());
            for n in &o.notes {
                let n = Note::new(NoteKind::Analysis, n.clone());
                if !r.notes.contains(&n) {
                    r.notes.push(n);
                }
            }
        }
        r.inlined = inlined.into_iter().collect();
        r
    }
}
