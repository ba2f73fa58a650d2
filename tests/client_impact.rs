//! Client-specific impact: a library function changed, is the change observable through its
//! clients?
//!
//! * Every triple of `benchmarks/clients/manifest.csv` (client + old library, client + new library)
//!   gets the expected verdict for the client from `dizy diff --format json`, with a witness when
//!   the change is observable; the changed library function itself is still reported as changing.
//! * Oracle: both files are compiled with gcc into a harness that calls the client on many inputs
//!   (`tests/common`); a client reported `equivalent` must never give different results natively,
//!   and a reported witness must reproduce natively.
//! * The inliner alone: for programs with early returns in loops and switches, static locals,
//!   pointer parameters, nested and recursive calls, the inlined program run by the interpreter
//!   behaves exactly as the original on many inputs.
//! * `--no-inline` keeps the old behaviour (opaque calls); `--client` restricts the analysis;
//!   recursion and the depth bound leave calls opaque and say so.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{gen_inputs, run_native, run_with_timeout, Native, Ty};
use dizy::ir::CType;
use serde_json::Value as Json;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benchmarks/clients")
}

struct Row {
    id: String,
    old: PathBuf,
    new: PathBuf,
    function: String,
    expected: String,
}

fn manifest() -> Vec<Row> {
    let text = std::fs::read_to_string(root().join("manifest.csv")).expect("manifest");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("id,old,new,function,expected,note"),
        "manifest header"
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.splitn(6, ',').collect();
            Row {
                id: c[0].to_string(),
                old: root().join(c[1]),
                new: root().join(c[2]),
                function: c[3].to_string(),
                expected: c[4].to_string(),
            }
        })
        .collect()
}

/// `dizy diff --format json` with extra arguments; the parsed report and the exit code.
fn dizy_json(old: &Path, new: &Path, extra: &[&str]) -> (Json, Option<i32>) {
    let out = run_with_timeout(
        Command::new(env!("CARGO_BIN_EXE_dizy"))
            .arg("diff")
            .arg(old)
            .arg(new)
            .args(["--format", "json", "--timeout", "60"])
            .args(extra),
        None,
        Duration::from_secs(300),
    );
    assert!(!out.timed_out, "dizy diff timed out on {}", old.display());
    let json: Json = serde_json::from_str(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON from dizy on {} ({e}):\n{}\n{}",
            old.display(),
            out.stdout,
            out.stderr
        )
    });
    (json, out.code())
}

fn function<'a>(report: &'a Json, name: &str) -> &'a Json {
    report["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no function {name} in the report"))
}

fn harness_ty(t: &CType) -> Ty {
    match t {
        CType::Bool => Ty::Bool,
        CType::Int { bits, signed } => Ty::Int {
            bits: *bits,
            signed: *signed,
        },
        CType::Float => Ty::Float,
        CType::Double => Ty::Double,
        other => panic!("no harness type for {other:?}"),
    }
}

/// Parameter and return types of `func` in `file`, for the native harness.
fn signature(file: &Path, func: &str) -> (Vec<Ty>, Ty) {
    let p = dizy::load_gcl(file, &Default::default()).expect("load");
    let f = &p.function(func).expect("function").func;
    let params = f.params.iter().map(|v| harness_ty(&f.var(*v).ty)).collect();
    (params, harness_ty(&f.ret))
}

