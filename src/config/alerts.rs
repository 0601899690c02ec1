//! Which alert rules a session uses: the active profile's `[[profiles.P.alerts]]`, or the
//! top-level `[[alerts]]` when the session's profile is not defined in the file (a session of
//! environment variables only). The rules themselves are checked by `crate::alerts::rule`.
use std::path::PathBuf;

use super::ConfigError;
use super::file::ConfigFile;
use super::resolve::{Env, Flags, active_profile, config_path, named_profile};

/// The alert rules' tables as written, with where they were found.
#[derive(Debug, Clone, Default)]
pub struct AlertTables {
    /// The rules, in file order.
    pub tables: Vec<toml::Table>,
    /// Where they are written, for messages: `[[profiles.work.alerts]]` or `[[alerts]]`.
    pub section: String,
    /// The config file (a `command` sink runs only from a file nobody else can change).
    pub config_path: Option<PathBuf>,
    /// Things the user should know (top-level rules a named profile hides).
    pub warnings: Vec<String>,
}

/// The session's alert rules (none when there is no config file).
///
/// # Errors
/// The file cannot be read or parsed.
pub fn alert_tables(flags: &Flags, env: &Env) -> Result<AlertTables, ConfigError> {
    let path = config_path(flags, env);
    let file = match &path {
        Some(p) => ConfigFile::load(p)?.unwrap_or_default(),
        None => ConfigFile::default(),
    };
    let profile = active_profile(flags, env, &file);
    let mut out = AlertTables {
        config_path: path,
        ..AlertTables::default()
    };
    match file.profiles.get(&profile) {
        Some(p) => {
            out.tables.clone_from(&p.alerts);
            out.section = format!("[[profiles.{profile}.alerts]]");
            if !file.alerts.is_empty() {
                out.warnings.push(
                    crate::text::line(&format!(
                        "the top-level [[alerts]] apply only without a named profile; profile \
                     {profile:?} uses its own [[profiles.{profile}.alerts]]"
                    ))
                    .into_owned(),
                );
            }
        }
        // As `Settings::load`: a profile asked for by name (or as the default) must exist.
        None if named_profile(flags, env).is_some() || file.default_profile.is_some() => {
            return Err(ConfigError::ProfileNotFound {
                name: profile,
                path: out.config_path.unwrap_or_default(),
                available: if file.profiles.is_empty() {
                    "none".into()
                } else {
                    file.profiles.keys().cloned().collect::<Vec<_>>().join(", ")
                },
            });
        }
        None => {
            out.tables.clone_from(&file.alerts);
            out.section = "[[alerts]]".into();
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(path: &std::path::Path, profile: Option<&str>) -> Flags {
        Flags {
            config: Some(path.to_path_buf()),
            profile: profile.map(str::to_string),
            ..Flags::default()
        }
    }

    #[test]
    fn a_profiles_rules_or_the_top_level_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.toml");
        let text = "[[alerts]]\nname = \"top\"\n\n[profiles.work]\n\n[[profiles.work.alerts]]\n\
                    name = \"mine\"\nrule = \"expiring\"\ndays = 7\n";
        std::fs::write(&path, text).expect("write");
        let f = ConfigFile::parse(&path, text).expect("parses");
        assert!(f.warnings(&path).is_empty(), "alerts is a known key");
        let a = alert_tables(&flags(&path, Some("work")), &Env::default()).expect("loads");
        assert_eq!(a.tables.len(), 1);
        assert_eq!(a.tables[0]["name"].as_str(), Some("mine"));
        assert_eq!(a.section, "[[profiles.work.alerts]]");
        assert_eq!(a.warnings.len(), 1, "{:?}", a.warnings);
        let a = alert_tables(&flags(&path, None), &Env::default()).expect("loads");
        assert_eq!(a.tables[0]["name"].as_str(), Some("top"));
        assert_eq!(a.section, "[[alerts]]");
        assert!(a.warnings.is_empty());
        let e = alert_tables(&flags(&path, Some("nope")), &Env::default()).expect_err("unknown");
        assert!(matches!(e, ConfigError::ProfileNotFound { .. }), "{e}");
    }
}
