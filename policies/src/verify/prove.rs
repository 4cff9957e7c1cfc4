//! The checks: each one compiled per request environment, sent to cvc5, and every
//! counterexample replayed through Cedar's concrete authorizer before it is reported.

use super::counterexample::{record, replay, Replay};
use super::sets::{load, with_assumptions, with_read_as_egress};
use super::{
    solver, CheckResult, EnvResult, PolicyText, Role, Verdict, VerifyError, VerifyReport,
    VerifyRequest,
};
use crate::oracle::builtin_schema;
use crate::schema::{ORACLE_FILE_NAME, ORACLE_SOURCE};
use cedar_policy::{EntityUid, PolicySet, RequestEnv, Schema};
use cedar_policy_symcc::err::Error as SymError;
use cedar_policy_symcc::solver::LocalSolver;
use cedar_policy_symcc::{CedarSymCompiler, CompiledPolicy, CompiledPolicySet, Env};
use std::time::Instant;

/// Runs every check `request` asks for with cvc5 and returns the report; a check that
/// fails is in the report, only a check that could not run is an error.
pub fn verify(request: &VerifyRequest) -> Result<VerifyReport, VerifyError> {
    let cvc5 = solver::find_cvc5()?;
    let schema = builtin_schema()?;
    let defense = load(&request.defense.name, &request.defense.text, &schema)?;
    let oracle = load(ORACLE_FILE_NAME, ORACLE_SOURCE, &schema)?;
    let loaded = |p: &Option<PolicyText>| -> Result<Option<(String, PolicySet)>, VerifyError> {
        Ok(match p {
            Some(p) => Some((p.name.clone(), load(&p.name, &p.text, &schema)?)),
            None => None,
        })
    };
    let against = loaded(&request.against)?;
    let property = loaded(&request.property)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| VerifyError::Runtime(e.to_string()))?;
    runtime.block_on(async {
        let solver = solver::start(&cvc5, request.timeout)?;
        let mut prover = Prover {
            symcc: CedarSymCompiler::new(solver).map_err(|e| symbolic("start", "-", &e))?,
            schema: &schema,
        };
        let mut checks = vec![prover.never_errors(&defense).await?];
        let defense_name = request.defense.name.as_str();
        let shared = shared_actions(&schema)?;
        checks.push(
            prover
                .relation(
                    Relation::Implies,
                    "implies-oracle",
                    format!("every egress or receive request {defense_name} allows, the oracle allows"),
                    Role::Verdict,
                    (defense_name, &defense),
                    ("oracle", &oracle),
                    |env| shared.contains(env.action()),
                )
                .await?,
        );
        let oracle_read = with_read_as_egress(&oracle)?;
        checks.push(
            prover
                .relation(
                    Relation::Implies,
                    "read-implies-oracle",
                    format!("every read {defense_name} allows, the oracle would allow as a disclose to the same destination"),
                    Role::Verdict,
                    (defense_name, &defense),
                    ("oracle (read as disclose)", &oracle_read),
                    |env| env.action().id().unescaped() == "read",
                )
                .await?,
        );
        if let Some((name, other)) = &against {
            for (relation, label, statement) in [
                (Relation::Implies, "implies", format!("every request {defense_name} allows, {name} allows (it only tightens {name})")),
                (Relation::ImpliedBy, "implied-by", format!("every request {name} allows, {defense_name} allows")),
                (Relation::Equivalent, "equivalent", format!("{defense_name} and {name} decide every request alike")),
                (Relation::Disjoint, "disjoint", format!("no request is allowed by both {defense_name} and {name}")),
            ] {
                checks.push(
                    prover
                        .relation(relation, label, statement, Role::Relation, (defense_name, &defense), (name, other), |_| true)
                        .await?,
                );
            }
        }
        if let Some((name, prop)) = &property {
            checks.push(
                prover
                    .relation(
                        Relation::Implies,
                        "implies-property",
                        format!("every request {defense_name} allows, the property {name} allows"),
                        Role::Verdict,
                        (defense_name, &defense),
                        (name, prop),
                        |_| true,
                    )
                    .await?,
            );
        }
        Ok(VerifyReport {
            defense: defense_name.to_owned(),
            solver: cvc5.display().to_string(),
            checks,
        })
    })
}