fn native_results(dir: &Path, file: &Path, func: &str, inputs: &[common::Input]) -> Vec<Native> {
    let (params, ret) = signature(file, func);
    std::fs::create_dir_all(dir).expect("dir");
    run_native(dir, file, func, &params, ret, inputs).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn client_triples_get_the_expected_verdict_and_agree_with_gcc() {
    let rows = manifest();
    assert!(rows.len() >= 8, "at least 8 client triples");
    for cat in ["ne_", "ab_", "ob_"] {
        assert!(
            rows.iter().filter(|r| r.id.starts_with(cat)).count() >= 2,
            "at least two triples of category {cat}"
        );
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut failures = vec![];
    for row in &rows {
        let (report, code) = dizy_json(&row.old, &row.new, &[]);
        let f = function(&report, &row.function);
        let verdict = f["verdict"].as_str().unwrap_or("?");
        let callees: Vec<&str> = f["changed_callees"]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x.as_str()).collect())
            .unwrap_or_default();
        println!(
            "{}: client {} {verdict} (expected {}), changed callees {callees:?}, inlined {}",
            row.id, row.function, row.expected, f["inlined"]
        );
        if verdict != row.expected {
            failures.push(format!("{}: {verdict}, expected {}", row.id, row.expected));
        }
        if callees.is_empty() {
            failures.push(format!("{}: no changed callee reported", row.id));
        }
        // The library function itself still changes, and the exit status says so.
        for lib in &callees {
            let v = function(&report, lib)["verdict"].as_str().unwrap_or("?");
            if !matches!(v, "different" | "possibly-different") {
                failures.push(format!("{}: changed callee {lib} reported {v}", row.id));
            }
        }
        assert_eq!(
            code,
            Some(1),
            "{}: exit status with a changed callee",
            row.id
        );

        // Native oracle on the client.
        let (params, _) = signature(&row.old, &row.function);
        let mut inputs = gen_inputs(&params, 300, common::fnv1a(&row.id));
        // Small values too: that is where most of these changes live.
        for v in -30..=130 {
            let lit = v.to_string();
            inputs.push(common::Input {
                lits: vec![lit.clone(); params.len()],
                c_args: vec![lit; params.len()],
            });
        }
        let witness = &f["witness"];
        if verdict == "different" {
            let w: Vec<String> = params
                .iter()
                .enumerate()
                .map(|(i, _)| {
                    let obj = witness["inputs"].as_object().expect("witness inputs");
                    obj.values()
                        .nth(i)
                        .and_then(|v| v.as_str())
                        .expect("value")
                        .to_string()
                })
                .collect();
            inputs.push(common::Input {
                lits: w.clone(),
                c_args: w,
            });
        }
        let dir = tmp.path().join(&row.id);
        let old = native_results(&dir.join("old"), &row.old, &row.function, &inputs);
        let new = native_results(&dir.join("new"), &row.new, &row.function, &inputs);
        let mut differ = 0;
        for (k, (o, n)) in old.iter().zip(&new).enumerate() {
            if let (Native::Value(a), Native::Value(b)) = (o, n) {
                if !a.same(b) {
                    differ += 1;
                    if verdict == "equivalent" {
                        failures.push(format!(
                            "{}: UNSOUND: equivalent, but gcc differs on {:?}: old {a}, new {b}",
                            row.id, inputs[k].c_args
                        ));
                    }
                }
            }
        }
        if verdict == "different" {
            let last = inputs.len() - 1;
            match (&old[last], &new[last]) {
                (Native::Value(a), Native::Value(b)) if !a.same(b) => {}
                other => failures.push(format!(
                    "{}: witness {:?} does not reproduce natively: {other:?}",
                    row.id, inputs[last].c_args
                )),
            }
        }
        println!("  native: {differ} of {} inputs differ", inputs.len());
    }
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}

