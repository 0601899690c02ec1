//! Command-line definitions (clap): global flags and the subcommands of the binary.
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use switchboard::headless::{OutputFormat, Resource};
use switchboard::service::ServeArgs;

const ENVIRONMENT: &str = "\
Environment (flags win over these, these over the profile):
  SWITCHBOARD_CONFIG       config file (default: <config dir>/switchboard/config.toml)
  SWITCHBOARD_PROFILE      profile to use
  SWITCHBOARD_BASE_URL     API base URL (also METORIAL_API_HOST)
  SWITCHBOARD_API_KEY      API key (also METORIAL_API_KEY)
  SWITCHBOARD_INSTANCE_ID  instance id sent as metorial-instance-id (also METORIAL_INSTANCE_ID)

Exit codes: 0 ok, 1 cancelled or other failure, 2 usage, 3 API error, 4 network or timeout.";

/// Switchboard: a keyboard-driven console and headless CLI for the MCP platform's management API.
#[derive(Parser, Debug)]
#[command(name = "switchboard", version, after_help = ENVIRONMENT)]
pub struct Cli {
    /// Flags every command takes.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do; without one, the console opens.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Flags accepted before or after the subcommand.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Profile of the config file to use.
    #[arg(long, global = true, value_name = "P")]
    pub profile: Option<String>,
    /// API base URL.
    #[arg(long, global = true, value_name = "URL")]
    pub base_url: Option<String>,
    /// Config file.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Output format (default: table on a terminal, json when piped).
    #[arg(
        short = 'o',
        long = "output",
        global = true,
        value_enum,
        value_name = "json|table"
    )]
    pub output: Option<OutputFormat>,
    /// Refuse every write.
    #[arg(long, global = true)]
    pub read_only: bool,
    /// Log filter, e.g. `warn`, `debug` or `switchboard=debug`.
    #[arg(long, global = true, value_name = "LEVEL")]
    pub log_level: Option<String>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Start the local service with demo data and open the console on it.
    Demo {
        /// Keep the demo database in this file (default: in memory).
        #[arg(long, value_name = "PATH")]
        db: Option<PathBuf>,
    },
    /// Run the local service in the foreground.
    Serve(ServeArgs),
    /// Show paths, the active profile, base URL, instance id and the key (masked).
    Info,
    /// A resource command.
    #[command(flatten)]
    Resource(Resource),
}
