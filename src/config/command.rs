//! Running a key command (`api_key_cmd`, `organization_key_cmd`) within bounds: a time limit,
//! standard output capped, and on either limit its whole process group killed, so a hanging or
//! flooding command can neither hang Switchboard (`info` included) nor fill its memory.
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::api::Secret;

/// How long a key command may run when the profile sets no `api_key_cmd_timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The most a key command may print; a key is a few hundred bytes at most.
pub const MAX_OUTPUT: usize = 64 * 1024;

/// How much of standard error is kept for the message (its end: the last line explains).
const STDERR_TAIL: usize = 4 * 1024;

/// What the watcher threads report.
enum Event {
    /// Standard output, whole, or `None` when it passed [`MAX_OUTPUT`].
    Stdout(Option<Vec<u8>>),
    /// The end of standard error.
    Stderr(Vec<u8>),
    /// The shell exited.
    Exited(std::io::Result<std::process::ExitStatus>),
}

/// Runs `cmd` with `sh -c` in a process group of its own, standard input closed; its standard
/// output, trimmed, is the key. Errors are one line for the user (never the output itself).
pub fn run_key_command(cmd: &str, timeout: Duration) -> Result<Secret, String> {
    let mut command = Command::new("sh");
    // Standard input stays closed: a headless command may be reading a token from it.
    command
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let child = command.spawn().map_err(|e| format!("cannot run sh: {e}"))?;
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    watch(child, &tx);
    let deadline = Instant::now() + timeout;
    let (mut stdout, mut stderr, mut status) = (None, None, None);
    while stdout.is_none() || stderr.is_none() || status.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Event::Stdout(Some(b))) => stdout = Some(b),
            Ok(Event::Stdout(None)) => {
                kill_group(pid);
                return Err(format!(
                    "it printed more than {} KiB (a key is much shorter); stopped",
                    MAX_OUTPUT / 1024
                ));
            }
            Ok(Event::Stderr(b)) => stderr = Some(b),
            Ok(Event::Exited(s)) => {
                status = Some(s.map_err(|e| format!("cannot wait for sh: {e}"))?);
            }
            Err(_) => {
                kill_group(pid);
                return Err(format!(
                    "no answer within {} s; stopped (set api_key_cmd_timeout in the profile to \
                     wait longer)",
                    timeout.as_secs_f64()
                ));
            }
        }
    }
    let (Some(out), Some(status)) = (stdout, status) else {
        return Err("it ended without output".into());
    };
    if !status.success() {
        let stderr = String::from_utf8_lossy(stderr.as_deref().unwrap_or_default()).into_owned();
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
        return Err(match last {
            Some(l) => format!("{status} ({})", crate::text::line(l.trim())),
            None => status.to_string(),
        });
    }
    let text = String::from_utf8(out).map_err(|_| "output is not UTF-8".to_string())?;
    let key = text.trim();
    if key.is_empty() {
        return Err("it printed nothing".into());
    }
    Ok(Secret::new(key))
}

/// One thread per stream and one for the exit, each reporting on `tx`.
fn watch(mut child: Child, tx: &mpsc::Sender<Event>) {
    if let Some(mut out) = child.stdout.take() {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            // One byte past the cap tells "too much" from "exactly the cap".
            let read = (&mut out).take(MAX_OUTPUT as u64 + 1).read_to_end(&mut buf);
            let whole = read.is_ok() && buf.len() <= MAX_OUTPUT;
            let _ = tx.send(Event::Stdout(whole.then_some(buf)));
        });
    } else {
        let _ = tx.send(Event::Stdout(Some(Vec::new())));
    }
    if let Some(mut err) = child.stderr.take() {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut tail = Vec::new();
            let mut chunk = [0u8; 4096];
            // Read to the end (so the command never blocks on a full pipe) keeping only the tail.
            while let Ok(n) = err.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                tail.extend_from_slice(&chunk[..n]);
                if tail.len() > STDERR_TAIL {
                    tail.drain(..tail.len() - STDERR_TAIL);
                }
            }
            let _ = tx.send(Event::Stderr(tail));
        });
    } else {
        let _ = tx.send(Event::Stderr(Vec::new()));
    }
    let tx = tx.clone();
    std::thread::spawn(move || {
        let _ = tx.send(Event::Exited(child.wait()));
    });
}

/// Kills the command's whole process group (the shell and whatever it started).
fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = pid;
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_output_trimmed_is_the_key() {
        let k = run_key_command("printf '  sk_abc \\n'", DEFAULT_TIMEOUT).expect("runs");
        assert_eq!(k.expose(), "sk_abc");
        let e = run_key_command("echo oops >&2; exit 3", DEFAULT_TIMEOUT).expect_err("fails");
        assert!(e.contains("oops"), "{e}");
    }
}
