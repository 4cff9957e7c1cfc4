//! `cosec sandbox image build`: the sandbox image made offline by the project itself,
//! without a registry. `debootstrap` makes a minimal root filesystem from the machine's
//! configured Debian mirror (cached, so a rebuild reuses it), the pinned harness
//! installs found in the harness cache are added at their host paths (with the runtimes
//! they link to, such as a pyenv Python), and the whole tree is streamed as a tar
//! archive into the daemon's image import (`POST /images/create?fromSrc=-`).

use super::{api, connect_daemon, IMAGE_LAYOUT, LAYOUT_LABEL, PATHS_LABEL};
use crate::harness::install::Installed;
use crate::sandbox::SandboxError;
use bollard::query_parameters::CreateImageOptions;
use futures_util::StreamExt;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Debian packages added to `debootstrap --variant=minbase`: what the pinned harnesses
/// link to or start (OpenClaw's Node needs the C++ runtime and runs `git init`; the
/// Python of Hermes loads ssl, sqlite, ffi, bz2, lzma, readline, curses, uuid and expat
/// modules) and TLS roots. Codex is a static binary and needs nothing more.
pub const PACKAGES: &[&str] = &[
    "ca-certificates",
    "git",
    "libstdc++6",
    "libssl3",
    "libsqlite3-0",
    "libffi8",
    "libbz2-1.0",
    "liblzma5",
    "libreadline8",
    "libncursesw6",
    "libuuid1",
    "libexpat1",
    "zlib1g",
];

/// Top-level folders of the root filesystem kept empty in the image: Docker provides
/// `/dev`, `/proc`, `/sys`; `/tmp` is a private tmpfs; `/root` holds only what the
/// harness installs put there (no shell profiles that would look like a user's home).
const EMPTY_DIRS: &[&str] = &["dev", "proc", "sys", "tmp", "root"];

/// Bytes per chunk of the streamed archive.
const CHUNK: usize = 1 << 20;

/// What `cosec sandbox image build` makes.
#[derive(Debug, Clone)]
pub struct BuildPlan {
    /// Image name and tag.
    pub image: String,
    /// The Debian mirror (`http://deb.debian.org/debian`).
    pub mirror: String,
    /// The Debian suite (`bookworm`).
    pub suite: String,
    /// Where root filesystems are cached.
    pub cache: PathBuf,
    /// The harness installs to add.
    pub harnesses: Vec<Installed>,
}

/// What was built.
#[derive(Debug, Clone)]
pub struct Built {
    /// The image id.
    pub id: String,
    /// Host paths the image holds besides the system.
    pub paths: Vec<PathBuf>,
    /// Whether the root filesystem came from the cache.
    pub rootfs_cached: bool,
    /// Time spent in `debootstrap` (zero when cached).
    pub rootfs_time: Duration,
    /// Time spent streaming and importing the image.
    pub import_time: Duration,
}

/// The root-filesystem cache: `$COSEC_SANDBOX_DIR`, else `$XDG_CACHE_HOME/cosec/sandbox`,
/// else `~/.cache/cosec/sandbox`.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("COSEC_SANDBOX_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    base.join("cosec").join("sandbox")
}

/// The machine's configured Debian mirror and suite: the first `deb` source that is not
/// a security or updates suite, from `/etc/apt/sources.list.d/*.sources` (deb822) or
/// `/etc/apt/sources.list`.
pub fn configured_source() -> Option<(String, String)> {
    let mut texts = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/etc/apt/sources.list.d") {
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            if path
                .extension()
                .is_some_and(|e| e == "sources" || e == "list")
            {
                texts.extend(std::fs::read_to_string(&path).ok());
            }
        }
    }
    texts.extend(std::fs::read_to_string("/etc/apt/sources.list").ok());
    texts.iter().find_map(|text| parse_source(text))
}

/// The first main Debian source of one sources file (either format).
fn parse_source(text: &str) -> Option<(String, String)> {
    let plain = |suite: &str| !suite.contains("security") && !suite.contains("updates");
    for line in text.lines().map(str::trim) {
        let mut words = line.split_whitespace();
        if words.next() == Some("deb") {
            let mut rest = words.skip_while(|w| w.starts_with('['));
            if let (Some(uri), Some(suite)) = (rest.next(), rest.next()) {
                if plain(suite) && !uri.contains("security") {
                    return Some((uri.to_owned(), suite.to_owned()));
                }
            }
        }
    }
    for stanza in text.split("\n\n") {
        let field = |name: &str| {
            stanza.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == name).then(|| v.trim().to_owned())
            })
        };
        let (Some(uris), Some(suites)) = (field("URIs"), field("Suites")) else {
            continue;
        };
        let uri = uris.split_whitespace().next()?;
        if uri.contains("security") {
            continue;
        }
        if let Some(suite) = suites.split_whitespace().find(|s| plain(s)) {
            return Some((uri.to_owned(), suite.to_owned()));
        }
    }
    None
}

