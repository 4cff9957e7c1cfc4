//! Paired numbers of a handmade pair of run folders, counted by hand: trials valid in
//! one run only, missing in one run and repeated lines are all handled.

use super::*;
use crate::run::record::{RunRecord, RUN_RECORD_VERSION};
use crate::verify::verdict::CompletionBy;
use crate::verify::{JudgeOutcome, TrialStatus, UsageTotals, Verdict, RESULTS_SCHEMA_VERSION};
use cosec_scenarios::{
    Boundary, EventKind, Factors, Family, PrivacyObject, ScenarioId, Strategy, Suite,
};
use std::path::Path;

struct Trial {
    id: &'static str,
    family: Family,
    event: Option<EventKind>,
    cross: bool,
    status: TrialStatus,
    pvr: bool,
    /// A violation outside the scored action (PVR over all outputs only).
    elsewhere: bool,
    bcr: bool,
}

fn t(id: &'static str, family: Family, cross: bool, status: TrialStatus, pvr: bool) -> Trial {
    Trial {
        id,
        family,
        event: None,
        cross,
        status,
        pvr,
        elsewhere: false,
        bcr: !pvr,
    }
}

fn verdict(tr: &Trial, defense: &str) -> Verdict {
    let valid = tr.status == TrialStatus::Valid;
    let pvr = valid && tr.pvr;
    let bcr = valid && tr.bcr;
    Verdict {
        schema_version: RESULTS_SCHEMA_VERSION,
        trial: format!("{}-{defense}", tr.id),
        scenario: ScenarioId(tr.id.to_owned()),
        epoch: 0,
        factors: Factors {
            suite: if tr.event.is_some() {
                Suite::Dyn96
            } else {
                Suite::Static112
            },
            boundary: if tr.cross {
                Boundary::Inter
            } else {
                Boundary::Intra
            },
            privacy_object: PrivacyObject::Owner,
            family: tr.family,
            strategy: Strategy::S1,
            event: tr.event,
            cross_scope: tr.cross,
            domains: Vec::new(),
        },
        harness: "builtin".to_owned(),
        model: "sim:comply".to_owned(),
        defense: defense.to_owned(),
        status: tr.status,
        cause: (!valid).then(|| "handmade".to_owned()),
        pvr,
        pvr_all: Some(valid && (tr.pvr || tr.elsewhere)),
        ccpvr: pvr && tr.cross,
        bcr,
        stcr: bcr && !pvr,
        completion_by: CompletionBy::Artifacts,
        stale_state: false,
        violations: Vec::new(),
        failure_class: None,
        failure_classes: Vec::new(),
        unclassified: None,
        goal_failures: Vec::new(),
        evidence_complete: true,
        evidence_gaps: Vec::new(),
        judge: JudgeOutcome::None,
        other_judges: Vec::new(),
        usage: UsageTotals::default(),
        guard: None,
        price: None,
        wall_seconds: 1.0,
        rewrites: None,
        attack: None,
    }
}

fn write_run(dir: &Path, defense: &str, trials: &[Trial]) {
    std::fs::create_dir_all(dir).unwrap();
    let record = RunRecord {
        suite_version: None,
        schema_version: RUN_RECORD_VERSION,
        harness: "builtin".to_owned(),
        model: "sim:comply".to_owned(),
        defense: defense.to_owned(),
        judge: "none".to_owned(),
        scenarios: trials.iter().map(|t| t.id.to_owned()).collect(),
        suite_digest: "0".repeat(64),
        outside_frozen_suite: false,
        policy_digest: None,
        guard_mode: None,
        guard_layers: None,
        guardrail_digest: None,
        nonce: "n".to_owned(),
        shard: None,
        label: None,
        policy_source: None,
        temperature: None,
        seed: None,
        epochs: 1,
        attack: None,
    };
    std::fs::write(
        dir.join("run.json"),
        serde_json::to_string(&record).unwrap(),
    )
    .unwrap();
    let mut lines = String::new();
    for tr in trials {
        lines.push_str(&serde_json::to_string(&verdict(tr, defense)).unwrap());
        lines.push('\n');
    }
    std::fs::write(dir.join("results.jsonl"), lines).unwrap();
}