#[test]
fn no_inline_keeps_calls_opaque_and_client_restricts_the_analysis() {
    let d = root().join("ne_guarded_arg");
    let (old, new) = (d.join("old.c"), d.join("new.c"));
    let (with, _) = dizy_json(&old, &new, &["--client", "client"]);
    let fs = with["functions"].as_array().expect("functions");
    assert_eq!(fs.len(), 1, "--client analyses only the client");
    assert_eq!(fs[0]["verdict"], "equivalent");
    assert_eq!(fs[0]["inlined"], serde_json::json!(["scale"]));
    let (without, _) = dizy_json(&old, &new, &["--no-inline", "--function", "client"]);
    let f = function(&without, "client");
    assert_eq!(
        f["verdict"], "possibly-different",
        "without inlining the changed callee is an unknown call"
    );
    assert_eq!(f["changed_callees"], serde_json::json!(["scale"]));
    assert_eq!(f["inlined"], serde_json::json!([]));
    // The text report says what the change does to the client.
    let out = run_with_timeout(
        Command::new(env!("CARGO_BIN_EXE_dizy"))
            .arg("diff")
            .arg(&old)
            .arg(&new),
        None,
        Duration::from_secs(120),
    );
    assert!(
        out.stdout.contains(
            "client client: callee scale changed; the change is not observable through client (equivalent)"
        ),
        "{}",
        out.stdout
    );
    let d = root().join("ob_direct");
    let out = run_with_timeout(
        Command::new(env!("CARGO_BIN_EXE_dizy"))
            .arg("diff")
            .arg(d.join("old.c"))
            .arg(d.join("new.c")),
        None,
        Duration::from_secs(120),
    );
    assert!(
        out.stdout.contains(
            "callee half changed; the change is observable through client, witness: x = "
        ),
        "{}",
        out.stdout
    );
}

/// A changed recursive library function: the recursive call stays opaque (sound, and noted), so
/// the client cannot be proved equivalent even though it is; the depth bound does the same.
#[test]
fn recursion_and_depth_bound_leave_calls_opaque() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let lib = |extra: &str| {
        format!(
            "int sum(int n)\n{{\n    if (n <= 0)\n        return 0;\n{extra}    return n + sum(n - 1);\n}}\n\n\
             int client(int x)\n{{\n    if (x < 0 || x > 10)\n        return 0;\n    return sum(x);\n}}\n"
        )
    };
    let old = tmp.path().join("old.c");
    let new = tmp.path().join("new.c");
    std::fs::write(&old, lib("")).unwrap();
    std::fs::write(&new, lib("    if (n > 50)\n        return -1;\n")).unwrap();
    let (r, _) = dizy_json(&old, &new, &[]);
    let f = function(&r, "client");
    assert_ne!(f["verdict"], "equivalent");
    assert_ne!(
        f["verdict"], "different",
        "the client is equivalent (x <= 10)"
    );
    let notes = f["notes"].to_string();
    assert!(notes.contains("recursive call"), "{notes}");
    assert_eq!(f["inlined"], serde_json::json!(["sum"]));
    assert_eq!(function(&r, "sum")["verdict"], "different");

    // a -> b -> c with c changed: depth 1 inlines b only, and c stays a call inside it.
    let chain = |k: i32| {
        format!(
            "int c(int x)\n{{\n    return x > 100 ? {k} : x;\n}}\n\nint b(int x)\n{{\n    return c(x) + 1;\n}}\n\n\
             int a(int x)\n{{\n    if (x > 50)\n        return 0;\n    return b(x);\n}}\n"
        )
    };
    std::fs::write(&old, chain(1)).unwrap();
    std::fs::write(&new, chain(2)).unwrap();
    let (r, _) = dizy_json(&old, &new, &["--client", "a", "--inline-depth", "1"]);
    let f = function(&r, "a");
    assert_eq!(f["inlined"], serde_json::json!(["b"]));
    assert!(
        f["notes"].to_string().contains("depth bound 1"),
        "{}",
        f["notes"]
    );
    assert_eq!(f["changed_callees"], serde_json::json!(["c"]));
    let (r, _) = dizy_json(&old, &new, &["--client", "a"]);
    let f = function(&r, "a");
    assert_eq!(f["inlined"], serde_json::json!(["b", "c"]));
    assert_eq!(
        f["verdict"], "equivalent",
        "c's change needs x > 100, a passes x <= 50"
    );
}

// ------------------------------------------------------------------------------ inliner oracle

