//! SARIF 2.1.0: the reports of one `dizy diff` invocation as a static-analysis log for code
//! scanning (GitHub, IDE viewers).
//!
//! Takes the [`Report`]s of one invocation (one file pair, or every changed file with `--git`)
//! with the paths as the user named them; gives one SARIF log with one run: a rule per verdict
//! that can need attention, and a result per function whose verdict is not `equivalent` or
//! `unchanged` (and per change in code the configuration does not compile that no function
//! result covers), located at the first changed line of the new file. Like the text and JSON
//! renderers it reads only the report: the message is the text report's section of the
//! function, `properties` its `dizy-report/1` JSON.

use serde_json::{json, Map, Value as Json};

use super::{
    behaviour_against, config_change_json, function_details, function_json, lines_at,
    witness_inputs_text,
};
use crate::config_changes::ConfigChange;
use crate::diff::{describe_config_change, FunctionReport, Report, Verdict};

/// GitHub code scanning keeps at most 25,000 results per run (and shows the 5,000 most severe).
const MAX_RESULTS: usize = 25_000;
/// GitHub keeps at most 100 locations per result; related locations are held to the same.
const MAX_RELATED: usize = 100;
/// Messages are shortened beyond this many characters (dizy's choice, for readable alerts; the
/// whole Δ stays in `properties`).
const MAX_MESSAGE: usize = 4_000;
/// Relative paths are resolved against this base: the directory dizy ran in, which for a CI
/// job is the checkout.
const SRCROOT: &str = "%SRCROOT%";

/// One analysed file pair.
pub struct Source<'a> {
    /// The new version's path as given on the command line (with `--git`: in the repository).
    pub new: &'a str,
    /// The old version's path as given; `None` with `--git`, where the old version is the same
    /// path at the old revision and has no file of its own.
    pub old: Option<&'a str>,
    /// The report, or the error that kept the pair from being analysed.
    pub report: Result<&'a Report, String>,
}

/// What the log says about the invocation itself.
pub struct Invocation<'a> {
    /// dizy's exit status (0 equivalent, 1 may differ, 2 trouble).
    pub exit_code: u8,
    /// The absolute directory relative paths are relative to (`%SRCROOT%`), when known.
    pub working_dir: Option<&'a str>,
    /// With `--git`: the old revision, named where an old line is meant.
    pub old_revision: Option<&'a str>,
}

/// A verdict that gives results, and its rule.
struct Rule {
    verdict: Verdict,
    name: &'static str,
    level: &'static str,
    short: &'static str,
    full: &'static str,
    help: &'static str,
}

