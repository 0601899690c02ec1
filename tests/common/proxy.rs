//! A platform that omits signing secrets: a proxy on 127.0.0.1 in front of the embedded service
//! that passes every request on and drops `signing_secret` from every JSON answer.
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::Value;

use super::service::http;

/// Starts the proxy in front of `upstream`; its base URL.
pub async fn stripping_proxy(upstream: String) -> String {
    async fn pass(
        State(up): State<String>,
        req: axum::http::Request<axum::body::Body>,
    ) -> axum::response::Response {
        use axum::response::IntoResponse;
        let (parts, body) = req.into_parts();
        let path = parts
            .uri
            .path_and_query()
            .map(|p| p.as_str().to_string())
            .unwrap_or_default();
        let bytes = axum::body::to_bytes(body, 1 << 24)
            .await
            .unwrap_or_default();
        let mut out = http().request(parts.method.clone(), format!("{up}{path}"));
        for (k, v) in &parts.headers {
            if k != "host" && k != "content-length" {
                out = out.header(k, v);
            }
        }
        let Ok(answer) = out.body(bytes.to_vec()).send().await else {
            return StatusCode::BAD_GATEWAY.into_response();
        };
        let status = answer.status();
        let headers = answer.headers().clone();
        let body = answer.bytes().await.unwrap_or_default();
        let body = match serde_json::from_slice::<Value>(&body) {
            Ok(mut v) => {
                strip(&mut v);
                v.to_string().into_bytes()
            }
            Err(_) => body.to_vec(),
        };
        let mut r = (status, body).into_response();
        for (k, v) in &headers {
            if k != "content-length" && k != "transfer-encoding" {
                r.headers_mut().insert(k, v.clone());
            }
        }
        r
    }
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("signing_secret");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let app = Router::new().fallback(pass).with_state(upstream);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}
