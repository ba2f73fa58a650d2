//! Map byte offsets in preprocessed text back to (file, line) of the original source.
//!
//! Takes the preprocessor output, which carries GCC line markers (`# 12 "file.c" 2`); gives, for
//! any span offset `lang-c` reports, the original file and line. Used by the lowering to stamp
//! every statement with its source line and to tell main-file definitions from header ones.

/// Offset → (file, line) table built from line markers.
#[derive(Clone, Debug)]
pub struct LineMap {
    /// Start offset of each preprocessed line with the file index, original line number, and
    /// whether the line marker before it flags system text (flag 3). The flag is the region's,
    /// not the file's: GCC marks the expansion of a system header's macro (`NULL` in a project
    /// header, `# 238 "gp.h" 3 4`) as system text inside a file that is none.
    starts: Vec<(usize, u32, u32, bool)>,
    files: Vec<String>,
    /// Index in `files` of the main file.
    main: u32,
}

impl LineMap {
    pub fn new(text: &str, display: &str) -> LineMap {
        let mut files: Vec<String> = Vec::new();
        let mut starts = Vec::new();
        let mut cur_file = 0u32;
        let mut cur_line = 1u32;
        let mut main: Option<u32> = None;
        let mut offset = 0usize;
        let mut cur_sys = false;
        files.push(display.to_string());
        for raw in text.split_inclusive('\n') {
            let l = raw.trim_start();
            if let Some((n, name, sys)) = parse_marker(l) {
                let idx = match files.iter().position(|f| *f == name) {
                    Some(i) => i as u32,
                    None => {
                        files.push(name.clone());
                        (files.len() - 1) as u32
                    }
                };
                cur_sys = sys;
                // The first marker naming a real file (not <built-in>) is the main file.
                if main.is_none() && !name.starts_with('<') {
                    main = Some(idx);
                }
                cur_file = idx;
                cur_line = n;
            } else {
                starts.push((offset, cur_file, cur_line, cur_sys));
                cur_line += 1;
            }
            offset += raw.len();
        }
        LineMap {
            starts,
            files,
            main: main.unwrap_or(0),
        }
    }

    /// File name and line of the preprocessed byte `offset`.
    pub fn locate(&self, offset: usize) -> Option<(String, u32)> {
        let (file, line) = self.locate_idx(offset)?;
        Some((self.files[file as usize].clone(), line))
    }

    fn locate_idx(&self, offset: usize) -> Option<(u32, u32)> {
        let i = match self.starts.binary_search_by(|s| s.0.cmp(&offset)) {
            Ok(i) => i,
            Err(0) => return None,
            Err(i) => i - 1,
        };
        let (_, f, l, _) = self.starts[i];
        Some((f, l))
    }

    /// Line of `offset` in the main file, or `None` if it comes from another file.
    pub fn main_line(&self, offset: usize) -> Option<u32> {
        match self.locate_idx(offset) {
            Some((f, l)) if f == self.main => Some(l),
            _ => None,
        }
    }

    /// Line of `offset` if in the main file, else 0.
    pub fn line(&self, offset: usize) -> u32 {
        self.main_line(offset).unwrap_or(0)
    }

    pub fn is_main(&self, offset: usize) -> bool {
        self.main_line(offset).is_some()
    }

    /// Whether `offset` lies in a system header (the C library's and the system's own, which
    /// the preprocessor marks with flag 3).
    pub fn is_system(&self, offset: usize) -> bool {
        let i = match self.starts.binary_search_by(|s| s.0.cmp(&offset)) {
            Ok(i) => i,
            Err(0) => return false,
            Err(i) => i - 1,
        };
        self.starts[i].3
    }
}

/// `# 12 "file.c" 1 3` → (12, "file.c", true): line, file and whether the marker flags a system
/// header (flag 3). Also accepts `#line 12 "file.c"`.
fn parse_marker(l: &str) -> Option<(u32, String, bool)> {
    let rest = l.strip_prefix('#')?.trim_start();
    let rest = rest
        .strip_prefix("line")
        .map(str::trim_start)
        .unwrap_or(rest);
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    let after = rest[digits.len()..].trim_start();
    let (name, flags) = after.strip_prefix('"').and_then(|s| {
        let mut out = String::new();
        let mut chars = s.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => return Some((out, &s[i + 1..])),
                '\\' => out.push(chars.next()?.1),
                c => out.push(c),
            }
        }
        None
    })?;
    Some((n, name, flags.split_whitespace().any(|f| f == "3")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_lines_through_markers() {
        let text = "# 1 \"a.c\"\n# 1 \"<built-in>\"\n# 1 \"a.c\"\nint x;\n# 1 \"h.h\" 1\nint y;\n# 3 \"a.c\" 2\nint z;\n";
        let m = LineMap::new(text, "a.c");
        let off_x = text.find("int x").unwrap();
        let off_y = text.find("int y").unwrap();
        let off_z = text.find("int z").unwrap();
        assert_eq!(m.main_line(off_x), Some(1));
        assert_eq!(m.main_line(off_y), None);
        assert_eq!(m.locate(off_y), Some(("h.h".to_string(), 1)));
        assert_eq!(m.main_line(off_z), Some(3));
        assert!(!m.is_system(off_y));
        let sys = "# 1 \"a.c\"\n# 1 \"/usr/include/stdio.h\" 1 3 4\nint puts(const char *);\n# 2 \"a.c\" 2\nint z;\n";
        let m = LineMap::new(sys, "a.c");
        assert!(m.is_system(sys.find("int puts").unwrap()));
        assert!(!m.is_system(sys.find("int z").unwrap()));
        // A system macro's expansion inside a project header (`NULL` in ghostscript's `gp.h`)
        // is system text; the header's own declarations are not.
        let mac = "# 1 \"a.c\"\n# 1 \"gp.h\" 1\nint f(void *p) { return p ==\n# 9 \"gp.h\" 3 4\n((void *)0)\n# 9 \"gp.h\"\n; }\nconst char *cur(void);\n# 2 \"a.c\" 2\n";
        let m = LineMap::new(mac, "a.c");
        assert!(m.is_system(mac.find("((void").unwrap()));
        assert!(!m.is_system(mac.find("const char *cur").unwrap()));
        assert!(!m.is_system(mac.find("int f").unwrap()));
    }
}