/// Programs whose entry `client(int, int)` calls helpers of every shape the inliner rewrites.
const INLINER_PROGRAMS: &[&str] = &[
    // Early returns in nested loops, break/continue of the callee, a global, a static local,
    // a pointer parameter, nested inlining, a call in a loop condition, a void early return.
    r#"
int g_calls;
int t;

static int count(void)
{
    static int n;
    n++;
    return n;
}

int find(int a, int b)
{
    for (int i = 0; i < 10; i++) {
        for (int j = 0; j < 5; j++) {
            if (i * j == a)
                return i + j;
            if (j == b)
                break;
        }
        if (i == b)
            continue;
        g_calls++;
    }
    return -1;
}

int classify(int x)
{
    switch (x & 7) {
    case 0:
        return 10;
    case 1:
    case 2:
        x += 3;
        break;
    case 3:
        while (x > 0) {
            if (x % 11 == 0)
                return 99;
            x -= 7;
        }
        break;
    default:
        return x;
    }
    if (x > 5)
        return 1;
    else if (x < -5) {
        x = x * 2;
    } else
        return 2;
    return x;
}

void bump(int *p, int k)
{
    if (k < 0)
        return;
    *p += k;
    t += k;
}

int twice(int x)
{
    return classify(x) + classify(x + 1);
}

int next(int i)
{
    return i + 2;
}

int client(int a, int b)
{
    int v = 0;
    int t = 5;
    bump(&v, a % 13);
    int r = find(a % 40, b % 6) * 3;
    r += twice(b % 1000);
    r += count() + count();
    for (int k = 0; k < 3; k++)
        r += classify(a % 1000 + k);
    for (int i = 0; next(i) < 9; i++)
        r += i;
    return r + v + g_calls + t;
}
"#,
    // Recursion (inlined once, then opaque), do-while with a return, guard clauses, calls in
    // short-circuit conditions and in a switch.
    r#"
int fact(int n)
{
    if (n <= 1)
        return 1;
    return n * fact(n - 1);
}

int scan(int x)
{
    int i = 0;
    do {
        if (x - i == 3)
            return i;
        i++;
    } while (i < 8);
    if (x < 0)
        return -x;
    return 0;
}

int pos(int x)
{
    return x > 0;
}

int pick(int a, int b)
{
    if (a > b) {
        a = a - b;
        return a;
    }
    if (a == b)
        return 0;
    b = b - a;
    return -b;
}

int client(int a, int b)
{
    int s = 0;
    if (pos(a) && pos(b))
        s = fact(a % 7);
    switch (b & 3) {
    case 1:
        s += scan(a % 20);
        break;
    case 2:
        s += pick(a % 100, b % 100);
    default:
        s += 1;
    }
    return s + (pos(b) ? pick(b % 50, a % 50) : scan(b % 30));
}
"#,
];

