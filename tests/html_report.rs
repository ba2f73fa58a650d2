//! `dizy diff --format html` in a real browser, and its plot against an independent oracle.
//!
//! * The pages of bundled benchmark pairs (one parameter, two parameters, three) and of a pair
//!   whose C source carries markup in a string literal and a comment are loaded in Debian's
//!   `chromium`, headless (`--dump-dom`, console messages on stderr): the page must load with
//!   no console message at all (the page has no script, so any is an error), and the DOM the
//!   browser built must hold the table, one section per function the JSON report of the same
//!   pair does not call unchanged, the collapsible correlating program, and a plot exactly for
//!   the functions of one or two parameters. A page with a script error and console
//!   messages, loaded the same way, must be flagged, so the check cannot pass by reading
//!   nothing. chromium comes from `scripts/setup`; without it the test fails and says so.
//! * The plot's colours against gcc: for small pairs, every point the page colours "differ" is
//!   one where the two versions, compiled with gcc and UBSan and run natively
//!   (`common::run_native`, the harness of `differential_cc.rs`, which does not use dizy),
//!   return different values, every "agree" point one where they return the same, and every
//!   "not evaluated" point one where a version has undefined behaviour or crashes natively.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value as Json;

mod common;
use common::{git, run_native, run_with_timeout, Input, Native, Ty};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Run `dizy diff ARGS`; its stdout.
fn dizy(args: &[&str]) -> String {
    dizy_in(Path::new("."), args)
}

