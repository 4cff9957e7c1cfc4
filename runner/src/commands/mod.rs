//! One module per command group; `dispatch` routes a parsed command to it.

mod audit;
mod compare;
mod harness;
mod policy;
mod policy_replay;
mod policy_test;
mod policy_verify;
mod proxy;
mod report;
mod sandbox;
mod scenarios;

use crate::cli::{
    Command, ExportCommand, HarnessCommand, MatrixCommand, PolicyCommand, ProxyCommand,
    SandboxCommand, SandboxImageCommand, ScenariosCommand,
};
use crate::error::CliError;
use std::process::ExitCode;

/// Runs one parsed command.
pub fn dispatch(command: Command) -> Result<ExitCode, CliError> {
    match command {
        Command::Scenarios(sc) => match sc {
            ScenariosCommand::List {
                suite,
                json,
                source,
            } => scenarios::list(suite, json, &source),
            ScenariosCommand::Show { id, source } => scenarios::show(&id, &source),
            ScenariosCommand::Validate {
                paths,
                allow_modified,
            } => scenarios::validate(&paths, allow_modified),
            ScenariosCommand::New { dir, from, variant } => {
                scenarios::author::new_world(&dir, &from, variant.as_deref())
            }
            ScenariosCommand::Schema { kind } => scenarios::author::schema(kind),
            ScenariosCommand::Generate { worlds, out, check } => {
                scenarios::generate(worlds, out, check)
            }
        },
        Command::Policy(PolicyCommand::Check {
            files,
            schema,
            allow_empty_policy,
        }) => policy::check(&files, schema.as_deref(), empty_policy(allow_empty_policy)),
        Command::Policy(PolicyCommand::Test {
            file,
            json,
            source,
            scenario_files,
            strict,
            schema,
            allow_empty_policy,
        }) => policy_test::test(
            &file,
            &policy_test::Options {
                json,
                strict,
                schema: schema.as_deref(),
                source: &source,
                scenario_files: &scenario_files,
                empty: empty_policy(allow_empty_policy),
            },
        ),
        Command::Policy(PolicyCommand::Replay {
            run,
            policy,
            against,
            json,
            out,
            rows,
            source,
            allow_empty_policy,
        }) => policy_replay::replay(
            &run,
            &policy_replay::Options {
                policy: &policy,
                against: against.as_deref(),
                json,
                out: out.as_deref(),
                rows,
                source: &source,
                empty: empty_policy(allow_empty_policy),
            },
        ),
        Command::Policy(PolicyCommand::Verify {
            file,
            against,
            property,
            timeout,
            json,
            scenario_out,
            show_assumptions,
        }) => policy_verify::verify(
            &file,
            &policy_verify::Options {
                against: against.as_deref(),
                property: property.as_deref(),
                timeout: std::time::Duration::from_secs(timeout.max(1)),
                json,
                scenario_out: scenario_out.as_deref(),
                show_assumptions,
            },
        ),
        Command::Audit(audit) => audit::dispatch(audit),
        Command::Run(args) => crate::run::run(*args),
        Command::Report(args) => report::report(&args),
        Command::Compare(args) => compare::compare(&args),
        Command::Export(ExportCommand::Inspect { dirs, out, source }) => {
            let suite = scenarios::load(&source)?;
            let written = crate::export::inspect::export_runs(&dirs, &out, &suite.scenarios)?;
            let mut text = String::new();
            for path in &written {
                text.push_str(&format!("{}\n", path.display()));
            }
            print(&text)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Merge { dirs, out } => crate::scale::merge_command(&dirs, &out),
        Command::Matrix(MatrixCommand::Run { file, out }) => {
            crate::scale::matrix::run(&file, out.as_deref())
        }
        Command::Matrix(MatrixCommand::Status { path, out }) => {
            crate::scale::matrix::status(&path, out.as_deref())
        }
        Command::Harness(HarnessCommand::Install { which, dir }) => harness::install(which, dir),
        Command::Harness(HarnessCommand::List { dir }) => harness::list(dir),
        Command::Proxy(ProxyCommand::Serve(args)) => proxy::serve(args),
        Command::Sandbox(SandboxCommand::Image(SandboxImageCommand::Build {
            image,
            mirror,
            suite,
            if_missing,
        })) => sandbox::build_image(image, mirror, suite, if_missing),
    }
}

/// What `--allow-empty-policy` means to the policies crate.
pub(crate) fn empty_policy(allow: bool) -> cosec_policies::EmptyPolicy {
    if allow {
        cosec_policies::EmptyPolicy::Allow
    } else {
        cosec_policies::EmptyPolicy::Refuse
    }
}

/// Writes `text` to standard output in one piece; a closed pipe comes back as
/// [`CliError::Stdout`], which `main` treats as a quiet end rather than a panic.
pub(crate) fn print(text: &str) -> Result<(), CliError> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(CliError::Stdout)
}