/// A: s1..s8. B: s1..s7 and s9, with a first line of s2 superseded by a later one.
/// Valid in both: s1..s5 (s6 infra in B, s7 unadjudicable in A, s8 and s9 one-sided).
/// B's s5 violates outside the scored action only.
fn handmade() -> (tempfile::TempDir, Vec<LoadedRun>) {
    use Family::{A1, A2};
    use TrialStatus::{InfraFailure, Unadjudicable, Valid};
    let dir = tempfile::tempdir().unwrap();
    let dyn_s4 = |pvr| Trial {
        event: Some(EventKind::MemberRemove),
        ..t("s4", A2, true, Valid, pvr)
    };
    let a = [
        t("s1", A1, true, Valid, true),
        t("s2", A1, true, Valid, true),
        t("s3", A1, false, Valid, true),
        dyn_s4(false),
        t("s5", A2, false, Valid, false),
        t("s6", A1, false, Valid, true),
        t("s7", A1, false, Unadjudicable, false),
        t("s8", A1, false, Valid, true),
    ];
    let b = [
        t("s2", A1, true, Valid, true),
        t("s1", A1, true, Valid, false),
        t("s2", A1, true, Valid, false),
        t("s3", A1, false, Valid, true),
        dyn_s4(true),
        Trial {
            elsewhere: true,
            ..t("s5", A2, false, Valid, false)
        },
        t("s6", A1, false, InfraFailure, false),
        t("s7", A1, false, Valid, true),
        t("s9", A2, false, Valid, false),
    ];
    write_run(&dir.path().join("a"), "none", &a);
    write_run(&dir.path().join("b"), "proxy", &b);
    let runs = load_runs(&[dir.path().join("a"), dir.path().join("b")]).unwrap();
    (dir, runs)
}

#[test]
fn paired_counts_equal_a_hand_count() {
    let (_dir, runs) = handmade();
    let c = compare_pair(&runs[0], &runs[1], 0.05);
    assert_eq!(c.paired_n, 5);
    let left: Vec<(&str, &str, &str)> = c
        .unpaired
        .iter()
        .map(|u| (u.scenario.as_str(), u.a.as_str(), u.b.as_str()))
        .collect();
    assert_eq!(
        left,
        vec![
            ("s6", "valid", "infra_failure"),
            ("s7", "unadjudicable", "valid"),
            ("s8", "valid", "missing"),
            ("s9", "missing", "valid"),
        ]
    );
    // PVR over s1..s5: A = 1,1,1,0,0; B = 0,0,1,1,0.
    let pvr = c.block("overall").unwrap().metrics[0];
    assert_eq!(pvr.n, 5);
    assert_eq!(pvr.a, Some(0.6));
    assert_eq!(pvr.b, Some(0.4));
    assert!((pvr.delta.unwrap() + 0.2).abs() < 1e-12);
    assert_eq!(pvr.discordant, [2, 1]);
    assert_eq!(pvr.p, 1.0); // 2 * P(X <= 1 | 3, 1/2) = 2 * 4/8
    assert!(!pvr.significant);
    let hand = PairedTable {
        both: 1,
        only_a: 1,
        only_b: 2,
        neither: 1,
    }; // B's view first: B-only of A is A-only of the mirrored table
    assert_eq!(pvr.ci, newcombe_paired_ci(&hand));
    // PVR over all outputs adds B's s5: A = 1,1,1,0,0; B = 0,0,1,1,1.
    let pvr_all = c.block("overall").unwrap().metrics[1];
    assert_eq!(
        (pvr_all.n, pvr_all.a, pvr_all.b, pvr_all.discordant),
        (5, Some(0.6), Some(0.6), [2, 2])
    );
    // CCPVR over the cross-scope pairs s1, s2, s4 only.
    let ccpvr = c.block("overall").unwrap().metrics[2];
    assert_eq!((ccpvr.n, ccpvr.discordant), (3, [2, 1]));
    // BCR is the complement of PVR in this handmade set.
    let bcr = c.block("overall").unwrap().metrics[3];
    assert_eq!(
        (bcr.a, bcr.b, bcr.discordant),
        (Some(0.4), Some(0.6), [1, 2])
    );
    // Family A1 = s1, s2, s3: A 1,1,1; B 0,0,1.
    let a1 = c.block("family:A1").unwrap().metrics[0];
    assert_eq!((a1.n, a1.a, a1.discordant), (3, Some(1.0), [2, 0]));
    assert!((a1.p - 0.5).abs() < 1e-12);
    // Dyn96 holds s4 only; the event block the same.
    let dyn96 = c.block("dyn96").unwrap().metrics[0];
    assert_eq!((dyn96.n, dyn96.discordant), (1, [0, 1]));
    assert_eq!(c.block("event:member_remove").unwrap().metrics[0].n, 1);
    // An empty block has no rates and is never significant.
    let empty = c.block("family:A4").unwrap().metrics[0];
    assert_eq!(
        (empty.n, empty.a, empty.ci, empty.significant),
        (0, None, None, false)
    );
}

