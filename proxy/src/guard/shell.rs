//! Just enough of POSIX shell to see what a command writes where.
//!
//! Recognised: content written by heredocs (`cat > f <<EOF`, `cat <<EOF > f`,
//! `tee f <<EOF`, `cat <<EOF | tee f`), by `echo`/`printf ... > f` (or `>>`), and by
//! here-strings; copies by `cp`, `mv`, `ln`, `rsync`, `cat a > b`, `tee b < a`,
//! `cat a | tee b` and `dd if=a of=b`. Commands are split on `;`, `&&`, `||`, `|`, `&`
//! and newlines, outside quotes and heredoc bodies. Anything else (an interpreter
//! writing a file, `cd` before a relative path) is not seen here; the post-turn
//! restore covers files that change by other means.

use std::ops::Range;

/// What a command does to files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ShellEffect {
    /// Content written to `target`: the bytes of the content inside the script.
    Write {
        /// Where the content sits in the script.
        content: Range<usize>,
        /// The path written.
        target: String,
    },
    /// The file (or folder) `source` copied, moved or linked to `target`.
    Copy {
        /// The path read.
        source: String,
        /// The path written.
        target: String,
    },
}

#[derive(Debug, Clone, Default)]
struct Word {
    text: String,
    range: Range<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Out,
    In,
    HereDoc,
    HereString,
    Dup,
}

#[derive(Debug, Clone)]
struct Redirect {
    op: Op,
    /// File descriptor written or read (`None` = the default one; 1 for `&>`).
    fd: Option<u32>,
    target: Word,
    body: Option<Range<usize>>,
}

#[derive(Debug, Clone, Default)]
struct Command {
    words: Vec<Word>,
    redirects: Vec<Redirect>,
    piped: bool,
}

struct Lexer<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    commands: Vec<Command>,
    cur: Command,
    pending: Vec<(usize, usize, String, bool)>,
    next_piped: bool,
}

fn is_op_byte(c: u8) -> bool {
    matches!(c, b';' | b'&' | b'|' | b'<' | b'>' | b'\n' | b'(' | b')')
}

impl<'a> Lexer<'a> {
    fn new(s: &'a str) -> Self {
        Lexer {
            s,
            b: s.as_bytes(),
            i: 0,
            commands: Vec::new(),
            cur: Command::default(),
            pending: Vec::new(),
            next_piped: false,
        }
    }

    fn peek(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }

    fn finish(&mut self, piped_next: bool) {
        let mut cmd = std::mem::take(&mut self.cur);
        if !cmd.words.is_empty() || !cmd.redirects.is_empty() {
            cmd.piped = self.next_piped;
            self.commands.push(cmd);
        }
        self.next_piped = piped_next;
    }

    fn run(mut self) -> Vec<Command> {
        while let Some(c) = self.peek(0) {
            match c {
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'(' | b')' => {
                    self.finish(false);
                    self.i += 1;
                }
                b'\\' if self.peek(1) == Some(b'\n') => self.i += 2,
                b'\n' => {
                    self.finish(false);
                    self.i += 1;
                    self.read_heredoc_bodies();
                }
                b';' => {
                    self.finish(false);
                    self.i += 1;
                }
                b'&' if self.peek(1) == Some(b'&') => {
                    self.finish(false);
                    self.i += 2;
                }
                b'&' if self.peek(1) == Some(b'>') => {
                    self.i += 1;
                    self.redirect(Some(1));
                }
                b'&' => {
                    self.finish(false);
                    self.i += 1;
                }
                b'|' if self.peek(1) == Some(b'|') => {
                    self.finish(false);
                    self.i += 2;
                }
                b'|' => {
                    self.finish(true);
                    self.i += 1;
                }
                b'<' | b'>' => self.redirect(None),
                b'#' => {
                    while self.peek(0).is_some_and(|c| c != b'\n') {
                        self.i += 1;
                    }
                }
                b'0'..=b'9' if self.fd_redirect() => {}
                _ => {
                    let w = self.word();
                    self.cur.words.push(w);
                }
            }
        }
        self.finish(false);
        self.read_heredoc_bodies();
        self.commands
    }

