//! Changes outside the analysed configuration: finding them, naming a configuration that
//! compiles them, and (with `--config-all`) analysing that configuration too.
//!
//! Takes the two files, their loaded programs and the report of the analysed configuration;
//! adds [`crate::config_changes::ConfigChange`]s to the report, marks functions whose changed
//! lines the preprocessor removed (`inactive-change` where the verdict would otherwise say
//! nothing changed) and appends one report per extra configuration. Part of the `diff` driver.

use std::path::Path;

use super::{diff_files, DiffOptions, Report, Verdict};
use crate::config_changes::{self, ChangeKind, ConfigChange, Side};
use crate::diag::{Note, NoteKind};
use crate::frontend::{self, conditionals};
use crate::gcl::GclProgram;

/// The groups holding a change's lines in the old and the new version.
type Groups = (Option<conditionals::GroupId>, Option<conditionals::GroupId>);

/// Most configurations searched (and, with `--config-all`, analysed) per pair of files.
const MAX_CONFIGS: usize = 8;

/// An extra configuration and its report.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Configuration {
    /// The `-D`/`-U` options added to the user's.
    pub flags: Vec<String>,
    pub report: Report,
}

fn side<'a>(text: &'a str, conds: &'a conditionals::Conditionals, p: &GclProgram) -> Side<'a> {
    Side {
        text,
        conds,
        functions: p
            .functions
            .iter()
            .map(|f| (f.name.clone(), f.func.line.0, f.func.end_line.0))
            .collect(),
    }
}

/// Find the changes the analysed configuration does not compile and record them in `report`.
pub(super) fn add_config_changes(
    old: &Path,
    new: &Path,
    po: &GclProgram,
    pn: &GclProgram,
    fe: &frontend::Options,
    opts: &DiffOptions,
    report: &mut Report,
) {
    let read = |p: &Path| std::fs::read(p).map(|b| String::from_utf8_lossy(&b).into_owned());
    let (Ok(to), Ok(tn)) = (read(old), read(new)) else {
        return;
    };
    if to == tn {
        return;
    }
    let (co, cn) = match (
        conditionals::probe(old, &to, fe, &po.program.file),
        conditionals::probe(new, &tn, fe, &pn.program.file),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            let e = a
                .err()
                .or(b.err())
                .map(|e| e.to_string())
                .unwrap_or_default();
            report.assumptions.push(Note::new(
                NoteKind::NotAnalysed,
                format!("which conditional regions the preprocessor keeps could not be observed ({e}); every changed line inside `#if` regions is listed as not analysed"),
            ));
            (conditionals::scan(&to), conditionals::scan(&tn))
        }
    };
    let (so, sn) = (side(&to, &co, po), side(&tn, &cn, pn));
    let mut changes = config_changes::compare(&so, &sn);
    // A configuration for each distinct region of changed inactive code.
    let mut searched: Vec<(Groups, Option<Vec<String>>)> = vec![];
    for c in changes
        .iter_mut()
        .filter(|c| c.escapes && c.kind != ChangeKind::Condition)
    {
        if let Some((_, flags)) = searched.iter().find(|(g, _)| *g == c.groups) {
            c.enable = flags.clone();
            continue;
        }
        if searched.len() >= MAX_CONFIGS {
            continue;
        }
        let flags = enabling(c, (&co, &cn), (old, new), (&to, &tn), fe, report);
        searched.push((c.groups, flags.clone()));
        c.enable = flags;
    }
    mark_functions(report, &changes);
    if opts.config_all {
        let mut done: Vec<Vec<String>> = vec![];
        for flags in changes
            .iter()
            .filter(|c| c.escapes)
            .filter_map(|c| c.enable.clone())
        {
            if done.contains(&flags) || done.len() >= MAX_CONFIGS {
                continue;
            }
            done.push(flags.clone());
            let mut o = opts.clone();
            o.config_all = false;
            for f in &flags {
                if let Some(d) = f.strip_prefix("-D") {
                    o.frontend.defines.push(d.to_string());
                } else if let Some(u) = f.strip_prefix("-U") {
                    o.frontend.undefines.push(u.to_string());
                }
            }
            match diff_files(old, new, &o) {
                Ok(r) => report
                    .configurations
                    .push(Configuration { flags, report: r }),
                Err(e) => report.assumptions.push(Note::new(
                    NoteKind::NotAnalysed,
                    format!(
                        "configuration {} could not be analysed: {e}",
                        flags.join(" ")
                    ),
                )),
            }
        }
    }
    report.config_changes = changes;
}

