//! The Docker backend: every run of a harness process is a fresh container made, driven
//! and removed through the Docker Engine API (`bollard`), with the API version
//! negotiated with the daemon (Debian's Docker 20.10 speaks 1.41).
//!
//! The container gets only the trial's agent half and the harness home (read-write),
//! the shim socket and one relay socket per loopback listener (read-only), a read-only
//! root filesystem from the sandbox image (built offline by `cosec sandbox image build`,
//! holding the pinned harness installs at their host paths), a private `/tmp`, memory,
//! CPU and process limits, no capabilities, an unprivileged user (the runner's own, or
//! `nobody` lent the trial's trees for the run when the runner is root; see `lease`)
//! and no network at all (`none`): the model proxy is reached only through a unix
//! socket that the runner relays to the proxy's loopback port, and which `cosec-shim
//! launch` inside the container serves again on the same loopback address, so harness
//! configurations stay the same as with bubblewrap.

mod container;
pub mod image;
mod lease;
mod live;

use super::{Finished, Job, Sandbox, SandboxError};
use async_trait::async_trait;
use bollard::models::ContainerCreateBody;
use bollard::query_parameters::{CommitContainerOptions, RemoveContainerOptions};
use bollard::query_parameters::{CreateContainerOptions, UploadToContainerOptions};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The image `cosec sandbox image build` makes and `--sandbox docker` runs.
pub const DEFAULT_IMAGE: &str = "cosec-sandbox:latest";

/// Label of the sandbox image listing (as JSON) the host paths it holds.
pub const PATHS_LABEL: &str = "org.cosec.paths";

/// Label of the sandbox image naming the layout it was built with.
pub const LAYOUT_LABEL: &str = "org.cosec.layout";

/// The image layout this cosec builds and runs: the folders leading to the harness
/// installs are open to every user, since the containers run harnesses unprivileged.
pub const IMAGE_LAYOUT: &str = "2";

/// Label of every container the sandbox makes (to find strays: `docker ps -a --filter
/// label=org.cosec.sandbox`).
pub const CONTAINER_LABEL: &str = "org.cosec.sandbox";

/// Limits and image of the sandbox containers.
#[derive(Debug, Clone)]
pub struct DockerConfig {
    /// The sandbox image.
    pub image: String,
    /// Memory limit of one container, bytes (swap included).
    pub memory_bytes: i64,
    /// CPU limit of one container, in cores.
    pub cpus: f64,
    /// Most processes one container may run.
    pub pids: i64,
}

impl Default for DockerConfig {
    /// 4 GiB, 2 cores, 1024 processes: a harness turn (Node or Python plus the shell
    /// commands of an agent) stays far below them; a runaway one is stopped by them.
    fn default() -> Self {
        DockerConfig {
            image: DEFAULT_IMAGE.to_owned(),
            memory_bytes: 4 << 30,
            cpus: 2.0,
            pids: 1024,
        }
    }
}

/// The Docker sandbox: a daemon connection, the run image (the sandbox image plus the
/// relay binary at its host path) and the host paths that image holds.
pub struct Docker {
    client: bollard::Docker,
    config: DockerConfig,
    relay: PathBuf,
    run_image: String,
    image_paths: Vec<PathBuf>,
}

/// A failed Docker request, as a sandbox error saying what was being done.
fn api(what: &str) -> impl FnOnce(bollard::errors::Error) -> SandboxError + '_ {
    move |e| SandboxError::Docker(format!("{what}: {e}"))
}

/// The daemon at the default socket (`DOCKER_HOST` respected), API version negotiated.
pub async fn connect_daemon() -> Result<bollard::Docker, SandboxError> {
    let not_running = |e: bollard::errors::Error| {
        SandboxError::Docker(format!(
            "the Docker daemon does not answer ({e}); start it (`dockerd &`, or \
             `systemctl start docker`) or use --sandbox bwrap"
        ))
    };
    let client = bollard::Docker::connect_with_local_defaults().map_err(not_running)?;
    client.negotiate_version().await.map_err(not_running)
}

impl Docker {
    /// Connects to the daemon, checks that `config.image` exists and makes (once per
    /// relay build) the run image holding `relay` (`cosec-shim`) at its host path.
    pub async fn connect(config: DockerConfig, relay: &Path) -> Result<Docker, SandboxError> {
        let client = connect_daemon().await?;
        let inspect = client.inspect_image(&config.image).await.map_err(|e| {
            SandboxError::Docker(format!(
                "the sandbox image {} is not there ({e}); build it with `cosec sandbox image build`",
                config.image
            ))
        })?;
        let labels = inspect.config.and_then(|c| c.labels).unwrap_or_default();
        let image_paths: Vec<PathBuf> = labels
            .get(PATHS_LABEL)
            .and_then(|text| serde_json::from_str(text).ok())
            .ok_or_else(|| {
                SandboxError::Docker(format!(
                    "{} lacks the label {PATHS_LABEL}: it was not made by `cosec sandbox image build`; rebuild it",
                    config.image
                ))
            })?;
        let layout = labels.get(LAYOUT_LABEL).map_or("1", String::as_str);
        if layout != IMAGE_LAYOUT {
            return Err(SandboxError::Docker(format!(
                "{} has the layout of an older cosec ({layout}; this one runs {IMAGE_LAYOUT}, \
                 whose unprivileged harnesses could not reach their installs in it); \
                 rebuild it with `cosec sandbox image build`",
                config.image
            )));
        }
        let base_id = inspect.id.unwrap_or_default();
        let bytes = std::fs::read(relay).map_err(|e| {
            SandboxError::Start(format!("cannot read the relay {}: {e}", relay.display()))
        })?;
        let mut hasher = Sha256::new();
        hasher.update(&bytes);
        hasher.update(base_id.as_bytes());
        let digest = hex::encode(hasher.finalize());
        let run_image = format!("cosec-sandbox-run:{}", digest.get(..16).unwrap_or("x"));
        if client.inspect_image(&run_image).await.is_err() {
            add_relay(&client, &config.image, &run_image, relay, &bytes).await?;
        }
        Ok(Docker {
            client,
            config,
            relay: relay.to_owned(),
            run_image,
            image_paths,
        })
    }

