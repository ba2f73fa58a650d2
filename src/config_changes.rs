//! Changes the preprocessor hides from the analysis: changed lines in inactive `#if` regions,
//! changed conditions and macros.
//!
//! Takes the raw text of both versions with their probed conditionals
//! ([`crate::frontend::conditionals`]) and the line extents of the functions each version
//! defines; gives every changed line the analysis cannot see, grouped into [`ConfigChange`]s with
//! the condition that would compile them and the function they sit in. The `diff` driver
//! attaches them to the report, so that a patch whose changes all sit in code this configuration
//! does not compile is never reported as "nothing changed". Runs beside `changes` (which compares
//! the preprocessed programs), before the analysis.

use similar::{DiffOp, TextDiff};

use crate::frontend::conditionals::{Conditionals, Directive, GroupId, LineKind};

/// What kind of change escaped the analysed configuration.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ChangeKind {
    /// Code lines in a region the preprocessor removed.
    InactiveCode,
    /// A changed `#if`/`#ifdef`/`#elif`/`#else`/`#endif`: other configurations compile
    /// different code.
    Condition,
    /// A changed `#define`/`#undef` of a macro that code in an inactive region uses.
    MacroUsedInactive(String),
    /// A changed macro, include or other directive whose effect on the compiled code is in the
    /// preprocessed text (and so analysed).
    Directive(String),
    /// A changed definition of a macro no line of the file uses.
    UnusedMacro(String),
}

/// One run of changed lines that the analysis of this configuration did not cover.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ConfigChange {
    pub kind: ChangeKind,
    /// Changed lines (first, last) in the old and the new file, where the change has lines.
    pub old_lines: Option<(u32, u32)>,
    pub new_lines: Option<(u32, u32)>,
    /// The condition under which the changed lines are compiled (inactive code), per version
    /// when they differ.
    pub condition: Option<String>,
    /// The function whose definition contains the lines, when one does.
    pub function: Option<String>,
    /// For inactive code outside every loaded function: the name of the definition the lines
    /// appear to belong to (read from the text, not compiled).
    pub removed_function: Option<String>,
    /// The first changed line, trimmed (of the new version where it has one).
    pub text: String,
    /// The old version's first changed line, when both versions have changed lines.
    pub old_text: Option<String>,
    /// Whether the change may alter behaviour in a configuration other than the analysed one:
    /// such a change keeps the report from saying "nothing changed".
    pub escapes: bool,
    /// `-D`/`-U` options that compile the lines (set by the driver's search), and whether that
    /// configuration was analysed.
    pub enable: Option<Vec<String>>,
    /// The groups holding the lines in each version (for the configuration search).
    pub groups: (Option<GroupId>, Option<GroupId>),
}

/// One version: its raw text, conditionals and function extents `(name, first, last line)`.
pub struct Side<'a> {
    pub text: &'a str,
    pub conds: &'a Conditionals,
    pub functions: Vec<(String, u32, u32)>,
}

impl Side<'_> {
    fn function_at(&self, line: u32) -> Option<String> {
        self.functions
            .iter()
            .find(|(_, a, b)| (*a..=*b).contains(&line))
            .map(|(n, _, _)| n.clone())
    }

    /// Whether a line the preprocessor keeps (code, another definition, a condition) uses
    /// identifier `name`.
    fn used_active(&self, name: &str) -> bool {
        self.conds.idents.iter().enumerate().any(|(i, ids)| {
            self.conds.line_active(i as u32 + 1) == Some(true) && ids.iter().any(|x| x == name)
        })
    }

    /// The function definition that starts before `line` in the raw text (for lines no loaded
    /// function contains, e.g. a function the preprocessor removed): the name before the first
    /// `(` of the nearest line that starts in column 0, unless a closing brace in column 0 comes
    /// first.
    fn definition_before(&self, line: u32) -> Option<String> {
        let lines: Vec<&str> = self.text.lines().collect();
        for k in (0..(line as usize).min(lines.len())).rev() {
            let l = lines[k];
            if l.starts_with('}') {
                return None;
            }
            let code = self.conds.lines.get(k)?.kind == LineKind::Code;
            if code && !l.starts_with(char::is_whitespace) && l.contains('(') {
                let head = &l[..l.find('(')?];
                let name: String = head
                    .chars()
                    .rev()
                    .skip_while(|c| c.is_whitespace())
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                return (!name.is_empty() && !l.trim_end().ends_with(';')).then_some(name);
            }
        }
        None
    }

    /// Whether some code line in a region the preprocessor removed uses identifier `name`.
    fn used_inactive(&self, name: &str) -> Option<GroupId> {
        self.conds.idents.iter().enumerate().find_map(|(i, ids)| {
            let l = &self.conds.lines[i];
            let inactive = self.conds.line_active(i as u32 + 1) != Some(true);
            (inactive && ids.iter().any(|x| x == name)).then_some(l.group)?
        })
    }
}

