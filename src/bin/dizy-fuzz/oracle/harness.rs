//! The harness: one C file with both versions, compiled by gcc with the sanitizers.
//!
//! Takes both versions of a pair; gives the C text of the harness (both versions under the
//! prefixes `o_` and `n_`, readers of the inputs, canonical printers of what a call may change,
//! and a `main` that forks once per input and version) and compiles it. The lines it prints are
//! read by [`super::execute`].

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::run;
use crate::ast::*;

/// CPU time (user and system, so the machine's load does not matter) a version may use on one
/// input, the forked process's start included, before it counts as not terminating. Generated
/// code that terminates does so within microseconds (every run measured fits in 2 ms with
/// ASan); loops that may not terminate are built to stop within a few hundred steps or never.
pub const HANG_MS: u64 = 20;
/// The CPU limit for the second run of an input on which exactly one version did not end within
/// [`HANG_MS`]: generated code may legitimately compute for longer (a recursive `fib(35)` takes
/// 45 ms), and a termination difference is only claimed when it survives this limit.
pub const RECHECK_MS: u64 = 500;
/// Inputs (past the priority ones) after this many runs that did not terminate are skipped.
pub const MAX_HANGS: usize = 100;

const RUNTIME: &str = r#"
static int fell_off;
static char *cur;
static FILE *rec;
static char *tok(void)
{
    while (*cur == ' ') cur++;
    char *t = cur;
    while (*cur && *cur != ' ' && *cur != '\n') cur++;
    if (*cur) *cur++ = 0;
    return t;
}
static unsigned long long rdu(void) { return strtoull(tok(), 0, 16); }
static double rdd(void) { unsigned long long b = rdu(); double d; memcpy(&d, &b, 8); return d; }
static int hexv(char c) { return c <= '9' ? c - '0' : (c | 32) - 'a' + 10; }
static void rdb(void *p, size_t n)
{
    char *t = tok() + 1;
    memset(p, 0, n);
    for (size_t i = 0; i < n && t[0] && t[1]; i++, t += 2)
        ((unsigned char *)p)[i] = (unsigned char)(hexv(t[0]) * 16 + hexv(t[1]));
}
static char *rds(void)
{
    char *t = tok() + 1;
    size_t n = strlen(t) / 2;
    char *s = malloc(n + 1);
    for (size_t i = 0; i < n; i++) s[i] = (char)(hexv(t[2 * i]) * 16 + hexv(t[2 * i + 1]));
    s[n] = 0;
    return s;
}
static void ci(long long v) { fprintf(rec, "%lld", v); }
static void cu(unsigned long long v) { fprintf(rec, "%llu", v); }
static void cf(double x)
{
    if (x != x) fputs("nan", rec);
    else if (x == 0) fputs("0", rec);
    else fprintf(rec, "%.17g", x);
}
static void cb(const void *p, size_t n)
{
    fputc('x', rec);
    for (size_t i = 0; i < n; i++) fprintf(rec, "%02x", ((const unsigned char *)p)[i]);
}
"#;

struct Harness<'a> {
    p: &'a Program,
    pre: &'a str,
    pr: Printer<'a>,
}

