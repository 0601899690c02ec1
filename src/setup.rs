//! Commands that fit Switchboard into a workstation: shell completions, the man page and the
//! `profile` commands that edit the config file.
use std::io::Write;

use clap::builder::PossibleValuesParser;
use clap::{Command as ClapCommand, CommandFactory};
use clap_complete::Shell;
use roff::{Roff, bold, italic, roman};
use switchboard::api::Secret;
use switchboard::config::{
    self, ConfigEdit, ConfigError, ConfigFile, Env, NewKey, NewProfile, Profile,
};
use switchboard::headless::{self, HeadlessError};

use crate::cli::{Cli, GlobalArgs, ProfileCmd};

/// Exit code of usage and configuration errors.
const USAGE: u8 = 2;

/// The command tree with what completion and the man page can show beyond the parser: the
/// `--order` values and the config file's profile names.
fn documented_command(profiles: &[String]) -> ClapCommand {
    enrich(Cli::command(), profiles)
}

fn enrich(cmd: ClapCommand, profiles: &[String]) -> ClapCommand {
    let mut cmd = cmd.mut_args(|a| match a.get_id().as_str() {
        // `--order` parses through `Order::from_str`, which clap cannot list.
        "order" => a.value_parser(PossibleValuesParser::new(["asc", "desc"])),
        "profile" | "profile_name" if !profiles.is_empty() => {
            a.value_parser(PossibleValuesParser::new(profiles.iter().cloned()))
        }
        _ => a,
    });
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for n in names {
        cmd = cmd.mut_subcommand(n, |s| enrich(s, profiles));
    }
    cmd
}

/// Stands for the profile names in a generated script until they are made dynamic.
const PROFILES: &str = "SWITCHBOARD_PROFILE_NAMES";
/// What the scripts run, when completing, to list the profile names of the config in effect.
const LIST_PROFILES: &str = "switchboard profile list --names 2>/dev/null";

/// `switchboard completion SHELL`: clap's script, with the profile names read from the config
/// at completion time (bash, zsh, fish), so a profile added later completes too.
pub fn completion(shell: Shell) -> u8 {
    let mut cmd = documented_command(&[PROFILES.to_string()]);
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "switchboard", &mut buf);
    let script = String::from_utf8_lossy(&buf);
    let script = match shell {
        Shell::Bash => bash_profiles(&script),
        // An action naming a function, defined before the script registers itself.
        Shell::Zsh => script
            .replace(&format!("({PROFILES})"), "_switchboard_profiles")
            .replacen(
                "if [ \"$funcstack[1]\" = \"_switchboard\" ]",
                &format!(
                    "(( $+functions[_switchboard_profiles] )) ||\n\
                     _switchboard_profiles() {{\n    \
                     local -a profiles\n    \
                     profiles=(${{(f)\"$({LIST_PROFILES})\"}})\n    \
                     _describe -t profiles 'profile' profiles\n}}\n\n\
                     if [ \"$funcstack[1]\" = \"_switchboard\" ]"
                ),
                1,
            ),
        // A command substitution in `-a "…"`, run when completing.
        Shell::Fish => script
            .replace(&format!("{PROFILES}\\t''"), &format!("({LIST_PROFILES})"))
            .replace(PROFILES, &format!("({LIST_PROFILES})")),
        // PowerShell and Elvish scripts complete names only, no values.
        _ => script.replace(PROFILES, ""),
    };
    let mut out = std::io::stdout().lock();
    finish(out.write_all(script.as_bytes()).and_then(|()| out.flush()))
}

/// Completes profile names in bash without `compgen -W`, which expands its word list (a name
/// `$(…)` would run): the names are read line by line and compared as plain strings.
const BASH_PROFILES: &str = r#"_switchboard_profiles() {
    local name
    while IFS= read -r name; do
        [[ "$name" == "$1"* ]] && COMPREPLY+=("$name")
    done < <(switchboard profile list --names 2>/dev/null)
}
"#;

