//! Tolerant parsing of unconfigured source files.
//!
//! Takes preprocessed text whose project headers may have been replaced by empty stand-ins (see
//! `super::preprocess`), so that project typedefs and macros are unknown; gives a `lang-c` parse of
//! a repaired text plus the list of every repair, for the report. Sits between the preprocessor
//! and the lowering. Repairs, each tried only where the parser actually failed (bounded retries):
//!
//! * an unknown name in a type position (`idx_t n;`, `(uintmax_t) x`, `bool f (…)`) gets a
//!   typedef in a prelude placed before the text under a `<dizy-assumed>` line marker, so
//!   reported lines do not move: the standard names get their LP64 type, others `long` — a
//!   guess whose width and signedness decide overflow behaviour, reported per function;
//! * an unknown macro that cannot be an expression (`char *p IF_LINT (= NULL);`,
//!   `void f (void) ATTRIBUTE_NORETURN;`, `_GL_INLINE int f`, `static WEBP_INLINE T *f (…)`,
//!   `void PNGAPI f (int n)`) is blanked out (replaced by spaces, so offsets and lines stay
//!   put): an unknown name before another name and a declarator, or before a name whose
//!   parentheses hold parameter declarations or are followed by a body;
//! * an unknown macro used as a statement without `;` (`AssertH (c, 1007)` expanding to a
//!   braced block) gets its `;` in the whitespace that follows, and stays an unknown call;
//! * a syntax error that no rule repairs, inside a function body of the main file, blanks that
//!   body; the function is then reported as rejected with the parser's message, and the rest of
//!   the file is still analysed.
//!
//! `NULL`, `true` and `false` (also `True`/`TRUE`, `False`/`FALSE`) left undefined because
//! their header was missing become `0`, `1`, `0`; a macro wrapping a function's name
//! (`int BZ_API(f) (…)`) is reduced to the name. Project typedefs whose name gives the width
//! (`UInt32`, `u16`, `UChar`) get that width. Unknown function-like macros used as expressions (`_("msg")`, `TAB_WIDTH (a, b)`) need
//! no repair: they parse as calls to undeclared functions, which the lowering treats as unknown
//! external calls (compared as effects, results assumed `int`).

use std::collections::BTreeMap;

use lang_c::driver::{Config, Parse, SyntaxError};

/// How many repairs are tried before giving up on a file.
const MAX_REPAIRS: usize = 400;

const PRELUDE_MARKER: &str = "# 1 \"<dizy-assumed>\"\n";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tok {
    Ident,
    Number,
    Literal,
    Punct,
}

#[derive(Clone, Copy, Debug)]
struct Token {
    start: usize,
    end: usize,
    kind: Tok,
}

/// Everything the tolerant parse changed, with main-file positions (byte offsets in the body).
#[derive(Default, Debug, Clone)]
pub(super) struct Repairs {
    /// Guessed typedefs: name → (C type, offset of the use that needed it).
    pub typedefs: BTreeMap<String, (&'static str, usize)>,
    /// Blanked macro uses: (offset, original text).
    pub blanked: Vec<(usize, String)>,
    /// Undefined constants replaced: (offset, name, value).
    pub constants: Vec<(usize, String, &'static str)>,
    /// Macros wrapping a function name, reduced to the name: (offset, macro, name).
    pub unwrapped: Vec<(usize, String, String)>,
    /// `;` put after a statement macro: (offset of the `;`, offset and name of the macro).
    pub semicolons: Vec<(usize, usize, String)>,
    /// Unknown macros next to a string literal (`ESCS "]8;"`), each replaced by a placeholder
    /// literal of its length ([`placeholder`]): (offset, name). The lowering makes the whole
    /// literal an unknown string (`lower::Unconfigured::strings`).
    pub strings: Vec<(usize, String)>,
    /// Function bodies blanked after an unrepairable syntax error: (name, offset, message).
    pub bodies: Vec<(String, usize, String)>,
    /// Records assumed for missing types (see `super::opaque`); their typedefs replace the
    /// guesses of `typedefs`.
    pub layout: super::opaque::Layout,
}

impl Repairs {
    /// The type an unknown typedef name was given.
    pub fn typedef_type<'a>(&'a self, name: &str, guess: &'a str) -> &'a str {
        self.layout.typedefs.get(name).map_or(guess, |t| t.as_str())
    }

    /// The typedef names given a type by their name (not the default guess), with that type.
    pub fn named_guesses(&self) -> BTreeMap<String, String> {
        self.typedefs
            .iter()
            .filter(|(_, (ty, _))| *ty != DEFAULT_TYPE)
            .map(|(n, (ty, _))| (n.clone(), ty.to_string()))
            .collect()
    }

    /// The typedef names given the default guess: the ones a record may replace.
    pub fn default_guesses(&self) -> std::collections::BTreeSet<String> {
        self.typedefs
            .iter()
            .filter(|(_, (ty, _))| *ty == DEFAULT_TYPE)
            .map(|(n, _)| n.clone())
            .collect()
    }
}

/// The result of a tolerant parse: the final text is `prelude + body`.
pub(super) struct Tolerated {
    pub parse: Parse,
    /// Length of the prelude, to turn text offsets into body offsets.
    pub prelude_len: usize,
    pub repairs: Repairs,
}

/// Parse `body`, repairing what an unconfigured build leaves undefined. On failure gives the
/// syntax error of the last attempt (its offsets refer to `prelude + body`) and the prelude
/// length.
pub(super) fn parse(mut body: String) -> Result<Tolerated, (SyntaxError, usize)> {
    let cfg = Config::default();
    let mut rep = Repairs::default();
    replace_undefined_constants(&mut body, &mut rep);
    unwrap_function_names(&mut body, &mut rep);
    blank_lone_macros(&mut body, &mut rep);
    let mut last_fix: Option<(usize, String)> = None;
    for _ in 0..MAX_REPAIRS {
        let prelude = prelude(&rep);
        let text = format!("{prelude}{body}");
        let err = match lang_c::driver::parse_preprocessed(&cfg, text) {
            Ok(parse) => {
                return Ok(Tolerated {
                    parse,
                    prelude_len: prelude.len(),
                    repairs: rep,
                })
            }
            Err(e) => e,
        };
        if err.offset < prelude.len() {
            return Err((err, prelude.len()));
        }
        let at = err.offset - prelude.len();
        let toks = tokenize(&body);
        let applied = (rep.blanked.len(), rep.semicolons.len(), rep.strings.len());
        let fix = repair(&body, &toks, at, &mut rep);
        apply_blanks(&mut body, applied.0, &rep);
        for (at, _, _) in &rep.semicolons[applied.1..] {
            body.replace_range(*at..*at + 1, ";");
        }
        for (at, name) in &rep.strings[applied.2..] {
            body.replace_range(*at..*at + name.len(), &placeholder(name.len()));
        }
        // The same repair twice at the same place means it did not help: fall back.
        let fix = match fix {
            Some(f) if last_fix.as_ref() != Some(&f) => Some(f),
            _ => None,
        };
        match fix {
            Some(f) => last_fix = Some(f),
            None => match blank_body(&mut body, &toks, at) {
                Some((name, from, to)) => {
                    last_fix = None;
                    // Guesses made inside the hopeless body must not affect the rest.
                    rep.typedefs.retain(|_, (_, off)| !(from..to).contains(off));
                    rep.bodies.push((name, at, super::syntax_message(&err)));
                }
                None => return Err((err, prelude.len())),
            },
        }
    }
    let prelude = prelude(&rep);
    let text = format!("{prelude}{body}");
    match lang_c::driver::parse_preprocessed(&cfg, text) {
        Ok(parse) => Ok(Tolerated {
            parse,
            prelude_len: prelude.len(),
            repairs: rep,
        }),
        Err(e) => Err((e, prelude.len())),
    }
}

fn prelude(rep: &Repairs) -> String {
    if rep.typedefs.is_empty() && rep.layout.decls.is_empty() {
        return String::new();
    }
    let mut s = String::from(PRELUDE_MARKER);
    s.push_str(&rep.layout.decls);
    for (name, (ty, _)) in &rep.typedefs {
        s.push_str(&format!("typedef {} {name};\n", rep.typedef_type(name, ty)));
    }
    s
}

/// `t` parsed again with the prelude of its repairs after `change` (the repaired text is kept,
/// so every repair's offset stays valid); `t` itself if that does not parse.
pub(super) fn reparse(t: Tolerated, change: impl FnOnce(&mut Repairs)) -> Tolerated {
    let mut rep = t.repairs.clone();
    change(&mut rep);
    let prelude = prelude(&rep);
    let text = format!("{prelude}{}", &t.parse.source[t.prelude_len..]);
    match lang_c::driver::parse_preprocessed(&Config::default(), text) {
        Ok(parse) => Tolerated {
            parse,
            prelude_len: prelude.len(),
            repairs: rep,
        },
        Err(_) => t,
    }
}

/// LP64 types of the standard typedef names a missing header would have brought in.
/// The type an unknown typedef name is given: its standard type, the width its name says, or
/// the default guess.
fn guessed_type(name: &str) -> &'static str {
    known_type(name)
        .or_else(|| type_by_name(name))
        .unwrap_or(DEFAULT_TYPE)
}

fn known_type(name: &str) -> Option<&'static str> {
    Some(match name {
        "bool" => "_Bool",
        "size_t" | "uintmax_t" | "uintptr_t" | "uint64_t" | "uint_fast64_t" | "uint_least64_t"
        | "uint_fast16_t" | "uint_fast32_t" | "u_long" | "ulong" | "dev_t" | "ino_t"
        | "nlink_t" | "rlim_t" => "unsigned long",
        "ssize_t" | "intmax_t" | "intptr_t" | "ptrdiff_t" | "int64_t" | "int_fast64_t"
        | "int_least64_t" | "int_fast16_t" | "int_fast32_t" | "off_t" | "off64_t" | "time_t"
        | "clock_t" | "blksize_t" | "blkcnt_t" | "suseconds_t" | "idx_t" => "long",
        "uint32_t" | "uint_least32_t" | "u_int" | "uint" | "mode_t" | "uid_t" | "gid_t"
        | "wint_t" | "socklen_t" | "useconds_t" => "unsigned int",
        "int32_t" | "int_least32_t" | "pid_t" | "wchar_t" | "sig_atomic_t" => "int",
        "uint16_t" | "uint_least16_t" | "u_short" | "ushort" => "unsigned short",
        "int16_t" | "int_least16_t" => "short",
        "uint8_t" | "uint_least8_t" | "uint_fast8_t" | "u_char" => "unsigned char",
        "int8_t" | "int_least8_t" | "int_fast8_t" => "signed char",
        _ => return None,
    })
}

