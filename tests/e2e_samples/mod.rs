//! The Samples room's edit-and-send in a real terminal (issue 39): `e` gives the sample's body
//! to `$EDITOR` (a script that changes one field), sends what it left signed afresh to a loopback
//! receiver that checks the signature with its own HMAC, and compare opens with the recorded
//! answer beside the new one.
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::Console;

/// A request the receiver got: its headers (names lowercase) and body.
type Got = (HashMap<String, String>, Vec<u8>);

/// A receiver on 127.0.0.1 answering `/in` 200 and anything else 500 `boom`.
fn receiver() -> (String, Arc<Mutex<Vec<Got>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let got: Arc<Mutex<Vec<Got>>> = Arc::default();
    let log = Arc::clone(&got);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut request_line = String::new();
            let _ = reader.read_line(&mut request_line);
            let mut headers = HashMap::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some((k, v)) = line.split_once(':') {
                    headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
                }
            }
            let len = headers
                .get("content-length")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0usize);
            let mut body = vec![0u8; len];
            if reader.read_exact(&mut body).is_ok() {
                log.lock().expect("log").push((headers, body));
            }
            let answer: &[u8] = if request_line.contains(" /in ") {
                b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok"
            } else {
                b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 4\r\nconnection: close\r\n\r\nboom"
            };
            let _ = stream.write_all(answer);
        }
    });
    (url, got)
}

/// Checks pulsar's `i=<host>,t=<t>,v1=<HMAC(secret, "host.t.body")>` without the library.
fn verify(secret: &str, headers: &HashMap<String, String>, body: &[u8]) {
    let sig = headers.get("metorial-signature").expect("a signature");
    let part = |k: &str| {
        sig.split(',')
            .find_map(|p| p.strip_prefix(&format!("{k}=")))
            .unwrap_or_else(|| panic!("{k}= in {sig}"))
            .to_string()
    };
    let mut message = format!("{}.{}.", part("i"), part("t")).into_bytes();
    message.extend_from_slice(body);
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("hmac key");
    mac.update(&message);
    assert_eq!(
        hex::encode(mac.finalize().into_bytes()),
        part("v1"),
        "{sig}"
    );
}

#[test]
fn samples_e_edits_in_the_editor_sends_signed_and_compares_with_the_recorded_answer() {
    use switchboard::api::model::{CallbackType, CallbacksInput, CreateDestination};
    use switchboard::api::samples::{Library, Sample};
    use switchboard::api::{Client, ClientOptions, ListQuery, NotificationFilter};
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let mut cfg = switchboard::service::ServiceConfig::ephemeral();
    cfg.seed = switchboard::service::Seed::Demo;
    let svc = rt
        .block_on(switchboard::service::start(cfg))
        .expect("service");
    let key = svc.api_key.expose().to_string();
    let client = Client::new(ClientOptions {
        base_url: svc.base_url.clone(),
        api_key: svc.api_key.clone(),
        max_retries: 0,
        ..ClientOptions::default()
    })
    .expect("client");
    let (rx, got) = receiver();
    let dirs = tempfile::tempdir().expect("tempdir");
    let secret = rt.block_on(async {
        let q = ListQuery {
            limit: Some(100),
            ..Default::default()
        };
        let cb = client
            .list_callbacks(&q)
            .await
            .expect("callbacks")
            .items
            .into_iter()
            .find(|c| c.kind == CallbackType::WebhookManual)
            .expect("a manual callback");
        let dest = client
            .create_destination(&CreateDestination {
                name: "Receiver under repair".into(),
                description: None,
                url: format!("{rx}/in"),
                callbacks: CallbacksInput::selected(vec![cb.id.clone()]),
            })
            .await
            .expect("destination");
        let r = reqwest::Client::new()
            .post(cb.url.expect("hook url"))
            .json(&serde_json::json!({"type": "build.failed", "note": "as recorded"}))
            .send()
            .await
            .expect("hook");
        assert_eq!(r.status(), 200);
        let deadline = Instant::now() + Duration::from_secs(10);
        let n = loop {
            let f = NotificationFilter {
                destination_ids: vec![dest.id.clone()],
                ..Default::default()
            };
            let page = client
                .list_notifications(&ListQuery::default(), &f)
                .await
                .expect("notifications");
            if let Some(n) = page.items.into_iter().find(|n| !n.attempts.is_empty()) {
                break n;
            }
            assert!(Instant::now() < deadline, "the receiver was never called");
            tokio::time::sleep(Duration::from_millis(20)).await; // polling interval
        };
        let d = client.get_destination(&dest.id).await.expect("destination");
        let sample =
            Sample::from_notification("build-7", &n, None, None, Some(&d)).expect("a sample");
        Library::for_profile(&dirs.path().join("data/switchboard"), "s")
            .expect("library")
            .save(&sample, false)
            .expect("kept");
        d.webhook_destination.expect("webhook").signing_secret
    });
    assert_eq!(got.lock().expect("log").len(), 1, "the recorded delivery");

    let cfg = dirs.path().join("config.toml");
    std::fs::write(
        &cfg,
        format!(
            "default_profile = \"s\"\n[profiles.s]\nbase_url = \"{}\"\napi_key_env = \"E2E_KEY\"\n",
            svc.base_url
        ),
    )
    .expect("config");
    let editor = dirs.path().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nsed -i 's/as recorded/edited by hand/' \"$1\"\n",
    )
    .expect("editor script");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    }
    let editor = editor.to_str().expect("utf-8 path").to_string();
    let mut c = Console::start(
        dirs.path(),
        &["--config", cfg.to_str().expect("utf-8 path")],
        &[("E2E_KEY", &key), ("VISUAL", &editor), ("EDITOR", "")],
    );
    c.wait_for("the console", |t| t.contains("q quit"));
    c.press(b":samples\r");
    c.wait_for("the Samples room", |t| {
        t.contains("Samples · s") && t.contains("build-7")
    });
    c.press(b"e");
    c.wait_for("the target", |t| t.contains("Edit, then send build-7"));
    c.press(b"\x15"); // Ctrl-U
    c.press(format!("{rx}/edited").as_bytes());
    c.press(b"\r");
    let s = c.wait_for("compare, the recorded answer beside the new one", |t| {
        t.contains("recorded attempt #1") && t.contains("edited sample build-7")
    });
    assert!(s.contains("500"), "{s}");
    let sent = got.lock().expect("log").clone();
    assert_eq!(sent.len(), 2, "the recorded delivery and the edited send");
    let (headers, body) = &sent[1];
    let text = String::from_utf8_lossy(body);
    assert!(
        text.contains("edited by hand") && !text.contains("as recorded"),
        "{text}"
    );
    verify(&secret, headers, body);
    // One Esc at a time: two at once read as one key with Alt.
    c.press(b"\x1b");
    c.wait_for("compare's list", |t| t.contains("Enter compare"));
    c.press(b"\x1b");
    c.wait_for("the answer in the room", |t| {
        t.contains("SENT edited build-7 → 500")
    });
    c.press(b"\x1b");
    c.wait_for("the room's list", |t| t.contains("e edit & send"));
    c.press(b"\x1b");
    c.wait_for("the room closed", |t| !t.contains("Samples · s"));
    c.press(b"q");
    c.exit(Duration::from_secs(15));
    rt.block_on(svc.shutdown());
}
