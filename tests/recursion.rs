//! Proofs about changed recursive functions: recursive calls on equal arguments assumed to
//! agree (induction on the depth of recursion), one level unfolded, termination by a ranking on
//! a parameter or by matched calls. Every pair is also compiled with gcc and run on a range of
//! inputs: a pair claimed equivalent must agree there, a pair that must not be proved must
//! differ there (or differ only in termination, outside the range run).

mod common;

use common::{run_c_lines, verdict_of};
use dizy::diff::Verdict;

/// `f` of `src` compiled and run natively on each of `inputs` (one `int` argument).
fn native(dir: &std::path::Path, name: &str, src: &str, inputs: &[i32]) -> Vec<String> {
    let calls: String = inputs
        .iter()
        .map(|x| format!("  printf(\"%d\\n\", f({x}));\n"))
        .collect();
    run_c_lines(dir, name, src, &calls)
}

#[derive(Debug, PartialEq)]
enum Want {
    /// `equivalent`; the native runs agree.
    Proved,
    /// Never `equivalent`, `unchanged` or `partially-equivalent`; the native runs differ.
    Differs,
    /// Never `equivalent` or `unchanged`; the native runs (all terminating) agree.
    DiffersInTermination,
}

struct Case {
    old: &'static str,
    new: &'static str,
    want: Want,
    /// Inputs run natively (where both versions return).
    from: i32,
    to: i32,
}

const CASES: &[Case] = &[
    // Base cases that differ at the boundary (REVE's limit2): one level unfolded shows f(0).
    Case {
        old: "int f(int n) { int r = 0; if (n <= 0) { r = n; } else { r = f(n - 1); r = n + r; } return r; }",
        new: "int f(int n) { int r = 0; if (n <= 1) { r = n; } else { r = f(n - 1); r = n + r; } return r; }",
        want: Want::Proved,
        from: -5,
        to: 30,
    },
    // A guard that only the induction hypothesis shows to be always true (REVE's limit3).
    Case {
        old: "int f(int n) { int r = 0; if (n <= 1) { r = n; } else { r = f(n - 1); if (r >= 0) r = n + r; } return r; }",
        new: "int f(int n) { int r = 0; if (n <= 1) { r = n; } else { r = f(n - 1); r = n + r; } return r; }",
        want: Want::Proved,
        from: -5,
        to: 30,
    },
    // Early returns, operands commuted.
    Case {
        old: "int f(int n) { if (n <= 0) return 0; return n + f(n - 1); }",
        new: "int f(int n) { if (n < 1) return 0; return f(n - 1) + n; }",
        want: Want::Proved,
        from: -5,
        to: 30,
    },
    // Both diverge alike for negative n (stack overflow): matched calls on equal arguments
    // terminate alike.
    Case {
        old: "int f(int n) { if (n == 0) return 0; return f(n - 1) + 2; }",
        new: "int f(int n) { if (!n) return 0; return 2 + f(n - 1); }",
        want: Want::Proved,
        from: 0,
        to: 30,
    },
    // A difference only at depth 7.
    Case {
        old: "int f(int n) { if (n <= 0) return 0; return n + f(n - 1); }",
        new: "int f(int n) { if (n <= 0) return 0; if (n == 7) return 1; return n + f(n - 1); }",
        want: Want::Differs,
        from: 0,
        to: 12,
    },
    // The base value differs, and every level carries it.
    Case {
        old: "int f(int n) { if (n <= 0) return 0; return n + f(n - 1); }",
        new: "int f(int n) { if (n <= 0) return 1; return n + f(n - 1); }",
        want: Want::Differs,
        from: 0,
        to: 3,
    },
    // One more level in one version, with a base value that does not match (REVE limit2/Neq).
    Case {
        old: "int f(int n) { if (n <= 0) return n; return n + f(n - 1); }",
        new: "int f(int n) { if (n <= 1) return 0; return n + f(n - 1); }",
        want: Want::Differs,
        from: 0,
        to: 5,
    },
    // A global read and written: no induction over the arguments alone.
    Case {
        old: "int c;\nint f(int n) { if (n <= 0) return c; c = c + 1; return f(n - 1); }",
        new: "int c;\nint f(int n) { if (n <= 0) return c; int r = f(n - 1); c = c + 1; return r; }",
        want: Want::Differs,
        from: 1,
        to: 4,
    },
    // The parameter written before the call: the unfolded level says nothing by induction.
    Case {
        old: "int f(int n) { if (n <= 0) return 0; n = n - 1; return 1 + f(n); }",
        new: "int f(int n) { if (n <= 1) return n; n = n - 1; return 1 + f(n); }",
        want: Want::Differs,
        from: -3,
        to: 3,
    },
    // Mutual recursion (regression verification's mutual summaries): calls of the cycle on
    // equal arguments are taken equal while each pair of it is proved; both recurse forever
    // below zero, alike.
    Case {
        old: "int g(int n);\nint f(int n) { if (n == 0) return 1; return g(n - 1); }\nint g(int n) { if (n == 0) return 0; return f(n - 1); }",
        new: "int g(int n);\nint f(int n) { if (n == 0) return 1; return g(n - 1); }\nint g(int n) { if (!n) return 0; return f(n - 1); }",
        want: Want::Proved,
        from: 0,
        to: 30,
    },
    Case {
        old: "int g(int n);\nint f(int n) { if (n <= 0) return 0; return n + g(n - 1); }\nint g(int n) { if (n <= 0) return 1; return f(n - 1) * 2; }",
        new: "int g(int n);\nint f(int n) { if (n < 1) return 0; return g(n - 1) + n; }\nint g(int n) { if (n <= 0) return 1; return 2 * f(n - 1); }",
        want: Want::Proved,
        from: -3,
        to: 20,
    },
    // A difference deep in the cycle.
    Case {
        old: "int g(int n);\nint f(int n) { if (n == 0) return 1; return g(n - 1); }\nint g(int n) { if (n == 0) return 0; return f(n - 1); }",
        new: "int g(int n);\nint f(int n) { if (n == 0) return 1; return g(n - 1); }\nint g(int n) { if (n == 0) return 0; if (n == 5) return 9; return f(n - 1); }",
        want: Want::Differs,
        from: 0,
        to: 12,
    },
    // The new base cases return below zero, where the old versions recurse for ever.
    Case {
        old: "int g(int n);\nint f(int n) { if (n == 0) return 1; return g(n - 1); }\nint g(int n) { if (n == 0) return 0; return f(n - 1); }",
        new: "int g(int n);\nint f(int n) { if (n <= 0) return 1; return g(n - 1); }\nint g(int n) { if (n <= 0) return 0; return f(n - 1); }",
        want: Want::DiffersInTermination,
        from: 0,
        to: 12,
    },
    // A member of the cycle counts its calls in a global: no summary.
    Case {
        old: "int c;\nint g(int n);\nint f(int n) { if (n <= 0) return c; return g(n - 1); }\nint g(int n) { c = c + 1; if (n <= 0) return 0; return f(n - 1); }",
        new: "int c;\nint g(int n);\nint f(int n) { if (n <= 0) return c; return g(n - 1); }\nint g(int n) { if (n <= 0) return 0; c = c + 1; return f(n - 1); }",
        want: Want::Differs,
        from: 0,
        to: 6,
    },
    // The new version recurses forever below zero.
    Case {
        old: "int f(int n) { if (n <= 0) return 0; return f(n - 1); }",
        new: "int f(int n) { if (n == 0) return 0; return f(n - 1); }",
        want: Want::DiffersInTermination,
        from: 0,
        to: 10,
    },
];