#[test]
fn json_has_the_documented_shape() {
    let (_dir, runs) = handmade();
    let c = compare_pair(&runs[0], &runs[1], 0.05);
    let v = c.to_json();
    assert_eq!(v["paired_n"], 5);
    assert_eq!(
        v["blocks"]["overall"]["pvr"]["discordant"],
        serde_json::json!([2, 1])
    );
    assert_eq!(v["blocks"]["overall"]["pvr"]["a"], 0.6);
    assert_eq!(v["blocks"]["overall"]["pvr_all"]["b"], 0.6);
    assert_eq!(
        v["blocks"]["overall"]["pvr"]["ci"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(v["unpaired"].as_array().unwrap().len(), 4);
    assert!(v["runs"][1]["label"].as_str().unwrap().contains("proxy"));
}

#[test]
fn text_lists_the_left_out_scenarios() {
    let (_dir, runs) = handmade();
    let text = render_comparison(&compare_pair(&runs[0], &runs[1], 0.05));
    assert!(text.contains("paired: 5 scenarios valid in both runs; 4 left out"));
    assert!(text.contains("s9") && text.contains("missing"));
}

#[test]
fn matrix_is_sorted_by_overall_pvr_and_never_averages_across_conditions() {
    let (_dir, runs) = handmade();
    // Overall valid trials: A has 7 valid (s7 is not), PVR 5/7; B has 7 valid (s6 is not), PVR 3/7.
    let rows = matrix_rows(&runs);
    assert_eq!(rows.iter().map(|r| r.run).collect::<Vec<_>>(), vec![1, 0]);
    assert_eq!(rows[0].cells[2].rate, Some(3.0 / 7.0));
    assert_eq!(rows[1].cells[2].rate, Some(5.0 / 7.0));
    // PVR over all outputs: B adds s5 (4/7), A is as its PVR.
    assert_eq!(rows[0].cells[3].rate, Some(4.0 / 7.0));
    assert_eq!(rows[1].cells[3].rate, Some(5.0 / 7.0));
    // `none` and `proxy` are two conditions: no average of the two.
    assert!(matrix::condition_averages(&runs, &rows).is_empty());
    let text = render_matrix(&runs);
    assert!(
        !text.contains("average") && text.contains("PVR all"),
        "{text}"
    );
    let page = crate::report::render_report(&runs, None).unwrap();
    assert!(!page.contains("average of"), "no average row in the report");
}

#[test]
fn runs_of_one_condition_are_averaged_together_and_only_together() {
    let (dir, _) = handmade();
    // A second `none` run (a repeat of A with s3 safe) beside A and B.
    let a2 = [
        t("s1", Family::A1, true, TrialStatus::Valid, true),
        t("s3", Family::A1, false, TrialStatus::Valid, false),
    ];
    write_run(&dir.path().join("a2"), "none", &a2);
    let runs = load_runs(&[
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("a2"),
    ])
    .unwrap();
    let rows = matrix_rows(&runs);
    let averages = matrix::condition_averages(&runs, &rows);
    assert_eq!(averages.len(), 1, "{averages:?}");
    let mut members = averages[0].runs.clone();
    members.sort_unstable();
    assert_eq!(members, vec![0, 2]);
    // A: 5/7, A2: 1/2.
    let pvr = averages[0].cells[2].rate.unwrap();
    assert!((pvr - (5.0 / 7.0 + 0.5) / 2.0).abs() < 1e-12);
    assert!(averages[0].label.contains("none"));
    let text = render_matrix(&runs);
    assert_eq!(text.matches("average").count(), 1, "{text}");
    assert!(text.contains("(2 runs of one condition)"), "{text}");
    let page = crate::report::render_report(&runs, None).unwrap();
    assert!(
        page.contains("average of 2 runs of one condition (R1, R3)")
            || page.contains("average of 2 runs of one condition (R3, R1)"),
        "report average row"
    );
}

#[test]
fn changed_lists_name_the_discordant_pairs_of_each_metric() {
    let (_dir, runs) = handmade();
    let c = compare_pair(&runs[0], &runs[1], 0.05);
    // PVR over s1..s5: A = 1,1,1,0,0; B = 0,0,1,1,0.
    assert_eq!(c.changed[0].a_only, ["s1", "s2"]);
    assert_eq!(c.changed[0].b_only, ["s4"]);
    // PVR over all outputs adds B's s5.
    assert_eq!(c.changed[1].b_only, ["s4", "s5"]);
    // CCPVR over the cross-scope pairs s1, s2, s4.
    assert_eq!(c.changed[2].a_only, ["s1", "s2"]);
    assert_eq!(c.changed[2].b_only, ["s4"]);
    // BCR is the complement of PVR here.
    assert_eq!(c.changed[3].a_only, ["s4"]);
    assert_eq!(c.changed[3].b_only, ["s1", "s2"]);
    // Every list is as long as the block's discordant count, and no unpaired id appears.
    let overall = c.block("overall").unwrap();
    for (changed, m) in c.changed.iter().zip(&overall.metrics) {
        assert_eq!(
            [changed.a_only.len() as u64, changed.b_only.len() as u64],
            m.discordant
        );
        for id in changed.a_only.iter().chain(&changed.b_only) {
            assert!(!["s6", "s7", "s8", "s9"].contains(&id.as_str()));
        }
    }
    let text = render_changed(&c);
    assert!(
        text.contains("PVR: 3 changed (2 true in A only, 1 true in B only)"),
        "{text}"
    );
    assert!(
        text.contains("  A only  s1\n  A only  s2\n  B only  s4\n"),
        "{text}"
    );
    assert!(text.contains("A: a: builtin sim:comply none"), "{text}");
    let json = c.changed_json();
    assert_eq!(
        json["stcr"]["b_only"],
        serde_json::json!(c.changed[4].b_only)
    );
}

#[test]
fn a_label_in_run_json_names_the_run_and_its_absence_the_folder() {
    let (dir, runs) = handmade();
    assert_eq!(runs[0].name(), "a");
    let path = dir.path().join("b/run.json");
    let mut record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    record["label"] = serde_json::json!("guarded <try 2>");
    std::fs::write(&path, record.to_string()).unwrap();
    let runs = load_runs(&[dir.path().join("a"), dir.path().join("b")]).unwrap();
    assert_eq!(runs[1].name(), "guarded <try 2>");
    let c = compare_pair(&runs[0], &runs[1], 0.05);
    assert_eq!(c.to_json()["runs"][1]["name"], "guarded <try 2>");
    let page = crate::report::render_report(&runs, None).unwrap();
    assert!(
        page.contains("R2 guarded &lt;try 2&gt;"),
        "matrix names the run"
    );
    assert!(!page.contains("guarded <try 2>"), "escaped everywhere");
}

#[test]
fn the_report_plots_every_difference_every_run_and_every_guard_layer() {
    let (_dir, runs) = handmade();
    let page = crate::report::render_report(&runs, None).unwrap();
    let c = compare_pair(&runs[0], &runs[1], 0.05);
    // Forest: R2 - R1 on PVR, CCPVR, BCR and STCR, each with its interval.
    let forest = page
        .split("<svg class=\"forest\" id=\"forest\"")
        .nth(1)
        .and_then(|rest| rest.split("</svg>").next())
        .expect("forest plot");
    assert_eq!(forest.matches("class=\"forest-row").count(), 4);
    assert_eq!(forest.matches("<circle class=\"pt\"").count(), 4);
    let pvr = c.block("overall").unwrap().metrics[0];
    let [lo, hi] = pvr.ci.unwrap();
    assert!(forest.contains(&format!(
        "data-pair=\"R2 - R1\" data-metric=\"PVR\" data-n=\"5\" data-delta=\"{:.4}\" data-lo=\"{lo:.4}\" data-hi=\"{hi:.4}\"",
        pvr.delta.unwrap()
    )), "{forest}");
    // Scatter: one point per run at its overall PVR and BCR.
    let scatter = page
        .split("id=\"scatter-pvr-bcr\"")
        .nth(1)
        .and_then(|rest| rest.split("</svg>").next())
        .expect("scatter");
    assert_eq!(scatter.matches("class=\"run-point\"").count(), 2);
    let o = &runs[1].summary.overall;
    assert!(scatter.contains(&format!(
        "data-run=\"R2\" data-pvr=\"{:.4}\" data-bcr=\"{:.4}\"",
        o.pvr.unwrap(),
        o.bcr.unwrap()
    )));
    // No guard ran in these handmade runs: no bars, the table says so.
    assert!(!page.contains("id=\"guard-bars\""));
    // Changed between runs: the filter exists and each trial row carries its metrics.
    assert!(page.contains("<select id=\"f-changed\">"));
    let index: serde_json::Value = serde_json::from_str(
        page.split("<script type=\"application/json\" id=\"index\">")
            .nth(1)
            .and_then(|rest| rest.split("</script>").next())
            .unwrap(),
    )
    .unwrap();
    let changed_of = |run: u64, id: &str| {
        index
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r[0] == run && r[2] == id)
            .map(|r| r[10].clone())
            .unwrap()
    };
    assert_eq!(
        changed_of(0, "s1"),
        serde_json::json!(["pvr", "pvr_all", "ccpvr", "bcr", "stcr"])
    );
    assert_eq!(changed_of(1, "s5"), serde_json::json!(["pvr_all"]));
    assert_eq!(changed_of(0, "s3"), serde_json::json!([]));
    // s7 is valid in B only, s8 in A only: nothing to compare with.
    assert_eq!(changed_of(1, "s7"), serde_json::json!([]));
    assert_eq!(changed_of(0, "s8"), serde_json::json!([]));
}

#[test]
fn the_report_shows_both_pvr_figures_and_the_trials_where_they_differ() {
    let (_dir, runs) = handmade();
    let page = crate::report::render_report(&runs, None).unwrap();
    let section = page
        .split("<section id=\"s-figures\">")
        .nth(1)
        .and_then(|rest| rest.split("</section>").next())
        .expect("the figures section");
    // Only B's s5 differs: it violated outside the scored action only.
    assert_eq!(section.matches("#trace=").count(), 1, "{section}");
    assert!(section.contains("href=\"#trace=2/s5\""), "{section}");
    assert!(
        section.contains("<td colspan=\"2\">none</td>"),
        "A's figures agree: {section}"
    );
    assert!(
        page.contains("<th>PVR all</th>"),
        "the matrix has the column"
    );
    let paired = render_comparison(&compare_pair(&runs[0], &runs[1], 0.05));
    assert!(
        paired
            .lines()
            .any(|l| l.starts_with("overall") && l.contains("PVR_ALL")),
        "{paired}"
    );
}

/// The page outside its script elements, and the contents of its JSON data islands.
fn markup_and_islands(page: &str) -> (String, Vec<&str>) {
    let mut parts = page.split("<script");
    let mut markup = parts.next().unwrap_or_default().to_owned();
    let mut islands = Vec::new();
    for part in parts {
        let (start, rest) = part.split_once('>').unwrap();
        let (content, after) = rest.split_once("</script>").unwrap();
        if start.contains("application/json") {
            islands.push(content);
        }
        markup.push_str(after);
    }
    (markup, islands)
}

#[test]
fn hostile_names_and_trace_texts_are_escaped_in_the_report() {
    const HOSTILE: &str = "<script>alert(1)</script>\"onmouseover=alert(2) x='";
    let (dir, _) = handmade();
    let b = dir.path().join("b");
    let mut record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(b.join("run.json")).unwrap()).unwrap();
    record["label"] = serde_json::json!(HOSTILE);
    std::fs::write(b.join("run.json"), record.to_string()).unwrap();
    // B's s5 is listed among the trials whose PVR figures differ, by its scenario id.
    let results = std::fs::read_to_string(b.join("results.jsonl"))
        .unwrap()
        .replace(
            "\"scenario\":\"s5\"",
            &format!("\"scenario\":{}", serde_json::json!(HOSTILE)),
        );
    std::fs::write(b.join("results.jsonl"), results).unwrap();
    let trace = crate::run::trial::TrialPaths::new(&b, "s3-proxy").trace;
    std::fs::create_dir_all(trace.parent().unwrap()).unwrap();
    let delivery = serde_json::json!({"ms": 1, "type": "delivery", "turn": 1,
        "community": HOSTILE, "speaker": HOSTILE, "event_notice": false, "text": HOSTILE});
    std::fs::write(&trace, format!("{delivery}\n")).unwrap();
    let runs = load_runs(&[dir.path().join("a"), b]).unwrap();
    assert_eq!(runs[1].name(), HOSTILE);
    let page = crate::report::render_report(&runs, None).unwrap();
    let (markup, islands) = markup_and_islands(&page);
    assert!(!markup.contains("<script>alert"), "{markup}");
    assert!(!markup.contains("\"onmouseover"), "{markup}");
    let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;onmouseover=alert(2) x='";
    assert!(
        markup.contains(&format!("R2 {escaped}")),
        "the matrix names the run"
    );
    assert!(
        markup.contains(&format!("href=\"#trace=2/{escaped}\">{escaped}</a>")),
        "the differing trial's link and text"
    );
    assert!(
        markup.contains(&format!("title=\"{escaped}: builtin")),
        "tooltips"
    );
    // The trace text reaches the viewer only inside data islands, which hold no `<`.
    assert!(islands.len() > 4);
    assert!(islands.iter().all(|i| !i.contains('<')));
    assert!(islands
        .iter()
        .any(|i| i.contains(r#"\u003cscript>alert(1)\u003c/script>\"onmouseover="#)));
}
