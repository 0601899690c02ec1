//! `schemathesis` (from the Python package index, pinned) walks the service's own `/openapi.json` against a real
//! `switchboard serve` on 127.0.0.1, once per generation served (pulsar, callback-destinations,
//! event-destinations): every phase, stateful included, must pass with no "schema validation
//! mismatch" warning. Settings and their reasons: tests/schemathesis.toml,
//! tests/schemathesis_event_destinations.toml, tests/schemathesis_callback_destinations.toml.
//!
//! Needs `python3` with schemathesis installed (`.ci/run` installs it). Without it the test says
//! so and passes on a developer machine, but fails when `CI=true`.
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The pinned version; `.ci/run` installs the same.
const SCHEMATHESIS: &str = "4.32.5";
/// Test cases per operation and phase: about 40 s on 2 cores for the whole run.
const MAX_EXAMPLES: &str = "25";
/// A run that takes longer than this is a failure (it normally takes under a minute).
const DEADLINE: Duration = Duration::from_mins(4);

/// Kills the child on drop, so a failing assertion leaves no server behind.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The installed schemathesis version, if any.
fn installed_version() -> Option<String> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('schemathesis'))",
        ])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Starts `switchboard serve` on a free loopback port; returns it, its base URL and the seeded
/// instance id it printed (event-destinations only).
fn start_serve(
    key: &str,
    log: &std::path::Path,
    extra: &[&str],
) -> (Killed, String, Option<String>) {
    let log = std::fs::File::create(log).expect("serve log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--db",
            ":memory:",
            "--seed",
            "demo",
            "--api-key-env",
            "SWITCHBOARD_TEST_SERVE_KEY",
        ])
        .args(extra)
        .env("SWITCHBOARD_TEST_SERVE_KEY", key)
        .env("SWITCHBOARD_TEST_INSTANCE_KEY", format!("{key}_instance"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log))
        .spawn()
        .expect("start switchboard serve");
    let stdout = child.stdout.take().expect("stdout");
    let child = Killed(child);
    let (tx, rx) = mpsc::channel();
    // Reads lines on a thread so the wait below has a deadline.
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let (mut url, mut instance) = (None, None);
    let deadline = Instant::now() + Duration::from_secs(30);
    // The address comes first; the instance id, when there is one, a few lines later.
    while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        if let Some(u) = line.split_whitespace().find(|w| w.starts_with("http://")) {
            url = Some(u.to_string());
        }
        if let Some(id) = line.strip_prefix("Instance id: ") {
            instance = Some(id.trim().to_string());
        }
        if url.is_some() && (extra.is_empty() || instance.is_some()) {
            break;
        }
    }
    (child, url.expect("serve printed its address"), instance)
}

/// The id of the first item of a seeded list (the instance named when there is one).
fn first_id(base: &str, key: &str, path: &str, instance: Option<&str>) -> String {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let mut rb = reqwest::Client::new()
            .get(format!("{base}{path}?limit=1"))
            .bearer_auth(key);
        if let Some(id) = instance {
            rb = rb.header("metorial-instance-id", id);
        }
        let page: serde_json::Value = rb.send().await.expect("list").json().await.expect("json");
        page["items"][0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("the demo seed has no {path}: {page}"))
            .to_string()
    })
}

#[test]
fn schemathesis_finds_nothing_in_any_phase() {
    run(Walk {
        settings: "tests/schemathesis.toml",
        extra: &[],
        seeded: &[
            ("/callbacks", "callback_id"),
            ("/callbacks-notifications", "notification_id"),
        ],
    });
}

#[test]
fn schemathesis_finds_nothing_in_the_event_destinations_generation() {
    run(Walk {
        settings: "tests/schemathesis_event_destinations.toml",
        extra: &[
            "--generation",
            "event-destinations",
            "--instance-key-env",
            "SWITCHBOARD_TEST_INSTANCE_KEY",
        ],
        seeded: &[],
    });
}

#[test]
fn schemathesis_finds_nothing_in_the_callback_destinations_generation() {
    run(Walk {
        settings: "tests/schemathesis_callback_destinations.toml",
        extra: &[
            "--generation",
            "callback-destinations",
            "--instance-key-env",
            "SWITCHBOARD_TEST_INSTANCE_KEY",
        ],
        seeded: &[("/callbacks", "callback_id")],
    });
}