impl Harness<'_> {
    fn tname(&self, t: &Ty) -> String {
        self.pr.decl(t, "")
    }
    /// Statements reading one value of type `t` into lvalue `lv`.
    fn read(&self, t: &Ty, lv: &str, depth: usize, out: &mut String) {
        match t {
            Ty::I(_) | Ty::Enum(_) => {
                let _ = writeln!(out, "    {lv} = ({})rdu();", self.tname(t));
            }
            Ty::F32 | Ty::F64 => {
                let _ = writeln!(out, "    {lv} = ({})rdd();", self.tname(t));
            }
            Ty::Struct(tag) => {
                let _ = writeln!(out, "    rd_{}{tag}(&{lv});", self.pre);
            }
            Ty::Union(_) => {
                let _ = writeln!(out, "    rdb(&{lv}, sizeof({lv}));");
            }
            Ty::Arr(e, n) => {
                let k = format!("k{depth}");
                let _ = writeln!(out, "    for (int {k} = 0; {k} < {n}; {k}++) {{");
                self.read(e, &format!("{lv}[{k}]"), depth + 1, out);
                let _ = writeln!(out, "    }}");
            }
            Ty::Ptr(..) | Ty::Fn(_) => {}
        }
    }
    /// Statements printing the canonical text of `e` (an lvalue) of type `t` to `rec`.
    fn canon(&self, t: &Ty, e: &str, depth: usize, out: &mut String) {
        match t {
            Ty::I(k) if k.signed() => {
                let _ = writeln!(out, "    ci((long long)({e}));");
            }
            Ty::I(_) => {
                let _ = writeln!(out, "    cu((unsigned long long)({e}));");
            }
            Ty::Enum(_) => {
                let _ = writeln!(out, "    ci((long long)({e}));");
            }
            Ty::F32 | Ty::F64 => {
                let _ = writeln!(out, "    cf((double)({e}));");
            }
            Ty::Struct(tag) => {
                let _ = writeln!(out, "    pr_{}{tag}(&{e});", self.pre);
            }
            Ty::Union(_) => {
                let _ = writeln!(out, "    cb(&{e}, sizeof({e}));");
            }
            Ty::Arr(el, n) => {
                let k = format!("k{depth}");
                let _ = writeln!(out, "    fputc('[', rec);");
                let _ = writeln!(out, "    for (int {k} = 0; {k} < {n}; {k}++) {{");
                let _ = writeln!(out, "    if ({k}) fputc(',', rec);");
                self.canon(el, &format!("{e}[{k}]"), depth + 1, out);
                let _ = writeln!(out, "    }}");
                let _ = writeln!(out, "    fputc(']', rec);");
            }
            Ty::Ptr(..) | Ty::Fn(_) => {
                let _ = writeln!(out, "    fputs(\"?\", rec);");
            }
        }
    }
    /// Readers and printers of the struct types, then `run_PREFIX`.
    fn version(&self, s: &mut String) {
        let pre = self.pre;
        for t in &self.p.types {
            if let TypeDef::Struct { tag, .. } = t {
                let _ = writeln!(s, "static void rd_{pre}{tag}(struct {pre}{tag} *p);");
                let _ = writeln!(s, "static void pr_{pre}{tag}(const struct {pre}{tag} *p);");
            }
        }
        for t in &self.p.types {
            if let TypeDef::Struct { tag, fields, .. } = t {
                let mut fs = fields.clone();
                fs.sort_by(|a, b| a.1.cmp(&b.1));
                let _ = writeln!(s, "static void rd_{pre}{tag}(struct {pre}{tag} *p)\n{{");
                for (ft, fnm) in &fs {
                    self.read(ft, &format!("p->{fnm}"), 0, s);
                }
                let _ = writeln!(s, "}}");
                let _ = writeln!(
                    s,
                    "static void pr_{pre}{tag}(const struct {pre}{tag} *p)\n{{"
                );
                let _ = writeln!(s, "    fputc('{{', rec);");
                for (k, (ft, fnm)) in fs.iter().enumerate() {
                    let _ = writeln!(
                        s,
                        "    fputs(\"{}{fnm}=\", rec);",
                        if k > 0 { "," } else { "" }
                    );
                    self.canon(ft, &format!("p->{fnm}"), 0, s);
                }
                let _ = writeln!(s, "    fputc('}}', rec);\n}}");
            }
        }
        let f = &self.p.main;
        let _ = writeln!(s, "static void run_{pre}(void)\n{{");
        for (k, pa) in f.params.iter().enumerate() {
            let a = format!("a{k}");
            match (&pa.role, &pa.ty) {
                (Role::Value | Role::Len { .. }, t) => {
                    let _ = writeln!(s, "    {};", self.pr.decl(t, &a));
                    let _ = writeln!(s, "    memset(&{a}, 0, sizeof {a});");
                    self.read(t, &a, 0, s);
                }
                (Role::Out, Ty::Ptr(t, _)) => {
                    let _ = writeln!(
                        s,
                        "    {} = malloc(sizeof(*{a}));",
                        self.pr.decl(&Ty::Ptr(t.clone(), false), &a)
                    );
                    let _ = writeln!(s, "    memset({a}, 0, sizeof(*{a}));");
                    self.read(t, &format!("(*{a})"), 0, s);
                }
                (Role::Buf { cap, .. }, Ty::Ptr(t, _)) => {
                    let _ = writeln!(
                        s,
                        "    {} = malloc(sizeof(*{a}) * {cap});",
                        self.pr.decl(&Ty::Ptr(t.clone(), false), &a)
                    );
                    self.read(&Ty::Arr(t.clone(), *cap), &a, 0, s);
                }
                (Role::Str, _) => {
                    let _ = writeln!(s, "    char *{a} = rds();");
                }
                (Role::Rec { cap }, Ty::Ptr(t, _)) => {
                    // the struct, then whether its member is non-null and the member's buffer
                    // (kept in `m{k}`: what the call leaves there is observed even if it moves
                    // the member)
                    let d = self.pr.decl(&Ty::Ptr(t.clone(), false), &a);
                    let _ = writeln!(s, "    {d} = malloc(sizeof(*{a}));");
                    let _ = writeln!(s, "    memset({a}, 0, sizeof(*{a}));");
                    self.read(t, &format!("(*{a})"), 0, s);
                    // (`cap` elements from the oracle; a witness's may have another count)
                    let _ = writeln!(s, "    int nn{k} = (int)rdu();");
                    let _ = writeln!(
                        s,
                        "    int cn{k} = (int)rdu(); /* {cap} unless a witness says */"
                    );
                    let _ = writeln!(
                        s,
                        "    int *m{k} = malloc(sizeof(int) * (cn{k} ? cn{k} : 1));"
                    );
                    let _ = writeln!(
                        s,
                        "    for (int k0 = 0; k0 < cn{k}; k0++) m{k}[k0] = (int)rdu();"
                    );
                    let _ = writeln!(s, "    {a}->p = nn{k} ? m{k} : 0;");
                }
                (Role::Alias, Ty::Ptr(t, _)) => {
                    let d = self.pr.decl(&Ty::Ptr(t.clone(), false), &a);
                    let _ = writeln!(s, "    {d};");
                    let _ = writeln!(s, "    {{ char *t = cur; while (*t == ' ') t++;");
                    let _ = writeln!(
                        s,
                        "      if (*t == '=') {{ int j = atoi(tok() + 1); {a} = (void *)ptrs[j]; }}"
                    );
                    let _ = writeln!(
                        s,
                        "      else {{ {a} = malloc(sizeof(*{a})); *{a} = ({})rdu(); }} }}",
                        self.tname(t)
                    );
                }
                _ => {
                    let _ = writeln!(s, "    {};", self.pr.decl(&pa.ty, &a));
                }
            }
            if matches!(pa.ty, Ty::Ptr(..)) {
                let _ = writeln!(s, "    ptrs[{k}] = (void *){a};");
            }
        }
        let objs = self.p.observed_objects(pre);
        for (name, lv, t) in &objs {
            let _ = writeln!(s, "    fputs(\" I:{name}=\", rec);");
            self.canon(t, lv, 0, s);
        }
        let args: Vec<String> = (0..f.params.len()).map(|k| format!("a{k}")).collect();
        let _ = writeln!(s, "    begin_run();");
        let _ = writeln!(s, "    fell_off = 0;");
        let _ = writeln!(
            s,
            "    {} = {}({});",
            self.pr.decl(&f.ret, "r"),
            self.pr.name(&f.name),
            args.join(", ")
        );
        let _ = writeln!(s, "    end_run();");
        let _ = writeln!(s, "    fputs(\" R=\", rec);");
        // `f` reached its end without `return`: no value (dizy compares none where both
        // versions do, and tells a value from none)
        let _ = writeln!(s, "    if (fell_off) fputs(\"undef\", rec); else {{");
        self.canon(&f.ret, "r", 0, s);
        let _ = writeln!(s, "    }}");
        for (k, pa) in f.params.iter().enumerate() {
            let a = format!("a{k}");
            match (&pa.role, &pa.ty) {
                (Role::Out | Role::Alias, Ty::Ptr(t, _)) => {
                    let _ = writeln!(s, "    fputs(\" P:{}=\", rec);", pa.name);
                    self.canon(t, &format!("(*{a})"), 0, s);
                }
                (Role::Buf { cap, .. }, Ty::Ptr(t, _)) => {
                    let _ = writeln!(s, "    fputs(\" P:{}=\", rec);", pa.name);
                    self.canon(&Ty::Arr(t.clone(), *cap), &a, 0, s);
                }
                (Role::Rec { .. }, Ty::Ptr(t, _)) => {
                    let _ = writeln!(s, "    fputs(\" P:{}=\", rec);", pa.name);
                    self.canon(t, &format!("(*{a})"), 0, s);
                    let _ = writeln!(s, "    fputs(\" P:{}->p=\", rec);", pa.name);
                    let _ = writeln!(
                        s,
                        "    fputs({a}->p == 0 ? \"null\" : {a}->p == m{k} ? \"same\" : \"moved\", rec);"
                    );
                    let _ = writeln!(s, "    fputc('[', rec);");
                    let _ = writeln!(
                        s,
                        "    for (int k0 = 0; k0 < cn{k}; k0++) {{ if (k0) fputc(',', rec); ci(m{k}[k0]); }}"
                    );
                    let _ = writeln!(s, "    fputc(']', rec);");
                }
                _ => {}
            }
        }
        for (name, lv, t) in &objs {
            let _ = writeln!(s, "    fputs(\" G:{name}=\", rec);");
            self.canon(t, lv, 0, s);
        }
        let _ = writeln!(s, "}}");
    }
}