    /// `2>file`, `1>>file`: digits directly followed by a redirection.
    fn fd_redirect(&mut self) -> bool {
        let mut k = 0;
        while self.peek(k).is_some_and(|c| c.is_ascii_digit()) {
            k += 1;
        }
        if !matches!(self.peek(k), Some(b'<' | b'>')) {
            return false;
        }
        let fd = self.s[self.i..self.i + k].parse::<u32>().ok();
        self.i += k;
        self.redirect(fd);
        true
    }

    fn redirect(&mut self, fd: Option<u32>) {
        let rest = &self.s[self.i..];
        let (op, len) = if rest.starts_with("<<<") {
            (Op::HereString, 3)
        } else if rest.starts_with("<<-") {
            (Op::HereDoc, 3)
        } else if rest.starts_with("<<") {
            (Op::HereDoc, 2)
        } else if rest.starts_with(">&") || rest.starts_with("<&") {
            (Op::Dup, 2)
        } else if rest.starts_with(">>") || rest.starts_with(">|") {
            (Op::Out, 2)
        } else if rest.starts_with('>') {
            (Op::Out, 1)
        } else {
            (Op::In, 1)
        };
        let strip_tabs = rest.starts_with("<<-");
        self.i += len;
        while matches!(self.peek(0), Some(b' ' | b'\t')) {
            self.i += 1;
        }
        let target = self.word();
        if op == Op::HereDoc {
            let index = self.cur.redirects.len();
            self.pending
                .push((self.commands.len(), index, target.text.clone(), strip_tabs));
        }
        self.cur.redirects.push(Redirect {
            op,
            fd,
            target,
            body: None,
        });
    }

    fn read_heredoc_bodies(&mut self) {
        for (cmd, red, delim, strip_tabs) in std::mem::take(&mut self.pending) {
            let start = self.i;
            let mut end = self.s.len();
            while self.i < self.s.len() {
                let line_end = self.s[self.i..]
                    .find('\n')
                    .map_or(self.s.len(), |k| self.i + k);
                let line = &self.s[self.i..line_end];
                let line = if strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                let next = (line_end + 1).min(self.s.len());
                if line.trim_end_matches('\r') == delim {
                    end = self.i;
                    self.i = next;
                    break;
                }
                self.i = next;
            }
            if let Some(r) = self
                .commands
                .get_mut(cmd)
                .and_then(|c| c.redirects.get_mut(red))
            {
                r.body = Some(start..end.max(start));
            }
        }
    }

    fn word(&mut self) -> Word {
        let start = self.i;
        let mut text = String::new();
        while let Some(c) = self.peek(0) {
            if c.is_ascii_whitespace() || is_op_byte(c) {
                break;
            }
            match c {
                b'\'' => {
                    let end = self.s[self.i + 1..]
                        .find('\'')
                        .map_or(self.s.len(), |k| self.i + 1 + k);
                    text.push_str(&self.s[self.i + 1..end]);
                    self.i = (end + 1).min(self.s.len());
                }
                b'"' => {
                    self.i += 1;
                    while let Some(c) = self.peek(0) {
                        if c == b'"' {
                            self.i += 1;
                            break;
                        }
                        if c == b'\\' && matches!(self.peek(1), Some(b'"' | b'\\' | b'$' | b'`')) {
                            self.i += 1;
                        }
                        self.push_char(&mut text);
                    }
                }
                b'\\' => {
                    self.i += 1;
                    if self.peek(0) == Some(b'\n') {
                        self.i += 1;
                    } else if self.peek(0).is_some() {
                        self.push_char(&mut text);
                    }
                }
                b'$' if self.peek(1) == Some(b'(') => {
                    let mut depth = 0usize;
                    while let Some(c) = self.peek(0) {
                        match c {
                            b'(' => depth += 1,
                            b')' => depth = depth.saturating_sub(1),
                            _ => {}
                        }
                        self.push_char(&mut text);
                        if depth == 0 && c == b')' {
                            break;
                        }
                    }
                }
                _ => self.push_char(&mut text),
            }
        }
        Word {
            text,
            range: start..self.i,
        }
    }