/// clap's bash script with the profile-name placeholder replaced by calls to
/// [`BASH_PROFILES`]: an option's value list becomes the call, and a positional's word list
/// (`opts="… NAMES"`) loses the placeholder and gains the call after its `compgen`.
fn bash_profiles(script: &str) -> String {
    let only = format!("COMPREPLY=($(compgen -W \"{PROFILES}\" -- \"${{cur}}\"))");
    let mut out = String::from(BASH_PROFILES);
    let mut positional = false;
    for line in script.lines() {
        if line.trim() == only {
            let indent = &line[..line.len() - line.trim_start().len()];
            out.push_str(&format!(
                "{indent}COMPREPLY=()\n{indent}_switchboard_profiles \"${{cur}}\"\n"
            ));
            continue;
        }
        if line.trim_start().starts_with("opts=") && line.contains(PROFILES) {
            positional = true;
            out.push_str(
                &line
                    .replace(&format!(" {PROFILES}"), "")
                    .replace(PROFILES, ""),
            );
            out.push('\n');
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if positional && line.contains("compgen -W \"${opts}\"") {
            let indent = &line[..line.len() - line.trim_start().len()];
            out.push_str(&format!("{indent}_switchboard_profiles \"${{cur}}\"\n"));
            positional = false;
        }
    }
    out
}

/// `switchboard man`: the top-level page, then a section per subcommand, nested commands
/// included, with their own options (the global ones are listed once, at the top).
pub fn man() -> u8 {
    let mut cmd = documented_command(&[]).disable_help_subcommand(true);
    cmd.build();
    let page = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    // clap_mangen's own SUBCOMMANDS section points at one page per subcommand; this is a single
    // page, so the subcommands get a COMMANDS section here instead.
    let head = page
        .render_title(&mut out)
        .and_then(|()| page.render_name_section(&mut out))
        .and_then(|()| page.render_synopsis_section(&mut out))
        .and_then(|()| page.render_description_section(&mut out))
        .and_then(|()| page.render_options_section(&mut out));
    if let Err(e) = head {
        return finish(Err(e));
    }
    let mut roff = Roff::new();
    roff.control("SH", ["COMMANDS"]);
    for sub in cmd.get_subcommands() {
        command_section(&mut roff, sub, "switchboard");
    }
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_all(&out)
        .and_then(|()| roff.to_writer(&mut stdout))
        .and_then(|()| page.render_extra_section(&mut stdout))
        .and_then(|()| page.render_version_section(&mut stdout))
        .and_then(|()| stdout.flush());
    finish(written)
}

fn command_section(roff: &mut Roff, cmd: &ClapCommand, parent: &str) {
    let path = format!("{parent} {}", cmd.get_name());
    roff.control("SS", [path.as_str()]);
    if let Some(about) = cmd.get_long_about().or(cmd.get_about()) {
        roff.text([roman(about.to_string())]);
    }
    let mut usage = cmd.clone().bin_name(&path);
    let usage = usage.render_usage().to_string();
    let usage = usage.trim_start_matches("Usage: ");
    roff.control("PP", [] as [&str; 0]);
    roff.text([bold(usage.to_string())]);
    for arg in cmd.get_arguments() {
        if arg.is_global_set() || arg.is_hide_set() || matches!(arg.get_id().as_str(), "help") {
            continue;
        }
        let mut head = Vec::new();
        if let Some(s) = arg.get_short() {
            head.push(bold(format!("-{s}")));
            if arg.get_long().is_some() {
                head.push(roman(", "));
            }
        }
        if let Some(l) = arg.get_long() {
            head.push(bold(format!("--{l}")));
        }
        let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values());
        if let Some(names) = arg.get_value_names().filter(|_| takes_value) {
            for n in names {
                if !head.is_empty() {
                    head.push(roman(" "));
                }
                head.push(italic(n.to_string()));
            }
        }
        roff.control("TP", [] as [&str; 0]);
        roff.text(head);
        let mut help = arg.get_help().map(ToString::to_string).unwrap_or_default();
        let values: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_string())
            .collect();
        if !values.is_empty() {
            help = format!("{help} [possible values: {}]", values.join(", "));
        }
        roff.text([roman(help)]);
    }
    for sub in cmd.get_subcommands() {
        command_section(roff, sub, &path);
    }
}

/// Exit code of a write to standard output: a lost output (closed or full) is exit 6, as for
/// every command, never 0 or 1 (cancelled).
fn finish(r: std::io::Result<()>) -> u8 {
    // Writes to a closed standard output (`>&-`) "succeed": asked of the descriptor itself.
    match r
        .map_err(headless::output_error)
        .and_then(|()| headless::stdout_open())
    {
        // The reader closed the pipe (`| head`): quiet, exit 0.
        Ok(()) | Err(HeadlessError::ReaderClosed) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            u8::try_from(e.exit_code()).unwrap_or(1)
        }
    }
}

/// Writes to standard output through `f`; a failed write is [`HeadlessError::Output`] (exit 6).
fn write_out(
    f: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), HeadlessError> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    f(&mut out)
        .and_then(|()| std::io::Write::flush(&mut out))
        .map_err(headless::output_error)
}