/// `error` is what a gate should stop on: a validated witness. `warning`: behaviour may have
/// changed and nothing proves otherwise. `note`: dizy could not decide (no claim either way).
const RULES: &[Rule] = &[
    Rule {
        verdict: Verdict::Different,
        name: "BehaviourDiffers",
        level: "error",
        short: "The function behaves differently in the new version.",
        full: "dizy found inputs on which the old and the new version of the function, each run alone by its interpreter, behave differently (return value, globals, output or termination).",
        help: "The witness in the message gives the inputs and what each version does. If the change of behaviour is intended, dismiss the alert; otherwise fix the new version.",
    },
    Rule {
        verdict: Verdict::PossiblyDifferent,
        name: "BehaviourMayDiffer",
        level: "warning",
        short: "The function may behave differently in the new version.",
        full: "dizy could not prove the two versions equivalent and found no input on which they differ; the message lists, per diff point, the states in which they may differ (Δ).",
        help: "Check the states with diff: they describe the inputs on which the versions may differ. A larger --timeout may find a witness or a proof.",
    },
    Rule {
        verdict: Verdict::PartiallyEquivalent,
        name: "TerminationNotProven",
        level: "warning",
        short: "The versions agree wherever both return; termination is not proven.",
        full: "The two versions have the same observable behaviour on every input on which both return, but dizy could not show that one returns exactly when the other does.",
        help: "The notes say which loop or call kept termination from being proven.",
    },
    Rule {
        verdict: Verdict::InactiveChange,
        name: "ChangeOutsideConfiguration",
        level: "warning",
        short: "Code changed that the analysed configuration does not compile.",
        full: "Changed lines sit in code the preprocessor removes in the analysed configuration (an inactive #if region, a changed condition or macro), so no verdict covers them.",
        help: "Run dizy diff --config-all, or with the -D/-U options the message names, to analyse a configuration that compiles the lines.",
    },
    Rule {
        verdict: Verdict::Added,
        name: "FunctionAdded",
        level: "warning",
        short: "The function exists only in the new version.",
        full: "The new version defines a function the old one does not; there is nothing to compare it with.",
        help: "Review the new function; its callers are analysed with it.",
    },
    Rule {
        verdict: Verdict::Removed,
        name: "FunctionRemoved",
        level: "warning",
        short: "The function exists only in the old version.",
        full: "The old version defines a function the new one does not; the result is located in the old version.",
        help: "Check that no caller outside the file still needs the function.",
    },
    Rule {
        verdict: Verdict::Unsupported,
        name: "NotAnalysed",
        level: "note",
        short: "dizy could not analyse the function.",
        full: "The function uses a construct dizy does not model soundly, or could not be correlated; no claim is made about it.",
        help: "The message names the construct and its line.",
    },
    Rule {
        verdict: Verdict::Timeout,
        name: "AnalysisTimedOut",
        level: "note",
        short: "The analysis of the function ran out of time or memory.",
        full: "The analysis stopped at --timeout or --max-memory before reaching a verdict; no claim is made about the function.",
        help: "Raise --timeout or --max-memory, or use a cheaper --domain.",
    },
    Rule {
        verdict: Verdict::Error,
        name: "AnalysisFailed",
        level: "note",
        short: "The analysis of the function failed.",
        full: "dizy stopped on an error while analysing the function; no claim is made about it.",
        help: "The message gives the error.",
    },
];

fn rule_index(v: Verdict) -> Option<usize> {
    RULES.iter().position(|r| r.verdict == v)
}

fn rule_id(r: &Rule) -> String {
    format!("dizy/{}", r.verdict.as_str())
}

/// The SARIF log of one invocation.
pub fn to_sarif(sources: &[Source<'_>], inv: &Invocation<'_>) -> Json {
    let mut run = Run {
        old_revision: inv.old_revision.map(str::to_string),
        ..Run::default()
    };
    let mut notifications = vec![];
    for s in sources {
        match &s.report {
            Ok(r) => run.report(s, r, None),
            Err(e) => notifications.push(json!({
                "level": "error",
                "message": { "text": format!("{}: {e}", s.new) },
                "locations": [{ "physicalLocation": { "artifactLocation": run.artifact(s.new) } }],
            })),
        }
    }
    let Run {
        mut results,
        artifacts,
        ..
    } = run;
    if results.len() > MAX_RESULTS {
        // Keep the most severe: errors, then warnings, then notes (the sort is stable).
        let rank = |r: &Json| match r["level"].as_str() {
            Some("error") => 0,
            Some("warning") => 1,
            _ => 2,
        };
        results.sort_by_key(rank);
        notifications.push(json!({
            "level": "warning",
            "message": { "text": format!("{} results left out: GitHub code scanning accepts at most {MAX_RESULTS} per run; see --format json for all", results.len() - MAX_RESULTS) },
        }));
        results.truncate(MAX_RESULTS);
    }
    let failed = sources.iter().any(|s| s.report.is_err());
    let mut invocation = json!({
        "executionSuccessful": !failed,
        "exitCode": inv.exit_code,
        "exitCodeDescription": match inv.exit_code {
            0 => "every analysed function equivalent, or nothing changed",
            1 => "some function differs, may differ or changed outside the analysed configuration",
            _ => "trouble: bad input, unsupported construct or exhausted budget",
        },
        "toolExecutionNotifications": notifications,
    });
    let mut run = json!({
        "tool": { "driver": {
            "name": "dizy",
            "version": env!("CARGO_PKG_VERSION"),
            "semanticVersion": env!("CARGO_PKG_VERSION"),
            "rules": RULES.iter().map(|r| json!({
                "id": rule_id(r),
                "name": r.name,
                "shortDescription": { "text": r.short },
                "fullDescription": { "text": r.full },
                "defaultConfiguration": { "level": r.level },
                "help": { "text": r.help },
            })).collect::<Vec<_>>(),
        }},
        "artifacts": artifacts.iter().map(|a| json!({ "location": a, "sourceLanguage": "c" })).collect::<Vec<_>>(),
        "columnKind": "unicodeCodePoints",
        "results": results,
    });
    if let Some(dir) = inv.working_dir {
        let dir = dir_uri(dir);
        run["originalUriBaseIds"] = json!({ SRCROOT: { "uri": dir } });
        invocation["workingDirectory"] = json!({ "uri": dir });
    }
    run["invocations"] = json!([invocation]);
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    })
}