/// A project typedef whose name says its width (`UInt32`, `u16`, `Int64`, `UChar`, `uchar`).
fn type_by_name(name: &str) -> Option<&'static str> {
    let l = name.to_ascii_lowercase().replace('_', "");
    let l = l
        .strip_suffix('t')
        .filter(|_| name.ends_with("_t"))
        .unwrap_or(&l);
    let unsigned = l.starts_with('u');
    let digits: String = l.chars().rev().take_while(|c| c.is_ascii_digit()).collect();
    let stem = &l[..l.len() - digits.len()];
    let width: String = digits.chars().rev().collect();
    if !width.is_empty()
        && matches!(
            stem,
            "int" | "uint" | "i" | "u" | "s" | "sint" | "word" | "uword"
        )
    {
        return Some(match (width.as_str(), unsigned) {
            ("8", true) => "unsigned char",
            ("8", false) => "signed char",
            ("16", true) => "unsigned short",
            ("16", false) => "short",
            ("32", true) => "unsigned int",
            ("32", false) => "int",
            ("64", true) => "unsigned long",
            ("64", false) => "long",
            _ => return None,
        });
    }
    Some(match l {
        "uchar" | "byte" | "ubyte" => "unsigned char",
        "char" | "schar" => "char",
        "ushort" => "unsigned short",
        "uint" => "unsigned int",
        "ulong" => "unsigned long",
        _ => return None,
    })
}

/// The type given to an unknown typedef name that no standard header defines.
pub(super) const DEFAULT_TYPE: &str = "long";

const KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_Bool",
    "_Complex",
    "_Generic",
    "_Imaginary",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
    "__attribute__",
    "__attribute",
    "__extension__",
    "__inline",
    "__inline__",
    "__restrict",
    "__restrict__",
    "__const",
    "__volatile__",
    "__asm__",
    "__asm",
    "asm",
    "__typeof__",
    "typeof",
    "__signed__",
];

/// Keywords that start or continue declaration specifiers: an unknown name right before one
/// of them is an attribute-like macro, not a type.
const SPECIFIERS: &[&str] = &[
    "char",
    "const",
    "double",
    "enum",
    "extern",
    "float",
    "inline",
    "int",
    "long",
    "register",
    "short",
    "signed",
    "static",
    "struct",
    "union",
    "unsigned",
    "void",
    "volatile",
    "_Bool",
    "_Noreturn",
    "__inline",
    "__inline__",
];

fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// Try one repair for a syntax error at body offset `at`. Gives a description of the repair
/// (to notice when the same one repeats), or `None` if no rule applies.
fn repair(body: &str, toks: &[Token], at: usize, rep: &mut Repairs) -> Option<(usize, String)> {
    let k = toks.iter().position(|t| t.end > at).unwrap_or(toks.len());
    let text = |i: usize| -> &str { toks.get(i).map(|t| &body[t.start..t.end]).unwrap_or("") };
    let kind = |i: usize| toks.get(i).map(|t| t.kind);
    let unknown_ident = |i: usize| {
        kind(i) == Some(Tok::Ident) && !is_keyword(text(i)) && !rep.typedefs.contains_key(text(i))
    };
    // `T (*name)(…)` or `T (*name)[…]` with `T` unknown: a pointer to a function (or array)
    // returning a type a missing header defines (`bool (*func) (struct COLUMN *);` in pr.c).
    // The parser stops at the first `(` or at the parameter list, whichever it finds wrong.
    for i in (k.saturating_sub(5)..=k).rev() {
        if unknown_ident(i)
            && text(i + 1) == "("
            && text(i + 2) == "*"
            && kind(i + 3) == Some(Tok::Ident)
            && text(i + 4) == ")"
            && matches!(text(i + 5), "(" | "[")
        {
            let name = text(i).to_string();
            let ty = guessed_type(&name);
            rep.typedefs.insert(name.clone(), (ty, toks[i].start));
            return Some((toks[i].start, format!("typedef {name}")));
        }
    }
    // `ESCS "]8;"` or `"%" FMT`: an unknown macro next to a string literal is (part of) the
    // string; a placeholder literal of the same length takes its place, and the lowering makes
    // the concatenation an unknown string.
    let string = |i: usize| kind(i) == Some(Tok::Literal) && text(i).ends_with('"');
    for (m, other) in [(k.wrapping_sub(1), k), (k, k.wrapping_sub(1))] {
        if unknown_ident(m) && string(other) && text(m).len() >= 2 {
            let name = text(m).to_string();
            rep.strings.push((toks[m].start, name.clone()));
            return Some((toks[m].start, format!("string {name}")));
        }
    }
    // `MACRO (args)` as a statement without `;` (its expansion brought the braces): give it
    // its `;` in the whitespace before the next token, and it is a call like any other.
    if k > 0 && text(k - 1) == ")" {
        if let Some(open) = opening(toks, body, k - 1) {
            let stmt_start = open >= 2 && matches!(text(open - 2), ";" | "{" | "}" | ")" | ":");
            if open >= 1 && unknown_ident(open - 1) && stmt_start {
                let gap = toks
                    .get(k)
                    .and_then(|t| body.get(toks[k - 1].end..t.start))
                    .unwrap_or("");
                if let Some(p) = gap.rfind([' ', '\t']) {
                    let at = toks[k - 1].end + p;
                    rep.semicolons
                        .push((at, toks[open - 1].start, text(open - 1).to_string()));
                    return Some((at, "semicolon".into()));
                }
            }
        }
    }
    // `static WEBP_INLINE HTreeGroup* f (…)`, `static INLINE uint32_t name`: of two unknown
    // names side by side before a declarator one is a type and the other an attribute-like
    // macro. Before `*` the second is the type (a calling-convention macro stands right before
    // the name: `T * MACRO f`); before a name only when the second is known to be a type
    // (`XML_Bool FASTCALL poolGrow (…)` is the other way round, left to the rules below). The
    // parser stops at the macro, the type or what follows it.
    let known = |name: &str| {
        rep.typedefs.contains_key(name)
            || known_type(name).is_some()
            || type_by_name(name).is_some()
    };
    // `public POSITION x;` (less): both names unknown, the second is used as a type elsewhere
    // in the file (`static POSITION pos;`) and the first never is: the first is the macro.
    let evident = |a: &str, b: &str| type_evidence(body, toks, b) && !type_evidence(body, toks, a);
    for i in [k, k.wrapping_sub(1), k.wrapping_sub(2)] {
        let prev = if i == 0 { "" } else { text(i - 1) };
        if i <= k
            && unknown_ident(i)
            && !matches!(prev, "struct" | "union" | "enum")
            && kind(i + 1) == Some(Tok::Ident)
            && !is_keyword(text(i + 1))
            && (text(i + 2) == "*"
                || kind(i + 2) == Some(Tok::Ident)
                    && !is_keyword(text(i + 2))
                    && (known(text(i + 1)) || evident(text(i), text(i + 1))))
        {
            blank(body, toks[i].start, toks[i].end, rep);
            return Some((toks[i].start, "blank".into()));
        }
    }
    // Look at the failing token and the few before it (`T * const p =` fails at `=`).
    for back in 0..5usize {
        let Some(i) = k.checked_sub(back) else { break };
        if !unknown_ident(i) {
            continue;
        }
        let name = text(i).to_string();
        let next = text(i + 1);
        let prev = if i == 0 { "" } else { text(i - 1) };
        let next_is_ident = kind(i + 1) == Some(Tok::Ident);
        // `( NAME )` or `( NAME *` before the error: a cast to an unknown type.
        let cast = back > 0 && prev == "(" && (next == ")" || next == "*");
        // `(png_bytep)png_malloc (…)`, `(png_uint_32)PNG_MAX_PALETTE_LENGTH * n`: the parser
        // stops at the name after `( NAME )` (not after `if (x)` or a call's `f (x)`): a cast
        // to an unknown type, not a macro to drop or a declaration.
        let after_cast = i >= 3
            && prev == ")"
            && unknown_ident(i - 2)
            && text(i - 3) == "("
            && (i == 3 || {
                let before = text(i - 4);
                !matches!(before, "if" | "while" | "for" | "switch")
                    && (kind(i - 4) != Some(Tok::Ident) || is_keyword(before))
                    && before != ")"
                    && before != "]"
            });
        if after_cast {
            let name = text(i - 2).to_string();
            let ty = guessed_type(&name);
            rep.typedefs.insert(name.clone(), (ty, toks[i - 2].start));
            return Some((toks[i - 2].start, format!("typedef {name}")));
        }
        if next == "(" && back <= 1 && !cast {
            let close = matching(toks, body, i + 1)?;
            // `void PNGAPI set_q (int n) {`: the parser took the calling-convention macro for
            // the declarator and stops at the real name, whose parameter list follows (a body
            // after it, or declarations in it): the macro is what expands to nothing.
            let before = i.checked_sub(1).filter(|&j| unknown_ident(j));
            if let Some(j) = before
                .filter(|_| text(close + 1) == "{" || parameter_list(body, &toks[i + 2..close]))
            {
                blank(body, toks[j].start, toks[j].end, rep);
                return Some((toks[j].start, "blank".into()));
            }
            // A function-like macro where no expression can stand: expand it to nothing.
            blank(body, toks[i].start, toks[close].end, rep);
            return Some((toks[i].start, "blank".into()));
        }
        // Further back only a cast or `T *` can explain an error (`T * const p =` fails at `=`).
        if back >= 2 && !(cast || next == "*") {
            continue;
        }
        if next_is_ident && SPECIFIERS.contains(&next) {
            blank(body, toks[i].start, toks[i].end, rep);
            return Some((toks[i].start, "blank".into()));
        }
        // After a type (`int x UNUSED`, `struct s v`) the name is a declarator, not a type.
        let after_type = TYPE_WORDS.contains(&prev) || rep.typedefs.contains_key(prev);
        let qualifier = matches!(next, "const" | "volatile" | "restrict" | "__restrict");
        if cast
            || (!after_type && ((next_is_ident && !is_keyword(next)) || next == "*" || qualifier))
        {
            let ty = guessed_type(&name);
            rep.typedefs.insert(name.clone(), (ty, toks[i].start));
            return Some((toks[i].start, format!("typedef {name}")));
        }
    }
    // `f (krb5_context, krb5_pa_data *const *, krb5_preauthtype);`: an unnamed parameter of
    // an unknown type, in a list whose other parameters show it is one of declarations. The
    // parser may stop anywhere in the list (`f (ctx, unknown, int x)` fails at `x`).
    if let Some(name) = unnamed_unknown_parameter(body, toks, k, &unknown_ident, &known) {
        let ty = guessed_type(&name);
        let at = toks
            .iter()
            .find(|t| body[t.start..t.end] == name)
            .map_or(0, |t| t.start);
        rep.typedefs.insert(name.clone(), (ty, at));
        return Some((at, format!("typedef {name}")));
    }
    // `int x UNUSED;`, `void f (void) NORETURN;`: an attribute-like macro where the error is.
    if unknown_ident(k) && matches!(text(k + 1), ";" | "," | "{" | "=" | ")" | "[") {
        let prev = if k == 0 { "" } else { text(k - 1) };
        if !matches!(prev, "(" | ",") {
            blank(body, toks[k].start, toks[k].end, rep);
            return Some((toks[k].start, "blank".into()));
        }
    }
    None
}

