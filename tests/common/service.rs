//! Shared helpers for the service tests: start a service on 127.0.0.1:0 and talk to it.
use std::time::{Duration, Instant};

use serde_json::Value;
use switchboard::api::{Client, ClientOptions};
use switchboard::service::{RunningService, Seed, ServiceConfig, start};

/// A running service and a client for it.
pub struct TestService {
    /// The service.
    pub svc: RunningService,
    /// A typed client with the right key and no retries.
    pub client: Client,
}

/// A client without retries, so error statuses reach the test as they are.
pub fn client_for(base_url: &str, key: &switchboard::api::Secret) -> Client {
    Client::new(ClientOptions {
        base_url: base_url.to_string(),
        api_key: key.clone(),
        max_retries: 0,
        request_timeout: Duration::from_secs(15),
        ..ClientOptions::default()
    })
    .expect("client")
}

/// Starts a service with `cfg`.
pub async fn start_with(cfg: ServiceConfig) -> TestService {
    let svc = start(cfg).await.expect("service starts");
    let client = client_for(&svc.base_url, &svc.api_key);
    TestService { svc, client }
}

/// The demo world in memory, without simulated events.
pub async fn demo() -> TestService {
    let mut cfg = ServiceConfig::ephemeral();
    cfg.seed = Seed::Demo;
    start_with(cfg).await
}

/// A raw reply: status, headers and the JSON body (Null when not JSON).
pub struct Raw {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl TestService {
    /// Sends a raw request with the service's key (or `auth` as the whole header when given).
    pub async fn raw(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&str>,
        auth: Option<Option<&str>>,
    ) -> Raw {
        let mut rb = http().request(method, format!("{}{path}", self.svc.base_url));
        match auth {
            None => rb = rb.bearer_auth(self.svc.api_key.expose()),
            Some(Some(h)) => rb = rb.header("authorization", h),
            Some(None) => {}
        }
        if let Some(b) = body {
            rb = rb
                .header("content-type", "application/json")
                .body(b.to_string());
        }
        let resp = rb.send().await.expect("request");
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = resp.text().await.expect("body");
        Raw {
            status,
            headers,
            body: serde_json::from_str(&text).unwrap_or(Value::Null),
        }
    }

    /// GET with the service's key.
    pub async fn get(&self, path: &str) -> Raw {
        self.raw(reqwest::Method::GET, path, None, None).await
    }
}

/// One plain HTTP client for the whole test binary (building one loads TLS roots, which is slow).
/// No pooled connections, so no connection outlives the runtime of the test that opened it.
pub fn http() -> &'static reqwest::Client {
    static HTTP: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    HTTP.get_or_init(|| {
        reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .expect("http client")
    })
}

/// Polls `check` until it returns `Some`, for at most `limit`.
pub async fn eventually<T, F, Fut>(limit: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "condition not met within {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The seeded world's first `webhook_manual` callback: the kind with a hook URL that events can be
/// POSTed to, which the delivery tests start from.
pub async fn manual_callback(client: &Client) -> switchboard::api::model::Callback {
    let q = switchboard::api::ListQuery {
        limit: Some(100),
        ..Default::default()
    };
    client
        .list_callbacks(&q)
        .await
        .expect("callbacks")
        .items
        .into_iter()
        .find(|c| c.kind == switchboard::api::model::CallbackType::WebhookManual)
        .expect("a webhook_manual callback")
}

/// `switchboard serve` (the real binary) as a child process on a free loopback port, with the key
/// given through the environment; killed (SIGKILL) when dropped.
pub struct ServeChild {
    child: std::process::Child,
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
}

impl ServeChild {
    /// Starts `switchboard serve --addr 127.0.0.1:0 --api-key-env … ARGS` and waits (bounded) for
    /// the address it prints.
    pub fn start(args: &[&str], key: &str) -> Self {
        Self::start_logged(args, key, None)
    }

    /// [`ServeChild::start`], with standard error (the service's log) written to `log`.
    pub fn start_logged(args: &[&str], key: &str, log: Option<&std::path::Path>) -> Self {
        Self::start_env(args, key, log, &[])
    }

    /// [`ServeChild::start_logged`], with `env` set in the child's environment too.
    pub fn start_env(
        args: &[&str],
        key: &str,
        log: Option<&std::path::Path>,
        env: &[(&str, &str)],
    ) -> Self {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        // Defined for the test binaries only; the crate's own tests never start the binary.
        let Some(bin) = option_env!("CARGO_BIN_EXE_switchboard") else {
            panic!("only a test binary's build knows where the binary is");
        };
        let mut child = Command::new(bin)
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(["--api-key-env", "SWITCHBOARD_TEST_SERVE_KEY"])
            .args(args)
            .env("SWITCHBOARD_TEST_SERVE_KEY", key)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(match log {
                Some(path) => Stdio::from(std::fs::File::create(path).expect("log file")),
                None => Stdio::null(),
            })
            .spawn()
            .expect("start switchboard serve");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        // Reads on a thread so the wait has a deadline; it keeps draining until the child ends.
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) {
                    let _ = tx.send(url.to_string());
                }
            }
        });
        let base_url = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("serve printed its address");
        Self { child, base_url }
    }

    /// Kills the child with SIGKILL (no chance to finish anything) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Stops the child with SIGTERM (a clean shutdown) and waits for it, bounded.
    pub fn terminate(&mut self) {
        let _ = rustix::process::kill_process(
            rustix::process::Pid::from_child(&self.child),
            rustix::process::Signal::TERM,
        );
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill();
    }
}

impl Drop for ServeChild {
    fn drop(&mut self) {
        self.kill();
    }
}
