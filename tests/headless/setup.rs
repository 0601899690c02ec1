//! The real binary's set-up commands: `completion`, `man` and `profile …` against a temporary
//! config file.
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use std::io::Write;

/// A temporary home for one test's config file.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    fn config(&self) -> PathBuf {
        self.dir.path().join("conf/config.toml")
    }

    fn write_config(&self, text: &str) {
        let p = self.config();
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write config");
    }

    fn read_config(&self) -> String {
        std::fs::read_to_string(self.config()).expect("read config")
    }

    /// Runs the binary with this config, standard input from `stdin` (closed when `None`).
    fn run(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_switchboard"));
        cmd.args(args)
            .env("SWITCHBOARD_CONFIG", self.config())
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join("xdg-config"))
            .env("XDG_DATA_HOME", self.dir.path().join("xdg-data"))
            .env_remove("SWITCHBOARD_PROFILE")
            .env_remove("SWITCHBOARD_API_KEY")
            .env_remove("METORIAL_API_KEY")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            });
        let mut child = cmd.spawn().expect("run switchboard");
        if let Some(text) = stdin {
            let mut pipe = child.stdin.take().expect("stdin");
            pipe.write_all(text.as_bytes()).expect("write stdin");
        }
        child.wait_with_output().expect("wait")
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        stdout(o),
        stderr(o)
    );
    stdout(o)
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).expect("meta").permissions().mode() & 0o777
}

const TWO_PROFILES: &str = "\
# Switchboard config, written by hand.
default_profile = \"work\"   # what I use most

[profiles.work]
base_url = \"https://api.example.com\"  # production
api_key_env = \"WORK_KEY\"

# Staging, read-only on purpose.
[profiles.staging]
base_url = \"https://staging.example.com\"
api_key_cmd = \"pass show staging\"
read_only = true

[console]
theme = \"light\"   # easier on a bright screen
";

#[test]
fn completion_scripts_name_subcommands_flags_and_values() {
    let sb = Sandbox::new();
    sb.write_config(TWO_PROFILES);
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let script = ok(&sb.run(&["completion", shell], None));
        for word in [
            "teams",
            "destinations",
            "notifications",
            "profile",
            "completion",
            "man",
            // fish spells flags `-l output`, the others `--output`.
            "output",
            "order",
            "base-url",
            "api-key-stdin",
        ] {
            assert!(script.contains(word), "{shell} script lacks {word}");
        }
        // PowerShell's generator completes names only; the others complete values too, the
        // profile names read from the config when completing.
        if shell != "powershell" {
            for value in ["json", "table", "asc", "desc", "profile list --names"] {
                assert!(script.contains(value), "{shell} script lacks value {value}");
            }
        }
        assert!(!script.contains("SWITCHBOARD_PROFILE_NAMES"), "{shell}");
    }
    let bad = sb.run(&["completion", "tcsh"], None);
    assert_eq!(bad.status.code(), Some(2));
}

/// What the bash script offers for `line` (ending where Tab is pressed), run in a real bash
/// with this binary first on PATH and the sandbox's config, in the sandbox's folder.
fn bash_complete(sb: &Sandbox, script: &Path, line: &str) -> String {
    let words: Vec<&str> = line.split(' ').collect();
    let probe = format!(
        "source {}; COMP_WORDS=({}); COMP_CWORD={}; COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}; \
         _switchboard switchboard '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        words
            .iter()
            .map(|w| format!("'{w}'"))
            .collect::<Vec<_>>()
            .join(" "),
        words.len() - 1,
        words[words.len() - 1],
        words[words.len() - 2],
    );
    // The script runs `switchboard profile list --names`: this binary, this config.
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_switchboard"))
        .parent()
        .expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["--norc", "-c", &probe])
        .current_dir(sb.dir.path())
        .env("PATH", path)
        .env("SWITCHBOARD_CONFIG", sb.config())
        .output()
        .expect("bash");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn bash_completion_offers_the_values_in_bash() {
    // Runs the script in a real bash: `--order <TAB>`, `--profile <TAB>`, `profile <TAB>`.
    let sb = Sandbox::new();
    sb.write_config(TWO_PROFILES);
    let script = sb.dir.path().join("switchboard.bash");
    std::fs::write(&script, ok(&sb.run(&["completion", "bash"], None))).expect("script");
    let complete = |line: &str| bash_complete(&sb, &script, line);
    let order = complete("switchboard teams list --order ");
    assert!(order.contains("asc") && order.contains("desc"), "{order}");
    let profiles = complete("switchboard --profile ");
    assert!(
        profiles.contains("work") && profiles.contains("staging"),
        "{profiles}"
    );
    let used = complete("switchboard profile use ");
    assert!(used.lines().any(|l| l == "staging"), "{used}");
    // A profile added after the script was written completes too.
    ok(&sb.run(
        &[
            "profile",
            "add",
            "later",
            "--base-url",
            "https://later.example",
            "--api-key-env",
            "K",
        ],
        None,
    ));
    let profiles = complete("switchboard --profile ");
    assert!(profiles.lines().any(|l| l == "later"), "{profiles}");
    let verbs = complete("switchboard profile ");
    for v in ["list", "show", "add", "use", "remove"] {
        assert!(verbs.lines().any(|l| l == v), "{v} not in {verbs}");
    }
}

