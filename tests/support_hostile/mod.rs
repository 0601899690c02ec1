//! A hostile stand-in of the API on 127.0.0.1: it serves the golden fixtures with every string a
//! person or a webhook receiver could have written replaced by terminal attacks, recorded
//! attempts carrying secret-looking and unknown headers, the first team's id ending a bracketed
//! paste, and token imports answering a 400 whose every field (code included) is an attack.
#![allow(dead_code)] // each test binary uses a different part of it

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;

use serde_json::{Value, json};

/// Every class of attack in one string: OSC 0 (title), OSC 52 (clipboard), OSC 8 (link), CSI
/// (clear screen, colours), DCS, C1 CSI/OSC/ST, BEL, BS, DEL, CR/LF, bidi overrides and
/// isolates, zero-width characters and a tag character.
pub const EVIL: &str = "A\u{1b}]0;PWNED\u{7}B\u{1b}]52;c;cHduZWQ=\u{7}C\u{1b}]8;;http://evil.example/\u{1b}\\link\u{1b}]8;;\u{1b}\\D\u{1b}[2J\u{1b}[31mE\u{1b}P1$qm\u{1b}\\F\u{9b}2J\u{9d}0;C1\u{9c}G\u{7}\u{8}\u{7f}H\r\nI\u{202e}J\u{2066}K\u{200b}L\u{200d}M\u{feff}N\u{e0041}O";

/// An id that ends a bracketed paste and runs a command when pasted into a shell.
pub const EVIL_ID: &str = "tm_1\u{1b}[201~\ntouch pwned\n";

/// Secret values a receiver answered with; none may ever reach a screen, a pipe or a clipboard.
pub const LEAKS: &[&str] = &[
    "LEAK_bearer_0123456789",
    "LEAK_cookie_0123456789",
    "LEAK_apikey_0123456789",
    "LEAK_unknown_0123456789",
    "LEAK_evilname_0123456789",
];

/// Whether `c` may never reach a terminal or clipboard raw: C0 but the line break, DEL, C1,
/// bidi controls, zero-width and tag characters. Written here independently of the library.
pub fn forbidden(c: char) -> bool {
    let u = u32::from(c);
    (u < 0x20 && c != '\n')
        || (0x7f..=0x9f).contains(&u)
        || matches!(u, 0x061C | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2069 | 0xFEFF)
        || (0xE0000..=0xE007F).contains(&u)
}

/// The first forbidden character of `text` and where, if any.
pub fn first_forbidden(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|&(_, c)| forbidden(c))
}

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

fn headers_with_secrets(h: &mut serde_json::Map<String, Value>) {
    h.insert(
        "authorization".into(),
        json!(format!("Bearer {}", LEAKS[0])),
    );
    h.insert("set-cookie".into(), json!(format!("session={}", LEAKS[1])));
    h.insert("x-api-key".into(), json!(LEAKS[2]));
    h.insert("x-unknown-thing".into(), json!(LEAKS[3]));
    h.insert(format!("x-{EVIL}"), json!(LEAKS[4]));
    h.insert("content-type".into(), json!(format!("text/plain{EVIL}")));
}

/// Replaces what people and receivers write with attacks, keeping the shape decodable.
pub fn poison(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                match (k.as_str(), &mut *x) {
                    (
                        "name" | "description" | "slug" | "note" | "request_error"
                        | "response_body" | "scope",
                        Value::String(s),
                    ) => *s = format!("{s}{EVIL}"),
                    ("request_headers" | "response_headers", Value::Object(h)) => {
                        headers_with_secrets(h);
                    }
                    _ => poison(x),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(poison),
        _ => {}
    }
}

/// The hostile body for a path (query stripped), with its status.
pub fn reply(path: &str) -> (u16, String) {
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if segs.contains(&"token-imports") {
        let e = json!({"__typename": "error", "ok": false, "status": 400, "code": EVIL,
            "message": EVIL, "hint": EVIL, "entity": EVIL});
        return (400, e.to_string());
    }
    let name = match segs.as_slice() {
        [.., "organization", "teams"] => "team-list.json",
        [.., "organization", "teams", _] => "team.json",
        [.., "callbacks"] => "callback-list.json",
        [.., "callbacks", _] => "callback.json",
        [.., "callbacks-destinations"] => "destination-list.json",
        [.., "callbacks-destinations", _] => "destination.json",
        [.., "callbacks-notifications"] => "notification-list.json",
        [.., "callbacks-notifications", _] => "notification.json",
        _ => return (404, fixture("error-not-found.json").to_string()),
    };
    let mut v = fixture(name);
    poison(&mut v);
    if name == "team-list.json"
        && let Some(first) = v.pointer_mut("/items/0/id")
    {
        *first = json!(EVIL_ID);
    }
    (200, serde_json::to_string_pretty(&v).expect("JSON"))
}

fn answer(mut s: TcpStream) {
    let mut r = BufReader::new(match s.try_clone() {
        Ok(c) => c,
        Err(_) => return,
    });
    let mut first = String::new();
    if r.read_line(&mut first).is_err() {
        return;
    }
    let mut length = 0usize;
    loop {
        let mut l = String::new();
        if r.read_line(&mut l).unwrap_or(0) == 0 || l == "\r\n" {
            break;
        }
        if let Some((k, v)) = l.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length];
    let _ = r.read_exact(&mut body);
    let target = first.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split('?').next().unwrap_or("/");
    let (status, body) = reply(path);
    let head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(body.as_bytes());
}

/// A loopback address on which nothing listens, reserved for the rest of the test process: the
/// socket stays bound without listening, so a connection is refused and no other test's server
/// can be given the same port (a bound-then-released port was, and read pages meant for another).
pub fn closed_port() -> std::net::SocketAddr {
    use std::os::fd::IntoRawFd;
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind(std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
        .expect("bind loopback");
    let addr = socket.local_addr().expect("addr");
    // Kept open on purpose until the process ends.
    let _fd = socket.into_raw_fd();
    addr
}

/// Starts the hostile API on a random loopback port; returns its base URL. It serves until the
/// test process ends.
pub fn start() -> String {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = l.local_addr().expect("addr");
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || answer(s));
        }
    });
    format!("http://{addr}")
}

/// The hostile webhook receiver's answer: secret-looking and unknown headers, a header value
/// with C1 and bidi characters (raw UTF-8, which HTTP allows as obs-text), and [`EVIL`] as the
/// body.
fn receiver_answer(mut s: TcpStream) {
    let mut r = BufReader::new(match s.try_clone() {
        Ok(c) => c,
        Err(_) => return,
    });
    let mut length = 0usize;
    loop {
        let mut l = String::new();
        if r.read_line(&mut l).unwrap_or(0) == 0 || l == "\r\n" {
            break;
        }
        if let Some((k, v)) = l.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length];
    let _ = r.read_exact(&mut body);
    let head = format!(
        "HTTP/1.1 200 OK\r\nauthorization: Bearer {}\r\nset-cookie: session={}\r\nx-api-key: {}\r\n\
         x-unknown-thing: {}\r\nserver: evil\u{9b}2J\u{202e}txt.exe\u{200b}\r\n\
         content-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        LEAKS[0],
        LEAKS[1],
        LEAKS[2],
        LEAKS[3],
        EVIL.len()
    );
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(EVIL.as_bytes());
}

/// Starts the hostile webhook receiver on a random loopback port; returns its URL.
pub fn start_receiver() -> String {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = l.local_addr().expect("addr");
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || receiver_answer(s));
        }
    });
    format!("http://{addr}/in")
}