/// One walk: the settings file, extra `serve` options, and list paths whose first seeded id is
/// given to schemathesis as a parameter.
struct Walk {
    settings: &'static str,
    extra: &'static [&'static str],
    seeded: &'static [(&'static str, &'static str)],
}

fn run(walk: Walk) {
    match installed_version() {
        Some(v) if v == SCHEMATHESIS => {}
        found => {
            let msg = format!(
                "schemathesis=={SCHEMATHESIS} is needed (found: {found:?}); \
                 install it with: python3 -m pip install schemathesis=={SCHEMATHESIS}"
            );
            assert!(!in_ci(), "{msg}");
            eprintln!("SKIPPED: {msg}");
            return;
        }
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let key = "sk_schemathesis_0123456789";
    let (_serve, base, instance) = start_serve(key, &dir.path().join("serve.log"), walk.extra);
    // The checked-in settings, plus ids of the seeded world for the read-only operations that
    // no create supplies (else schemathesis only ever sees their 404).
    let settings =
        std::fs::read_to_string(format!("{}/{}", env!("CARGO_MANIFEST_DIR"), walk.settings))
            .expect("schemathesis settings");
    let mut parameters = String::from("\n[parameters]\n");
    for (path, name) in walk.seeded {
        let id = first_id(&base, key, path, instance.as_deref());
        parameters.push_str(&format!("{name} = \"{id}\"\n"));
    }
    let config = dir.path().join("schemathesis.toml");
    std::fs::write(&config, settings + &parameters).expect("write settings");

    let started = Instant::now();
    let mut st = Command::new("python3")
        .args(["-m", "schemathesis.cli", "--config-file"])
        .arg(&config)
        .arg("run")
        .arg(format!("{base}/openapi.json"))
        .args(["-H", &format!("Authorization: Bearer {key}")])
        // The organization key names the instance on instance paths (event-destinations).
        .args(
            instance
                .iter()
                .flat_map(|id| ["-H".to_string(), format!("metorial-instance-id: {id}")]),
        )
        .args(["--phases", "examples,coverage,fuzzing,stateful"])
        .args(["--max-examples", MAX_EXAMPLES, "--seed", "20261123"])
        // One worker: hypothesis is not thread-safe in every code path, and CI has 2 cores.
        .args(["--workers", "1"])
        // Its caches (`.hypothesis/`) go to the temporary folder, not the checkout.
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run schemathesis");
    // Drain both pipes on threads; poll for the exit with a deadline.
    let drain = |r: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(mut r) = r {
                let _ = r.read_to_string(&mut s);
            }
            s
        })
    };
    let out = drain(st.stdout.take().map(|s| Box::new(s) as _));
    let err = drain(st.stderr.take().map(|s| Box::new(s) as _));
    let status = loop {
        if let Some(status) = st.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > DEADLINE {
            let _ = st.kill();
            panic!("schemathesis ran past {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let text = format!(
        "{}{}",
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default()
    );
    eprintln!("schemathesis took {:.1} s", started.elapsed().as_secs_f64());
    // Its warnings and summary, for the test log.
    let tail = ["WARNINGS", "SUMMARY"]
        .iter()
        .find_map(|h| text.find(&format!(" {h} ")))
        .map_or("", |i| &text[i..]);
    eprintln!("{tail}");

    assert!(status.success(), "schemathesis failed:\n{text}");
    assert!(
        !text.to_lowercase().contains("schema validation mismatch"),
        "{text}"
    );
    // Every phase ran (none skipped for want of examples or links) and passed.
    for phase in ["Coverage", "Fuzzing", "Stateful"] {
        assert!(
            text.lines().any(|l| l.contains(phase) && l.contains('✅')),
            "phase {phase} did not pass:\n{text}"
        );
    }
    // The stateful phase followed the document's links (create → get/update/delete).
    let covered = text
        .lines()
        .find_map(|l| {
            let rest = l.trim().strip_prefix("API Links:")?;
            rest.split_whitespace().next()?.parse::<u32>().ok()
        })
        .unwrap_or(0);
    assert!(covered >= 5, "stateful covered {covered} links:\n{text}");
}
