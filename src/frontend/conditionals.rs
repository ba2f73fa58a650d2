//! Preprocessor conditionals of a source file, and which of their groups the configuration keeps.
//!
//! Takes the raw text of a C file (before preprocessing); gives its lines classified (blank or
//! comment, directive, code), the `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else` groups with their
//! nesting, and — after [`probe`] — whether each group is active under the preprocessor options.
//! Activity is observed, not evaluated: a copy of the file with a marker token after every group's
//! directive goes through the same preprocessor run as the real file, and a group is active when
//! its marker comes out. [`enabling_defines`] searches `-D`/`-U` options that make given groups
//! active, by preprocessing their directive chains with candidate definitions. Used by
//! `crate::config_changes` to tell changed lines the analysis saw from lines the preprocessor
//! removed; part of the frontend because it runs the preprocessor under the same bounds.

use std::collections::BTreeSet;
use std::path::Path;

use super::preprocess::preprocess;
use super::Options;
use crate::diag::Result;
use crate::ir::{IdVec, Idx};

crate::ir::entity!(
    /// A group of a conditional: the lines after one `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else`.
    GroupId
);

/// How a group is introduced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupTest {
    /// `#if EXPR`
    If(String),
    /// `#ifdef NAME`
    Ifdef(String),
    /// `#ifndef NAME`
    Ifndef(String),
    /// `#elif EXPR`
    Elif(String),
    Else,
}

#[derive(Clone, Debug)]
pub struct Group {
    pub test: GroupTest,
    /// Line of the directive that opens the group (1-based), and the last line of the group
    /// (the line before the next `#elif`/`#else`/`#endif` of its conditional).
    pub line: u32,
    pub end: u32,
    /// Last line of the opening directive itself (it may continue over several lines).
    pub head_end: u32,
    /// The directive as written (continuations joined, comments removed).
    pub directive: String,
    /// The group this conditional sits in (none at file level).
    pub parent: Option<GroupId>,
    /// Earlier groups of the same conditional (`#if` … `#elif` before this one).
    pub before: Vec<GroupId>,
    /// Whether the preprocessor keeps the group; `None` until probed (or if probing failed).
    pub active: Option<bool>,
}

/// What a source line holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    /// Only whitespace and comments.
    Blank,
    /// Part of a preprocessor directive (with its continuation lines).
    Directive(Directive),
    /// C tokens.
    Code,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Directive {
    /// `#if`, `#ifdef`, `#ifndef`, `#elif`, `#else`, `#endif`
    Conditional,
    /// `#define`, `#undef`
    Macro,
    Include,
    /// `#pragma`, `#error`, `#line`, …
    Other,
}

#[derive(Clone, Debug)]
pub struct Line {
    pub kind: LineKind,
    /// The innermost group the line is in (none at file level). A conditional directive's own
    /// line belongs to the group around its conditional.
    pub group: Option<GroupId>,
    /// For `#define`/`#undef`, the macro's name.
    pub macro_name: Option<String>,
}

/// The conditional structure of one file.
#[derive(Clone, Debug, Default)]
pub struct Conditionals {
    /// Line `i + 1` of the file.
    pub lines: Vec<Line>,
    pub groups: IdVec<GroupId, Group>,
    /// Each line without its comments and surrounding whitespace (what the comparison of two
    /// versions looks at: a changed comment is no change).
    pub norm: Vec<String>,
    /// Identifiers each line uses, per line: code, a definition's body, a condition (to tell
    /// which lines use a macro).
    pub idents: Vec<Vec<String>>,
}

impl Conditionals {
    /// Whether line `line` (1-based) is kept by the preprocessor: `None` when unknown.
    pub fn line_active(&self, line: u32) -> Option<bool> {
        match self.lines.get(line as usize - 1)?.group {
            None => Some(true),
            Some(g) => self.groups[g].active,
        }
    }

