//! Where alerts go besides standard output: a command, given the alert on its standard input
//! (never in its arguments, which any user can read in the process list), or a webhook, signed
//! as the platform signs its deliveries ([`crate::api::signature`]).
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::rule::{Sink, WEBHOOK_TIMEOUT};
use crate::api::signature;

/// How much of a command's standard error is kept for the message (its end explains).
const STDERR_TAIL: usize = 4 * 1024;

/// Why an alert did not reach its sink (it is tried again at the next pass).
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    /// The command could not start, failed, or ran past its time.
    #[error("command: {}", crate::text::line(.0))]
    Command(String),
    /// The webhook could not be reached or answered other than 2xx.
    #[error("webhook: {}", crate::text::line(.0))]
    Webhook(String),
}

/// Sends `alert` (one JSON document) to a command or webhook sink; `Sink::Ndjson` is the
/// caller's to print. `host` is the API's host, the `i=` of a signature.
///
/// # Errors
/// The sink did not take it.
pub async fn deliver(sink: &Sink, alert: &str, host: &str) -> Result<(), SinkError> {
    match sink {
        Sink::Ndjson => Ok(()),
        Sink::Command { command, timeout } => run_command(command, alert, *timeout).await,
        Sink::Webhook { url, secret } => {
            let client = webhook_client(url).map_err(|e| SinkError::Webhook(e.to_string()))?;
            let mut req = client
                .post(url.clone())
                .header("content-type", "application/json")
                .header(
                    "user-agent",
                    concat!("switchboard-alerts/", env!("CARGO_PKG_VERSION")),
                );
            if let Some(secret) = secret {
                let t = chrono::Utc::now().timestamp();
                req = req.header(
                    "metorial-signature",
                    signature::signature(secret.expose(), host, t, alert),
                );
            }
            let host = url.host_str().unwrap_or("?").to_string();
            let resp = req
                .body(alert.to_string())
                .send()
                .await
                .map_err(|e| SinkError::Webhook(format!("{host}: {}", e.without_url())))?;
            let status = resp.status();
            if status.is_success() {
                Ok(())
            } else {
                Err(SinkError::Webhook(format!("{host} answered {status}")))
            }
        }
    }
}

/// A client for a webhook sink: no redirect followed (the alert must not go elsewhere), the
/// system's proxy honoured except for this machine.
fn webhook_client(url: &url::Url) -> reqwest::Result<reqwest::Client> {
    let mut b = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(WEBHOOK_TIMEOUT);
    if crate::api::replay::is_loopback(url) {
        b = b.no_proxy();
    }
    b.build()
}

/// Runs `sh -c command` in a process group of its own with the alert on standard input; its
/// standard output is dropped (it must not mix with the NDJSON on ours).
async fn run_command(command: &str, alert: &str, timeout: Duration) -> Result<(), SinkError> {
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| SinkError::Command(format!("cannot run sh: {e}")))?;
    let pid = child.id();
    let mut stdin = child.stdin.take();
    let mut stderr = child.stderr.take();
    let input = format!("{alert}\n");
    let run = async {
        let feed = async {
            if let Some(mut s) = stdin.take() {
                // A command that does not read its input is not a failure.
                let _ = s.write_all(input.as_bytes()).await;
                let _ = s.shutdown().await;
            }
        };
        let drain = async {
            let mut tail = Vec::new();
            if let Some(s) = stderr.as_mut() {
                let mut buf = [0u8; 4096];
                while let Ok(n) = s.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    tail.extend_from_slice(&buf[..n]);
                    if tail.len() > STDERR_TAIL {
                        tail.drain(..tail.len() - STDERR_TAIL);
                    }
                }
            }
            tail
        };
        let ((), tail, status) = tokio::join!(feed, drain, child.wait());
        (tail, status)
    };
    match tokio::time::timeout(timeout, run).await {
        Ok((_, Ok(status))) if status.success() => Ok(()),
        Ok((tail, Ok(status))) => {
            let text = String::from_utf8_lossy(&tail).into_owned();
            let last = text.lines().rev().find(|l| !l.trim().is_empty());
            Err(SinkError::Command(match last {
                Some(l) => format!("{status}: {l}"),
                None => status.to_string(),
            }))
        }
        Ok((_, Err(e))) => Err(SinkError::Command(format!("cannot wait for sh: {e}"))),
        Err(_) => {
            kill_group(pid);
            Err(SinkError::Command(format!(
                "no end within {} s; stopped (set the sink's timeout to wait longer)",
                timeout.as_secs_f64()
            )))
        }
    }
}

fn kill_group(pid: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = pid
        .and_then(|p| i32::try_from(p).ok())
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

    #[tokio::test]
    async fn a_command_gets_the_alert_on_stdin_and_fails_or_times_out_plainly() {
        let dir = tempfile::tempdir().expect("tempdir");
        let got = dir.path().join("got");
        let alert = r#"{"alert":"a","state":"failing"}"#;
        run_command(&format!("cat > '{}'", got.display()), alert, COMMAND)
            .await
            .expect("sent");
        assert_eq!(
            std::fs::read_to_string(&got).expect("got"),
            format!("{alert}\n")
        );
        // A command that does not read its input is not a failure.
        run_command("true", alert, COMMAND).await.expect("sent");
        let e = run_command("echo nope >&2; exit 3", alert, COMMAND)
            .await
            .expect_err("exit 3");
        assert!(e.to_string().contains("nope"), "{e}");
        let started = std::time::Instant::now();
        let e = run_command("sleep 30 & wait", alert, Duration::from_millis(300))
            .await
            .expect_err("too slow");
        assert!(e.to_string().contains("no end within"), "{e}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "stopped at its timeout"
        );
    }

    const COMMAND: Duration = Duration::from_secs(10);
}