/// `-D`/`-U` options that compile the change's lines in both versions, confirmed by probing the
/// real files with them.
fn enabling(
    c: &ConfigChange,
    (co, cn): (&conditionals::Conditionals, &conditionals::Conditionals),
    (old, new): (&Path, &Path),
    (to, tn): (&str, &str),
    fe: &frontend::Options,
    report: &Report,
) -> Option<Vec<String>> {
    let mut wanted = vec![];
    if let Some(g) = c.groups.0 {
        wanted.push((co, g));
    }
    if let Some(g) = c.groups.1 {
        wanted.push((cn, g));
    }
    if wanted.is_empty() {
        return None;
    }
    let flags = conditionals::enabling_defines(&wanted, fe, &report.new).ok()??;
    let mut with = fe.clone();
    for f in &flags {
        if let Some(d) = f.strip_prefix("-D") {
            with.defines.push(d.to_string());
        } else if let Some(u) = f.strip_prefix("-U") {
            with.undefines.push(u.to_string());
        }
    }
    // Confirm on the real files: the file's own definitions may override the search's.
    let active = |p: &Path, t: &str, g: Option<conditionals::GroupId>| match g {
        None => true,
        Some(g) => conditionals::probe(p, t, &with, &report.new)
            .is_ok_and(|c| c.groups[g].active == Some(true)),
    };
    (active(old, to, c.groups.0) && active(new, tn, c.groups.1)).then_some(flags)
}

/// Where changed lines the preprocessor removed sit in a function, the function's verdict must
/// not say that nothing changed.
fn mark_functions(report: &mut Report, changes: &[ConfigChange]) {
    for c in changes.iter().filter(|c| c.escapes) {
        let Some(name) = &c.function else { continue };
        let Some(f) = report.functions.iter_mut().find(|f| f.name == *name) else {
            continue;
        };
        f.notes.push(Note::new(NoteKind::NotAnalysed, describe(c)));
        if matches!(
            f.verdict,
            Verdict::Unchanged | Verdict::Equivalent | Verdict::PartiallyEquivalent
        ) {
            f.notes.push(Note::new(
                NoteKind::NotAnalysed,
                format!(
                    "{} in the analysed configuration; the changed lines it does not compile are not analysed",
                    f.verdict.as_str()
                ),
            ));
            f.verdict = Verdict::InactiveChange;
        }
    }
}

/// `old line 6, new line 6`
pub fn lines_text(c: &ConfigChange) -> String {
    let r = |(a, b): (u32, u32)| {
        if a == b {
            format!("line {a}")
        } else {
            format!("lines {a}-{b}")
        }
    };
    match (c.old_lines, c.new_lines) {
        (Some(o), Some(n)) => format!("old {}, new {}", r(o), r(n)),
        (Some(o), None) => format!("old {}", r(o)),
        (None, Some(n)) => format!("new {}", r(n)),
        (None, None) => String::new(),
    }
}

/// `` `old` → `new` `` or `` `text` ``.
fn quoted(c: &ConfigChange) -> String {
    match &c.old_text {
        Some(o) if *o != c.text => format!("`{o}` → `{}`", c.text),
        _ => format!("`{}`", c.text),
    }
}

/// One sentence about a change, for notes and the text report.
pub fn describe(c: &ConfigChange) -> String {
    let what = match &c.kind {
        ChangeKind::InactiveCode => "code the preprocessor removes changed".to_string(),
        ChangeKind::Condition => format!("a preprocessor condition changed ({})", quoted(c)),
        ChangeKind::MacroUsedInactive(m) => {
            format!(
                "macro `{m}` changed ({}); code the preprocessor removes uses it",
                quoted(c)
            )
        }
        ChangeKind::UnusedMacro(_) => String::new(),
        ChangeKind::Directive(d) => format!(
            "{d} changed ({}); its effect on the compiled code is analysed",
            quoted(c)
        ),
    };
    let what = match &c.kind {
        ChangeKind::UnusedMacro(m) => {
            format!(
                "macro `{m}` changed ({}); no line of the file uses it",
                quoted(c)
            )
        }
        _ => what,
    };
    let what = match &c.removed_function {
        Some(f) => format!("{what} (in `{f}`, which this configuration does not compile)"),
        None => what,
    };
    let mut s = format!("{}: {what}", lines_text(c));
    if let Some(cond) = &c.condition {
        s.push_str(&format!("; compiled when {cond}"));
    }
    match &c.enable {
        Some(f) if !f.is_empty() => s.push_str(&format!("; enable with {}", f.join(" "))),
        _ if c.escapes && c.kind != ChangeKind::Condition => {
            s.push_str("; no configuration enabling it was found")
        }
        _ => {}
    }
    s
}