/// A counterexample of `defense ⇒ oracle` that a static world can reproduce: a
/// disclose into a community or a write into its workspace, with the extra facts of
/// [`super::scenario::EXPORTABLE`]; `None` when there is none.
pub fn find_exportable(
    defense: &PolicyText,
    timeout: std::time::Duration,
) -> Result<Option<super::Counterexample>, VerifyError> {
    let cvc5 = solver::find_cvc5()?;
    let schema = builtin_schema()?;
    let mut loose = load(&defense.name, &defense.text, &schema)?;
    let exportable = load("exportable.cedar", super::scenario::EXPORTABLE, &schema)?;
    for p in exportable.policies() {
        let label = p.annotation("id").unwrap_or("unnamed").to_owned();
        loose
            .add(p.new_id(cedar_policy::PolicyId::new(format!("export:{label}"))))
            .map_err(|e| crate::PolicyError::cedar("export assumption", e))?;
    }
    let oracle = load(ORACLE_FILE_NAME, ORACLE_SOURCE, &schema)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| VerifyError::Runtime(e.to_string()))?;
    runtime.block_on(async {
        let solver = solver::start(&cvc5, timeout)?;
        let mut prover = Prover {
            symcc: CedarSymCompiler::new(solver).map_err(|e| symbolic("start", "-", &e))?,
            schema: &schema,
        };
        let check = prover
            .relation(
                Relation::Implies,
                "exportable-implies-oracle",
                String::new(),
                Role::Verdict,
                (defense.name.as_str(), &loose),
                ("oracle", &oracle),
                |env| matches!(env.action().id().unescaped(), "disclose" | "write"),
            )
            .await?;
        let found = check.counterexamples().next().cloned();
        Ok(found)
    })
}

/// How two policy sets are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relation {
    /// Every request the first allows, the second allows.
    Implies,
    /// Every request the second allows, the first allows.
    ImpliedBy,
    /// Both decide every request alike.
    Equivalent,
    /// No request is allowed by both.
    Disjoint,
}

impl Relation {
    /// Whether the concrete decisions of a counterexample are the disagreement claimed.
    fn refuted_by(self, first: &Replay, second: &Replay) -> bool {
        match self {
            Relation::Implies => first.allowed && !second.allowed,
            Relation::ImpliedBy => second.allowed && !first.allowed,
            Relation::Equivalent => first.allowed != second.allowed,
            Relation::Disjoint => first.allowed && second.allowed,
        }
    }
}

struct Prover<'a> {
    symcc: CedarSymCompiler<LocalSolver>,
    schema: &'a Schema,
}

/// `principal type, action, resource type`.
fn env_name(env: &RequestEnv) -> String {
    format!("{}, {}, {}", env.principal(), env.action(), env.resource())
}

/// The schema's request environments, sorted (Cedar yields them in hash order).
fn environments(schema: &Schema) -> Vec<RequestEnv> {
    let mut envs: Vec<RequestEnv> = schema.request_envs().collect();
    envs.sort_by_key(env_name);
    envs
}

/// The actions the oracle decides: `receive` and every member of `egress`.
fn shared_actions(schema: &Schema) -> Result<Vec<EntityUid>, VerifyError> {
    let actions = schema
        .action_entities()
        .map_err(|e| crate::PolicyError::cedar("schema actions", e))?;
    let mut out = Vec::new();
    for a in actions.iter() {
        let uid = a.uid();
        let id = uid.id().unescaped().to_owned();
        let in_egress = actions
            .ancestors(&uid)
            .is_some_and(|mut it| it.any(|p| p.id().unescaped() == "egress"));
        if in_egress || id == "receive" {
            out.push(uid);
        }
    }
    Ok(out)
}

fn symbolic(check: &str, environment: &str, e: &SymError) -> VerifyError {
    VerifyError::Symbolic {
        check: check.to_owned(),
        environment: environment.to_owned(),
        message: e.to_string(),
    }
}

/// A solver answer: `Ok(None)` proved, `Ok(Some)` refuted, `Err(reason)` undecided.
fn answer(
    result: Result<Option<Env>, SymError>,
    check: &str,
    environment: &str,
) -> Result<Result<Option<Env>, String>, VerifyError> {
    match result {
        Ok(found) => Ok(Ok(found)),
        Err(SymError::SolverUnknown) => Ok(Err(
            "cvc5 gave no answer within the time limit (raise --timeout)".to_owned(),
        )),
        Err(e) => Err(symbolic(check, environment, &e)),
    }
}

