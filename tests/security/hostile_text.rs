//! Untrusted text, attacked: the real binary against a hostile stand-in of the API
//! (`support_hostile`). Asserts on the bytes headless commands write to stdout and stderr (on a
//! pipe and on a pseudo-terminal), and a property of the one sanitizer.
use crate::support_hostile;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output};

use proptest::prelude::*;
use support_hostile::{EVIL, LEAKS, first_forbidden};

/// A config file with one profile; the base URL and key come from the flag and environment.
fn config(dir: &Path) -> std::path::PathBuf {
    let cfg = dir.join("config.toml");
    std::fs::write(
        &cfg,
        "default_profile = \"t\"\n[profiles.t]\ntimeout = 5\nretries = 0\n",
    )
    .expect("config");
    cfg
}

fn run(dir: &Path, base: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["--base-url", base])
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir)
        .env("SWITCHBOARD_CONFIG", config(dir))
        .env("SWITCHBOARD_API_KEY", "sk_test_hostile_0123456789")
        .output()
        .expect("run switchboard")
}

fn assert_inert(what: &str, bytes: &[u8]) -> String {
    let text = String::from_utf8(bytes.to_vec()).expect("UTF-8 output");
    if let Some((at, c)) = first_forbidden(&text) {
        panic!(
            "{what}: U+{:04X} at byte {at}: {:?}",
            u32::from(c),
            &text[at.saturating_sub(40)..]
        );
    }
    for leak in LEAKS {
        assert!(!text.contains(leak), "{what}: {leak} leaked:\n{text}");
    }
    text
}

#[test]
fn headless_tables_show_every_attack_as_visible_markers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = support_hostile::start();
    for args in [
        &["teams", "list", "-o", "table"][..],
        &["teams", "get", "tm_x", "-o", "table"],
        &["callbacks", "list", "-o", "table"],
        &["destinations", "get", "cld_x", "-o", "table"],
        &["notifications", "list", "-o", "table"],
        &["notifications", "get", "cbn_x", "-o", "table"],
    ] {
        let out = run(dir.path(), &base, args);
        assert!(out.status.success(), "{args:?}: {out:?}");
        let text = assert_inert(&format!("{args:?} stdout"), &out.stdout);
        assert_inert(&format!("{args:?} stderr"), &out.stderr);
        // List cells are cut at 60 characters; details show values whole.
        let shown = if args[1] == "list" {
            text.contains("⟨U+001B⟩]0;PWNED⟨U+0007⟩") || args[0] == "notifications"
        } else {
            text.contains("A⟨U+001B⟩]0;PWNED⟨U+0007⟩B") && text.contains("I⟨U+202E⟩J")
        };
        assert!(shown, "{args:?}: attacks shown as markers:\n{text}");
    }
}

#[test]
fn headless_details_keep_each_server_string_on_one_line() {
    // EVIL carries CR LF mid-string: a detail that split on it would show a line the server
    // wrote as if it were another member, callback or field continuation.
    let dir = tempfile::tempdir().expect("tempdir");
    let base = support_hostile::start();
    for args in [
        &["teams", "get", "tm_x", "-o", "table"][..],
        &["destinations", "get", "cld_x", "-o", "table"],
        &["notifications", "get", "cbn_x", "-o", "table"],
    ] {
        let out = run(dir.path(), &base, args);
        assert!(out.status.success(), "{args:?}: {out:?}");
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        let mut attacks = 0;
        for line in text.lines() {
            let (start, end) = (line.contains("]0;PWNED"), line.contains("⟩O"));
            assert_eq!(
                start, end,
                "{args:?}: server text split over lines:\n{text}"
            );
            attacks += usize::from(start);
        }
        assert!(attacks > 0, "{args:?}: the attack is shown:\n{text}");
    }
}

#[test]
fn headless_api_errors_sanitise_every_field_code_included() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = support_hostile::start();
    let out = run(dir.path(), &base, &["imports", "list", "-o", "table"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let err = assert_inert("error stderr", &out.stderr);
    assert!(
        err.starts_with("error: A⟨U+001B⟩]0;PWNED⟨U+0007⟩B⟨U+001B⟩]52;c;"),
        "the code is shown, sanitised:\n{err}"
    );
    assert_eq!(
        err.lines().count(),
        3,
        "code and message, entity, hint; no forged lines:\n{err}"
    );
}

#[test]
fn headless_json_to_a_pipe_is_the_reply_byte_for_byte() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = support_hostile::start();
    let out = run(
        dir.path(),
        &base,
        &["notifications", "get", "cbn_x", "-o", "json"],
    );
    assert!(out.status.success(), "{out:?}");
    let (_, served) = support_hostile::reply("/callbacks-notifications/cbn_x");
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{served}\n"));
}

#[test]
fn headless_json_on_a_terminal_escapes_c1_bidi_and_invisibles() {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    let dir = tempfile::tempdir().expect("tempdir");
    let base = support_hostile::start();
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 200,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("openpty");
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_switchboard"));
    cmd.args(["--base-url", &base, "teams", "get", "tm_x", "-o", "json"]);
    cmd.env("HOME", dir.path());
    cmd.env("XDG_CONFIG_HOME", dir.path());
    cmd.env("SWITCHBOARD_CONFIG", config(dir.path()));
    cmd.env("SWITCHBOARD_API_KEY", "sk_test_hostile_0123456789");
    let mut child = pair.slave.spawn_command(cmd).expect("spawn");
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().expect("reader");
    let mut raw = Vec::new();
    // Reads to the end: the child's exit closes the terminal (EIO ends the read).
    let mut buf = [0u8; 8192];
    while let Ok(n) = reader.read(&mut buf) {
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
    }
    assert!(child.wait().expect("wait").success());
    // The terminal turns `\n` into `\r\n`; nothing else may be a control.
    let text = String::from_utf8(raw).expect("UTF-8").replace("\r\n", "\n");
    assert_inert("json on a terminal", text.as_bytes());
    let v: serde_json::Value = serde_json::from_str(&text).expect("still valid JSON");
    assert!(
        v["name"].as_str().is_some_and(|n| n.ends_with(EVIL)),
        "same value"
    );
    assert!(text.contains("\\u009b") && text.contains("\\u202e") && text.contains("\\u200b"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whatever goes in, the one-line form holds no control, bidi or invisible character, and
    /// the multi-line form none but the line break.
    #[test]
    fn the_sanitizer_never_lets_a_hazard_through(
        s in prop_oneof![
            any::<String>(),
            proptest::collection::vec(
                prop_oneof![
                    (0u32..0xA0).prop_map(|u| char::from_u32(u).unwrap_or('?')),
                    (0x2000u32..0x2070).prop_map(|u| char::from_u32(u).unwrap_or('?')),
                    Just('\u{feff}'), Just('\u{61c}'), Just('\u{e0041}'), any::<char>(),
                ],
                0..64,
            ).prop_map(|v| v.into_iter().collect::<String>()),
        ]
    ) {
        let one = switchboard::text::line(&s);
        prop_assert!(first_forbidden(&one).is_none() && !one.contains('\n'), "{one:?}");
        let many = switchboard::text::multiline(&s);
        prop_assert!(first_forbidden(&many).is_none(), "{many:?}");
        let json = serde_json::to_string(&s).expect("JSON");
        let shown = switchboard::text::sanitize::json_for_terminal(&json);
        prop_assert!(first_forbidden(&shown).is_none(), "{shown:?}");
        prop_assert_eq!(serde_json::from_str::<String>(&shown).ok(), Some(s));
    }
}