/// In the parenthesized list around token `k`: a parameter that is one unknown name alone
/// (`, T,`, `(T)`, `, const T,`), the last one up to `k`, where another parameter declares with a type word, a known type, `const`
/// or `*` — so the list declares parameters and the lone name must be a type.
fn unnamed_unknown_parameter(
    body: &str,
    toks: &[Token],
    k: usize,
    unknown: &dyn Fn(usize) -> bool,
    known: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let text = |i: usize| -> &str { toks.get(i).map(|t| &body[t.start..t.end]).unwrap_or("") };
    // The `(` that opens the list around `k` (at most one statement back).
    let mut depth = 0i32;
    let mut open = None;
    for j in (0..k.min(toks.len())).rev() {
        match text(j) {
            ")" => depth += 1,
            "(" if depth == 0 => {
                open = Some(j);
                break;
            }
            "(" => depth -= 1,
            ";" | "{" | "}" => return None,
            _ => {}
        }
    }
    let open = open?;
    // A prototype at file scope, or a function pointer's parameters (`(*cb) (ctx, T)`): inside
    // a body the list may be a call's arguments, whose names are variables.
    let braces = toks[..open]
        .iter()
        .fold(0i32, |d, t| match &body[t.start..t.end] {
            "{" => d + 1,
            "}" => d - 1,
            _ => d,
        });
    if braces != 0 && text(open.wrapping_sub(1)) != ")" {
        return None;
    }
    let close = matching(toks, body, open)?;
    let (mut declarations, mut lone) = (false, None);
    let mut depth = 0i32;
    let mut start = open + 1;
    for j in open + 1..=close {
        let t = text(j);
        match t {
            "(" | "[" => depth += 1,
            ")" | "]" if j < close => depth -= 1,
            _ => {}
        }
        if depth == 0 && (t == "*" || t == "const" || TYPE_WORDS.contains(&t) || known(t)) {
            declarations = true;
        }
        if depth == 0 && (t == "," || j == close) {
            // The parser stops at or after the name it could not take: the last one up to `k`.
            let mut first = start;
            while first + 1 < j && matches!(text(first), "const" | "volatile") {
                first += 1;
            }
            if j == first + 1 && unknown(first) && first <= k {
                lone = Some(text(first).to_string());
            }
            start = j + 1;
        }
    }
    lone.filter(|_| declarations)
}

/// Whether the file uses `name` somewhere only a type can stand: right after a storage class
/// or qualifier, or opening a parameter, and followed by a lone declarator (`static T x;`,
/// `extern T x[…]`, `(T p)`, `, T p,`). A macro in such a place (`static INLINE int f`) is
/// followed by a type, not by a name and the end of a declarator, so it gives no evidence.
fn type_evidence(body: &str, toks: &[Token], name: &str) -> bool {
    let text = |i: usize| -> &str { toks.get(i).map(|t| &body[t.start..t.end]).unwrap_or("") };
    (1..toks.len()).any(|i| {
        if toks[i].kind != Tok::Ident || text(i) != name {
            return false;
        }
        let declarator =
            toks.get(i + 1).is_some_and(|t| t.kind == Tok::Ident) && !is_keyword(text(i + 1));
        if !declarator {
            return false;
        }
        match text(i - 1) {
            "static" | "extern" | "const" | "volatile" | "register" => {
                matches!(text(i + 2), ";" | "=" | "[" | ",")
            }
            "(" | "," => matches!(text(i + 2), "," | ")" | "["),
            _ => false,
        }
    })
}

/// Whether `toks` (between a `(` and its `)`) read as parameter declarations: `void`, or each
/// comma-separated part at least a type and a name (`z_streamp strm`, `const char *s`,
/// `...`), not the numbers and single names an attribute macro takes (`FORMAT (3, 0)`).
fn parameter_list(body: &str, toks: &[Token]) -> bool {
    let text = |t: &Token| &body[t.start..t.end];
    if toks.len() == 1 && text(&toks[0]) == "void" {
        return true;
    }
    !toks.is_empty()
        && toks.split(|t| text(t) == ",").all(|part| match part {
            [] => false,
            [t] => text(t) == "...",
            [.., last] => {
                last.kind == Tok::Ident
                    && part.iter().all(|t| t.kind == Tok::Ident || text(t) == "*")
            }
        })
}

/// Type keywords after which a name is a declarator (or a tag).
const TYPE_WORDS: &[&str] = &[
    "char", "short", "int", "long", "float", "double", "signed", "unsigned", "void", "_Bool",
    "struct", "union", "enum",
];

/// Replace `body[start..end]` by spaces (newlines kept) and remember what was there.
/// A string literal `len` bytes long that stands for an unknown macro (`"@@"` for `ESCS`).
pub(super) fn placeholder(len: usize) -> String {
    format!("\"{}\"", "@".repeat(len.saturating_sub(2)))
}

fn blank(body: &str, start: usize, end: usize, rep: &mut Repairs) {
    rep.blanked.push((start, body[start..end].to_string()));
}