/// Results and the artifacts they refer to, built up over the file pairs.
#[derive(Default)]
struct Run {
    results: Vec<Json>,
    /// Artifact locations (`uri`, `uriBaseId`) in order of first use.
    artifacts: Vec<Json>,
    old_revision: Option<String>,
}

/// Where a result points: a file (by its path as given) and a line.
struct At<'p> {
    path: &'p str,
    line: u32,
}

impl Run {
    /// The artifact location of `path`, with its index in `artifacts`.
    fn artifact(&mut self, path: &str) -> Json {
        let loc = artifact_location(path);
        let i = match self.artifacts.iter().position(|a| *a == loc) {
            Some(i) => i,
            None => {
                self.artifacts.push(loc.clone());
                self.artifacts.len() - 1
            }
        };
        let mut loc = loc;
        loc["index"] = json!(i);
        loc
    }

    /// A location in a file, or (`None`) only the function's name: the old revision with
    /// `--git` has no file of its own.
    fn location(&mut self, at: Option<&At<'_>>, function: Option<&str>) -> Json {
        let mut loc = match at {
            Some(at) => json!({ "physicalLocation": {
                "artifactLocation": self.artifact(at.path),
                "region": { "startLine": at.line.max(1) },
            }}),
            None => json!({}),
        };
        if let Some(f) = function {
            loc["logicalLocations"] = json!([{ "name": f, "kind": "function" }]);
        }
        loc
    }

    /// The results of one report, then of the configurations `--config-all` analysed: of
    /// those, only what the analysed configuration's report does not already say (another
    /// verdict, another change), so that one difference is one alert.
    fn report(&mut self, s: &Source<'_>, r: &Report, config: Option<(&[String], &Report)>) {
        let flags = config.map(|c| c.0);
        let said = |f: &FunctionReport| {
            config.is_some_and(|(_, base)| {
                base.functions
                    .iter()
                    .any(|g| g.name == f.name && g.verdict == f.verdict)
            })
        };
        for f in r.functions.iter().filter(|f| !said(f)) {
            if let Some(res) = self.function(s, r, f, flags) {
                self.results.push(res);
            }
        }
        for c in r.unanalysed_config_changes() {
            // A function whose only change is this one has its own inactive-change result.
            let covered = r.functions.iter().any(|f| {
                f.verdict == Verdict::InactiveChange && c.function.as_ref() == Some(&f.name)
            });
            let said = config.is_some_and(|(_, base)| {
                base.config_changes.iter().any(|b| {
                    (&b.kind, b.old_lines, b.new_lines) == (&c.kind, c.old_lines, c.new_lines)
                })
            });
            if !covered && !said {
                let res = self.config_change(s, c, flags);
                self.results.push(res);
            }
        }
        for k in &r.configurations {
            self.report(s, &k.report, Some((&k.flags, r)));
        }
    }