/// Why a profile command failed.
#[derive(Debug, thiserror::Error)]
enum ProfileError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Input(#[from] HeadlessError),
    #[error("no config file location: set SWITCHBOARD_CONFIG or pass --config")]
    NoPath,
}

impl ProfileError {
    fn exit_code(&self) -> u8 {
        match self {
            ProfileError::Input(e) => u8::try_from(e.exit_code()).unwrap_or(1),
            ProfileError::Config(_) | ProfileError::NoPath => USAGE,
        }
    }
}

/// `switchboard profile …`.
pub fn profile(g: &GlobalArgs, cmd: ProfileCmd) -> u8 {
    match run_profile(g, cmd) {
        Ok(()) | Err(ProfileError::Input(HeadlessError::ReaderClosed)) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}

fn run_profile(g: &GlobalArgs, cmd: ProfileCmd) -> Result<(), ProfileError> {
    let env = Env::from_process();
    let flags = crate::flags(g);
    let path = config::config_path(&flags, &env).ok_or(ProfileError::NoPath)?;
    // `--jq` and `-o ndjson` as every command takes them; a lost output is exit 6.
    let out = headless::Output::new(g.output, g.jq.as_deref(), None)?;
    match cmd {
        ProfileCmd::List { names } => {
            let file = ConfigFile::load(&path)?.unwrap_or_default();
            if names {
                // Shell completion reads this: only names `profile add` would accept.
                write_out(|w| {
                    for n in file
                        .profiles
                        .keys()
                        .filter(|n| config::valid_profile_name(n))
                    {
                        writeln!(w, "{n}")?;
                    }
                    Ok(())
                })?;
            } else {
                list(&file, &out)?;
            }
        }
        ProfileCmd::Show { profile_name } => {
            let file = ConfigFile::load(&path)?.unwrap_or_default();
            let name = profile_name.unwrap_or_else(|| config::active_profile(&flags, &env, &file));
            let Some(p) = file.profiles.get(&name) else {
                let names: Vec<_> = file.profiles.keys().cloned().collect();
                return Err(ConfigError::ProfileNotFound {
                    name,
                    path,
                    available: if names.is_empty() {
                        "none".into()
                    } else {
                        names.join(", ")
                    },
                }
                .into());
            };
            let is_default = file.default_profile.as_deref() == Some(name.as_str());
            show(&name, p, is_default, &path, &env, &out)?;
        }
        ProfileCmd::Add {
            new_name,
            api_key_env,
            api_key_cmd,
            api_key_stdin,
            instance_id,
        } => {
            let key = match (api_key_env, api_key_cmd) {
                (Some(v), _) => Some(NewKey::Env(v)),
                (None, Some(c)) => Some(NewKey::Command(c)),
                // clap's required group leaves --api-key-stdin when neither is given.
                (None, None) => {
                    debug_assert!(api_key_stdin);
                    None
                }
            };
            add(g, &path, &new_name, key, instance_id)?;
        }
        ProfileCmd::Use { profile_name } => {
            let mut edit = ConfigEdit::open(&path)?;
            edit.set_default(&profile_name)?;
            edit.save()?;
            eprintln!("Switched to profile {profile_name:?}.");
            if let Some(v) = config::named_profile(&config::Flags::default(), &env)
                .filter(|v| *v != profile_name)
            {
                eprintln!(
                    "warning: SWITCHBOARD_PROFILE={v} is set and still wins in this environment"
                );
            }
        }
        ProfileCmd::Remove { profile_name, yes } => {
            let mut edit = ConfigEdit::open(&path)?;
            // Check the name before asking, so a typo is not answered with a question.
            let was_default = edit.remove_profile(&profile_name)?;
            if !yes
                && !headless::confirm(&format!(
                    "Remove profile {profile_name:?} from {}?",
                    path.display()
                ))?
            {
                return Err(HeadlessError::Cancelled.into());
            }
            edit.save()?;
            eprintln!("Removed profile {profile_name:?}.");
            if was_default {
                eprintln!("It was the default; choose another with: switchboard profile use NAME");
            }
        }
    }
    Ok(())
}

/// `profile add`; a `None` key is read from standard input, after the cheap checks.
fn add(
    g: &GlobalArgs,
    path: &std::path::Path,
    name: &str,
    key: Option<NewKey>,
    instance_id: Option<String>,
) -> Result<(), ProfileError> {
    let mut edit = ConfigEdit::open(path)?;
    let Some(base_url) = g.base_url.clone() else {
        return Err(ConfigError::Invalid {
            what: "profile add".into(),
            detail: "--base-url URL is required".into(),
        }
        .into());
    };
    let key = if let Some(k) = key {
        k
    } else {
        // Refuse a bad name or URL before asking for the key.
        edit.check_new(name, &base_url)?;
        NewKey::Inline(Secret::new(headless::secret_from_stdin("API key")?))
    };
    let p = NewProfile {
        base_url,
        key,
        instance_id,
        read_only: g.read_only,
    };
    edit.add_profile(name, &p)?;
    edit.save()?;
    eprintln!(
        "Added profile {name:?} to {}. Make it the default with: switchboard profile use {name}",
        path.display()
    );
    Ok(())
}

/// Where a profile's key comes from, never the key itself.
fn key_source(p: &Profile, env: &Env) -> String {
    if let Some(var) = &p.api_key_env {
        let state = match env.get(var) {
            Some(v) => Secret::new(v).masked(),
            None => "not set".into(),
        };
        format!("environment {var} ({state})")
    } else if let Some(cmd) = &p.api_key_cmd {
        format!("command `{cmd}`")
    } else if let Some(k) = &p.api_key {
        format!("{} (inline)", Secret::new(k.as_str()).masked())
    } else {
        "(none)".into()
    }
}

fn list(file: &ConfigFile, out: &headless::Output) -> Result<(), HeadlessError> {
    let is_default = |n: &str| file.default_profile.as_deref() == Some(n);
    if !out.table() {
        let rows: Vec<_> = file
            .profiles
            .iter()
            .map(|(n, p)| {
                serde_json::json!({
                    "name": n,
                    "default": is_default(n),
                    "base_url": p.base_url,
                    "read_only": p.read_only.unwrap_or(false),
                })
            })
            .collect();
        // Config text: hazards escaped as the JSON views escape them, even piped.
        let raw = format!("{:#}", serde_json::Value::Array(rows));
        return out.document(&switchboard::text::sanitize::json_for_terminal(&raw));
    }
    if file.profiles.is_empty() {
        eprintln!(
            "No profiles. Add one with: switchboard profile add NAME --base-url URL --api-key-env VAR"
        );
        return Ok(());
    }
    let width = file
        .profiles
        .keys()
        .map(String::len)
        .max()
        .unwrap_or(4)
        .max(4);
    write_out(|w| {
        writeln!(w, "  {:<width$}  {:<40}  READ-ONLY", "NAME", "BASE URL")?;
        for (n, p) in &file.profiles {
            let mark = if is_default(n) { '*' } else { ' ' };
            let url = p.base_url.as_deref().unwrap_or("(default)");
            let ro = if p.read_only.unwrap_or(false) {
                "yes"
            } else {
                "no"
            };
            writeln!(w, "{mark} {:<width$}  {:<40}  {ro}", clean(n), clean(url))?;
        }
        Ok(())
    })
}

fn show(
    name: &str,
    p: &Profile,
    is_default: bool,
    path: &std::path::Path,
    env: &Env,
    out: &headless::Output,
) -> Result<(), HeadlessError> {
    let org = if let Some(var) = &p.organization_key_env {
        Some(format!("environment {var}"))
    } else {
        p.organization_key_cmd
            .as_ref()
            .map(|c| format!("command `{c}`"))
    };
    if !out.table() {
        let v = serde_json::json!({
            "name": name,
            "default": is_default,
            "config_file": path.display().to_string(),
            "base_url": p.base_url,
            "api_key": key_source(p, env),
            "organization_key": org,
            "instance_id": p.instance_id,
            "read_only": p.read_only.unwrap_or(false),
        });
        // Config text: hazards escaped as the JSON views escape them, even piped.
        let raw = format!("{v:#}");
        return out.document(&switchboard::text::sanitize::json_for_terminal(&raw));
    }
    let rows = [
        (
            "profile",
            format!("{name}{}", if is_default { " (default)" } else { "" }),
        ),
        ("config file", path.display().to_string()),
        (
            "base URL",
            p.base_url.clone().unwrap_or_else(|| "(default)".into()),
        ),
        ("API key", key_source(p, env)),
        ("organization key", org.unwrap_or_else(|| "(none)".into())),
        (
            "instance id",
            p.instance_id.clone().unwrap_or_else(|| "(none)".into()),
        ),
        (
            "read-only",
            if p.read_only.unwrap_or(false) {
                "yes"
            } else {
                "no"
            }
            .into(),
        ),
    ];
    write_out(|w| {
        for (k, v) in rows {
            writeln!(w, "{k:<17} {}", clean(&v))?;
        }
        Ok(())
    })
}

/// The config file is the user's own, but a control character in it must still not drive the
/// terminal (nor a bidi override reorder it): the one sanitizer.
fn clean(s: &str) -> String {
    switchboard::text::line(s).into_owned()
}