    /// The condition under which group `g` is kept, as C preprocessor expressions joined by
    /// `&&`, outermost first.
    pub fn condition(&self, g: GroupId) -> String {
        let mut parts = vec![];
        let mut cur = Some(g);
        while let Some(c) = cur {
            let grp = &self.groups[c];
            let mut own: Vec<String> = grp
                .before
                .iter()
                .map(|b| negate(&test_expr(&self.groups[*b].test)))
                .collect();
            if !matches!(grp.test, GroupTest::Else) {
                own.push(test_expr(&grp.test));
            }
            parts.push(own.join(" && "));
            cur = grp.parent;
        }
        parts.reverse();
        parts.retain(|p| !p.is_empty());
        parts.join(" && ")
    }

    /// Groups from the outermost down to `g`.
    fn chain(&self, g: GroupId) -> Vec<GroupId> {
        let mut v = vec![g];
        while let Some(p) = self.groups[*v.last().expect("non-empty")].parent {
            v.push(p);
        }
        v.reverse();
        v
    }
}

fn test_expr(t: &GroupTest) -> String {
    match t {
        GroupTest::If(e) | GroupTest::Elif(e) => e.clone(),
        GroupTest::Ifdef(n) => format!("defined({n})"),
        GroupTest::Ifndef(n) => format!("!defined({n})"),
        GroupTest::Else => "1".into(),
    }
}

fn negate(e: &str) -> String {
    match e.strip_prefix('!') {
        Some(rest) if rest.starts_with("defined(") && rest.ends_with(')') => rest.to_string(),
        _ if e.starts_with("defined(") && e.ends_with(')') && !e[8..].contains('(') => {
            format!("!{e}")
        }
        _ => format!("!({e})"),
    }
}