#[test]
fn man_page_covers_the_whole_command_tree() {
    let sb = Sandbox::new();
    let page = ok(&sb.run(&["man"], None));
    assert!(page.contains("\n.TH switchboard 1 "), "no title");
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH COMMANDS"] {
        assert!(page.contains(section), "no {section}");
    }
    for sub in [
        "switchboard profile add",
        "switchboard profile remove",
        "switchboard teams list",
        "switchboard destinations create",
        "switchboard notifications list",
        "switchboard completion",
        "switchboard serve",
    ] {
        assert!(page.contains(&format!(".SS \"{sub}\"")), "no section {sub}");
    }
    // Options of nested commands, with their values.
    assert!(page.contains("api\\-key\\-stdin"), "profile add's flags");
    assert!(page.contains("[possible values: asc, desc]"));
}

#[cfg(unix)]
#[test]
fn profile_add_creates_an_owner_only_file_and_reads_the_key_from_stdin_only() {
    let sb = Sandbox::new();
    let out = sb.run(
        &[
            "profile",
            "add",
            "local",
            "--base-url",
            "http://127.0.0.1:4100",
            "--api-key-stdin",
            "--instance-id",
            "ins_1",
            "--read-only",
        ],
        Some("sk_test_0123456789abcdef\n"),
    );
    ok(&out);
    assert_eq!(mode(&sb.config()), 0o600);
    let text = sb.read_config();
    assert!(text.contains("[profiles.local]"), "{text}");
    assert!(
        text.contains("api_key = \"sk_test_0123456789abcdef\""),
        "{text}"
    );
    assert!(text.contains("instance_id = \"ins_1\"") && text.contains("read_only = true"));
    // The key never shows: not in add's messages, not in show.
    assert!(!stderr(&out).contains("0123456789abcdef"));
    let shown = ok(&sb.run(&["profile", "show", "local", "-o", "table"], None));
    assert!(shown.contains("http://127.0.0.1:4100"), "{shown}");
    assert!(!shown.contains("0123456789abcdef"), "{shown}");
    // There is no flag taking the key itself.
    let flag = sb.run(
        &[
            "profile",
            "add",
            "x",
            "--base-url",
            "http://a.example",
            "--api-key",
            "sk_1",
        ],
        None,
    );
    assert_eq!(flag.status.code(), Some(2));
    // An empty standard input is refused and leaves the file alone.
    let empty = sb.run(
        &[
            "profile",
            "add",
            "y",
            "--base-url",
            "http://a.example",
            "--api-key-stdin",
        ],
        Some(""),
    );
    assert_eq!(empty.status.code(), Some(2), "{}", stderr(&empty));
    assert_eq!(sb.read_config(), text);
}