/// Replace the text of the blanks recorded from index `from` on by spaces (one per byte, so
/// offsets do not move); newlines and the line markers the preprocessor put inside the blanked
/// text stay, so lines do not move either.
fn apply_blanks(body: &mut String, from: usize, rep: &Repairs) {
    for (start, orig) in &rep.blanked[from..] {
        let mut spaces = String::with_capacity(orig.len());
        let mut at_line_start = false;
        for line in orig.split_inclusive('\n') {
            if at_line_start && line.trim_start().starts_with('#') {
                spaces.push_str(line);
            } else {
                for c in line.chars() {
                    if c == '\n' {
                        spaces.push('\n');
                    } else {
                        spaces.push_str(&" ".repeat(c.len_utf8()));
                    }
                }
            }
            at_line_start = line.ends_with('\n');
        }
        body.replace_range(*start..*start + orig.len(), &spaces);
    }
}

/// Index of the token opening the bracket closed at token `close`.
fn opening(toks: &[Token], body: &str, close: usize) -> Option<usize> {
    let mut depth = 0i32;
    for j in (0..=close).rev() {
        match &body[toks[j].start..toks[j].end] {
            ")" | "]" | "}" => depth += 1,
            "(" | "[" | "{" => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// Index of the token closing the bracket opened at token `open`.
fn matching(toks: &[Token], body: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (j, t) in toks.iter().enumerate().skip(open) {
        match &body[t.start..t.end] {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// If offset `at` lies inside the body of a file-scope function definition, replace the body's
/// contents by spaces and give the function's name and the blanked range.
fn blank_body(body: &mut String, toks: &[Token], at: usize) -> Option<(String, usize, usize)> {
    // Only braces count: the broken code may have unbalanced parentheses.
    let mut depth = 0i32;
    let mut open: Option<usize> = None;
    for (j, t) in toks.iter().enumerate() {
        match &body[t.start..t.end] {
            "{" => {
                if depth == 0 {
                    // A function body follows `)` (or K&R parameter declarations ending in `;`).
                    let prev = if j == 0 {
                        ""
                    } else {
                        &body[toks[j - 1].start..toks[j - 1].end]
                    };
                    open = (prev == ")" || prev == ";").then_some(j);
                }
                depth += 1;
            }
            "}" => {
                depth -= 1;
                if depth == 0 {
                    if let Some(o) = open.take() {
                        if toks[o].start <= at && at <= t.end {
                            let name = function_name(body, toks, o)?;
                            let (from, to) = (toks[o].end, t.start);
                            let orig = body[from..to].to_string();
                            let mut rep = Repairs::default();
                            rep.blanked.push((from, orig));
                            apply_blanks(body, 0, &rep);
                            return Some((name, from, to));
                        }
                    }
                }
            }
            _ => {}
        }
        if t.start > at && depth <= 0 {
            break;
        }
    }
    None
}

/// The declarator name of the function whose body opens at token `open`: the identifier before
/// the first `(` at nesting depth 0 of the declaration that precedes it.
fn function_name(body: &str, toks: &[Token], open: usize) -> Option<String> {
    let text = |j: usize| &body[toks[j].start..toks[j].end];
    // K&R: `name (a, b) T a; U b; {`. The name is before the parameter list that a parameter
    // declaration (a name or keyword, not `(`, `;` or `,`) follows.
    if open > 0 && text(open - 1) == ";" {
        for j in (0..open - 1).rev() {
            match text(j) {
                "{" | "}" => return None,
                ")" if toks.get(j + 1).is_some_and(|t| t.kind == Tok::Ident) => {
                    let o = opening(toks, body, j)?;
                    if o > 0 && toks[o - 1].kind == Tok::Ident && !is_keyword(text(o - 1)) {
                        return Some(text(o - 1).to_string());
                    }
                }
                _ => {}
            }
        }
        return None;
    }
    // Walk back to the start of the declaration (a `;` or `}` at depth 0).
    let mut depth = 0i32;
    let mut start = 0;
    for j in (0..open).rev() {
        match &body[toks[j].start..toks[j].end] {
            ")" | "]" => depth += 1,
            "(" | "[" => depth -= 1,
            ";" | "}" if depth == 0 => {
                start = j + 1;
                break;
            }
            _ => {}
        }
    }
    let mut depth = 0i32;
    for j in start..open {
        match &body[toks[j].start..toks[j].end] {
            "(" => {
                if depth == 0 && j > 0 && toks[j - 1].kind == Tok::Ident {
                    let name = &body[toks[j - 1].start..toks[j - 1].end];
                    if !is_keyword(name) {
                        return Some(name.to_string());
                    }
                }
                depth += 1;
            }
            ")" => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `int MACRO (name) (params) {` at file scope: a macro wrapping a function's name (`BZ_API`,
/// `EXPORT`). As C it would declare a function returning a function, which cannot be: keep
/// only the name, so each function keeps its own name.
fn unwrap_function_names(body: &mut String, rep: &mut Repairs) {
    let toks = tokenize(body);
    let t = |i: usize| &body[toks[i].start..toks[i].end];
    let mut depth = 0i32;
    let mut edits = vec![];
    for i in 0..toks.len() {
        match t(i) {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            _ => {}
        }
        if depth != 0 || i + 4 >= toks.len() || i == 0 {
            continue;
        }
        let shape = toks[i].kind == Tok::Ident
            && !is_keyword(t(i))
            && t(i + 1) == "("
            && toks[i + 2].kind == Tok::Ident
            && !is_keyword(t(i + 2))
            && t(i + 3) == ")"
            && t(i + 4) == "("
            // After a type (`int BZ_API(f) (…)`), not where `i` is itself the type
            // (`typedef T (fn_t) (…)`, `; size_t (strlen) (…)`).
            && (t(i - 1) == "*"
                || toks[i - 1].kind == Tok::Ident
                    && (!is_keyword(t(i - 1)) || TYPE_WORDS.contains(&t(i - 1))));
        if shape {
            edits.push((i, i + 3, t(i).to_string(), t(i + 2).to_string()));
            continue;
        }
        // `FT_LOCAL_DEF( void ) TT_Get_HMetrics( …`: a macro wrapping the return type (its
        // definition adds linkage), at the start of a declaration.
        let starts = matches!(t(i - 1), ";" | "}");
        if starts && toks[i].kind == Tok::Ident && !is_keyword(t(i)) && t(i + 1) == "(" {
            let close = (i + 2..toks.len().min(i + 10)).find(|&j| t(j) == ")");
            if let Some(c) = close.filter(|&c| c > i + 2 && c + 2 < toks.len()) {
                let ty = (i + 2..c).all(|j| toks[j].kind == Tok::Ident || t(j) == "*");
                if ty && toks[c + 1].kind == Tok::Ident && !is_keyword(t(c + 1)) && t(c + 2) == "("
                {
                    let inner = body[toks[i + 2].start..toks[c - 1].end].to_string();
                    edits.push((i, c, t(i).to_string(), inner));
                }
            }
        }
    }
    for (i, close, mac, inner) in edits {
        for j in [i, i + 1, close] {
            let (s, e) = (toks[j].start, toks[j].end);
            body.replace_range(s..e, &" ".repeat(e - s));
        }
        rep.unwrapped.push((toks[i].start, mac, inner));
    }
}

/// `NULL`, `true`, `false` that survive preprocessing were never defined (their header was
/// missing): give them their standard values, padded to keep offsets.
fn replace_undefined_constants(body: &mut String, rep: &mut Repairs) {
    let toks = tokenize(body);
    let mut edits = vec![];
    for t in &toks {
        if t.kind != Tok::Ident {
            continue;
        }
        let value = match &body[t.start..t.end] {
            "NULL" | "false" | "False" | "FALSE" => "0",
            "true" | "True" | "TRUE" => "1",
            _ => continue,
        };
        // A declaration of the name (e.g. `enum { false, true }`) means it is defined.
        edits.push((t.start, t.end, value));
    }
    if edits.is_empty() || declares_constants(body, &toks) {
        return;
    }
    for (s, e, v) in edits {
        let name = body[s..e].to_string();
        let padded = format!("{v}{}", " ".repeat(e - s - v.len()));
        body.replace_range(s..e, &padded);
        rep.constants.push((s, name, v));
    }
}

/// Words that can open a file-scope declaration.
const DECLARATION_STARTS: &[&str] = &[
    "typedef",
    "extern",
    "static",
    "struct",
    "union",
    "enum",
    "const",
    "volatile",
    "inline",
    "void",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
    "signed",
    "unsigned",
    "_Bool",
    "__attribute__",
    "__extension__",
    "_Static_assert",
];

/// `GSSRPC__BEGIN_DECLS` / `GSSRPC__END_DECLS` (krb5's, whose definition a generated header
/// has): a name alone on its line at file scope, after a complete declaration (or at the start),
/// followed by a declaration or by the end of the text, can only be a macro that expands to
/// nothing — no C declaration has that shape — so it is blanked before parsing.
fn blank_lone_macros(body: &mut String, rep: &mut Repairs) {
    let toks = tokenize(body);
    let text = |i: usize| &body[toks[i].start..toks[i].end];
    let gap = |a: usize, b: usize| body[a..b].contains('\n');
    // Nesting depth before each token, and which tokens are lone names at file scope.
    let mut depth = 0i32;
    let mut lone = vec![false; toks.len()];
    for i in 0..toks.len() {
        let prev_ends = i == 0 || matches!(text(i - 1), ";" | "}") || lone[i - 1];
        lone[i] = depth == 0
            && toks[i].kind == Tok::Ident
            && !is_keyword(text(i))
            && prev_ends
            && (i == 0 || gap(toks[i - 1].end, toks[i].start))
            && toks.get(i + 1).is_none_or(|n| gap(toks[i].end, n.start));
        match text(i) {
            "{" | "(" | "[" => depth += 1,
            "}" | ")" | "]" => depth -= 1,
            _ => {}
        }
    }
    // Blank from the back: a lone name before a declaration, the end, or a blanked name.
    let mut blanked = vec![false; toks.len()];
    for i in (0..toks.len()).rev() {
        if !lone[i] {
            continue;
        }
        let next_ok = match toks.get(i + 1) {
            None => true,
            Some(_) => DECLARATION_STARTS.contains(&text(i + 1)) || blanked[i + 1],
        };
        blanked[i] = next_ok;
    }
    let spans: Vec<(usize, usize)> = (0..toks.len())
        .filter(|&i| blanked[i])
        .map(|i| (toks[i].start, toks[i].end))
        .collect();
    if spans.is_empty() {
        return;
    }
    let from = rep.blanked.len();
    for (a, b) in spans {
        blank(body, a, b, rep);
    }
    apply_blanks(body, from, rep);
}

/// Whether the text declares `true`/`false`/`NULL` itself, as enumerators (then they are not
/// ours to define; being conservative here only costs precision: uses stay undeclared).
fn declares_constants(body: &str, toks: &[Token]) -> bool {
    let t = |i: usize| &body[toks[i].start..toks[i].end];
    let has_enum = toks.iter().any(|k| &body[k.start..k.end] == "enum");
    has_enum
        && (1..toks.len().saturating_sub(1)).any(|i| {
            matches!(
                t(i),
                "true" | "false" | "NULL" | "True" | "False" | "TRUE" | "FALSE"
            ) && matches!(t(i - 1), "{" | ",")
                && matches!(t(i + 1), "," | "}" | "=")
        })
}

/// A minimal C tokenizer for preprocessed text: skips line markers and other directives at the
/// start of a line, whitespace; strings and character constants are single tokens.
fn tokenize(s: &str) -> Vec<Token> {
    let b = s.as_bytes();
    let mut toks = vec![];
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'#' && line_start {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        line_start = false;
        let start = i;
        let kind = if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80 {
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$' || b[i] >= 0x80)
            {
                i += 1;
            }
            // A string prefix (`L"…"`, `u8"…"`) belongs to the literal.
            if i < b.len()
                && (b[i] == b'"' || b[i] == b'\'')
                && matches!(&s[start..i], "L" | "u" | "U" | "u8")
            {
                i = skip_literal(b, i);
                Tok::Literal
            } else {
                Tok::Ident
            }
        } else if c.is_ascii_digit() || (c == b'.' && i + 1 < b.len() && b[i + 1].is_ascii_digit())
        {
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'.'
                    || b[i] == b'_'
                    || ((b[i] == b'+' || b[i] == b'-')
                        && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P')))
            {
                i += 1;
            }
            Tok::Number
        } else if c == b'"' || c == b'\'' {
            i = skip_literal(b, i);
            Tok::Literal
        } else {
            const THREE: &[&[u8]] = &[b"<<=", b">>=", b"..."];
            const TWO: &[&[u8]] = &[
                b"->", b"++", b"--", b"<<", b">>", b"<=", b">=", b"==", b"!=", b"&&", b"||", b"*=",
                b"/=", b"%=", b"+=", b"-=", b"&=", b"^=", b"|=", b"##",
            ];
            let rest = &b[i..];
            i += if THREE.iter().any(|p| rest.starts_with(p)) {
                3
            } else if TWO.iter().any(|p| rest.starts_with(p)) {
                2
            } else {
                // One character (a whole UTF-8 sequence for non-ASCII bytes, kept by the
                // identifier branch above).
                1
            };
            Tok::Punct
        };
        toks.push(Token {
            start,
            end: i.min(b.len()),
            kind,
        });
    }
    toks
}

fn skip_literal(b: &[u8], mut i: usize) -> usize {
    let q = b[i];
    i += 1;
    while i < b.len() && b[i] != q && b[i] != b'\n' {
        if b[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    (i + 1).min(b.len())
}

/// Feed the tokens of `s` (not whitespace, not line markers) to `h`.
pub(super) fn hash_tokens(s: &str, h: &mut impl std::hash::Hasher) {
    for t in tokenize(s) {
        h.write(&s.as_bytes()[t.start..t.end]);
        h.write_u8(0);
    }
}

/// What the tokens of `s` refer to (see [`crate::ir::TokenRefs`]).
pub(super) fn token_refs(s: &str) -> crate::ir::TokenRefs {
    let toks = tokenize(s);
    let text = |t: &Token| &s[t.start..t.end];
    let mut r = crate::ir::TokenRefs::default();
    for (i, t) in toks.iter().enumerate() {
        if t.kind == Tok::Ident {
            r.idents.insert(text(t).to_string());
            if toks.get(i + 1).map(text) != Some("(") {
                r.uncalled.insert(text(t).to_string());
            }
        }
        if text(t) != "(" || i == 0 {
            continue;
        }
        let prev = &toks[i - 1];
        match (prev.kind, text(prev)) {
            (Tok::Ident, name) => {
                r.called.insert(name.to_string());
            }
            // `f(x)(y)`, `t[i](x)`, `(*p)(x)` (and casts, counted too: conservative).
            (Tok::Punct, ")" | "]") => r.computed_call = true,
            _ => {}
        }
    }
    r
}

/// Whether identifier `name` occurs as a token in `body[start..end]`; gives the first offset.
pub(super) fn find_ident(body: &str, start: usize, end: usize, name: &str) -> Option<usize> {
    let end = end.min(body.len());
    let mut from = start.min(end);
    while let Some(p) = body[from..end].find(name) {
        let s = from + p;
        let e = s + name.len();
        let before = s == 0 || {
            let c = body.as_bytes()[s - 1];
            !(c.is_ascii_alphanumeric() || c == b'_')
        };
        let after = e >= body.len() || {
            let c = body.as_bytes()[e];
            !(c.is_ascii_alphanumeric() || c == b'_')
        };
        if before && after {
            return Some(s);
        }
        from = e;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repaired(src: &str) -> Tolerated {
        match parse(src.to_string()) {
            Ok(t) => t,
            Err((e, _)) => panic!("not repaired: {e:?}"),
        }
    }

    #[test]
    fn unknown_macros_next_to_string_literals_become_placeholders() {
        let src = "int f(void) { return puts(ESCS \"]8;\" FMT) + puts(\"a\" \"b\"); }\n";
        let t = repaired(src);
        let names: Vec<&str> = t.repairs.strings.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(names, ["ESCS", "FMT"]);
        for (off, n) in &t.repairs.strings {
            let at = off + t.prelude_len;
            assert_eq!(&t.parse.source[at..at + n.len()], placeholder(n.len()));
        }
        // Offsets do not move: the rest of the text is where it was.
        assert_eq!(t.parse.source.len() - t.prelude_len, src.len());
    }

    /// libpng's `(png_bytep)png_malloc (png_ptr, n)` where `png_bytep` is declared nowhere
    /// before: a cast, not a macro call to drop; `if (x) f (y)` is left alone.
    #[test]
    fn a_call_after_a_parenthesized_unknown_name_is_cast() {
        let t = repaired("void g(int n) { char *p; p = (png_bytep)png_malloc(0, n); }\n");
        assert!(
            t.repairs.typedefs.contains_key("png_bytep"),
            "{:?}",
            t.repairs.typedefs
        );
        assert!(t.repairs.blanked.is_empty(), "{:?}", t.repairs.blanked);
        let t = repaired("int k(int n) { return (u32)LIMIT * n; }\n");
        assert!(
            t.repairs.typedefs.contains_key("u32"),
            "{:?}",
            t.repairs.typedefs
        );
        assert!(
            !t.repairs.typedefs.contains_key("LIMIT"),
            "{:?}",
            t.repairs.typedefs
        );
        let t = repaired("int h(int x) { if (x) MACRO(x) return x; return 0; }\n");
        assert!(
            !t.repairs.typedefs.contains_key("x"),
            "{:?}",
            t.repairs.typedefs
        );
    }

    #[test]
    fn unknown_typedefs_get_a_prelude() {
        let t = repaired("# 1 \"a.c\"\nstatic idx_t f (uintmax_t n, bool b) { idx_t i = (idx_t) n; uintmax_t *p = 0; return i + b + (p != 0); }\n");
        let names: Vec<_> = t.repairs.typedefs.keys().cloned().collect();
        assert_eq!(names, ["bool", "idx_t", "uintmax_t"]);
        assert_eq!(t.repairs.typedefs["uintmax_t"].0, "unsigned long");
        assert_eq!(t.repairs.typedefs["bool"].0, "_Bool");
        assert!(t.repairs.blanked.is_empty());
    }

    #[test]
    fn function_pointer_members_of_unknown_return_type() {
        let t = repaired("struct C { bool (*func) (struct C *); int (*g)(void); u8 (*tab)[4]; };\nint f(void) { return 0; }\n");
        assert_eq!(t.repairs.typedefs["bool"].0, "_Bool");
        assert!(t.repairs.typedefs.contains_key("u8"));
    }

    #[test]
    fn names_give_widths_and_wrapped_names_are_unwrapped() {
        let t = repaired(
            "# 1 \"a.c\"\nint API(f) (UInt32 a, Int16 b, UChar c) { return a + b + c; }\n",
        );
        assert_eq!(t.repairs.typedefs["UInt32"].0, "unsigned int");
        assert_eq!(t.repairs.typedefs["Int16"].0, "short");
        assert_eq!(t.repairs.typedefs["UChar"].0, "unsigned char");
        assert_eq!(t.repairs.unwrapped[0].2, "f");
    }

    #[test]
    fn statement_macros_are_blanked() {
        let t = repaired("# 1 \"a.c\"\nint f (void) { char *p IF_LINT (= 0); int x UNUSED; p = 0; x = 1; return x + (p == 0); }\nvoid g (void) NORETURN;\nstatic INLINE int h (void) { return 1; }\n");
        let blanked: Vec<_> = t.repairs.blanked.iter().map(|b| b.1.clone()).collect();
        assert_eq!(blanked, ["IF_LINT (= 0)", "UNUSED", "NORETURN", "INLINE"]);
        assert!(t.repairs.typedefs.is_empty());
    }

    /// Calling-convention and inline macros before the name or before a (possibly unknown)
    /// return type (libpng's `PNGAPI`, zlib's `ZEXPORT`, libwebp's `WEBP_INLINE`), whereas an
    /// attribute macro with arguments after a declarator is still the one blanked.
    #[test]
    fn macros_before_the_name_or_the_type_are_blanked() {
        let t = repaired(
            "# 1 \"a.c\"\ntypedef unsigned int uint32_t;\nvoid PNGAPI\nset_q(int n) { }\nint ZEXPORT zf(z_streamp strm, int flush) { return flush; }\nstatic WEBP_INLINE uint32_t gm(int x) { return x; }\nstatic WEBP_INLINE HTreeGroup* gh(VP8LMetadata* const hdr) { return 0; }\nvoid PNGAPI decl(int n);\nint x ATTR(3);\ntypedef struct { int n; } STRING_POOL;\nstatic XML_Bool FASTCALL poolGrow(STRING_POOL *pool);\n",
        );
        let blanked: Vec<_> = t.repairs.blanked.iter().map(|b| b.1.clone()).collect();
        assert_eq!(
            blanked,
            [
                "PNGAPI",
                "ZEXPORT",
                "WEBP_INLINE",
                "WEBP_INLINE",
                "PNGAPI",
                "ATTR(3)",
                "FASTCALL"
            ]
        );
        let names: Vec<_> = t.repairs.typedefs.keys().cloned().collect();
        assert_eq!(
            names,
            ["HTreeGroup", "VP8LMetadata", "XML_Bool", "z_streamp"]
        );
    }

    /// `public POSITION x;` (less's `public` expands to nothing): of two unknown names the one
    /// the file also uses alone as a type is the type, whichever comes first.
    #[test]
    fn the_name_used_as_a_type_elsewhere_is_the_type() {
        let t = repaired(
            "# 1 \"a.c\"\npublic POSITION highest;\nstatic POSITION pendpos;\nstatic int f(POSITION p) { return p > 3; }\nXML_Bool FASTCALL g(int n);\n",
        );
        let blanked: Vec<_> = t.repairs.blanked.iter().map(|b| b.1.clone()).collect();
        assert_eq!(blanked, ["public", "FASTCALL"]);
        let names: Vec<_> = t.repairs.typedefs.keys().cloned().collect();
        assert_eq!(names, ["POSITION", "XML_Bool"]);
    }

    /// An unnamed parameter of an unknown type after known ones (krb5's `k5-int.h`).
    #[test]
    fn unnamed_parameter_of_an_unknown_type() {
        let t = repaired(
            "# 1 \"a.c\"\ntypedef int ctx;\ntypedef int pa;\npa *find(ctx, pa *const *, preauth);\nint g(int x) { return x; }\n",
        );
        let names: Vec<_> = t.repairs.typedefs.keys().cloned().collect();
        assert_eq!(names, ["preauth"]);
        // Wherever the parser stops in the list; a call's arguments are left alone.
        let t = repaired(
            "# 1 \"a.c\"\ntypedef int ctx;\nint f(ctx, msgtype, const part *, int using, const set);\nint g(int x) { return f(0, x, 0, x * 2); }\n",
        );
        let names: Vec<_> = t.repairs.typedefs.keys().cloned().collect();
        assert_eq!(names, ["msgtype", "part", "set"]);
    }

    /// `GSSRPC__BEGIN_DECLS` / `GSSRPC__END_DECLS` around a missing header's declarations
    /// (krb5's `gssrpc/*.h` without the generated `types.h`): macros that expand to nothing,
    /// also the last one of the text.
    #[test]
    fn declaration_bracket_macros_expand_to_nothing() {
        let t = repaired(
            "# 1 \"a.c\"\nGSSRPC__BEGIN_DECLS\nenum auth_stat { AUTH_OK = 0 };\nGSSRPC__END_DECLS\nGSSRPC__BEGIN_DECLS\nenum clnt_stat { RPC_SUCCESS = 0 };\nint g(int x) { return x; }\nGSSRPC__END_DECLS\n",
        );
        let blanked: Vec<_> = t.repairs.blanked.iter().map(|b| b.1.clone()).collect();
        assert_eq!(blanked.len(), 4, "{blanked:?}");
        assert!(t.repairs.typedefs.is_empty(), "{:?}", t.repairs.typedefs);
    }

    /// FreeType's `FT_LOCAL_DEF( void )` before a function's name: the macro wraps the return
    /// type and is reduced to it.
    #[test]
    fn a_macro_wrapping_the_return_type_is_reduced_to_it() {
        let t = repaired(
            "# 1 \"a.c\"\nint k;\nFT_LOCAL_DEF( void )\nget_metrics( int face, unsigned short* aw )\n{ *aw = face; }\nFT_BASE_DEF( unsigned long * )\nf( int x ) { return 0; }\n",
        );
        let u: Vec<_> = t
            .repairs
            .unwrapped
            .iter()
            .map(|u| (u.1.clone(), u.2.clone()))
            .collect();
        assert_eq!(
            u,
            [
                ("FT_LOCAL_DEF".to_string(), "void".to_string()),
                ("FT_BASE_DEF".to_string(), "unsigned long *".to_string())
            ]
        );
    }

    /// `typedef T (fn_t) (int e);` with `T` a typedef name (OpenSSL 3's headers) is no macro
    /// wrapping a function name: nothing is repaired or assumed.
    #[test]
    fn parenthesized_declarator_after_a_typedef_name() {
        let t = repaired(
            "# 1 \"a.c\"\ntypedef long T;\ntypedef T (fn_t) (int e);\nint f(int x) { return x; }\n",
        );
        assert!(t.repairs.unwrapped.is_empty() && t.repairs.blanked.is_empty());
        assert!(t.repairs.typedefs.is_empty());
    }

    #[test]
    fn statement_macro_without_semicolon_is_a_call() {
        let t = repaired("# 1 \"a.c\"\nint f (int x) {\n  AssertH (x > 0, 1007)\n  return x;\n}\n");
        assert_eq!(t.repairs.semicolons.len(), 1);
        assert!(t.repairs.blanked.is_empty() && t.repairs.bodies.is_empty());
    }

    #[test]
    fn hopeless_body_is_blanked_and_named() {
        let t = repaired("# 1 \"a.c\"\nint ok (int x) { return x; }\nint bad (int x)\n{\n  return x +* 2 ) ;\n}\nint ok2 (void) { return 2; }\n");
        assert_eq!(t.repairs.bodies.len(), 1);
        assert_eq!(t.repairs.bodies[0].0, "bad");
        // The same in a K&R definition, whose parameter declarations end in `;` (less).
        let t = repaired("# 1 \"a.c\"\nint ok (int x) { return x; }\nint bad (p, n)\n  int *p;\n  int n;\n{\n  return n +* 2 ) ;\n}\nint ok2 (void) { return 2; }\n");
        assert_eq!(t.repairs.bodies.len(), 1);
        assert_eq!(t.repairs.bodies[0].0, "bad");
    }

    #[test]
    fn undefined_constants_get_standard_values() {
        let t =
            repaired("# 1 \"a.c\"\nint f (int *p) { if (p == NULL) return false; return true; }\n");
        assert_eq!(t.repairs.constants.len(), 3);
        assert!(t.parse.source.contains("p == 0   )"));
    }
}
