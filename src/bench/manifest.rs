//! Manifests: CSV records and the pairs they list.
//!
//! Takes CSV text or a manifest file (`id,old,new,function,expected,note`); gives the records
//! with their line numbers, or the [`Pair`]s with paths resolved against the manifest's
//! directory, and an error naming the file and line when something is wrong. Also CSV output
//! (quoting a field when it needs to be).

use std::fs;
use std::path::Path;

use super::{Expected, Pair};
use crate::diag::{Error, Result};

/// CSV records, each with the line it starts on.
pub type Records = Vec<(u32, Vec<String>)>;

/// Split CSV text into records (RFC 4180: quoted fields may hold commas, doubled quotes and
/// newlines). An error gives the line and the problem.
pub fn parse_csv(text: &str) -> std::result::Result<Records, (u32, String)> {
    let mut out = vec![];
    let mut line = 1u32;
    let mut chars = text.chars().peekable();
    while chars.peek().is_some() {
        let start = line;
        let mut rec = vec![];
        let mut field = String::new();
        let mut quoted = false;
        let mut at_start = true;
        loop {
            let Some(c) = chars.next() else {
                if quoted {
                    return Err((start, "unterminated quoted field".into()));
                }
                rec.push(std::mem::take(&mut field));
                break;
            };
            if quoted {
                match c {
                    '"' if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    '"' => quoted = false,
                    '\n' => {
                        line += 1;
                        field.push(c);
                    }
                    _ => field.push(c),
                }
                continue;
            }
            match c {
                '"' if at_start => {
                    quoted = true;
                    at_start = false;
                }
                ',' => {
                    rec.push(std::mem::take(&mut field));
                    at_start = true;
                }
                '\r' if chars.peek() == Some(&'\n') => {}
                '\n' => {
                    line += 1;
                    rec.push(std::mem::take(&mut field));
                    break;
                }
                _ => {
                    field.push(c);
                    at_start = false;
                }
            }
        }
        if !(rec.len() == 1 && rec[0].trim().is_empty()) {
            out.push((start, rec));
        }
    }
    Ok(out)
}

/// A CSV field, quoted when it needs to be.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub(super) fn csv_line(fields: &[String]) -> String {
    let mut s = fields
        .iter()
        .map(|f| csv_field(f))
        .collect::<Vec<_>>()
        .join(",");
    s.push('\n');
    s
}

/// Read a manifest; paths are resolved against the manifest's directory.
pub fn read_manifest(path: &Path) -> Result<Vec<Pair>> {
    let file = path.display().to_string();
    let text = fs::read_to_string(path).map_err(|e| Error::in_file(&file, e.to_string()))?;
    let recs = parse_csv(&text).map_err(|(l, m)| Error::at(&file, l, m))?;
    let Some((_, header)) = recs.first() else {
        return Err(Error::in_file(&file, "empty manifest"));
    };
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| Error::at(&file, 1, format!("manifest header has no `{name}` column")))
    };
    let (ci, co, cn, cf, ce) = (
        col("id")?,
        col("old")?,
        col("new")?,
        col("function")?,
        col("expected")?,
    );
    let cnote = col("note").ok();
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut pairs = vec![];
    for (line, r) in &recs[1..] {
        let get = |c: usize| -> Result<String> {
            r.get(c)
                .map(|s| s.trim().to_string())
                .ok_or_else(|| Error::at(&file, *line, format!("expected {} fields", header.len())))
        };
        let expected = match get(ce)?.as_str() {
            "equivalent" => Expected::Equivalent,
            "different" => Expected::Different,
            other => {
                return Err(Error::at(
                    &file,
                    *line,
                    format!("expected must be `equivalent` or `different`, not `{other}`"),
                ))
            }
        };
        let id = get(ci)?;
        if pairs.iter().any(|p: &Pair| p.id == id) {
            return Err(Error::at(&file, *line, format!("duplicate id `{id}`")));
        }
        pairs.push(Pair {
            id,
            old: dir.join(get(co)?),
            new: dir.join(get(cn)?),
            function: get(cf)?,
            expected,
            note: cnote.and_then(|c| r.get(c).cloned()).unwrap_or_default(),
        });
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_and_newlines() {
        let r = parse_csv("a,b\n1,\"x, \"\"y\"\"\"\n\"multi\nline\",2\n").unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(r[1].1, vec!["1", "x, \"y\""]);
        assert_eq!(r[2], (3, vec!["multi\nline".to_string(), "2".to_string()]));
        assert_eq!(csv_field("x, \"y\""), "\"x, \"\"y\"\"\"");
    }
}