    /// Appends the character at `i` and moves past it.
    fn push_char(&mut self, text: &mut String) {
        if let Some(ch) = self.s[self.i..].chars().next() {
            text.push(ch);
            self.i += ch.len_utf8();
        } else {
            self.i += 1;
        }
    }
}

fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_assignment(w: &str) -> bool {
    match w.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

const PREFIXES: &[&str] = &["sudo", "command", "builtin", "exec", "nohup", "time", "env"];

/// The program name and its arguments, past assignments and wrappers.
fn program(cmd: &Command) -> Option<(&str, &[Word])> {
    let mut k = 0;
    while let Some(w) = cmd.words.get(k) {
        if is_assignment(&w.text) || PREFIXES.contains(&w.text.as_str()) {
            k += 1;
        } else {
            break;
        }
    }
    let first = cmd.words.get(k)?;
    Some((base_name(&first.text), &cmd.words[k + 1..]))
}

/// What a command feeds to its standard output, as an effect on `target`.
enum Feed {
    Content(Range<usize>),
    File(String),
}

fn stdout_target(cmd: &Command) -> Option<&str> {
    cmd.redirects
        .iter()
        .rev()
        .find(|r| r.op == Op::Out && r.fd.is_none_or(|fd| fd == 1))
        .map(|r| r.target.text.as_str())
}

fn operands(args: &[Word]) -> Vec<&Word> {
    args.iter()
        .filter(|w| !w.text.starts_with('-') || w.text == "-")
        .collect()
}

/// What `cmd` writes to standard output (from a heredoc, a here-string, echo/printf
/// arguments, files it reads, or its own input).
fn feeds(cmd: &Command, prev: Option<&Command>) -> Vec<Feed> {
    let Some((name, args)) = program(cmd) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match name {
        "echo" | "printf" => {
            if let (Some(first), Some(last)) = (args.first(), args.last()) {
                out.push(Feed::Content(first.range.start..last.range.end));
            }
            return out;
        }
        "cat" | "tee" => {}
        _ => return out,
    }
    if name == "cat" {
        for w in operands(args).into_iter().filter(|w| w.text != "-") {
            out.push(Feed::File(w.text.clone()));
        }
        if !out.is_empty() {
            return out;
        }
    }
    for r in &cmd.redirects {
        match (r.op, &r.body) {
            (Op::HereDoc, Some(body)) => out.push(Feed::Content(body.clone())),
            (Op::HereString, _) => out.push(Feed::Content(r.target.range.clone())),
            (Op::In, _) if r.fd.is_none_or(|fd| fd == 0) => {
                out.push(Feed::File(r.target.text.clone()))
            }
            _ => {}
        }
    }
    if out.is_empty() && cmd.piped {
        if let Some(p) = prev {
            out = feeds(p, None);
        }
    }
    out
}

fn effect(feed: &Feed, target: &str) -> ShellEffect {
    match feed {
        Feed::Content(r) => ShellEffect::Write {
            content: r.clone(),
            target: target.to_owned(),
        },
        Feed::File(f) => ShellEffect::Copy {
            source: f.clone(),
            target: target.to_owned(),
        },
    }
}

/// The file effects of a shell script.
pub(crate) fn effects(script: &str) -> Vec<ShellEffect> {
    let commands = Lexer::new(script).run();
    let mut out = Vec::new();
    for (k, cmd) in commands.iter().enumerate() {
        let prev = k.checked_sub(1).and_then(|p| commands.get(p));
        let Some((name, args)) = program(cmd) else {
            continue;
        };
        if let Some(target) = stdout_target(cmd) {
            out.extend(feeds(cmd, prev).iter().map(|f| effect(f, target)));
        }
        match name {
            "tee" => {
                let feeds = feeds(cmd, prev);
                for t in operands(args) {
                    out.extend(feeds.iter().map(|f| effect(f, &t.text)));
                }
            }
            "cp" | "mv" | "ln" | "rsync" | "install" => {
                let mut ops: Vec<&str> = Vec::new();
                let mut dir: Option<&str> = None;
                let mut it = args.iter();
                while let Some(w) = it.next() {
                    if w.text == "-t" {
                        dir = it.next().map(|d| d.text.as_str());
                    } else if let Some(d) = w.text.strip_prefix("--target-directory=") {
                        dir = Some(d);
                    } else if !w.text.starts_with('-') {
                        ops.push(&w.text);
                    }
                }
                let (sources, target) = match dir {
                    Some(d) => (&ops[..], Some(d)),
                    None => match ops.split_last() {
                        Some((t, rest)) => (rest, Some(*t)),
                        None => (&ops[..], None),
                    },
                };
                if let Some(target) = target {
                    out.extend(sources.iter().map(|s| ShellEffect::Copy {
                        source: (*s).to_owned(),
                        target: target.to_owned(),
                    }));
                }
            }
            "dd" => {
                let get = |key: &str| {
                    args.iter()
                        .find_map(|w| w.text.strip_prefix(key).map(str::to_owned))
                };
                if let (Some(source), Some(target)) = (get("if="), get("of=")) {
                    out.push(ShellEffect::Copy { source, target });
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copies(script: &str) -> Vec<(String, String)> {
        effects(script)
            .into_iter()
            .filter_map(|e| match e {
                ShellEffect::Copy { source, target } => Some((source, target)),
                ShellEffect::Write { .. } => None,
            })
            .collect()
    }

    fn writes(script: &str) -> Vec<(String, String)> {
        effects(script)
            .into_iter()
            .filter_map(|e| match e {
                ShellEffect::Write { content, target } => {
                    Some((script[content].to_owned(), target))
                }
                ShellEffect::Copy { .. } => None,
            })
            .collect()
    }

    #[test]
    fn copies_are_seen_in_every_form() {
        let pair = |a: &str, b: &str| vec![(a.to_owned(), b.to_owned())];
        assert_eq!(
            copies("cp -f shared/a.md communities/x/"),
            pair("shared/a.md", "communities/x/")
        );
        assert_eq!(
            copies("mkdir -p d && cat 'shared/a b.md' > d/c.md"),
            pair("shared/a b.md", "d/c.md")
        );
        assert_eq!(
            copies("tee communities/x/b < shared/a"),
            pair("shared/a", "communities/x/b")
        );
        assert_eq!(
            copies("cat shared/a | tee -a communities/x/b >/dev/null"),
            {
                let mut v = pair("shared/a", "/dev/null");
                v.extend(pair("shared/a", "communities/x/b"));
                v
            }
        );
        assert_eq!(
            copies("sudo mv -t communities/x shared/a"),
            pair("shared/a", "communities/x")
        );
    }

    #[test]
    fn heredocs_echo_and_printf_write_content() {
        let s = "cat > communities/x/plan.md <<'EOF'\nline one\nline two\nEOF\necho done";
        assert_eq!(
            writes(s),
            vec![(
                "line one\nline two\n".to_owned(),
                "communities/x/plan.md".to_owned()
            )]
        );
        let s = "cat <<EOF | tee communities/x/p.md\nbody\nEOF\n";
        assert_eq!(
            writes(s),
            vec![("body\n".to_owned(), "communities/x/p.md".to_owned())]
        );
        let s = "echo \"IBAN GB29 NWBK\" >> shared/n.md; printf '%s\\n' x 2>/dev/null > memory/m";
        let w = writes(s);
        assert_eq!(
            w[0],
            ("\"IBAN GB29 NWBK\"".to_owned(), "shared/n.md".to_owned())
        );
        assert_eq!(w[1], ("'%s\\n' x".to_owned(), "memory/m".to_owned()));
    }

    #[test]
    fn stderr_redirects_and_comments_are_not_writes() {
        assert!(effects("ls communities 2>/dev/null # cp a b").is_empty());
        assert!(effects("grep -r 07700 shared 2>&1").is_empty());
    }
}