/// Builds the image of `plan`, saying what it does through `progress`.
pub async fn build(plan: &BuildPlan, progress: &dyn Fn(&str)) -> Result<Built, SandboxError> {
    let client = connect_daemon().await?;
    let started = Instant::now();
    let (rootfs, cached) = rootfs(plan, progress).await?;
    let rootfs_time = if cached {
        Duration::ZERO
    } else {
        started.elapsed()
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    for installed in &plan.harnesses {
        for path in &installed.readonly {
            if !paths.iter().any(|p| path.starts_with(p)) {
                paths.retain(|p| !p.starts_with(path));
                paths.push(path.clone());
            }
        }
    }
    let names: Vec<String> = plan
        .harnesses
        .iter()
        .map(|h| format!("{} {}", h.name, h.version))
        .collect();
    progress(&format!(
        "importing {} with {} into {}",
        rootfs.display(),
        if names.is_empty() {
            "no harness".to_owned()
        } else {
            names.join(", ")
        },
        plan.image
    ));
    let import_started = Instant::now();
    let id = import(&client, &rootfs, &paths, plan, &names).await?;
    Ok(Built {
        id,
        paths,
        rootfs_cached: cached,
        rootfs_time,
        import_time: import_started.elapsed(),
    })
}

/// The cached root filesystem of `plan`, made by `debootstrap` when missing; whether it
/// was cached.
async fn rootfs(
    plan: &BuildPlan,
    progress: &dyn Fn(&str),
) -> Result<(PathBuf, bool), SandboxError> {
    let mut hasher = Sha256::new();
    for part in [plan.mirror.as_str(), plan.suite.as_str()]
        .iter()
        .chain(PACKAGES)
    {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    let digest = hex::encode(hasher.finalize());
    let name = format!("rootfs-{}-{}", plan.suite, digest.get(..12).unwrap_or("x"));
    let dir = plan.cache.join(&name);
    let done = plan.cache.join(format!("{name}.done"));
    if done.is_file() && dir.is_dir() {
        progress(&format!("root filesystem cached in {}", dir.display()));
        return Ok((dir, true));
    }
    let fs_err =
        |path: &Path, e: std::io::Error| SandboxError::Start(format!("{}: {e}", path.display()));
    std::fs::create_dir_all(&plan.cache).map_err(|e| fs_err(&plan.cache, e))?;
    let staging = plan.cache.join(format!("{name}.tmp"));
    let _ = std::fs::remove_dir_all(&staging);
    let _ = std::fs::remove_dir_all(&dir);
    progress(&format!(
        "debootstrap --variant=minbase {} from {} into {} (a few minutes)",
        plan.suite,
        plan.mirror,
        dir.display()
    ));
    let out = tokio::process::Command::new("debootstrap")
        .arg("--variant=minbase")
        .arg(format!("--include={}", PACKAGES.join(",")))
        .args([plan.suite.as_str()])
        .arg(&staging)
        .arg(&plan.mirror)
        .output()
        .await
        .map_err(|e| SandboxError::Missing {
            tool: "debootstrap",
            hint: if e.kind() == std::io::ErrorKind::NotFound {
                "apt-get install debootstrap"
            } else {
                "it could not be started; it must run as root"
            },
        })?;
    if !out.status.success() {
        let log = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = log.lines().rev().take(8).collect();
        let tail: Vec<&str> = lines.into_iter().rev().collect();
        return Err(SandboxError::Start(format!(
            "debootstrap {} {} failed ({}); is the mirror reachable and are you root?\n{}\n{}",
            plan.suite,
            plan.mirror,
            out.status,
            tail.join("\n"),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    std::fs::rename(&staging, &dir).map_err(|e| fs_err(&dir, e))?;
    std::fs::write(&done, &plan.mirror).map_err(|e| fs_err(&done, e))?;
    Ok((dir, false))
}

/// Streams `rootfs` plus `paths` into the daemon as the image `plan.image`, labelled
/// with the paths and the harness `names`; the image id.
async fn import(
    client: &bollard::Docker,
    rootfs: &Path,
    paths: &[PathBuf],
    plan: &BuildPlan,
    names: &[String],
) -> Result<String, SandboxError> {
    let (tx, rx) = tokio::sync::mpsc::channel::<std::io::Result<bytes::Bytes>>(8);
    let (root, extra) = (rootfs.to_owned(), paths.to_vec());
    let writer = tokio::task::spawn_blocking(move || {
        let mut sink = ChannelWriter {
            tx: tx.clone(),
            buf: Vec::with_capacity(CHUNK),
        };
        let result = write_tree(&mut sink, &root, &extra).and_then(|()| sink.flush());
        if let Err(e) = &result {
            // Fail the upload rather than import a truncated tree.
            let _ = tx.blocking_send(Err(std::io::Error::other(e.to_string())));
        }
        result
    });
    let body = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    });
    let (repo, tag) = plan
        .image
        .split_once(':')
        .unwrap_or((&plan.image, "latest"));
    let paths_json = serde_json::to_string(paths)
        .map_err(|e| SandboxError::Start(format!("cannot list the image paths: {e}")))?;
    let options = CreateImageOptions {
        from_src: Some("-".to_owned()),
        repo: Some(repo.to_owned()),
        tag: Some(tag.to_owned()),
        message: Some(format!(
            "cosec sandbox: {} {}",
            plan.suite,
            names.join(", ")
        )),
        changes: vec![
            format!("LABEL {PATHS_LABEL}={}", quote(&paths_json)),
            format!("LABEL org.cosec.harnesses={}", quote(&names.join(", "))),
            format!("LABEL {LAYOUT_LABEL}={}", quote(IMAGE_LAYOUT)),
        ],
        ..Default::default()
    };
    let mut answers =
        client.create_image(Some(options), Some(bollard::body_try_stream(body)), None);
    let mut last = None;
    let mut failure = None;
    while let Some(answer) = answers.next().await {
        match answer {
            Ok(info) => last = info.status.or(last),
            Err(e) => failure = Some(e),
        }
    }
    let written = writer
        .await
        .map_err(|e| SandboxError::Start(format!("the image archive writer failed: {e}")))?;
    if let Err(e) = written {
        return Err(SandboxError::Start(format!(
            "cannot pack the image from {}: {e}",
            rootfs.display()
        )));
    }
    if let Some(e) = failure {
        return Err(api("the daemon refused the image import")(e));
    }
    let inspect = client
        .inspect_image(&plan.image)
        .await
        .map_err(api("the imported image is not there"))?;
    Ok(inspect.id.or(last).unwrap_or_default())
}

/// `text` as a double-quoted Dockerfile word.
fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Writes the tar archive of `rootfs` (with [`EMPTY_DIRS`] emptied) and of `extra` at
/// their absolute paths, with their folders, owners, modes and symlinks kept, except
/// that the folders leading to `extra` are open to every user (`/root` is not, on the
/// host; the sandbox runs harnesses as `nobody`).
fn write_tree<W: Write>(sink: W, rootfs: &Path, extra: &[PathBuf]) -> std::io::Result<()> {
    let mut builder = tar::Builder::new(sink);
    builder.follow_symlinks(false);
    let passages: HashSet<PathBuf> = extra
        .iter()
        .flat_map(|path| path.strip_prefix("/").unwrap_or(path).ancestors().skip(1))
        .filter(|folder| !folder.as_os_str().is_empty())
        .map(Path::to_owned)
        .collect();
    let mut entries: Vec<_> = std::fs::read_dir(rootfs)?.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    let mut added: HashSet<PathBuf> = HashSet::new();
    for entry in entries {
        let name = PathBuf::from(entry.file_name());
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() && EMPTY_DIRS.iter().any(|d| name == Path::new(d)) {
            append_folder(&mut builder, &name, &path, passages.contains(&name))?;
        } else if kind.is_dir() {
            builder.append_dir_all(&name, &path)?;
        } else {
            builder.append_path_with_name(&path, &name)?;
        }
        added.insert(name);
    }
    for path in extra {
        let relative = path.strip_prefix("/").unwrap_or(path);
        let mut folder = PathBuf::new();
        for part in relative.parent().into_iter().flat_map(Path::components) {
            folder.push(part);
            if added.insert(folder.clone()) {
                append_folder(&mut builder, &folder, &Path::new("/").join(&folder), true)?;
            }
        }
        builder.append_dir_all(relative, path)?;
    }
    builder.finish()
}

/// Appends the folder `host` (not its content) as `name`; `open` adds read and enter
/// rights for everyone to its mode.
fn append_folder<W: Write>(
    builder: &mut tar::Builder<W>,
    name: &Path,
    host: &Path,
    open: bool,
) -> std::io::Result<()> {
    if !open {
        return builder.append_dir(name, host);
    }
    let meta = std::fs::metadata(host)?;
    let mut header = tar::Header::new_gnu();
    header.set_metadata(&meta);
    header.set_entry_type(tar::EntryType::Directory);
    header.set_size(0);
    header.set_mode(header.mode()? | 0o555);
    builder.append_data(&mut header, name, std::io::empty())
}

/// A blocking writer feeding the async import stream in chunks of [`CHUNK`] bytes.
struct ChannelWriter {
    tx: tokio::sync::mpsc::Sender<std::io::Result<bytes::Bytes>>,
    buf: Vec<u8>,
}

impl Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK));
        self.tx.blocking_send(Ok(chunk.into())).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "the daemon stopped reading the image",
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_debian_source_is_found_in_either_format() {
        let deb822 = "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\n\nTypes: deb\nURIs: http://deb.debian.org/debian-security\nSuites: bookworm-security\n";
        assert_eq!(
            parse_source(deb822),
            Some(("http://deb.debian.org/debian".into(), "bookworm".into()))
        );
        let list = "# comment\ndeb http://security.debian.org/debian-security bookworm-security main\ndeb [arch=amd64] http://mirror.example/debian trixie main\n";
        assert_eq!(
            parse_source(list),
            Some(("http://mirror.example/debian".into(), "trixie".into()))
        );
        assert_eq!(parse_source("Types: deb\n"), None);
    }

    #[test]
    fn the_folders_leading_to_a_harness_install_are_open_to_every_user() {
        use std::os::unix::fs::PermissionsExt;
        let rootfs = tempfile::tempdir().unwrap();
        for dir in ["root", "etc", "tmp"] {
            std::fs::create_dir(rootfs.path().join(dir)).unwrap();
        }
        std::fs::write(rootfs.path().join("root/.profile"), "x").unwrap();
        let host = tempfile::tempdir().unwrap();
        let install = host.path().join("home/.cache/harness-1.0");
        std::fs::create_dir_all(install.join("bin")).unwrap();
        std::fs::write(install.join("bin/run"), "#!/bin/sh\n").unwrap();
        let private = std::fs::Permissions::from_mode(0o700);
        for dir in [rootfs.path().join("root"), host.path().join("home")] {
            std::fs::set_permissions(dir, private.clone()).unwrap();
        }
        std::fs::set_permissions(install.join("bin"), private.clone()).unwrap();

        let mut archive = Vec::new();
        write_tree(&mut archive, rootfs.path(), std::slice::from_ref(&install)).unwrap();
        let mut modes = std::collections::BTreeMap::new();
        for entry in tar::Archive::new(archive.as_slice()).entries().unwrap() {
            let entry = entry.unwrap();
            let path = entry.path().unwrap().display().to_string();
            modes.insert(
                path.trim_end_matches('/').to_owned(),
                entry.header().mode().unwrap() & 0o777,
            );
        }
        let inside = |p: &Path| p.strip_prefix("/").unwrap().display().to_string();
        assert_eq!(modes.get("root"), Some(&0o700), "{modes:?}");
        assert!(!modes.contains_key("root/.profile"), "{modes:?}");
        assert_eq!(
            modes.get(&inside(&host.path().join("home"))),
            Some(&0o755),
            "{modes:?}"
        );
        assert_eq!(modes.get(&inside(&install)), Some(&0o755), "{modes:?}");
        // Inside an install, modes stay as installed.
        assert_eq!(
            modes.get(&inside(&install.join("bin"))),
            Some(&0o700),
            "{modes:?}"
        );
    }

    #[test]
    fn label_values_are_quoted_for_the_dockerfile_parser() {
        assert_eq!(quote(r#"["/a b","c\d"]"#), r#""[\"/a b\",\"c\\d\"]""#);
    }
}