/// One physical line with its comments replaced by a space; `in_comment` carries an open block
/// comment from line to line.
fn strip_comments(line: &str, in_comment: &mut bool) -> String {
    let b = line.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        if *in_comment {
            if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                *in_comment = false;
                out.push(b' ');
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        if let Some(q) = quote {
            let (n, closed) = literal_step(b, i, q);
            out.extend_from_slice(&b[i..i + n]);
            quote = (!closed).then_some(q);
            i += n;
            continue;
        }
        match b[i] {
            c @ (b'"' | b'\'') => {
                quote = Some(c);
                out.push(c);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                *in_comment = true;
                i += 2;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => break,
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Inside a string or character literal closed by `q`, at byte `i`: how many bytes the next
/// step takes (an escape takes two) and whether it closes the literal.
fn literal_step(b: &[u8], i: usize, q: u8) -> (usize, bool) {
    match b[i] {
        b'\\' if i + 1 < b.len() => (2, false),
        c => (1, c == q),
    }
}

/// Identifiers of a line of code (outside string and character literals).
fn identifiers(code: &str) -> Vec<String> {
    let mut v = vec![];
    let b = code.as_bytes();
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            let (n, closed) = literal_step(b, i, q);
            quote = (!closed).then_some(q);
            i += n;
            continue;
        }
        if c == b'"' || c == b'\'' {
            quote = Some(c);
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            v.push(code[s..i].to_string());
        } else if c.is_ascii_digit() {
            // A number (with suffixes or exponent letters) is not an identifier.
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    v
}

/// Scan the raw text of a file.
pub fn scan(text: &str) -> Conditionals {
    let phys: Vec<&str> = text.lines().collect();
    let mut c = Conditionals {
        lines: Vec::with_capacity(phys.len()),
        groups: IdVec::new(),
        idents: Vec::with_capacity(phys.len()),
        norm: Vec::with_capacity(phys.len()),
    };
    // Open conditionals: the current group of each.
    let mut open: Vec<GroupId> = vec![];
    let mut in_comment = false;
    let mut i = 0;
    while i < phys.len() {
        let starts_in_comment = in_comment;
        let code = strip_comments(phys[i], &mut in_comment);
        let trimmed = code.trim_start();
        if !starts_in_comment && trimmed.starts_with('#') {
            // A directive, with its continuation lines.
            let first = i;
            let mut text = code.clone();
            c.norm.push(code.trim().to_string());
            while text.trim_end().ends_with('\\') && i + 1 < phys.len() {
                let t = text.trim_end();
                text = t[..t.len() - 1].to_string();
                i += 1;
                let more = strip_comments(phys[i], &mut in_comment);
                c.norm.push(more.trim().to_string());
                text.push(' ');
                text.push_str(&more);
            }
            let body = text.trim_start()[1..].trim_start();
            let name_len = body
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .unwrap_or(body.len());
            let (name, rest) = body.split_at(name_len);
            let rest = rest.split_whitespace().collect::<Vec<_>>().join(" ");
            let word = |s: &str| {
                s.split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                    .next()
                    .unwrap_or("")
                    .to_string()
            };
            let directive = format!("#{name} {rest}").trim_end().to_string();
            let current = open.last().copied();
            let kind = match name {
                "if" | "ifdef" | "ifndef" | "elif" | "else" | "endif" => Directive::Conditional,
                "define" | "undef" => Directive::Macro,
                "include" | "include_next" | "import" => Directive::Include,
                _ => Directive::Other,
            };
            let macro_name = (kind == Directive::Macro).then(|| word(&rest));
            // The directive's own lines belong to the group around its conditional.
            let owner = match name {
                "elif" | "else" | "endif" => current.and_then(|g| c.groups[g].parent),
                _ => current,
            };
            // Identifiers a directive uses: a definition's body, a condition's operands.
            let uses: Vec<String> = match name {
                "define" => identifiers(&rest).into_iter().skip(1).collect(),
                "if" | "elif" | "ifdef" | "ifndef" => identifiers(&rest),
                _ => vec![],
            };
            for k in first..=i {
                c.lines.push(Line {
                    kind: LineKind::Directive(kind),
                    group: owner,
                    macro_name: macro_name.clone(),
                });
                c.idents
                    .push(if k == first { uses.clone() } else { vec![] });
            }
            let line = first as u32 + 1;
            let last = i as u32 + 1;
            let test = match name {
                "if" => Some(GroupTest::If(rest.clone())),
                "ifdef" => Some(GroupTest::Ifdef(word(&rest))),
                "ifndef" => Some(GroupTest::Ifndef(word(&rest))),
                "elif" => Some(GroupTest::Elif(rest.clone())),
                "else" => Some(GroupTest::Else),
                _ => None,
            };
            // An `#elif`/`#else` closes the group before it and continues its conditional.
            let (parent, before) = match (name, open.last().copied()) {
                ("elif" | "else", Some(prev)) => {
                    open.pop();
                    c.groups[prev].end = line - 1;
                    let mut before = c.groups[prev].before.clone();
                    before.push(prev);
                    (c.groups[prev].parent, Some(before))
                }
                ("elif" | "else", None) => (None, None),
                _ => (current, Some(vec![])),
            };
            match (name, test, before) {
                (_, Some(test), Some(before)) => {
                    let g = c.groups.push(Group {
                        test,
                        line,
                        end: last,
                        head_end: last,
                        directive,
                        parent,
                        before,
                        active: None,
                    });
                    open.push(g);
                }
                ("endif", _, _) => {
                    if let Some(prev) = open.pop() {
                        c.groups[prev].end = line - 1;
                    }
                }
                _ => {}
            }
        } else {
            let kind = if trimmed.trim().is_empty() {
                LineKind::Blank
            } else {
                LineKind::Code
            };
            c.lines.push(Line {
                kind,
                group: open.last().copied(),
                macro_name: None,
            });
            c.norm.push(code.trim().to_string());
            c.idents.push(if kind == LineKind::Code {
                identifiers(&code)
            } else {
                vec![]
            });
        }
        i += 1;
    }
    // An unterminated conditional runs to the end of the file.
    let n = c.lines.len() as u32;
    for g in open {
        c.groups[g].end = n;
    }
    c
}

/// The marker token of group `g` in a probe.
fn marker(g: GroupId) -> String {
    format!("__dizy_group_{}__", g.index())
}

/// Marker tokens found in preprocessor output.
fn markers_in(out: &str) -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    for (i, _) in out.match_indices("__dizy_group_") {
        let rest = &out[i + "__dizy_group_".len()..];
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        if let Ok(n) = digits.parse::<usize>() {
            seen.insert(n);
        }
    }
    seen
}

/// Scan `text` (the content of `path`) and find which groups are active under `opts`: the file
/// is copied with a marker after each group's directive and preprocessed exactly as the real
/// file (quoted includes resolve next to the original). Without groups nothing is run.
pub fn probe(path: &Path, text: &str, opts: &Options, display: &str) -> Result<Conditionals> {
    let mut c = scan(text);
    if c.groups.is_empty() {
        return Ok(c);
    }
    let mut instrumented = String::with_capacity(text.len() + c.groups.len() * 40);
    // A marker after the last line of each group's directive.
    let after: std::collections::HashMap<u32, GroupId> = c
        .groups
        .iter_enumerated()
        .map(|(g, grp)| (grp.head_end, g))
        .collect();
    // `#error` would end the run: blanked (with its continuation lines), as the load does.
    let mut blanking = false;
    for (i, l) in text.lines().enumerate() {
        let is_error = matches!(c.lines[i].kind, LineKind::Directive(Directive::Other))
            && l.trim_start()
                .strip_prefix('#')
                .is_some_and(|d| d.trim_start().starts_with("error"));
        if is_error || blanking {
            blanking = l.trim_end().ends_with('\\');
        } else {
            instrumented.push_str(l);
        }
        instrumented.push('\n');
        if let Some(g) = after.get(&(i as u32 + 1)) {
            instrumented.push_str(&marker(*g));
            instrumented.push_str(&format!("\n#line {} \n", i + 2));
        }
    }
    let out = preprocess_copy(path, &instrumented, opts, display)?;
    let seen = markers_in(&out);
    for g in c.groups.keys().collect::<Vec<_>>() {
        c.groups[g].active = Some(seen.contains(&g.index()));
    }
    Ok(c)
}

/// Preprocess `content` as if it were the file at `path`: written to a temporary directory,
/// with the original's directory searched for quoted includes.
fn preprocess_copy(path: &Path, content: &str, opts: &Options, display: &str) -> Result<String> {
    let dir = super::preprocess::TempDir::new("probe").map_err(|e| {
        super::bad_input_in(display, format!("cannot create a temporary directory: {e}"))
    })?;
    let name = path
        .file_name()
        .map_or_else(|| "probe.c".into(), |n| n.to_os_string());
    let copy = dir.path().join(name);
    std::fs::write(&copy, content)
        .map_err(|e| super::bad_input_in(display, format!("cannot write a temporary file: {e}")))?;
    let mut o = opts.clone();
    let here = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    o.quote_dirs.insert(0, here.to_path_buf());
    Ok(preprocess(&copy, &o, display)?.text)
}

/// Most macros varied when searching for a configuration, and most candidate configurations.
const MAX_SEARCH_NAMES: usize = 6;
const MAX_CANDIDATES: usize = 4096;

/// A configuration that makes every group in `groups` active in its file: `-D`/`-U` options,
/// fewest definitions first, or `None` when none was found. Each `(conditionals, group)` pair
/// contributes its chain of directives; candidates assign the macros those directives name to
/// "undefined", 0, 1 or a constant they are compared with (±1). One preprocessor run evaluates
/// all candidates; the caller re-probes the real files to confirm.
pub fn enabling_defines(
    wanted: &[(&Conditionals, GroupId)],
    opts: &Options,
    display: &str,
) -> Result<Option<Vec<String>>> {
    let mut names: Vec<String> = vec![];
    // Values tried per macro, in order of preference.
    let mut values: Vec<Vec<String>> = vec![];
    let mut chains = String::new();
    for (c, g) in wanted {
        for link in c.chain(*g) {
            let grp = &c.groups[link];
            for d in grp.before.iter().map(|b| &c.groups[*b]).chain([grp]) {
                let expr = match &d.test {
                    GroupTest::If(e) | GroupTest::Elif(e) => e.clone(),
                    GroupTest::Ifdef(n) | GroupTest::Ifndef(n) => n.clone(),
                    GroupTest::Else => String::new(),
                };
                let ids = identifiers(&expr);
                let nums: Vec<i64> = expr
                    .split(|ch: char| !ch.is_ascii_digit())
                    .filter_map(|s| s.parse().ok())
                    .collect();
                for id in ids.into_iter().filter(|i| i != "defined") {
                    let k = match names.iter().position(|n| *n == id) {
                        Some(k) => k,
                        None => {
                            names.push(id);
                            values.push(vec![]);
                            names.len() - 1
                        }
                    };
                    let more = nums.iter().flat_map(|n| [n + 1, *n, n - 1]);
                    for v in [1, 0].into_iter().chain(more).map(|v| v.to_string()) {
                        if !values[k].contains(&v) {
                            values[k].push(v);
                        }
                    }
                }
            }
        }
    }
    if names.is_empty() || names.len() > MAX_SEARCH_NAMES {
        return Ok(None);
    }
    // The chains, each re-created with its earlier alternatives so that `#elif`/`#else` mean
    // what they mean in the file.
    for (c, g) in wanted {
        let chain = c.chain(*g);
        for link in &chain {
            let grp = &c.groups[*link];
            for b in &grp.before {
                chains.push_str(&c.groups[*b].directive);
                chains.push('\n');
            }
            chains.push_str(&grp.directive);
            chains.push('\n');
        }
        chains.push_str("@OK@\n");
        for _ in &chain {
            chains.push_str("#endif\n");
        }
    }
    // Candidates in order of how many macros they define (then in the order found).
    let mut choices: Vec<Vec<Option<String>>> = vec![vec![]];
    for vs in &values {
        let mut next = vec![];
        for c in &choices {
            for v in std::iter::once(None).chain(vs.iter().cloned().map(Some)) {
                if next.len() < MAX_CANDIDATES {
                    let mut c = c.clone();
                    c.push(v);
                    next.push(c);
                }
            }
        }
        choices = next;
    }
    choices.sort_by_key(|c| c.iter().filter(|v| v.is_some()).count());
    let mut src = String::new();
    for (k, choice) in choices.iter().enumerate() {
        for (n, v) in names.iter().zip(choice) {
            src.push_str(&format!("#undef {n}\n"));
            if let Some(v) = v {
                src.push_str(&format!("#define {n} {v}\n"));
            }
        }
        src.push_str(&chains.replace("@OK@", &format!("__dizy_group_{k}__")));
    }
    let probe_path = Path::new("dizy-config-search.c");
    let out = preprocess_copy(probe_path, &src, opts, display)?;
    let Some(k) = markers_in(&out).into_iter().next() else {
        return Ok(None);
    };
    let mut flags = vec![];
    for (n, v) in names.iter().zip(&choices[k]) {
        match v {
            Some(v) if v == "1" => flags.push(format!("-D{n}")),
            Some(v) => flags.push(format!("-D{n}={v}")),
            None => flags.push(format!("-U{n}")),
        }
    }
    Ok(Some(flags))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_lines() {
        let c = scan("int a;\n#ifdef X\nint b; /* c */\n#elif Y > 1\nint c;\n#else\n#if Z\nint d;\n#endif\n#endif\n// x\n");
        assert_eq!(c.groups.len(), 4);
        let g: Vec<_> = c.groups.iter().map(|g| (g.line, g.end)).collect();
        assert_eq!(g, vec![(2, 3), (4, 5), (6, 9), (7, 8)]);
        assert_eq!(c.lines[0].kind, LineKind::Code);
        assert_eq!(c.lines[10].kind, LineKind::Blank);
        assert_eq!(c.lines[2].group, Some(GroupId::new(0)));
        assert_eq!(c.lines[7].group, Some(GroupId::new(3)));
        assert_eq!(c.condition(GroupId::new(3)), "!defined(X) && !(Y > 1) && Z");
        assert_eq!(c.condition(GroupId::new(1)), "!defined(X) && Y > 1");
    }

    #[test]
    fn comments_and_continuations() {
        let c = scan("/* #if 0\n#endif */\n#define A \\\n  1\nchar *s = \"/*\"; int x;\n");
        assert!(c.groups.is_empty());
        assert_eq!(c.lines[0].kind, LineKind::Blank);
        assert_eq!(c.lines[1].kind, LineKind::Blank);
        assert_eq!(c.lines[2].kind, LineKind::Directive(Directive::Macro));
        assert_eq!(c.lines[3].kind, LineKind::Directive(Directive::Macro));
        assert_eq!(c.lines[2].macro_name.as_deref(), Some("A"));
        assert_eq!(c.lines[4].kind, LineKind::Code);
        assert_eq!(c.idents[4], vec!["char", "s", "int", "x"]);
    }
}