#[cfg(unix)]
#[test]
fn profile_verbs_edit_in_place_keeping_comments_and_0600() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    sb.write_config(TWO_PROFILES);
    std::fs::set_permissions(sb.config(), std::fs::Permissions::from_mode(0o600)).expect("chmod");

    // list: both, the default marked; JSON when asked; names alone for scripts.
    let names = ok(&sb.run(&["profile", "list", "--names"], None));
    assert_eq!(names, "staging\nwork\n");
    let table = ok(&sb.run(&["profile", "list", "-o", "table"], None));
    assert!(
        table
            .lines()
            .any(|l| l.starts_with('*') && l.contains("work"))
    );
    assert!(
        table
            .lines()
            .any(|l| l.starts_with(' ') && l.contains("staging"))
    );
    let json: serde_json::Value =
        serde_json::from_str(&ok(&sb.run(&["profile", "list", "-o", "json"], None))).expect("json");
    assert_eq!(json.as_array().map(Vec::len), Some(2));

    // show without a name: the active profile.
    let shown = ok(&sb.run(&["profile", "show", "-o", "json"], None));
    let shown: serde_json::Value = serde_json::from_str(&shown).expect("json");
    assert_eq!(shown["name"], "work");
    assert_eq!(shown["default"], true);

    // info shows the active profile even when its key's variable is unset; a command that needs
    // the key still refuses, naming the variable.
    let info: serde_json::Value =
        serde_json::from_str(&ok(&sb.run(&["info", "-o", "json"], None))).expect("info json");
    assert_eq!(info["profile"], "work");
    assert!(
        info["api_key"]
            .as_str()
            .is_some_and(|k| k.contains("unreadable") && k.contains("WORK_KEY")),
        "{info}"
    );
    let needs_key = sb.run(&["teams", "list"], None);
    assert_eq!(needs_key.status.code(), Some(2));
    assert!(
        stderr(&needs_key).contains("WORK_KEY"),
        "{}",
        stderr(&needs_key)
    );

    // add, use, remove: every comment and the console table survive.
    ok(&sb.run(
        &[
            "profile",
            "add",
            "ci",
            "--base-url",
            "https://ci.example.com",
            "--api-key-cmd",
            "echo sk_ci_key_0000",
        ],
        None,
    ));
    ok(&sb.run(&["profile", "use", "ci"], None));
    let text = sb.read_config();
    for kept in [
        "# Switchboard config, written by hand.\n",
        "default_profile = \"ci\"   # what I use most\n",
        "base_url = \"https://api.example.com\"  # production\n",
        "# Staging, read-only on purpose.\n[profiles.staging]\n",
        "theme = \"light\"   # easier on a bright screen\n",
    ] {
        assert!(text.contains(kept), "lost {kept:?} in:\n{text}");
    }
    let ci = text.find("[profiles.ci]").expect("ci added");
    assert!(ci < text.find("[console]").expect("console"), "{text}");
    assert_eq!(mode(&sb.config()), 0o600);

    // `use` is what info and the commands now open with.
    let info: serde_json::Value =
        serde_json::from_str(&ok(&sb.run(&["info", "-o", "json"], None))).expect("info json");
    assert_eq!(info["profile"], "ci");
    assert_eq!(info["base_url"], "https://ci.example.com");
    // --profile still wins for one command.
    let info: serde_json::Value = serde_json::from_str(&ok(
        &sb.run(&["info", "-o", "json", "--profile", "staging"], None)
    ))
    .expect("info json");
    assert_eq!(info["profile"], "staging");
    assert_eq!(info["base_url"], "https://staging.example.com");

    // remove needs --yes off a terminal, and then drops the default with it.
    let refused = sb.run(&["profile", "remove", "ci"], None);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(sb.read_config().contains("[profiles.ci]"));
    ok(&sb.run(&["profile", "remove", "ci", "--yes"], None));
    let text = sb.read_config();
    assert!(!text.contains("[profiles.ci]") && !text.contains("default_profile"));
    assert!(text.contains("# Staging, read-only on purpose.\n"));
    assert_eq!(mode(&sb.config()), 0o600);
}

