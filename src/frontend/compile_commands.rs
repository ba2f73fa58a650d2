//! Compilation databases (`compile_commands.json`): the real configuration of a source file.
//!
//! Takes the database path and a source path; gives the preprocessor options of the entry for
//! that file (`-I`, `-isystem`, `-iquote`, `-D`, `-U`, `-include`, `-std`, relative paths
//! resolved against the entry's directory) merged into [`super::Options`]. Used by the CLI
//! before loading; the frontend itself only sees the resulting options.

use std::path::{Path, PathBuf};

use crate::diag::{Error, Result};

use super::Options;

/// Add the flags of the entry for `source` in the database `db` to `opts`. `rel` is the path
/// of the source relative to the project root when known (files checked out by `--git` live
/// in a temporary directory): entries are matched by full path first, then by that relative
/// path, then by file name if only one entry has it.
pub fn apply(db: &Path, source: &Path, rel: Option<&Path>, opts: &mut Options) -> Result<()> {
    let display = db.display().to_string();
    let text = std::fs::read_to_string(db)
        .map_err(|e| Error::in_file(&display, format!("cannot read: {e}")))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::at(&display, e.line() as u32, format!("not valid JSON: {e}")))?;
    let entries = json
        .as_array()
        .ok_or_else(|| Error::in_file(&display, "expected a JSON array of entries"))?;
    let mut parsed = vec![];
    for e in entries {
        let dir = PathBuf::from(e["directory"].as_str().unwrap_or("."));
        let Some(file) = e["file"].as_str() else {
            continue;
        };
        let file = dir.join(file);
        let args: Vec<String> = match (&e["arguments"], e["command"].as_str()) {
            (serde_json::Value::Array(a), _) => a
                .iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect(),
            (_, Some(c)) => split_command(c),
            _ => continue,
        };
        parsed.push((dir, file, args));
    }
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let src = canon(source);
    let by_path = parsed.iter().find(|(_, f, _)| canon(f) == src);
    let by_rel = || {
        let rel = rel?;
        parsed.iter().find(|(_, f, _)| f.ends_with(rel))
    };
    let by_name = || {
        let name = source.file_name()?;
        let mut it = parsed
            .iter()
            .filter(|(_, f, _)| f.file_name() == Some(name));
        let first = it.next()?;
        it.next().is_none().then_some(first)
    };
    let Some((dir, _, args)) = by_path.or_else(by_rel).or_else(by_name) else {
        return Err(Error::in_file(
            &display,
            format!("no entry for {}", source.display()),
        ));
    };
    let abs = |p: &str| {
        let p = Path::new(p);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            dir.join(p)
        }
    };
    let mut i = 1; // args[0] is the compiler
    while i < args.len() {
        let a = args[i].as_str();
        // A flag and its value, attached (`-Idir`) or separate (`-I dir`).
        let mut take = |flag: &str| -> Option<String> {
            if a == flag {
                i += 1;
                args.get(i).cloned()
            } else {
                a.strip_prefix(flag).map(str::to_string)
            }
        };
        if let Some(v) = take("-I")
            .or_else(|| take("-isystem"))
            .or_else(|| take("-iquote"))
        {
            opts.include_dirs.push(abs(&v));
        } else if let Some(v) = take("-D") {
            opts.defines.push(v);
        } else if let Some(v) = take("-U") {
            opts.undefines.push(v);
        } else if a == "-include" {
            i += 1;
            if let Some(v) = args.get(i) {
                opts.forced_includes.push(abs(v));
            }
        } else if let Some(v) = a.strip_prefix("-std=") {
            opts.std = Some(v.to_string());
        }
        i += 1;
    }
    Ok(())
}

/// Split a shell command line into words (spaces, single and double quotes, backslashes).
fn split_command(c: &str) -> Vec<String> {
    let mut words = vec![];
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = c.chars();
    let mut quote: Option<char> = None;
    while let Some(ch) = chars.next() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') | (None, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                in_word = true;
            }
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(ch);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_commands() {
        assert_eq!(
            split_command(r#"cc -I inc -DNAME="a b" -c 'x y.c'"#),
            ["cc", "-I", "inc", "-DNAME=a b", "-c", "x y.c"]
        );
    }

    #[test]
    fn reads_flags_of_the_matching_entry() {
        let tmp = std::env::temp_dir().join(format!("dizy-cc-test-{}", std::process::id()));
        std::fs::create_dir_all(tmp.join("src")).unwrap();
        let db = tmp.join("compile_commands.json");
        let src = tmp.join("src/a.c");
        std::fs::write(&src, "int x;\n").unwrap();
        let dir = tmp.display().to_string();
        std::fs::write(
            &db,
            format!(
                r#"[{{"directory": "{dir}", "file": "src/b.c", "command": "cc -Iother -c src/b.c"}},
                   {{"directory": "{dir}", "file": "src/a.c", "command": "cc -Ilib -DX=1 -UY -std=c99 -include cfg.h -c src/a.c"}}]"#
            ),
        )
        .unwrap();
        let mut o = Options::default();
        apply(&db, &src, None, &mut o).unwrap();
        assert_eq!(o.include_dirs, [tmp.join("lib")]);
        assert_eq!(o.defines, ["X=1"]);
        assert_eq!(o.undefines, ["Y"]);
        assert_eq!(o.forced_includes, [tmp.join("cfg.h")]);
        assert_eq!(o.std.as_deref(), Some("c99"));
        let elsewhere = std::env::temp_dir().join("a.c");
        let mut o = Options::default();
        apply(&db, &elsewhere, Some(Path::new("src/a.c")), &mut o).unwrap();
        assert_eq!(o.defines, ["X=1"]);
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
