//! Waiting until a killed sandbox has really stopped. Killing bubblewrap's outer process
//! returns at once, while the processes inside its PID namespace die a moment later
//! (the namespace's init follows its parent by `--die-with-parent`, then the kernel
//! kills the rest). A caller that cleans the trial's folders or snapshots them right
//! after the kill would race with a harness still writing on its way out, so the
//! backend notes the sandbox's processes before it kills and waits for them after.

use std::time::{Duration, Instant};

/// Longest wait for killed processes to be gone: a process in uninterruptible sleep
/// dies only when its system call returns, which nothing bounds, so the wait is.
pub const REAP_LIMIT: Duration = Duration::from_secs(5);

/// How often the process table is read again while waiting.
const POLL: Duration = Duration::from_millis(10);

/// One process, told apart from a later one given the same id by its start time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Process {
    /// Its id in the caller's PID namespace.
    pub pid: u32,
    /// Its start time in clock ticks since boot (`/proc/PID/stat`, field 22).
    started: u64,
}

/// What `/proc/PID/stat` says of a process: its state, parent and start time.
struct Stat {
    state: char,
    parent: u32,
    started: u64,
}

fn stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold anything, parentheses included.
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(Stat {
        state: fields.first()?.chars().next()?,
        parent: fields.get(1)?.parse().ok()?,
        started: fields.get(19)?.parse().ok()?,
    })
}

/// `root` and every process descended from it, as the process table shows them now.
pub fn tree(root: u32) -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let table: Vec<(u32, Stat)> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .collect();
    let mut found: Vec<Process> = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for (pid, s) in &table {
            let is_new = !found.iter().any(|p| p.pid == *pid);
            if (*pid == root || s.parent == parent) && is_new {
                found.push(Process {
                    pid: *pid,
                    started: s.started,
                });
                frontier.push(*pid);
            }
        }
    }
    found
}

/// Whether `process` has stopped: no longer listed, a zombie, or its id now another's.
fn stopped(process: &Process) -> bool {
    stat(process.pid).is_none_or(|s| matches!(s.state, 'Z' | 'X') || s.started != process.started)
}

/// Waits until every one of `processes` has stopped, or `limit` has passed; whether
/// they all did.
pub async fn wait_stopped(processes: &[Process], limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if processes.iter().all(stopped) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(POLL).await;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn a_killed_tree_is_waited_for_until_every_process_in_it_has_stopped() {
        // A shell with a child shell, and three sleeping grandchildren and children.
        let mut shell = tokio::process::Command::new("sh")
            .args(["-c", "sh -c 'sleep 30 & sleep 30 & wait' & sleep 30 & wait"])
            .process_group(0)
            .spawn()
            .unwrap();
        let root = shell.id().unwrap();
        let mut processes = Vec::new();
        for _ in 0..200 {
            processes = tree(root);
            if processes.len() >= 5 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(processes.len(), 5, "{processes:?}");
        assert!(!wait_stopped(&processes, Duration::from_millis(50)).await);
        std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{root}")])
            .status()
            .unwrap();
        let _ = shell.wait().await;
        assert!(wait_stopped(&processes, REAP_LIMIT).await);
        assert!(processes.iter().all(stopped));
    }

    #[test]
    fn a_process_that_does_not_exist_has_no_tree_and_counts_as_stopped() {
        assert!(tree(u32::MAX).is_empty());
        assert!(stopped(&Process {
            pid: u32::MAX,
            started: 0
        }));
    }
}