    /// The sandbox image this connection runs.
    pub fn image(&self) -> &str {
        &self.config.image
    }

    /// Whether `path` is inside one of the host paths the image holds.
    fn in_image(&self, path: &Path) -> bool {
        self.image_paths.iter().any(|p| path.starts_with(p))
    }
}

/// Makes `run_image` from `image` plus `bytes` (the relay) at the path `relay`: a
/// stopped container gets the file and is committed, then removed.
async fn add_relay(
    client: &bollard::Docker,
    image: &str,
    run_image: &str,
    relay: &Path,
    bytes: &[u8],
) -> Result<(), SandboxError> {
    let body = ContainerCreateBody {
        image: Some(image.to_owned()),
        cmd: Some(vec!["/bin/true".to_owned()]),
        labels: Some([(CONTAINER_LABEL.to_owned(), "relay".to_owned())].into()),
        ..Default::default()
    };
    let created = client
        .create_container(None::<CreateContainerOptions>, body)
        .await
        .map_err(api("cannot create the container that adds the relay"))?;
    let result = async {
        let tar = relay_tar(relay, bytes)
            .map_err(|e| SandboxError::Start(format!("cannot pack the relay: {e}")))?;
        let options = UploadToContainerOptions {
            path: "/".to_owned(),
            ..Default::default()
        };
        client
            .upload_to_container(&created.id, Some(options), bollard::body_full(tar.into()))
            .await
            .map_err(api("cannot copy the relay into the container"))?;
        let (repo, tag) = run_image.split_once(':').unwrap_or((run_image, "latest"));
        let options = CommitContainerOptions {
            container: Some(created.id.clone()),
            repo: Some(repo.to_owned()),
            tag: Some(tag.to_owned()),
            comment: Some(format!("{image} with the relay {}", relay.display())),
            ..Default::default()
        };
        client
            .commit_container(options, bollard::models::ContainerConfig::default())
            .await
            .map_err(api("cannot commit the run image"))
    }
    .await;
    let remove = RemoveContainerOptions {
        force: true,
        ..Default::default()
    };
    let _ = client.remove_container(&created.id, Some(remove)).await;
    result.map(|_| ())
}

/// A tar archive holding `bytes` as the executable file `path` (and its folders).
fn relay_tar(path: &Path, bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut builder = tar::Builder::new(Vec::new());
    let relative = path.strip_prefix("/").unwrap_or(path);
    let mut folder = PathBuf::new();
    for part in relative.parent().into_iter().flat_map(Path::components) {
        folder.push(part);
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Directory);
        header.set_mode(0o755);
        header.set_size(0);
        builder.append_data(&mut header, &folder, std::io::empty())?;
    }
    let mut header = tar::Header::new_gnu();
    header.set_mode(0o755);
    header.set_size(bytes.len() as u64);
    builder.append_data(&mut header, relative, bytes)?;
    builder.into_inner()
}

#[async_trait]
impl Sandbox for Docker {
    fn name(&self) -> &'static str {
        "docker"
    }

    async fn run(&self, job: Job<'_>) -> Result<Finished, SandboxError> {
        container::run(self, job).await
    }

    async fn spawn(
        &self,
        spec: &super::SandboxSpec,
        program: &Path,
        args: &[std::ffi::OsString],
    ) -> Result<super::Live, SandboxError> {
        live::spawn(self, spec, program, args).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_relay_archive_holds_the_binary_at_its_path_with_its_folders() {
        let tar = relay_tar(Path::new("/opt/cosec/bin/cosec-shim"), b"ELF").unwrap();
        let mut archive = tar::Archive::new(tar.as_slice());
        let mut names = Vec::new();
        for entry in archive.entries().unwrap() {
            let entry = entry.unwrap();
            let mode = entry.header().mode().unwrap();
            names.push((entry.path().unwrap().display().to_string(), mode));
        }
        assert_eq!(
            names,
            [
                ("opt".to_owned(), 0o755),
                ("opt/cosec".to_owned(), 0o755),
                ("opt/cosec/bin".to_owned(), 0o755),
                ("opt/cosec/bin/cosec-shim".to_owned(), 0o755),
            ]
        );
    }
}
