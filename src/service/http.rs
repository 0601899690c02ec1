//! The HTTP server loop: bounded concurrent connections, a header-read timeout, an idle bound on
//! kept-alive connections, and graceful shutdown (`axum::serve` has none of these knobs).
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, oneshot};

/// Connections served at once; further ones wait in the listen backlog.
pub const MAX_CONNECTIONS: usize = 512;
/// A request's headers must arrive in full within this time.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// A request's body must arrive in full within this time (checked where bodies are read).
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// A connection with no bytes moving either way for this long is closed.
pub const IDLE_TIMEOUT: Duration = Duration::from_mins(1);
/// Largest request head hyper buffers; our own 431 answers come well before it.
const MAX_BUF: usize = 256 * 1024;

/// The server's connection limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections at once.
    pub connections: usize,
    /// Header-read timeout.
    pub header_read: Duration,
    /// Body-read timeout.
    pub body_read: Duration,
    /// Idle bound.
    pub idle: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            connections: MAX_CONNECTIONS,
            header_read: HEADER_READ_TIMEOUT,
            body_read: BODY_READ_TIMEOUT,
            idle: IDLE_TIMEOUT,
        }
    }
}

/// Serves `router` on `listener` until `stopped` fires, then lets open requests finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    mut stopped: oneshot::Receiver<()>,
    limits: Limits,
) -> io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.connections.max(1)));
    let graceful = GracefulShutdown::new();
    loop {
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            _ = &mut stopped => break,
        };
        let stream = tokio::select! {
            r = listener.accept() => match r {
                Ok((s, _)) => s,
                Err(e) => {
                    // Out of descriptors and the like: back off instead of spinning.
                    tracing::warn!("accept: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut stopped => break,
        };
        let _ = stream.set_nodelay(true);
        let io = IdleIo::new(stream);
        let activity = io.activity.clone();
        // HTTP/1.1 only: every client of this API speaks it, and it keeps h2 out of the build.
        let conn = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_read)
            .max_buf_size(MAX_BUF)
            .serve_connection(TokioIo::new(io), TowerToHyperService::new(router.clone()));
        let conn = graceful.watch(conn);
        let idle = limits.idle;
        tokio::spawn(async move {
            let _permit = permit;
            tokio::select! {
                _ = conn => {}
                () = activity.idle_for(idle) => {}
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// When bytes last moved on a connection.
struct Activity {
    start: Instant,
    last_ms: AtomicU64,
}

impl Activity {
    fn touch(&self) {
        let ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.store(ms, Ordering::Relaxed);
    }

    /// Completes once nothing moved for `idle`.
    async fn idle_for(&self, idle: Duration) {
        loop {
            let last = Duration::from_millis(self.last_ms.load(Ordering::Relaxed));
            let quiet = self.start.elapsed().saturating_sub(last);
            if quiet >= idle {
                return;
            }
            tokio::time::sleep(idle.saturating_sub(quiet)).await;
        }
    }
}

/// A TCP stream that records when bytes last moved.
struct IdleIo {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl IdleIo {
    fn new(inner: TcpStream) -> Self {
        Self {
            inner,
            activity: Arc::new(Activity {
                start: Instant::now(),
                last_ms: AtomicU64::new(0),
            }),
        }
    }
}

impl AsyncRead for IdleIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let res = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.touch();
        }
        res
    }
}

impl AsyncWrite for IdleIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let res = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(res, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        res
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let res = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(res, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        res
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