#[test]
fn recursive_pairs_are_proved_by_induction_and_only_when_equal() {
    let mut failures = vec![];
    for (k, case) in CASES.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let inputs: Vec<i32> = (case.from..=case.to).collect();
        let o = native(dir.path(), "o", case.old, &inputs);
        let n = native(dir.path(), "n", case.new, &inputs);
        assert_eq!(
            o != n,
            case.want == Want::Differs,
            "case {k}: native behaviour is not as listed"
        );
        let v = verdict_of(dir.path(), case.old, case.new, "f");
        let ok = match case.want {
            Want::Proved => v == Verdict::Equivalent,
            Want::Differs => !common::claims_no_difference(v),
            Want::DiffersInTermination => !matches!(v, Verdict::Equivalent | Verdict::Unchanged),
        };
        if !ok {
            failures.push(format!(
                "case {k}: {v:?}, wanted {:?}\n  old: {}\n  new: {}",
                case.want, case.old, case.new
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A proof by mutual summaries leans on the other members of the cycle: with only `f` analysed
/// (`--function f`), `g` is not proved, so neither is `f`, and the report says why.
#[test]
fn mutual_summaries_need_every_member_proved() {
    let dir = tempfile::tempdir().unwrap();
    let old = "int g(int n);\nint f(int n) { if (n == 0) return 1; return g(n - 1); }\nint g(int n) { if (n == 0) return 0; return f(n - 1); }";
    let new = "int g(int n);\nint f(int n) { if (n == 0) return 1; return g(n - 1); }\nint g(int n) { if (!n) return 0; return f(n - 1); }";
    assert_eq!(verdict_of(dir.path(), old, new, "f"), Verdict::Equivalent);
    let opts = dizy::diff::DiffOptions {
        functions: vec!["f".into()],
        ..Default::default()
    };
    let load = |name: &str, src: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, src).unwrap();
        dizy::load_gcl(&p, &Default::default()).unwrap()
    };
    let report = dizy::diff::diff_programs(&load("o.c", old), &load("n.c", new), &opts);
    let f = report.functions.iter().find(|r| r.name == "f").unwrap();
    assert_eq!(f.verdict, Verdict::PossiblyDifferent);
    assert_eq!(f.assumes, vec!["g".to_string()]);
    assert!(
        f.notes
            .iter()
            .any(|n| n.text.contains("`g` was not analysed")),
        "{:?}",
        f.notes
    );
}

/// A call that no input reaches (its guard is false in every sub-state of the fixpoint) does
/// not keep termination from being proven, even to a function that may not return; a call that
/// some input reaches does.
#[test]
fn calls_no_input_reaches_do_not_block_termination() {
    let spin = "static int spin(int x) { while (x != 0) x -= 2; return x; }\n";
    let dir = tempfile::tempdir().unwrap();
    let old =
        format!("{spin}int f(int n) {{ if (n > 5) {{ if (n < 3) return spin(n); }} return n; }}");
    let new = format!("{spin}int f(int n) {{ return n; }}");
    let inputs: Vec<i32> = (-10..=10).collect();
    assert_eq!(
        native(dir.path(), "o", &old, &inputs),
        native(dir.path(), "n", &new, &inputs)
    );
    assert_eq!(verdict_of(dir.path(), &old, &new, "f"), Verdict::Equivalent);
    // Reached for odd n > 5: spin(7) never returns.
    let old =
        format!("{spin}int f(int n) {{ if (n > 5) {{ if (n < 9) return spin(n); }} return n; }}");
    let v = verdict_of(dir.path(), &old, &new, "f");
    assert!(
        !matches!(v, Verdict::Equivalent | Verdict::Unchanged),
        "{v:?}"
    );
}