/// How one changed line is classified; `None`: the analysis sees it (or it has no effect).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Class {
    Inactive(Option<GroupId>),
    Condition,
    MacroInactive(String, Option<GroupId>),
    Directive(String),
    UnusedMacro(String),
}

fn classify(side: &Side, other: &Side, line: u32) -> Option<Class> {
    let l = side.conds.lines.get(line as usize - 1)?;
    match l.kind {
        LineKind::Blank => None,
        LineKind::Code => match side.conds.line_active(line) {
            Some(true) => None,
            _ => Some(Class::Inactive(l.group)),
        },
        LineKind::Directive(Directive::Conditional) => Some(Class::Condition),
        LineKind::Directive(Directive::Macro) => {
            let name = l.macro_name.clone().unwrap_or_default();
            match side
                .used_inactive(&name)
                .or_else(|| other.used_inactive(&name))
            {
                Some(g) => Some(Class::MacroInactive(name, Some(g))),
                None if side.conds.line_active(line) == Some(true) => {
                    if side.used_active(&name) || other.used_active(&name) {
                        Some(Class::Directive(format!("macro `{name}`")))
                    } else {
                        Some(Class::UnusedMacro(name))
                    }
                }
                // A definition in an inactive region is inactive code of its own kind.
                None => Some(Class::Inactive(l.group)),
            }
        }
        LineKind::Directive(Directive::Include) => Some(Class::Directive("include".into())),
        LineKind::Directive(Directive::Other) => Some(Class::Directive("directive".into())),
    }
}

/// Maximal runs of consecutive lines of one class, within `lines`.
fn runs(side: &Side, other: &Side, lines: std::ops::Range<usize>) -> Vec<(Class, u32, u32)> {
    let mut v: Vec<(Class, u32, u32)> = vec![];
    for i in lines {
        let line = i as u32 + 1;
        let Some(c) = classify(side, other, line) else {
            continue;
        };
        match v.last_mut() {
            // Lines the analysis sees (blank ones, say) between two lines of one class do not
            // split the run.
            Some((last, _, end))
                if *last == c && ((*end + 1)..line).all(|k| classify(side, other, k).is_none()) =>
            {
                *end = line
            }
            _ => v.push((c, line, line)),
        }
    }
    v
}

fn group_of(c: &Class) -> Option<GroupId> {
    match c {
        Class::Inactive(g) | Class::MacroInactive(_, g) => *g,
        _ => None,
    }
}

/// Every changed line of `old` → `new` that the analysis of this configuration does not cover
/// (and changed directives, marked as not escaping), in file order.
pub fn compare(old: &Side, new: &Side) -> Vec<ConfigChange> {
    // Lines compared without comments and surrounding whitespace.
    let (no, nn) = (old.conds.norm.join("\n"), new.conds.norm.join("\n"));
    let diff = TextDiff::from_lines(&no, &nn);
    let mut out = vec![];
    let old_lines: Vec<&str> = old.text.lines().collect();
    let new_lines: Vec<&str> = new.text.lines().collect();
    for op in diff.ops() {
        let (o, n) = match *op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index, old_len, ..
            } => (old_index..old_index + old_len, 0..0),
            DiffOp::Insert {
                new_index, new_len, ..
            } => (0..0, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        let ro = runs(old, new, o);
        let rn = runs(new, old, n);
        // Replaced runs of the same classes on both sides pair up, one change each.
        let paired = !ro.is_empty()
            && ro.len() == rn.len()
            && ro.iter().zip(&rn).all(|(a, b)| same_kind(&a.0, &b.0));
        let mut push = |c: &Class,
                        cn: Option<&Class>,
                        old_r: Option<(u32, u32)>,
                        new_r: Option<(u32, u32)>| {
            let (go, gn) = (
                old_r.and_then(|_| group_of(c)),
                new_r.and_then(|_| group_of(cn.unwrap_or(c))),
            );
            let cond = |side: &Side, g: Option<GroupId>| g.map(|g| side.conds.condition(g));
            let condition = match (cond(old, go), cond(new, gn)) {
                (Some(a), Some(b)) if a == b => Some(a),
                (Some(a), Some(b)) => Some(format!("old: {a}; new: {b}")),
                (a, b) => a.or(b),
            };
            let first = |lines: &[&str], r: Option<(u32, u32)>| {
                r.and_then(|(a, _)| lines.get(a as usize - 1))
                    .map(|t| t.trim().chars().take(80).collect::<String>())
            };
            let old_text = first(&old_lines, old_r);
            let text = first(&new_lines, new_r)
                .or(old_text.clone())
                .unwrap_or_default();
            let function = new_r
                .and_then(|(a, _)| new.function_at(a))
                .or_else(|| old_r.and_then(|(a, _)| old.function_at(a)));
            // A function the preprocessor removed has no extent; name it from the text.
            let removed_function = match c {
                Class::Inactive(_) if function.is_none() => new_r
                    .and_then(|(a, _)| new.definition_before(a))
                    .or_else(|| old_r.and_then(|(a, _)| old.definition_before(a))),
                _ => None,
            };
            let (kind, escapes) = match c {
                Class::Inactive(_) => (ChangeKind::InactiveCode, true),
                Class::Condition => (ChangeKind::Condition, true),
                Class::MacroInactive(m, _) => (ChangeKind::MacroUsedInactive(m.clone()), true),
                Class::Directive(d) => (ChangeKind::Directive(d.clone()), false),
                Class::UnusedMacro(m) => (ChangeKind::UnusedMacro(m.clone()), false),
            };
            out.push(ConfigChange {
                kind,
                old_lines: old_r,
                new_lines: new_r,
                condition,
                function,
                removed_function,
                old_text: old_r.and(new_r).and(old_text),
                text,
                escapes,
                enable: None,
                groups: (go, gn),
            });
        };
        if paired {
            for (a, b) in ro.iter().zip(&rn) {
                push(&a.0, Some(&b.0), Some((a.1, a.2)), Some((b.1, b.2)));
            }
        } else {
            for (c, a, b) in &ro {
                push(c, None, Some((*a, *b)), None);
            }
            for (c, a, b) in &rn {
                push(c, None, None, Some((*a, *b)));
            }
        }
    }
    out
}

