//! The terminal console (ratatui, Elm shape). Entry point: [`run`].
use crate::api::Client;

/// What the console needs to start.
#[derive(Debug, Clone)]
pub struct ConsoleSetup {
    /// A ready API client for the active profile.
    pub client: Client,
    /// Name of the active profile, shown in the header.
    pub profile: String,
    /// Refuse and hide every write action.
    pub read_only: bool,
}

/// Runs the console until the user quits; the terminal is restored on every exit path.
pub async fn run(setup: ConsoleSetup) -> std::io::Result<()> {
    let _ = setup;
    Err(std::io::Error::other("the console is not built yet"))
}
