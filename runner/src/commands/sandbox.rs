//! `cosec sandbox image build`: the Docker sandbox image, made offline.

use crate::error::CliError;
use crate::harness::install;
use crate::sandbox::docker::image::{self, BuildPlan};
use crate::sandbox::docker::{IMAGE_LAYOUT, LAYOUT_LABEL, PATHS_LABEL};
use std::path::PathBuf;
use std::process::ExitCode;

/// `cosec sandbox image build`.
pub fn build_image(
    image: String,
    mirror: Option<String>,
    suite: Option<String>,
    if_missing: bool,
) -> Result<ExitCode, CliError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Run(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(build(image, mirror, suite, if_missing))
}

async fn build(
    image: String,
    mirror: Option<String>,
    suite: Option<String>,
    if_missing: bool,
) -> Result<ExitCode, CliError> {
    let cache = install::cache_dir();
    let detected = [
        ("codex", install::codex::detect(&cache)),
        ("openclaw", install::openclaw::detect(&cache)),
        ("hermes", install::hermes::detect(&cache)),
    ];
    if if_missing {
        let wanted: Vec<PathBuf> = detected
            .iter()
            .filter_map(|(_, found)| found.as_ref())
            .flat_map(|i| i.readonly.iter().cloned())
            .collect();
        match existing(&image).await? {
            Some(held) if held.layout != IMAGE_LAYOUT => eprintln!(
                "{image} has the layout of an older cosec ({}): building it again",
                held.layout
            ),
            Some(held)
                if wanted
                    .iter()
                    .all(|w| held.paths.iter().any(|h| w.starts_with(h))) =>
            {
                eprintln!(
                    "{image} is built and holds every installed harness (drop --if-missing to rebuild it)"
                );
                return Ok(ExitCode::SUCCESS);
            }
            Some(_) => eprintln!("{image} lacks an installed harness: building it again"),
            None => {}
        }
    }
    let configured = image::configured_source();
    let (mirror, suite) = match (mirror, suite, configured) {
        (Some(m), Some(s), _) => (m, s),
        (m, s, Some((cm, cs))) => (m.unwrap_or(cm), s.unwrap_or(cs)),
        (_, _, None) => {
            return Err(CliError::Run(
                "no Debian mirror in /etc/apt/sources.list or /etc/apt/sources.list.d/; \
                 give one with --mirror URL --suite NAME"
                    .to_owned(),
            ))
        }
    };
    let mut harnesses = Vec::new();
    for (name, found) in detected {
        match found {
            Some(installed) => harnesses.push(installed),
            None => eprintln!(
                "warning: {name} is not installed in {}: the image will not hold it \
                 (`cosec harness install {name}`, then build again)",
                cache.display()
            ),
        }
    }
    let plan = BuildPlan {
        image: image.clone(),
        mirror,
        suite,
        cache: image::cache_dir(),
        harnesses,
    };
    let progress = |line: &str| eprintln!("  {line}");
    eprintln!("building the sandbox image {image} ...");
    let built = image::build(&plan, &progress).await?;
    outln!(
        "{image} built ({}): root filesystem {} ({:.0} s), import {:.0} s; holds {}",
        built.id,
        if built.rootfs_cached {
            "cached"
        } else {
            "made"
        },
        built.rootfs_time.as_secs_f64(),
        built.import_time.as_secs_f64(),
        built
            .paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(ExitCode::SUCCESS)
}

/// What an existing sandbox image was built with.
struct Existing {
    /// The host paths it holds.
    paths: Vec<PathBuf>,
    /// Its layout (`1` for images made before the layout label).
    layout: String,
}

/// What the existing `image` holds (`None`: there is no such image).
async fn existing(image: &str) -> Result<Option<Existing>, CliError> {
    let client = crate::sandbox::docker::connect_daemon().await?;
    let Ok(inspect) = client.inspect_image(image).await else {
        return Ok(None);
    };
    let labels = inspect.config.and_then(|c| c.labels).unwrap_or_default();
    let paths = labels
        .get(PATHS_LABEL)
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or_default();
    let layout = labels
        .get(LAYOUT_LABEL)
        .cloned()
        .unwrap_or_else(|| "1".to_owned());
    Ok(Some(Existing { paths, layout }))
}
