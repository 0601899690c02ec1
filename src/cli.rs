//! Command-line definitions (clap): global flags and the subcommands of the binary.
use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand, ValueHint};
use clap_complete::Shell;
use switchboard::headless::{AlertsCmd, OutputFormat, Resource};
use switchboard::service::ServeArgs;

const ENVIRONMENT: &str = "\
Environment (flags win over these, these over the profile):
  SWITCHBOARD_CONFIG       config file (default: <config dir>/switchboard/config.toml)
  SWITCHBOARD_PROFILE      profile to use
  SWITCHBOARD_BASE_URL     API base URL (also METORIAL_API_HOST)
  SWITCHBOARD_API_KEY      API key (also METORIAL_API_KEY)
  SWITCHBOARD_INSTANCE_ID  instance id sent as metorial-instance-id (also METORIAL_INSTANCE_ID)
  SWITCHBOARD_GENERATION   pin the API generation (as --generation)

Exit codes: 0 ok (also when the reader closed the pipe, as with `| head`), 1 cancelled or other
failure, 2 usage or configuration, 3 API error, 4 network or timeout, 5 wait timed out, 6 output
failed (standard output closed or full: the output is lost).
Under -o json|ndjson (and --jq) an error is one JSON object on standard error:
  {\"error\":{\"status\":404,\"code\":\"not_found\",\"message\":\"…\"}}";

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
    /// Open the console or a list command on a saved view (`:view` lists them).
    #[arg(long = "view", value_name = "NAME")]
    pub view: Option<String>,
    /// API base URL.
    #[arg(long, global = true, value_name = "URL", value_hint = ValueHint::Url)]
    pub base_url: Option<String>,
    /// Config file.
    #[arg(long, global = true, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub config: Option<PathBuf>,
    /// Output format (default: table on a terminal, json when piped); ndjson: one item a line.
    #[arg(
        short = 'o',
        long = "output",
        global = true,
        value_enum,
        value_name = "json|ndjson|table"
    )]
    pub output: Option<OutputFormat>,
    /// Print what this jq expression makes of the JSON (built in; implies -o json).
    #[arg(long, global = true, value_name = "EXPR")]
    pub jq: Option<String>,
    /// Table columns as JSON paths, e.g. `id,name,webhook_destination.url` (implies -o table).
    #[arg(
        long = "fields",
        id = "column_paths",
        global = true,
        value_name = "a,b.c"
    )]
    pub fields: Option<String>,
    /// Refuse every write.
    #[arg(long, global = true)]
    pub read_only: bool,
    /// Pin the API generation (detected otherwise; a pin the server contradicts is reported).
    #[arg(
        long,
        global = true,
        value_name = "pulsar|callback-destinations|event-destinations"
    )]
    pub generation: Option<switchboard::api::generation::Generation>,
    /// Log filter, e.g. `warn`, `debug` or `switchboard=debug`.
    #[arg(long, global = true, value_name = "LEVEL")]
    pub log_level: Option<String>,
    /// Let one walk over a list's pages read up to N pages (default 200; items and bytes grow
    /// in proportion from 20,000 items and 64 MiB).
    #[arg(long, global = true, value_name = "N",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    pub max_pages: Option<usize>,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Start the local service with demo data and open the console on it.
    Demo {
        /// Keep the demo database in this file (default: in memory).
        #[arg(long, value_name = "PATH")]
        db: Option<PathBuf>,
        /// The API generation the demo's service serves.
        #[arg(
            long,
            default_value = "pulsar",
            value_name = "pulsar|callback-destinations|event-destinations"
        )]
        generation: switchboard::api::generation::Generation,
    },
    /// Run the local service in the foreground.
    Serve(ServeArgs),
    /// Show paths, the active profile, base URL and generation, instance id and the key (masked).
    Info {
        /// Also detect afresh what the server serves: versions listed, paths found per area,
        /// the generation chosen (written to the detection cache).
        #[arg(long)]
        versions: bool,
    },
    /// Print a shell completion script (see the README for where to put it).
    #[command(after_help = COMPLETION_HELP)]
    Completion {
        /// The shell.
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the man page (roff) of every command: `switchboard man | man -l -`.
    Man,
    /// List, show, add, select and remove the config file's profiles.
    #[command(subcommand)]
    Profile(ProfileCmd),
    /// Serve the API to agents as MCP tools over stdio (read-only unless --allow-writes).
    #[command(after_help = MCP_HELP)]
    Mcp {
        /// Also serve the write tools (teams create/update, destinations create/update/delete);
        /// refused when the profile is read-only.
        #[arg(long)]
        allow_writes: bool,
        /// A receiver on this machine `replay_locally` may send to (repeatable; beside the
        /// profile's `mcp_replay_targets`); no other target is accepted.
        #[arg(long = "replay-to", value_name = "URL")]
        replay_to: Vec<String>,
        /// The environment variable holding the destination secret `replay_locally` signs with
        /// on event-destinations (the platform shows it only on create and rotate).
        #[arg(long = "replay-secret-env", value_name = "VAR")]
        replay_secret_env: Option<String>,
    },
    /// The profile's alert rules: `check` them once, or `watch` and be told when one changes.
    #[command(subcommand, after_help = ALERTS_HELP)]
    Alerts(AlertsCmd),
    /// A resource command.
    #[command(flatten)]
    Resource(Resource),
}