/// The harness: both versions, readers and printers, and a `main` that reads one input per
/// line and prints, per input and version, `K V OK <observations>`, `K V UB`, `K V HANG` or
/// `K V SKIP`.
pub fn harness(old: &Program, new: &Program) -> String {
    let mut s = String::from(
        "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <stddef.h>\n\
         #include <stdbool.h>\n#include <unistd.h>\n#include <signal.h>\n#include <sys/wait.h>\n\
         #include <sys/time.h>\n#include <math.h>\n#include <ctype.h>\n",
    );
    s.push_str(RUNTIME);
    s.push_str(
        r#"
static void *ptrs[16];
static char *obuf;
static size_t olen;
static void begin_run(void) { fflush(stdout); stdout = open_memstream(&obuf, &olen); }
static void end_run(void) { fflush(stdout); }
"#,
    );
    // the missing header's names: one value for both versions (the mutations keep them)
    s.push_str(&old.config_defines());
    s.push_str(&old.print_body("o_"));
    s.push_str(&new.print_body("n_"));
    for (p, pre) in [(old, "o_"), (new, "n_")] {
        let h = Harness {
            p,
            pre,
            pr: Printer::new(p, pre),
        };
        h.version(&mut s);
    }
    let _ = write!(
        s,
        r#"
static void put(const char *b, size_t n)
{{
    while (n > 0) {{
        ssize_t w = write(1, b, n);
        if (w <= 0) _exit(3);
        b += w;
        n -= (size_t)w;
    }}
}}

static long hang_us = {hang_us};

static void child(int k, int v, char *line)
{{
    struct itimerval it = {{{{0, 0}}, {{hang_us / 1000000, hang_us % 1000000}}}};
    setitimer(ITIMER_PROF, &it, 0);
    alarm(5 + (unsigned)(hang_us / 1000000));
    cur = line;
    char *rbuf = 0;
    size_t rlen = 0;
    rec = open_memstream(&rbuf, &rlen);
    if (v == 0) run_o_(); else run_n_();
    struct itimerval off = {{{{0, 0}}, {{0, 0}}}};
    setitimer(ITIMER_PROF, &off, 0);
    alarm(0);
    fflush(stdout);
    fflush(rec);
    char head[64];
    int hn = snprintf(head, sizeof head, "%d %d OK", k, v);
    put(head, (size_t)hn);
    put(rbuf, rlen);
    put(" O=", 3);
    for (size_t i = 0; i < olen; i++) {{
        char hx[3];
        snprintf(hx, sizeof hx, "%02x", (unsigned char)obuf[i]);
        put(hx, 2);
    }}
    put("\n", 1);
    _exit(0);
}}

int main(int argc, char **argv)
{{
    int nprio = argc > 1 ? atoi(argv[1]) : 0;
    int maxhang = argc > 2 ? atoi(argv[2]) : 1000000;
    if (argc > 3) hang_us = atol(argv[3]);
    static char line[1 << 20];
    int k = 0, hangs = 0;
    while (fgets(line, sizeof line, stdin)) {{
        for (int v = 0; v < 2; v++) {{
            if (hangs >= maxhang && k >= nprio) {{
                printf("%d %d SKIP\n", k, v);
                continue;
            }}
            fflush(stdout);
            pid_t pid = fork();
            /* the child parses its own copy of the line */
            if (pid == 0) child(k, v, line);
            int st = 0;
            waitpid(pid, &st, 0);
            if (WIFSIGNALED(st) && (WTERMSIG(st) == SIGPROF || WTERMSIG(st) == SIGALRM)) {{
                printf("%d %d HANG\n", k, v);
                hangs++;
            }} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {{
                printf("%d %d UB\n", k, v);
            }}
            fflush(stdout);
        }}
        k++;
    }}
    return 0;
}}
"#,
        hang_us = HANG_MS * 1000
    );
    s
}