#[test]
fn profile_errors_exit_2_and_change_nothing() {
    let sb = Sandbox::new();
    sb.write_config(TWO_PROFILES);
    let add = |name: &str, url: &str| {
        sb.run(
            &[
                "profile",
                "add",
                name,
                "--base-url",
                url,
                "--api-key-env",
                "K",
            ],
            None,
        )
    };
    let cases: Vec<(&str, Output)> = vec![
        ("duplicate add", add("work", "https://x.example")),
        ("bad URL", add("new", "not a url")),
        ("bad name", add("two words", "https://x.example")),
        (
            "no key source",
            sb.run(
                &["profile", "add", "n", "--base-url", "https://x.example"],
                None,
            ),
        ),
        (
            "no base URL",
            sb.run(&["profile", "add", "n", "--api-key-env", "K"], None),
        ),
        ("use unknown", sb.run(&["profile", "use", "nope"], None)),
        ("show unknown", sb.run(&["profile", "show", "nope"], None)),
        (
            "remove unknown",
            sb.run(&["profile", "remove", "nope", "--yes"], None),
        ),
    ];
    for (what, out) in cases {
        assert_eq!(out.status.code(), Some(2), "{what}: {}", stderr(&out));
        assert!(stderr(&out).contains("error"), "{what}: {}", stderr(&out));
    }
    let unknown = sb.run(&["profile", "use", "nope"], None);
    assert!(
        stderr(&unknown).contains("work, staging") || stderr(&unknown).contains("staging, work"),
        "names the defined profiles: {}",
        stderr(&unknown)
    );
    assert_eq!(sb.read_config(), TWO_PROFILES);
}

#[test]
fn a_broken_config_is_not_edited() {
    let sb = Sandbox::new();
    sb.write_config("[profiles.a]\nread_only = \"yes\"\n");
    let out = sb.run(
        &[
            "profile",
            "add",
            "b",
            "--base-url",
            "https://x.example",
            "--api-key-env",
            "K",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("line 2"), "{}", stderr(&out));
    assert_eq!(sb.read_config(), "[profiles.a]\nread_only = \"yes\"\n");
}

#[test]
fn profile_list_and_show_print_config_text_through_the_one_sanitizer() {
    // A bidi override is not a control character, so a weaker filter let it reorder the line.
    let sb = Sandbox::new();
    sb.write_config(
        "default_profile = \"work\"\n[profiles.work]\nbase_url = \"https://api.example.com/\u{202e}x\"\n",
    );
    for args in [
        &["profile", "list", "-o", "table"][..],
        &["profile", "show", "work", "-o", "table"],
    ] {
        let o = sb.run(args, None);
        let text = format!("{}{}", stdout(&o), stderr(&o));
        assert!(!text.contains('\u{202e}'), "{args:?}: {text}");
        assert!(text.contains("⟨U+202E⟩"), "{args:?}: {text}");
    }
}

#[test]
fn bash_completion_runs_nothing_a_hand_written_profile_name_holds() {
    let sb = Sandbox::new();
    let marker = sb.dir.path().join("PWNED");
    let tick = sb.dir.path().join("TICK");
    sb.write_config(&format!(
        "[profiles.work]\napi_key_env = \"K\"\n\
         [profiles.\"$(touch {m})\"]\napi_key_env = \"K\"\n\
         [profiles.\"a`touch {t}`\"]\napi_key_env = \"K\"\n\
         [profiles.\"w$(touch PWNED)\"]\napi_key_env = \"K\"\n\
         [profiles.\"w*\"]\napi_key_env = \"K\"\n",
        m = marker.display(),
        t = tick.display()
    ));
    let names = ok(&sb.run(&["profile", "list", "--names"], None));
    assert_eq!(names, "work\n", "only valid names are listed");
    let script = sb.dir.path().join("switchboard.bash");
    std::fs::write(&script, ok(&sb.run(&["completion", "bash"], None))).expect("script");
    assert!(!ok(&sb.run(&["completion", "bash"], None)).contains("compgen -W \"$("));
    for line in [
        "switchboard --profile ",
        "switchboard --profile w",
        "switchboard profile use ",
        "switchboard profile remove w",
        "switchboard teams list --profile ",
    ] {
        let offered = bash_complete(&sb, &script, line);
        assert!(offered.lines().any(|l| l == "work"), "{line}: {offered}");
        assert!(
            !offered.contains('$') && !offered.contains('`'),
            "{line}: {offered}"
        );
        assert!(
            !marker.exists() && !tick.exists(),
            "{line}: completion ran a profile name"
        );
        assert!(
            !sb.dir.path().join("PWNED").exists(),
            "{line}: ran in the cwd"
        );
    }
    // Names are compared as text, not as patterns.
    std::fs::write(
        sb.config(),
        "[profiles.work]\napi_key_env = \"K\"\n[profiles.ab]\napi_key_env = \"K\"\n",
    )
    .expect("config");
    let offered = bash_complete(&sb, &script, "switchboard --profile w");
    assert_eq!(offered.trim(), "work");
}