const ALERTS_HELP: &str = "\
Rules are in the config file, as [[profiles.NAME.alerts]] (or [[alerts]] without a profile):
  name = \"partner down\", destination = \"cld_…\" or \"*\",
  rule = \"failure_rate\" (threshold, window) | \"consecutive_failures\" (count)
       | \"no_success\" (window) | \"expiring\" (days; import = \"poti_…\" or \"*\"),
  sink = \"ndjson\" | { command = \"…\" } | { webhook = \"https://…\", secret_env = \"VAR\" }.
A bad rule is a usage error (exit 2) before any request. `check` exits 3 when a rule is failing.
What `watch` sent is kept in <data dir>/switchboard/alerts/. See the README, \"Alerts\".";

const MCP_HELP: &str = "\
An MCP client starts it and talks JSON-RPC on its standard input and output, e.g. in the client's
configuration: {\"command\": \"switchboard\", \"args\": [\"--profile\", \"work\", \"mcp\"]}.
The tools, their inputs and the rules (secrets masked, platform data marked as untrusted, replay
only to the receivers named by --replay-to or mcp_replay_targets) are in the README, section
\"For agents\".";

const COMPLETION_HELP: &str = "\
Examples:
  switchboard completion bash > ~/.local/share/bash-completion/completions/switchboard
  switchboard completion zsh > \"${fpath[1]}/_switchboard\"
  switchboard completion fish > ~/.config/fish/completions/switchboard.fish
  switchboard completion powershell >> $PROFILE

Profile names come from the config file when you press Tab (the bash, zsh and fish scripts run
`switchboard profile list --names`), so new profiles complete without writing the script again.
PowerShell's script completes subcommands and flags only.";

const PROFILE_ADD_HELP: &str = "\
The key is never a flag value (it would show in the process list and the shell history): name an
environment variable, a command that prints it, or pipe it in with --api-key-stdin, which stores
it in the file (written owner-only, 0600).

Examples:
  switchboard profile add work --base-url https://api.metorial.com --api-key-cmd 'pass show metorial/work'
  switchboard profile add ci --base-url https://api.metorial.com --api-key-env METORIAL_CI_KEY --read-only
  printf %s \"$KEY\" | switchboard profile add local --base-url http://127.0.0.1:4100 --api-key-stdin";

/// `profile …`: edits the config file (`--config`, `SWITCHBOARD_CONFIG` or the default) in place.
#[derive(Subcommand, Debug)]
pub enum ProfileCmd {
    /// List the profiles; `*` marks the default.
    List {
        /// Print only the names, one a line (for scripts and shell completion).
        #[arg(long)]
        names: bool,
    },
    /// Show one profile (default: the active one), keys masked.
    Show {
        /// The profile.
        #[arg(value_name = "NAME")]
        profile_name: Option<String>,
    },
    /// Add a profile (the --base-url and --read-only flags are stored in it).
    #[command(
        after_help = PROFILE_ADD_HELP,
        override_usage = "switchboard profile add NAME --base-url URL \
                          (--api-key-env VAR | --api-key-cmd CMD | --api-key-stdin) \
                          [--instance-id ID] [--read-only]"
    )]
    #[command(group(ArgGroup::new("key").required(true).args(["api_key_env", "api_key_cmd", "api_key_stdin"])))]
    Add {
        /// The new profile's name (letters, digits, '-', '_', '.').
        #[arg(value_name = "NAME")]
        new_name: String,
        /// Environment variable holding the API key.
        #[arg(long, value_name = "VAR")]
        api_key_env: Option<String>,
        /// Shell command printing the API key (e.g. a password manager).
        #[arg(long, value_name = "CMD", value_hint = ValueHint::CommandString)]
        api_key_cmd: Option<String>,
        /// Read the key itself from standard input and store it in the file.
        #[arg(long)]
        api_key_stdin: bool,
        /// Instance id, sent as metorial-instance-id.
        #[arg(long, value_name = "ID")]
        instance_id: Option<String>,
    },
    /// Make a profile the default that commands and the console open with.
    Use {
        /// The profile.
        #[arg(value_name = "NAME")]
        profile_name: String,
    },
    /// Remove a profile (asks on a terminal; --yes otherwise).
    Remove {
        /// The profile.
        #[arg(value_name = "NAME")]
        profile_name: String,
        /// Do not ask.
        #[arg(long, short = 'y')]
        yes: bool,
    },
}