/// Compile the harness of a pair in `dir`; gives the executable or gcc's complaint.
pub fn compile(dir: &Path, old: &Program, new: &Program) -> Result<std::path::PathBuf, String> {
    let src = dir.join("harness.c");
    let exe = dir.join("harness");
    std::fs::write(&src, harness(old, new)).map_err(|e| e.to_string())?;
    gcc(&src, &exe, "address,undefined,float-cast-overflow")?;
    Ok(exe)
}

/// `src` compiled by gcc into `exe` (`-O0`, the given sanitizers, which abort at the first
/// report); `Err` carries gcc's first lines of complaint.
fn gcc(src: &Path, exe: &Path, sanitize: &str) -> Result<(), String> {
    let o = run(
        Command::new("gcc")
            .args(["-std=gnu11", "-O0", "-w"])
            .arg(format!("-fsanitize={sanitize}"))
            .args(["-fno-sanitize-recover=all", "-o"])
            .arg(exe)
            .arg(src)
            .arg("-lm"),
        b"",
        Duration::from_secs(60),
    )
    .map_err(|e| format!("cannot run gcc: {e}"))?;
    if o.status.is_some_and(|s| s.success()) {
        Ok(())
    } else {
        Err(format!(
            "gcc failed on {}: {}",
            src.display(),
            o.stderr.lines().take(12).collect::<Vec<_>>().join("\n")
        ))
    }
}

