//! The default domain (`--domain auto`): native octagons first for a proof, polyhedra for a
//! function they do not prove equivalent. A relation only polyhedra hold (`y = 2x`) must still
//! be proved through the second step; what the octagons prove alone must not be a wrong
//! proof; and the report says which domains ran.

use dizy::diff::{diff_programs, DiffOptions, Verdict};
use dizy::gcl::GclProgram;
use dizy_domains::DomainKind;

fn load(dir: &std::path::Path, name: &str, src: &str) -> GclProgram {
    let p = dir.join(name);
    std::fs::write(&p, src).expect("write");
    dizy::load_gcl(&p, &Default::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn verdict(old: &str, new: &str, domain: DomainKind, proof: Option<DomainKind>) -> Verdict {
    let dir = tempfile::tempdir().expect("tempdir");
    let (po, pn) = (
        load(dir.path(), "old.c", old),
        load(dir.path(), "new.c", new),
    );
    let mut opts = DiffOptions {
        no_witness: true,
        ..Default::default()
    };
    opts.analysis.domain = domain;
    opts.analysis.proof_domain = proof;
    let report = diff_programs(&po, &pn, &opts);
    report
        .functions
        .iter()
        .find(|f| f.name == "f")
        .expect("f reported")
        .verdict
}

const AUTO: (DomainKind, Option<DomainKind>) = (DomainKind::Polyhedra, Some(DomainKind::Octagon));
const OCTAGON: (DomainKind, Option<DomainKind>) = (DomainKind::Octagon, None);
const POLYHEDRA: (DomainKind, Option<DomainKind>) = (DomainKind::Polyhedra, None);

fn under(old: &str, new: &str, (d, p): (DomainKind, Option<DomainKind>)) -> Verdict {
    verdict(old, new, d, p)
}

#[test]
fn the_default_is_octagons_then_polyhedra() {
    let o = DiffOptions::default();
    assert_eq!(o.analysis.domain, DomainKind::Polyhedra);
    assert_eq!(o.analysis.proof_domain, Some(DomainKind::Octagon));
}

/// `x + x + k` against `x + x` through a loop-free temporary: the octagons cannot hold
/// `y = 2x + k`, so they leave a possible difference; polyhedra prove it, and so does the
/// default. (Sums only: with a product the SMT congruence of matched computations would prove
/// it whatever the domain.)
#[test]
fn a_relation_octagons_cannot_hold_is_proved_by_the_second_step() {
    let old = "int f(int x, int k) { int y = x + x + k; return y - k + x + x + x; }\n";
    let new = "int f(int x, int k) { int y = x + x; return y + x + x + x; }\n";
    assert_eq!(under(old, new, POLYHEDRA), Verdict::Equivalent);
    assert_ne!(under(old, new, OCTAGON), Verdict::Equivalent);
    assert_eq!(under(old, new, AUTO), Verdict::Equivalent);
}

/// What the octagons prove alone: renamed locals and reordered branches keep `x = x'`.
#[test]
fn octagons_prove_what_they_hold() {
    let old = "int f(int a, int b) { int t = a - b; if (t > 0) return t + 1; return 1 - t; }\n";
    let new = "int f(int a, int b) { int d = a - b; if (d <= 0) return 1 - d; return d + 1; }\n";
    for s in [OCTAGON, POLYHEDRA, AUTO] {
        assert_eq!(under(old, new, s), Verdict::Equivalent, "{s:?}");
    }
}

/// Pairs that differ on some input are never proved, whichever domain runs first.
#[test]
fn differing_pairs_are_not_proved() {
    let pairs = [
        (
            "int f(int x, int y) { if (x - y > 3) return 1; return 0; }\n",
            "int f(int x, int y) { if (x - y >= 3) return 1; return 0; }\n",
        ),
        (
            "int f(int x, int y) { return x + y <= 10; }\n",
            "int f(int x, int y) { return x + y < 10; }\n",
        ),
        (
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) s += 2; return s; }\n",
            "int f(int n) { int s = 0; for (int i = 1; i < n; i++) s += 2; return s; }\n",
        ),
    ];
    for (old, new) in pairs {
        for s in [OCTAGON, AUTO] {
            let v = under(old, new, s);
            assert!(
                !matches!(v, Verdict::Equivalent | Verdict::Unchanged),
                "{s:?}: {v:?} on {old}"
            );
        }
    }
}

#[test]
fn the_report_states_both_domains() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = "int f(int x) { return x + 1; }\n";
    let (po, pn) = (
        load(dir.path(), "old.c", src),
        load(dir.path(), "new.c", src),
    );
    let text = |opts: &DiffOptions| {
        diff_programs(&po, &pn, opts)
            .assumptions
            .into_iter()
            .map(|n| n.text)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let auto = text(&DiffOptions::default());
    assert!(
        auto.contains("numeric domain octagon first for a proof, then polyhedra"),
        "{auto}"
    );
    let mut opts = DiffOptions::default();
    opts.analysis.proof_domain = None;
    let poly = text(&opts);
    assert!(poly.contains("numeric domain polyhedra,"), "{poly}");
}

/// A difference the concrete pre-pass shows at once is described (Δ) by the octagons under
/// `auto`, with a note saying so; under polyhedra alone the note is absent. The verdict is the
/// witness's either way.
#[test]
fn a_difference_found_before_the_analysis_is_described_with_octagons() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (po, pn) = (
        load(
            dir.path(),
            "old.c",
            "int f(int x) { if (x > 3) return 1; return 0; }\n",
        ),
        load(
            dir.path(),
            "new.c",
            "int f(int x) { if (x >= 3) return 1; return 0; }\n",
        ),
    );
    let run = |(d, p): (DomainKind, Option<DomainKind>)| {
        let mut opts = DiffOptions::default();
        opts.analysis.domain = d;
        opts.analysis.proof_domain = p;
        let r = diff_programs(&po, &pn, &opts);
        let f = r.functions.into_iter().find(|f| f.name == "f").expect("f");
        let noted = f
            .notes
            .iter()
            .any(|n| n.text.contains("the Δ is from the octagon domain"));
        (f.verdict, f.witness.is_some(), noted, f.delta.is_some())
    };
    let (v, w, noted, delta) = run(AUTO);
    assert_eq!((v, w, noted), (Verdict::Different, true, true));
    assert!(delta, "a Δ is still computed");
    let (v, w, noted, _) = run(POLYHEDRA);
    assert_eq!((v, w, noted), (Verdict::Different, true, false));
}