/// Run `dizy diff ARGS` in `cwd`; its stdout.
fn dizy_in(cwd: &Path, args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_dizy"))
        .current_dir(cwd)
        .arg("diff")
        .args(args)
        .output()
        .expect("run dizy");
    let code = o.status.code().unwrap_or(-1);
    assert!(
        (0..=2).contains(&code) && !o.stdout.is_empty(),
        "dizy diff {args:?}: exit {code}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("UTF-8 output")
}

/// Debian's chromium, as `scripts/setup` installs it.
fn chromium() -> PathBuf {
    common::installed_tool(
        Command::new("sh").args(["-c", "command -v chromium"]),
        "chromium is not installed: run scripts/setup (it installs Debian's chromium package)",
    )
}

/// Load `file` in headless chromium: the DOM it built and the console messages it logged
/// (with uncaught errors).
fn browse(file: &Path, dir: &Path) -> (String, Vec<String>) {
    let profile = tempfile::tempdir_in(dir).unwrap();
    let url = format!("file://{}", file.canonicalize().unwrap().display());
    let out = run_with_timeout(
        Command::new(chromium())
            .args([
                "--headless=new",
                "--disable-gpu",
                "--no-sandbox",
                "--no-first-run",
                "--enable-logging=stderr",
                "--v=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("--dump-dom")
            .arg(&url),
        None,
        Duration::from_secs(180),
    );
    assert!(
        !out.timed_out && out.code() == Some(0),
        "chromium on {url}: {:?}\n{}",
        out.status,
        out.stderr
    );
    let console: Vec<String> = out
        .stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .map(str::to_string)
        .collect();
    (out.stdout, console)
}

/// The JSON report's functions: (name, verdict).
fn verdicts(args: &[&str]) -> Vec<(String, String)> {
    let mut a = args.to_vec();
    a.extend(["--format", "json"]);
    let j: Json = serde_json::from_str(&dizy(&a)).expect("JSON report");
    j["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_string(),
                f["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The `<section class="function" …>` elements of a DOM, each up to the next.
fn sections(dom: &str) -> Vec<&str> {
    dom.split("<section class=\"function\"").skip(1).collect()
}

struct Page {
    name: &'static str,
    args: Vec<String>,
    /// Whether the analysed function has a plot (one or two arithmetic parameters).
    plot: bool,
}

#[test]
fn pages_load_in_chromium_without_console_messages() {
    let dir = tempfile::tempdir().unwrap();
    // Markup in a string literal, a comment and a character constant: text, never elements.
    let hostile = |v: &str| {
        format!(
            "int tag(int c)\n{{\n\
             \x20 /* </script><b>comment</b><img src=x onerror=alert(1)> */\n\
             \x20 const char *s = \"</script><script>alert(2)</script><b>x</b>\";\n\
             \x20 if (c == '<')\n    return {v};\n  return s[0] == '<';\n}}\n"
        )
    };
    let (ho, hn) = (dir.path().join("old.c"), dir.path().join("new.c"));
    std::fs::write(&ho, hostile("1")).unwrap();
    std::fs::write(&hn, hostile("2")).unwrap();
    let pair = |p: &str| -> Vec<String> {
        let d = root().join("benchmarks/pairs").join(p);
        vec![
            d.join("old.c").display().to_string(),
            d.join("new.c").display().to_string(),
        ]
    };
    let pages = [
        Page {
            name: "sign",
            args: pair("sign"),
            plot: true,
        },
        Page {
            name: "ne_added_guard",
            args: pair("ne_added_guard"),
            plot: true,
        },
        Page {
            name: "ne_clamp_order",
            args: pair("ne_clamp_order"),
            plot: false,
        },
        Page {
            name: "markup",
            args: vec![ho.display().to_string(), hn.display().to_string()],
            plot: true,
        },
    ];
    for p in &pages {
        let args: Vec<&str> = p.args.iter().map(String::as_str).collect();
        let mut html_args = args.clone();
        html_args.extend(["--format", "html", "--timeout", "20"]);
        let html = dizy(&html_args);
        let file = dir.path().join(format!("{}.html", p.name));
        std::fs::write(&file, &html).unwrap();
        let (dom, console) = browse(&file, dir.path());
        assert!(
            console.is_empty(),
            "{}: console messages:\n{}",
            p.name,
            console.join("\n")
        );
        // What the browser built: the table with a row per function, a section per function
        // that is not unchanged, in order, with its verdict.
        let fs = verdicts(&args);
        assert!(!fs.is_empty(), "{}: no function", p.name);
        let table = dom
            .split("<table class=\"functions\">")
            .nth(1)
            .unwrap_or_else(|| panic!("{}: no table of functions", p.name));
        let table = table.split("</table>").next().unwrap();
        assert_eq!(table.matches("<tr>").count(), fs.len() + 1, "{}", p.name);
        let shown: Vec<&(String, String)> = fs.iter().filter(|f| f.1 != "unchanged").collect();
        let secs = sections(&dom);
        assert_eq!(secs.len(), shown.len(), "{}: sections", p.name);
        for (name, verdict) in &shown {
            let s = secs
                .iter()
                .find(|s| s.contains(&format!(">{name}</a>")))
                .unwrap_or_else(|| panic!("{}: no section of {name}", p.name));
            assert!(
                s.contains(&format!(">{verdict}</span>")),
                "{}: {verdict}",
                p.name
            );
            assert!(
                s.contains("<table class=\"sbs\">"),
                "{}: source of {name}",
                p.name
            );
            assert!(
                s.contains("<details class=\"correlating\"><summary>Correlating program"),
                "{}: correlating program of {name}",
                p.name
            );
            assert_eq!(s.contains("<svg"), p.plot, "{}: plot of {name}", p.name);
        }
        // Nothing of the C source became an element, and nothing is loaded from elsewhere.
        for bad in ["<b>", "<img", "<script", " src=\"", "http"] {
            assert!(!dom.contains(bad), "{}: {bad:?} in the DOM", p.name);
        }
        if p.name == "markup" {
            assert!(dom.contains("&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;&lt;b&gt;"));
            assert!(dom.contains("/* &lt;/script&gt;&lt;b&gt;comment&lt;/b&gt;&lt;img src=x"));
        }
    }
    // The check itself: a page with console output and an uncaught error is flagged.
    let bad = dir.path().join("bad.html");
    std::fs::write(
        &bad,
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>t</title></head><body>\
         <script>console.warn('a warning');</script><script>notDefined();</script></body></html>",
    )
    .unwrap();
    let (dom, console) = browse(&bad, dir.path());
    assert!(dom.contains("<body>"), "the control page was loaded");
    assert!(
        console.iter().any(|l| l.contains("a warning"))
            && console.iter().any(|l| l.contains("Uncaught")),
        "a page with console messages is not flagged: {console:?}"
    );
}

/// `--git`: one page, a part per changed file (its path as heading, its table and sections), a
/// file that cannot be analysed as its error; the page loads without console messages.
#[test]
fn git_pages_have_a_part_per_file() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    let pairs = root().join("benchmarks/pairs");
    let put = |version: &str| {
        for p in ["sign", "ne_added_guard"] {
            std::fs::copy(
                pairs.join(p).join(version),
                repo.join("src").join(format!("{p}.c")),
            )
            .unwrap();
        }
        // The new version is rejected as a whole (a run of `--` the parser is not given).
        let broken = if version == "old.c" {
            "int f(void) { return 1; }\n"
        } else {
            "int f(int w) { return w >------> 1; }\n"
        };
        std::fs::write(repo.join("src/broken.c"), broken).unwrap();
    };
    git(&repo, &["init", "-q"]);
    put("old.c");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "old"]);
    put("new.c");
    git(&repo, &["commit", "-q", "-am", "new"]);
    let html = dizy_in(
        &repo,
        &[
            "--git",
            "HEAD~1",
            "HEAD",
            "--format",
            "html",
            "--timeout",
            "20",
        ],
    );
    let file = dir.path().join("git.html");
    std::fs::write(&file, &html).unwrap();
    let (dom, console) = browse(&file, dir.path());
    assert!(
        console.is_empty(),
        "console messages:\n{}",
        console.join("\n")
    );
    let parts: Vec<&str> = dom.split("<h1 class=\"file\">").skip(1).collect();
    let heads: Vec<&str> = parts
        .iter()
        .map(|p| &p[..p.find("</h1>").unwrap()])
        .collect();
    assert_eq!(
        heads,
        ["src/broken.c", "src/ne_added_guard.c", "src/sign.c"]
    );
    assert!(parts[0].contains("<p class=\"error\">dizy: ") && !parts[0].contains("<section"));
    for (part, name) in parts[1..].iter().zip(["remaining", "sign"]) {
        let secs = sections(part);
        assert_eq!(secs.len(), 1, "{name}");
        assert!(secs[0].contains(&format!(">{name}</a>")) && secs[0].contains("<svg"));
    }
}

/// The plot's points of the first function of an HTML page: (inputs, class).
fn plot_points(html: &str) -> Vec<(Vec<String>, String)> {
    let s = sections(html)[0];
    s.match_indices("<rect class=\"pt ")
        .map(|(i, _)| {
            let t = &s[i + "<rect class=\"pt ".len()..];
            let class = t[..t.find('"').unwrap()].to_string();
            let d = &t[t.find("data-in=\"").unwrap() + 9..];
            let inputs = d[..d.find('"').unwrap()]
                .split(',')
                .map(str::to_string)
                .collect();
            (inputs, class)
        })
        .collect()
}

/// For `old`/`new` (one function `f` of int parameters returning int): the points the page
/// colours are exactly what gcc's code does on them. Returns the counts (agree, differ,
/// not evaluated).
fn check_against_gcc(old: &str, new: &str, params: usize) -> (usize, usize, usize) {
    let dir = tempfile::tempdir().unwrap();
    let (o, n) = (dir.path().join("old.c"), dir.path().join("new.c"));
    std::fs::write(&o, old).unwrap();
    std::fs::write(&n, new).unwrap();
    let html = dizy(&[
        o.to_str().unwrap(),
        n.to_str().unwrap(),
        "--format",
        "html",
        "--timeout",
        "20",
    ]);
    let points = plot_points(&html);
    assert!(!points.is_empty(), "no plot:\n{html}");
    let inputs: Vec<Input> = points
        .iter()
        .map(|(vals, _)| {
            assert_eq!(vals.len(), params);
            Input {
                lits: vals.clone(),
                c_args: vals.clone(),
            }
        })
        .collect();
    let tys = vec![
        Ty::Int {
            bits: 32,
            signed: true
        };
        params
    ];
    let ret = Ty::Int {
        bits: 32,
        signed: true,
    };
    let nat_o = run_native(dir.path(), &o, "f", &tys, ret, &inputs).expect("old natively");
    let nat_n = run_native(dir.path(), &n, "f", &tys, ret, &inputs).expect("new natively");
    let mut counts = (0, 0, 0);
    for (((vals, class), a), b) in points.iter().zip(&nat_o).zip(&nat_n) {
        let want = match (a, b) {
            (Native::Value(x), Native::Value(y)) if x.same(y) => {
                counts.0 += 1;
                "pa"
            }
            (Native::Value(_), Native::Value(_)) => {
                counts.1 += 1;
                "pd"
            }
            _ => {
                counts.2 += 1;
                "pn"
            }
        };
        assert_eq!(
            class, want,
            "inputs {vals:?}: natively old {a:?}, new {b:?}"
        );
    }
    counts
}

#[test]
fn plot_colours_are_what_gcc_compiled_code_does() {
    let (agree, differ, _) = check_against_gcc(
        "int f(int x) { return x > 5; }\n",
        "int f(int x) { return x > 6; }\n",
        1,
    );
    assert!(agree > 10 && differ == 1, "{agree} agree, {differ} differ");
    // Two parameters; the old version divides by zero at y = 0 (UB natively: a crash).
    let (agree, differ, none) = check_against_gcc(
        "int f(int x, int y) { return x / y + (x > 2 * y); }\n",
        "int f(int x, int y) { if (y == 0) return 0; return x / y + (x >= 2 * y); }\n",
        2,
    );
    assert!(
        agree > 100 && differ > 5 && none > 5,
        "{agree} agree, {differ} differ, {none} not evaluated"
    );
}