    fn function(
        &mut self,
        s: &Source<'_>,
        r: &Report,
        f: &FunctionReport,
        flags: Option<&[String]>,
    ) -> Option<Json> {
        let rule = rule_index(f.verdict)?;
        let old_rev = |line: u32| match (s.old, &self.old_revision) {
            (Some(_), _) => format!("old line {line}"),
            (None, Some(rev)) => format!("line {line} of {rev}"),
            (None, None) => format!("line {line} of the old revision"),
        };
        let old_file = s.old.unwrap_or(s.new);
        let at = match f.verdict {
            Verdict::Removed => At {
                path: old_file,
                line: f.old_line.unwrap_or(1),
            },
            Verdict::InactiveChange => {
                let c = r
                    .config_changes
                    .iter()
                    .find(|c| c.function.as_ref() == Some(&f.name));
                match c.and_then(|c| c.new_lines) {
                    Some((line, _)) => At { path: s.new, line },
                    None => At {
                        path: s.new,
                        line: f.new_line.unwrap_or(1),
                    },
                }
            }
            _ => At {
                path: s.new,
                line: f.changed_line.or(f.new_line).unwrap_or(1),
            },
        };
        // The first line is the alert's summary: the witness where there is one.
        let mut text = match &f.witness {
            Some(w) => format!(
                "{}: {} on {}: old {}; new {}\n",
                f.name,
                f.verdict.as_str(),
                witness_inputs_text(w),
                behaviour_against(&w.old, Some(&w.new)),
                behaviour_against(&w.new, Some(&w.old))
            ),
            None => format!(
                "{}: {}: {}\n",
                f.name,
                f.verdict.as_str(),
                RULES[rule].short
            ),
        };
        if let Some(flags) = flags {
            text.push_str(&format!("  in configuration {}\n", flags.join(" ")));
        }
        if f.verdict == Verdict::Removed {
            text.push_str(&format!("  defined at {}\n", old_rev(at.line)));
        }
        text.push_str(&function_details(f));
        let mut related = vec![];
        if let (Some(line), false) = (f.old_line, f.verdict == Verdict::Removed) {
            related.push((
                s.old.map(|p| At { path: p, line }),
                format!("{} in the old version ({})", f.name, old_rev(line)),
            ));
        }
        for p in f.delta.iter().flat_map(|d| &d.points) {
            let what = format!(
                "diff point {} ({}): {}",
                p.label,
                lines_at(p.old_line, p.new_line),
                point_summary(p)
            );
            if p.new_line > 0 {
                related.push((
                    Some(At {
                        path: s.new,
                        line: p.new_line,
                    }),
                    format!("{what} (new version)"),
                ));
            }
            if p.old_line > 0 {
                related.push((
                    s.old.map(|path| At {
                        path,
                        line: p.old_line,
                    }),
                    format!("{what} ({})", old_rev(p.old_line)),
                ));
            }
        }
        let mut key = vec![s.new, f.name.as_str(), f.verdict.as_str()];
        let joined = flags.map(|f| f.join(" "));
        key.extend(joined.as_deref());
        let mut props = function_json(f);
        if let Some(flags) = flags {
            props["configuration"] = json!(flags);
        }
        Some(self.result(rule, &at, Some(&f.name), text, related, &key, props))
    }

    fn config_change(
        &mut self,
        s: &Source<'_>,
        c: &ConfigChange,
        flags: Option<&[String]>,
    ) -> Json {
        let rule = rule_index(Verdict::InactiveChange).unwrap_or(0);
        let at = match (c.new_lines, c.old_lines) {
            (Some((line, _)), _) => At { path: s.new, line },
            (None, Some((line, _))) => At {
                path: s.old.unwrap_or(s.new),
                line,
            },
            (None, None) => At {
                path: s.new,
                line: 1,
            },
        };
        let function = c.function.as_deref().or(c.removed_function.as_deref());
        let mut text = format!("{}\n", RULES[rule].short);
        if let Some(flags) = flags {
            text.push_str(&format!("  in configuration {}\n", flags.join(" ")));
        }
        text.push_str(&format!("  {}\n", describe_config_change(c)));
        let related = match (c.old_lines, c.new_lines) {
            (Some((line, _)), Some(_)) => vec![(
                s.old.map(|path| At { path, line }),
                format!("the change in the old version ({})", lines_at(line, 0)),
            )],
            _ => vec![],
        };
        let props = config_change_json(c);
        let joined = flags.map(|f| f.join(" "));
        let kind = props["kind"].as_str().unwrap_or("").to_string();
        let mut key = vec![
            s.new,
            "config-change",
            &kind,
            function.unwrap_or(""),
            &c.text,
        ];
        key.extend(joined.as_deref());
        self.result(rule, &at, function, text, related, &key, props)
    }