#[test]
fn inlined_programs_behave_as_the_originals() {
    use dizy::interp::{parse_arg, Value};
    use dizy::witness::{behave, differ};
    let tmp = tempfile::tempdir().expect("temp dir");
    for (k, src) in INLINER_PROGRAMS.iter().enumerate() {
        let path = tmp.path().join(format!("p{k}.c"));
        std::fs::write(&path, src).unwrap();
        let orig = dizy::load_gcl(&path, &Default::default()).expect("load");
        let all: BTreeSet<String> = orig.functions.iter().map(|f| f.name.clone()).collect();
        let clients: BTreeSet<String> = ["client".to_string()].into();
        let inl = dizy::inline::inline_program(&orig.program, &clients, &all, &Default::default());
        let out = &inl.outcomes["client"];
        assert!(
            out.inlined.len() >= 3,
            "program {k}: inlined {:?}",
            out.inlined
        );
        // The inlined client calls no target any more except where a note says why.
        let inlined = dizy::gcl::flatten_program(inl.program).expect("flatten inlined");
        let gf = inlined.function("client").unwrap();
        let left: Vec<String> = gf
            .instrs
            .iter()
            .filter_map(|i| match &i.kind {
                dizy::gcl::InstrKind::Call {
                    callee: dizy::ir::Callee::Direct(n),
                    ..
                } => Some(n.clone()),
                _ => None,
            })
            .collect();
        for n in &left {
            assert!(
                out.notes.iter().any(|x| x.contains(&format!("`{n}`"))),
                "program {k}: call to {n} left without a note: {:?}",
                out.notes
            );
        }
        let params: Vec<CType> = {
            let f = &orig.function("client").unwrap().func;
            f.params.iter().map(|p| f.var(*p).ty.clone()).collect()
        };
        let tys: Vec<Ty> = params.iter().map(harness_ty).collect();
        let mut inputs = gen_inputs(&tys, 400, 17 + k as u64);
        for a in -12..12 {
            for b in -6..6 {
                inputs.push(common::Input {
                    lits: vec![a.to_string(), b.to_string()],
                    c_args: vec![],
                });
            }
        }
        let mut compared = 0;
        for inp in &inputs {
            let args: Vec<Value> = inp
                .lits
                .iter()
                .zip(&params)
                .map(|(l, t)| parse_arg(l, t).expect("literal"))
                .collect();
            let a = behave(&orig, "client", &args, 1_000_000);
            let b = behave(&inlined, "client", &args, 1_000_000);
            match (&a, &b) {
                (Some(x), Some(y)) => {
                    assert!(
                        !differ(x, y),
                        "program {k} on {:?}: original {x:?}, inlined {y:?}",
                        inp.lits
                    );
                    compared += 1;
                }
                (None, None) => {}
                _ => panic!(
                    "program {k} on {:?}: original {a:?}, inlined {b:?}",
                    inp.lits
                ),
            }
        }
        println!(
            "program {k}: {compared} of {} inputs compared, inlined {:?}, notes {:?}",
            inputs.len(),
            out.inlined,
            out.notes
        );
        assert!(
            compared * 2 >= inputs.len(),
            "program {k}: too few defined runs"
        );
    }
}

/// Fan-out over several levels would multiply code: the statement budget stops inlining (the
/// remaining calls stay calls, with a note) and the inlined client stays small.
#[test]
fn inlining_budget_bounds_fan_out() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut src = String::from(
        "int h3(int x)\n{\n    if (x > 5)\n        return x - 1;\n    return x + 1;\n}\n",
    );
    for (f, g) in [("h2", "h3"), ("h1", "h2"), ("client", "h1")] {
        src.push_str(&format!("int {f}(int x)\n{{\n    int s = 0;\n"));
        for k in 0..20 {
            src.push_str(&format!("    s += {g}(x + {k});\n"));
        }
        src.push_str("    return s;\n}\n");
    }
    let path = tmp.path().join("fan.c");
    std::fs::write(&path, &src).unwrap();
    let p = dizy::load_gcl(&path, &Default::default()).expect("load");
    let all: BTreeSet<String> = ["h1", "h2", "h3"].iter().map(|s| s.to_string()).collect();
    let clients: BTreeSet<String> = ["client".to_string()].into();
    let inl = dizy::inline::inline_program(&p.program, &clients, &all, &Default::default());
    let out = &inl.outcomes["client"];
    assert!(
        out.notes.iter().any(|n| n.contains("size budget")),
        "{:?}",
        out.notes
    );
    let f = inl.program.function("client").unwrap();
    let g = dizy::gcl::flatten_function(f).expect("flatten");
    println!("inlined client: {} instructions", g.instrs.len());
    assert!(g.instrs.len() < 40_000, "{} instructions", g.instrs.len());
    // Still the same function.
    let inlined = dizy::gcl::flatten_program(inl.program).expect("flatten");
    for x in [-3, 0, 4, 9] {
        let args = [dizy::interp::Value::Int(x)];
        assert_eq!(
            dizy::witness::behave(&p, "client", &args, 1_000_000),
            dizy::witness::behave(&inlined, "client", &args, 1_000_000)
        );
    }
}