fn same_kind(a: &Class, b: &Class) -> bool {
    match (a, b) {
        (Class::Inactive(_), Class::Inactive(_)) => true,
        (Class::MacroInactive(x, _), Class::MacroInactive(y, _)) => x == y,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::conditionals::scan;

    fn side<'a>(text: &'a str, conds: &'a mut Conditionals, active: &[bool]) -> Side<'a> {
        for (g, a) in conds
            .groups
            .keys()
            .collect::<Vec<_>>()
            .into_iter()
            .zip(active)
        {
            conds.groups[g].active = Some(*a);
        }
        Side {
            text,
            conds,
            functions: vec![("h".into(), 4, 10)],
        }
    }

    #[test]
    fn inactive_lines_and_macros() {
        let a = "int g;\n#define K 3\n#define J 1\nint h(int y) {\n#ifdef FAST\n  return y + 1 + K;\n#else\n  return y + 2 + J;\n#endif\n}\n";
        let b = "int g;\n#define K 4\n#define J 2\nint h(int y) {\n#ifdef FAST\n  return y + 5 + K;\n#else\n  return y + 2 + J;\n#endif\n}\n";
        let (mut ca, mut cb) = (scan(a), scan(b));
        let (sa, sb) = (
            side(a, &mut ca, &[false, true]),
            side(b, &mut cb, &[false, true]),
        );
        let ch = compare(&sa, &sb);
        let kinds: Vec<_> = ch
            .iter()
            .map(|c| (c.kind.clone(), c.old_lines, c.new_lines, c.escapes))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (
                    ChangeKind::MacroUsedInactive("K".into()),
                    Some((2, 2)),
                    Some((2, 2)),
                    true
                ),
                (
                    ChangeKind::Directive("macro `J`".into()),
                    Some((3, 3)),
                    Some((3, 3)),
                    false
                ),
                (ChangeKind::InactiveCode, Some((6, 6)), Some((6, 6)), true),
            ]
        );
        assert_eq!(ch[2].condition.as_deref(), Some("defined(FAST)"));
        assert_eq!(ch[2].function.as_deref(), Some("h"));
    }

    #[test]
    fn active_changes_are_not_listed() {
        let a = "#if 1\nint f(void) { return 1; }\n#endif\n";
        let b = "#if 1\nint f(void) { return 2; }\n#endif\n";
        let (mut ca, mut cb) = (scan(a), scan(b));
        let (sa, sb) = (side(a, &mut ca, &[true]), side(b, &mut cb, &[true]));
        assert!(compare(&sa, &sb).is_empty());
        // Unknown activity counts as inactive: never silently covered.
        let (mut ca, mut cb) = (scan(a), scan(b));
        let (sa, sb) = (side(a, &mut ca, &[]), side(b, &mut cb, &[]));
        assert_eq!(compare(&sa, &sb).len(), 1);
    }
}
