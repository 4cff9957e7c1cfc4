//! What a run shows while it works: a bar on a terminal, plain lines where nobody
//! watches (CI, nohup, Slurm), and every warning in both.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal as _;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How `cosec run` shows its progress (`--progress`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressMode {
    /// A bar when stderr is a terminal, plain lines otherwise.
    Auto,
    /// Always the bar.
    Bar,
    /// A line every few trials and at least once a minute.
    Plain,
    /// Nothing but warnings.
    None,
}

/// How one trial ended, as the progress counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrialEnd {
    /// Scored.
    Valid,
    /// An infrastructure failure.
    Infra,
    /// Not adjudicable.
    Unadjudicable,
}

#[derive(Debug, Default)]
struct Counts {
    done: u64,
    valid: u64,
    infra: u64,
    unadjudicable: u64,
    last_line: Option<Instant>,
}

/// The run's progress display, shared by every trial task.
pub struct Progress {
    bar: Option<ProgressBar>,
    plain: bool,
    total: u64,
    every: u64,
    quiet_for: Duration,
    started: Instant,
    counts: Mutex<Counts>,
}

impl Progress {
    /// A display for `total` trials; `every` trials (and after `quiet_for` without a
    /// line) a plain line is printed.
    pub fn new(mode: ProgressMode, total: u64, every: u64, quiet_for: Duration) -> Self {
        let mode = match mode {
            ProgressMode::Auto if std::io::stderr().is_terminal() => ProgressMode::Bar,
            ProgressMode::Auto => ProgressMode::Plain,
            other => other,
        };
        let bar = (mode == ProgressMode::Bar).then(|| {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:40}] {pos}/{len} trials {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Self {
            bar,
            plain: mode == ProgressMode::Plain,
            total,
            every: every.max(1),
            quiet_for,
            started: Instant::now(),
            counts: Mutex::new(Counts::default()),
        }
    }

    /// Prints a warning above the bar, or as a line of its own.
    pub fn warn(&self, message: &str) {
        match &self.bar {
            Some(bar) => bar.println(message),
            None => eprintln!("{message}"),
        }
    }

    /// Counts one finished trial.
    pub fn trial_done(&self, end: TrialEnd) {
        let line = {
            let Ok(mut c) = self.counts.lock() else {
                return;
            };
            c.done += 1;
            match end {
                TrialEnd::Valid => c.valid += 1,
                TrialEnd::Infra => c.infra += 1,
                TrialEnd::Unadjudicable => c.unadjudicable += 1,
            }
            let due = c.done % self.every == 0 || c.done == self.total;
            (self.plain && due).then(|| self.line(&mut c))
        };
        if let Some(bar) = &self.bar {
            bar.inc(1);
            if let Ok(c) = self.counts.lock() {
                if c.infra > 0 {
                    bar.set_message(format!("({} infrastructure failures)", c.infra));
                }
            }
        }
        if let Some(line) = line {
            eprintln!("{line}");
        }
    }

    /// Prints a plain line when none was printed for a while (called by a ticker), so
    /// a log shows the run is alive during long trials.
    pub fn heartbeat(&self) {
        if !self.plain {
            return;
        }
        let line = {
            let Ok(mut c) = self.counts.lock() else {
                return;
            };
            let since = c.last_line.unwrap_or(self.started).elapsed();
            (since >= self.quiet_for).then(|| self.line(&mut c))
        };
        if let Some(line) = line {
            eprintln!("{line}");
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// How often the ticker should call [`Progress::heartbeat`].
    pub fn tick(&self) -> Duration {
        (self.quiet_for / 4).max(Duration::from_millis(250))
    }

    fn line(&self, c: &mut Counts) -> String {
        c.last_line = Some(Instant::now());
        let elapsed = self.started.elapsed();
        let per_trial = (c.done > 0).then(|| elapsed.as_secs_f64() / c.done as f64);
        let rate = per_trial.map_or_else(
            || "-".to_owned(),
            |s| format!("{:.1}/min", 60.0 / s.max(1e-9)),
        );
        let eta = per_trial.map_or_else(
            || "unknown".to_owned(),
            |s| clock((s * self.total.saturating_sub(c.done) as f64) as u64),
        );
        format!(
            "cosec run: {}/{} trials  valid {}  infra {}  unadjudicable {}  {}  elapsed {}  eta {}",
            c.done,
            self.total,
            c.valid,
            c.infra,
            c.unadjudicable,
            rate,
            clock(elapsed.as_secs()),
            eta
        )
    }
}

fn clock(secs: u64) -> String {
    format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_reads_hours_minutes_seconds() {
        assert_eq!(clock(0), "0:00:00");
        assert_eq!(clock(3 * 3600 + 2 * 60 + 5), "3:02:05");
    }

    #[test]
    fn a_plain_line_counts_each_kind_of_end() {
        let p = Progress::new(ProgressMode::Plain, 4, 2, Duration::from_secs(60));
        p.trial_done(TrialEnd::Valid);
        p.trial_done(TrialEnd::Infra);
        let line = p
            .counts
            .lock()
            .map(|mut c| p.line(&mut c))
            .unwrap_or_default();
        assert!(line.contains("2/4 trials"), "{line}");
        assert!(
            line.contains("valid 1") && line.contains("infra 1"),
            "{line}"
        );
    }
}