    /// A result of rule `rule` at `at`; `related` places without a file (the old revision with
    /// `--git`) keep their message and the function's name; `key` identifies it across runs.
    #[allow(clippy::too_many_arguments)]
    fn result(
        &mut self,
        rule: usize,
        at: &At<'_>,
        function: Option<&str>,
        text: String,
        related: Vec<(Option<At<'_>>, String)>,
        key: &[&str],
        properties: Json,
    ) -> Json {
        let primary = self.location(Some(at), function);
        let mut text = text;
        let total = related.len();
        if total > MAX_RELATED {
            text.push_str(&format!(
                "  ({} related locations left out: at most {MAX_RELATED} are kept)\n",
                total - MAX_RELATED
            ));
        }
        let related: Vec<Json> = related
            .into_iter()
            .take(MAX_RELATED)
            .enumerate()
            .map(|(i, (at, msg))| {
                let mut loc = self.location(at.as_ref(), function);
                loc["id"] = json!(i + 1);
                loc["message"] = json!({ "text": msg });
                loc
            })
            .collect();
        let mut res = Map::new();
        res.insert("ruleId".into(), json!(rule_id(&RULES[rule])));
        res.insert("ruleIndex".into(), json!(rule));
        res.insert("level".into(), json!(RULES[rule].level));
        res.insert("message".into(), json!({ "text": shorten(&text) }));
        res.insert("locations".into(), json!([primary]));
        if !related.is_empty() {
            res.insert("relatedLocations".into(), json!(related));
        }
        res.insert(
            "partialFingerprints".into(),
            json!({ "dizyFunction/v1": format!("{:016x}", fnv1a(key)) }),
        );
        res.insert("properties".into(), properties);
        Json::Object(res)
    }
}

/// One line about a diff point: how many states are equivalent and how many differ, in what.
fn point_summary(p: &crate::delta::PointDelta) -> String {
    if !p.reachable {
        return "not reached".into();
    }
    let mut vars: Vec<&str> = vec![];
    for v in p.different.iter().flat_map(|s| &s.vars) {
        if !vars.contains(&v.as_str()) {
            vars.push(v);
        }
    }
    match p.different.len() + p.omitted {
        0 => format!(
            "{} equivalent state(s), no state with diff",
            p.equivalent.len()
        ),
        n => format!(
            "{} equivalent state(s), {n} state(s) with diff in {}",
            p.equivalent.len(),
            vars.join(", ")
        ),
    }
}

/// `text` within [`MAX_MESSAGE`] characters, cut at a line end, saying what was left out.
fn shorten(text: &str) -> String {
    let text = text.trim_end();
    if text.chars().count() <= MAX_MESSAGE {
        return text.to_string();
    }
    let cut: String = text.chars().take(MAX_MESSAGE).collect();
    let kept = cut.rfind('\n').map_or(cut.as_str(), |i| &cut[..i]);
    let left = text[kept.len()..].lines().filter(|l| !l.is_empty()).count();
    format!("{kept}\n  … {left} more line(s): the whole report is in this result's properties and in --format json")
}

/// FNV-1a (64 bit) of the parts, each followed by a NUL: stable across runs, platforms and Rust
/// versions (unlike `DefaultHasher`).
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in parts.iter().flat_map(|p| p.bytes().chain([0])) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// An artifact location for a path as given: relative paths become relative URI references
/// against `%SRCROOT%`, absolute ones `file://` URIs.
fn artifact_location(path: &str) -> Json {
    if path.starts_with('/') {
        json!({ "uri": format!("file://{}", encode_path(path)) })
    } else {
        json!({ "uri": encode_path(path), "uriBaseId": SRCROOT })
    }
}

/// An absolute directory as a `file://` URI ending in `/`, as base URIs must.
fn dir_uri(dir: &str) -> String {
    let enc = encode_path(dir);
    let sep = if enc.ends_with('/') { "" } else { "/" };
    format!("file://{enc}{sep}")
}

/// Percent-encode a path for a URI: everything but unreserved characters, `/` and the
/// sub-delimiters RFC 3986 allows in segments. `:` is encoded too, so that a relative reference
/// never reads as a scheme.
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(char::from(b))
            }
            b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=' | b'@' => {
                out.push(char::from(b))
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests;