impl Prover<'_> {
    /// Never-errors, policy by policy: Cedar skips a policy whose evaluation errors,
    /// so an erroring forbid silently stops forbidding.
    async fn never_errors(&mut self, pset: &PolicySet) -> Result<CheckResult, VerifyError> {
        let mut results = Vec::new();
        for env in environments(self.schema) {
            let environment = env_name(&env);
            let mut policies: Vec<_> = pset.policies().collect();
            policies.sort_by_key(|p| p.id().to_string());
            for policy in policies {
                let id = crate::check::display_id(pset, policy.id());
                let started = Instant::now();
                let compiled = CompiledPolicy::compile(policy, &env, self.schema)
                    .map_err(|e| symbolic("never-errors", &environment, &e))?;
                let found = self
                    .symcc
                    .check_never_errors_with_counterexample_opt(&compiled)
                    .await;
                let verdict = match answer(found, "never-errors", &environment)? {
                    Ok(None) => Verdict::Holds,
                    Ok(Some(cex)) => {
                        let single = PolicySet::from_policies([policy.clone()])
                            .map_err(|e| crate::PolicyError::cedar("policy set", e))?;
                        let replayed = replay(&cex.request, &cex.entities, &[(&id, &single)]);
                        if replayed.iter().all(|r| r.errors.is_empty()) {
                            return Err(VerifyError::Replay {
                                check: "never-errors".into(),
                                environment,
                                message: format!("policy `{id}` evaluates without error"),
                            });
                        }
                        Verdict::Fails {
                            counterexample: Box::new(
                                record(&cex.request, &cex.entities, replayed).map_err(
                                    |message| VerifyError::Replay {
                                        check: "never-errors".into(),
                                        environment: environment.clone(),
                                        message,
                                    },
                                )?,
                            ),
                        }
                    }
                    Err(reason) => Verdict::Unknown { reason },
                };
                results.push(EnvResult {
                    environment: environment.clone(),
                    policy: Some(id),
                    verdict,
                    millis: started.elapsed().as_secs_f64() * 1e3,
                });
            }
        }
        Ok(CheckResult {
            name: "never-errors".into(),
            statement: "no policy errors on any well-typed request".into(),
            role: Role::Verdict,
            results,
        })
    }

    /// Compares `first` with `second` (both with the domain assumptions) in every
    /// environment `applies` selects.
    #[allow(clippy::too_many_arguments)]
    async fn relation(
        &mut self,
        relation: Relation,
        name: &str,
        statement: String,
        role: Role,
        first: (&str, &PolicySet),
        second: (&str, &PolicySet),
        applies: impl Fn(&RequestEnv) -> bool,
    ) -> Result<CheckResult, VerifyError> {
        let a = with_assumptions(first.1, self.schema)?;
        let b = with_assumptions(second.1, self.schema)?;
        let mut results = Vec::new();
        for env in environments(self.schema).into_iter().filter(|e| applies(e)) {
            let environment = env_name(&env);
            let started = Instant::now();
            let ca = CompiledPolicySet::compile(&a, &env, self.schema)
                .map_err(|e| symbolic(name, &environment, &e))?;
            let cb = CompiledPolicySet::compile(&b, &env, self.schema)
                .map_err(|e| symbolic(name, &environment, &e))?;
            let found = match relation {
                Relation::Implies => {
                    self.symcc
                        .check_implies_with_counterexample_opt(&ca, &cb)
                        .await
                }
                Relation::ImpliedBy => {
                    self.symcc
                        .check_implies_with_counterexample_opt(&cb, &ca)
                        .await
                }
                Relation::Equivalent => {
                    self.symcc
                        .check_equivalent_with_counterexample_opt(&ca, &cb)
                        .await
                }
                Relation::Disjoint => {
                    self.symcc
                        .check_disjoint_with_counterexample_opt(&ca, &cb)
                        .await
                }
            };
            let verdict = match answer(found, name, &environment)? {
                Ok(None) => Verdict::Holds,
                Ok(Some(cex)) => {
                    let replayed = replay(
                        &cex.request,
                        &cex.entities,
                        &[(first.0, &a), (second.0, &b)],
                    );
                    let claimed = match replayed.as_slice() {
                        [x, y] => relation.refuted_by(x, y),
                        _ => false,
                    };
                    if !claimed {
                        return Err(VerifyError::Replay {
                            check: name.to_owned(),
                            environment,
                            message: format!("{replayed:?}"),
                        });
                    }
                    let cex = record(&cex.request, &cex.entities, replayed).map_err(|message| {
                        VerifyError::Replay {
                            check: name.to_owned(),
                            environment: environment.clone(),
                            message,
                        }
                    })?;
                    Verdict::Fails {
                        counterexample: Box::new(cex),
                    }
                }
                Err(reason) => Verdict::Unknown { reason },
            };
            results.push(EnvResult {
                environment,
                policy: None,
                verdict,
                millis: started.elapsed().as_secs_f64() * 1e3,
            });
        }
        Ok(CheckResult {
            name: name.to_owned(),
            statement,
            role,
            results,
        })
    }
}
