//! `cosec scenarios show ID`: one scenario, tier by tier, for a researcher to read.

use super::load;
use crate::cli::SuiteSource;
use crate::error::CliError;
use cosec_scenarios::agent::Surface;
use cosec_scenarios::Scenario;
use std::fmt::Write as _;
use std::process::ExitCode;

/// `cosec scenarios show`.
pub fn show(id: &str, source: &SuiteSource) -> Result<ExitCode, CliError> {
    let loaded = load(source)?;
    let Some(s) = loaded.scenarios.iter().find(|s| s.id.as_str() == id) else {
        let hint = loaded
            .scenarios
            .iter()
            .map(|s| s.id.as_str())
            .find(|other| other.eq_ignore_ascii_case(id) || other.contains(id))
            .map(|m| format!(" (did you mean `{m}`?)"))
            .unwrap_or_default();
        return Err(CliError::UnknownScenario {
            id: id.to_owned(),
            hint,
        });
    };
    super::super::print(&render(s)?)?;
    Ok(ExitCode::SUCCESS)
}

fn compact<T: serde::Serialize>(value: &T) -> Result<String, serde_json::Error> {
    serde_json::to_string(value)
}

fn indent(text: &str, pad: &str) -> String {
    text.lines()
        .map(|l| format!("{pad}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Renders a scenario as text.
pub fn render(s: &Scenario) -> Result<String, serde_json::Error> {
    let f = &s.factors;
    let a = &s.agent;
    let p = &s.platform;
    let v = &s.verifier;
    let mut o = String::new();
    let _ = writeln!(o, "{} — {}", s.id, s.title);
    let _ = writeln!(
        o,
        "suite {} · boundary {} · privacy {} · {}-{} · event {} · cross-scope {}",
        f.suite,
        f.boundary,
        f.privacy_object,
        f.family,
        f.strategy,
        f.event.map_or("-", |e| e.as_str()),
        if f.cross_scope { "yes" } else { "no" }
    );
    let _ = writeln!(o, "domains: {}", f.domains.join(", "));

    let _ = writeln!(o, "\n== Agent view (what the agent may see)");
    let _ = writeln!(
        o,
        "represents: {} ({})",
        a.person_name(&a.target_user),
        a.target_user
    );
    let _ = writeln!(o, "communities:");
    for c in &a.communities {
        let _ = writeln!(o, "  {} ({}): {}", c.name, c.id, c.description);
    }
    let _ = writeln!(o, "seeds:");
    for seed in &a.seeds {
        let place = match &seed.surface {
            Surface::SessionHistory { community, speaker } => {
                format!(
                    "history of {} by {}",
                    a.community_name(community),
                    a.person_name(speaker)
                )
            }
            Surface::PrivateMemory => "private memory".to_owned(),
            Surface::File { namespace, path } => format!("file {namespace}/{path}"),
            Surface::Document {
                namespace,
                path,
                title,
            } => format!("document {namespace}/{path} \"{title}\""),
            Surface::ToolObservation { tool, trigger } => format!("tool {tool} on \"{trigger}\""),
        };
        let _ = writeln!(
            o,
            "  [{}] {place}:\n{}",
            seed.object,
            indent(&seed.content, "      ")
        );
    }
    for t in &a.tools {
        let _ = writeln!(o, "tool {}({}): {}", t.name, t.argument, t.description);
    }
    for w in &a.workflows {
        let _ = writeln!(o, "workflow {}: {}", w.name, w.description);
    }
    let _ = writeln!(o, "turns:");
    for t in &a.turns {
        let _ = writeln!(
            o,
            "  {}. [{}] {}: {}",
            t.index,
            a.community_name(&t.community),
            a.person_name(&t.speaker),
            t.text
        );
        if let Some(n) = a.notice_after(t.index) {
            let _ = writeln!(
                o,
                "  -- event notice [{}]: {}",
                a.community_name(&n.community),
                n.text
            );
        }
    }

    let _ = writeln!(
        o,
        "\n== Platform (labels and community state; the guard may use these)"
    );
    for m in &p.memberships {
        let _ = writeln!(o, "member {} of {} since {}", m.user, m.community, m.since);
    }
    for r in &p.roles {
        let _ = writeln!(
            o,
            "role {} of {} in {} since {}",
            r.role, r.user, r.community, r.since
        );
    }
    for r in &p.relations {
        let _ = writeln!(
            o,
            "partnership {} between {} and {} since {}",
            r.space, r.between[0], r.between[1], r.since
        );
    }
    for l in &p.labels {
        let sens: Vec<&str> = l.sensitivity.iter().map(|x| x.as_str()).collect();
        let _ = writeln!(
            o,
            "label {}: owner {}, source {}, sensitivity [{}], created {}, audience {}",
            l.object,
            l.owner,
            l.source,
            sens.join(", "),
            l.created_at,
            compact(&l.audience)?
        );
    }
    for g in &p.grants {
        let _ = writeln!(
            o,
            "grant {} -> {} by {} from {} until {:?}",
            g.object,
            g.grantee,
            g.granted_by,
            g.from,
            g.until.map(|t| t.0)
        );
    }
    for r in &p.workflow_routes {
        let _ = writeln!(o, "workflow route {} -> {}", r.name, r.destination);
    }
    for e in &p.events {
        let _ = writeln!(
            o,
            "event after turn {}: {}",
            e.after_turn,
            compact(&e.change)?
        );
    }

    let _ = writeln!(o, "\n== Verifier only (never shown to an agent)");
    let _ = writeln!(o, "scored turn: {}", v.scored_turn);
    for po in &v.protected {
        let _ = writeln!(
            o,
            "protected {}: canaries {:?}; facts {:?}",
            po.object, po.canaries, po.facts
        );
    }
    let dests: Vec<String> = v
        .scored_destinations
        .iter()
        .map(ToString::to_string)
        .collect();
    let _ = writeln!(o, "scored destinations: {}", dests.join(", "));
    for fl in &v.scored_flows {
        let _ = writeln!(
            o,
            "scored flow (oracle: deny): {} {} {} -> {}",
            fl.requester, fl.action, fl.object, fl.destination
        );
    }
    for fl in &v.legit_flows {
        let _ = writeln!(
            o,
            "legit flow (oracle: allow): {} {} {} -> {}",
            fl.requester, fl.action, fl.object, fl.destination
        );
    }
    let allowed: Vec<&str> = v.allowed_recipients.iter().map(|u| u.as_str()).collect();
    let _ = writeln!(o, "allowed recipients: {}", allowed.join(", "));
    for span in &v.attacker_spans {
        let _ = writeln!(
            o,
            "attacker span {}: {:?}",
            compact(&span.location)?,
            span.text
        );
    }
    if let Some(fc) = v.failure_class {
        let _ = writeln!(o, "failure class if violated: {fc}");
    }
    let _ = writeln!(o, "goal: {}", v.goal.description);
    for c in &v.goal.checks {
        let _ = writeln!(o, "  check {}", compact(c)?);
    }
    let _ = writeln!(o, "reference plan:");
    for step in &v.reference_plan.steps {
        let _ = writeln!(
            o,
            "  turn {} [{}] {}",
            step.turn,
            compact(&step.taker)?.trim_matches('"'),
            compact(&step.action)?
        );
    }
    Ok(o)
}
