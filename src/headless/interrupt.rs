//! Ctrl-C for the long-running verbs, listened for from the moment a verb asks: tokio's
//! `ctrl_c()` installs its handler only when first polled, so a SIGINT that came between a
//! verb's `ready` line and its first wait took the default action and killed the process (exit
//! by signal, nothing said). A verb makes its [`Interrupt`] before it says it is ready.
use tokio::signal::unix::{Signal, SignalKind, signal};

/// SIGINT, listened for since [`Interrupt::listen`].
pub struct Interrupt(Option<Signal>);

impl Interrupt {
    /// Starts listening now. Without a handler (very unusual) [`Interrupt::recv`] never
    /// resolves and Ctrl-C ends the process as usual.
    pub fn listen() -> Self {
        Self(signal(SignalKind::interrupt()).ok())
    }

    /// Resolves on the next SIGINT since listening began (cancel-safe: usable in a `select!`
    /// loop).
    pub async fn recv(&mut self) {
        match &mut self.0 {
            Some(s) => {
                s.recv().await;
            }
            None => std::future::pending().await,
        }
    }
}