/// Inputs of the recursive-helper check: each `n` with each `acc` (for two-parameter helpers).
const REC_N: std::ops::RangeInclusive<i32> = -3..=12;
const REC_ACC: [i32; 4] = [0, 1, -5, 100];

/// Whether the generator's recursive helper `name` (`int name(int n)` or `int name(int n, int
/// acc)`, recursing on `n - 1`/`n - 2` down to a base case, so every call returns) gives other
/// results in the two versions on a grid of small inputs: `Some(description)` when it does,
/// `None` when it does not or cannot be run (a compile error, or undefined behaviour caught by
/// UBSan on some input). dizy analyses changed helpers too; this checks its claims on them —
/// the functions where its proofs by induction on recursion apply.
pub fn recursive_helper_differs(
    dir: &Path,
    old: &Program,
    new: &Program,
    name: &str,
) -> Option<String> {
    let arity = old.helpers.iter().find(|h| h.name == name)?.params.len();
    if new.helpers.iter().find(|h| h.name == name)?.params.len() != arity
        || !(1..=2).contains(&arity)
    {
        return None;
    }
    let mut s = String::from(
        "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <stddef.h>\n\
         #include <stdbool.h>\n#include <unistd.h>\n#include <math.h>\n#include <ctype.h>\n",
    );
    s.push_str(RUNTIME);
    // the missing header's names: one value for both versions (the mutations keep them)
    s.push_str(&old.config_defines());
    s.push_str(&old.print_body("o_"));
    s.push_str(&new.print_body("n_"));
    s.push_str("int main(void)\n{\n    rec = stderr;\n");
    let accs: Vec<Option<i32>> = match arity {
        1 => vec![None],
        _ => REC_ACC.iter().map(|a| Some(*a)).collect(),
    };
    for n in REC_N {
        for acc in &accs {
            let args = match acc {
                Some(a) => format!("{n}, {a}"),
                None => n.to_string(),
            };
            let _ = writeln!(
                s,
                "    printf(\"{name}({args}) %d %d\\n\", o_{name}({args}), n_{name}({args}));"
            );
        }
    }
    s.push_str("    return 0;\n}\n");
    let src = dir.join(format!("{name}_check.c"));
    let exe = dir.join(format!("{name}_check"));
    std::fs::write(&src, s).ok()?;
    gcc(&src, &exe, "undefined").ok()?;
    let out = run(&mut Command::new(&exe), b"", Duration::from_secs(10)).ok()?;
    if out.killed || !out.status.is_some_and(|s| s.success()) {
        return None;
    }
    out.stdout.lines().find_map(|l| {
        let w: Vec<&str> = l.rsplitn(3, ' ').collect();
        (w.len() == 3 && w[0] != w[1])
            .then(|| format!("{} returns {} (old) against {} (new)", w[2], w[1], w[0]))
    })
}
