//! Where Switchboard keeps its config, data and log files (XDG directories on Linux).
use std::fs::File;
use std::path::{Path, PathBuf};

const APP: &str = "switchboard";

/// The config file used when neither `--config` nor `SWITCHBOARD_CONFIG` is given.
pub fn default_config_file() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join(APP).join("config.toml"))
}

/// The standard locations, for `switchboard info` and for whoever writes data or logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// The config file in effect (it may not exist).
    pub config_file: Option<PathBuf>,
    /// Where the local service keeps its database by default.
    pub data_dir: Option<PathBuf>,
    /// Where the console writes its log (in the data dir).
    pub log_file: Option<PathBuf>,
}

impl Paths {
    /// The standard locations, with the given config file.
    pub fn with_config(config_file: Option<PathBuf>) -> Self {
        let data_dir = dirs::data_dir().map(|d| d.join(APP));
        Self {
            config_file,
            log_file: data_dir.as_ref().map(|d| d.join("switchboard.log")),
            data_dir,
        }
    }
}

/// A log past this size is moved aside (to `….log.1`, replacing the previous one) at start-up.
pub const LOG_ROTATE_BYTES: u64 = 5 * 1024 * 1024;

/// Opens the log for appending: its folder is created, a log grown past [`LOG_ROTATE_BYTES`] is
/// moved aside first, and the file is private ([`super::private_file`]: no link followed, `0600`,
/// tightened if looser), as logs name hosts and ids.
pub fn open_log(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent() {
        super::private_file::dir(dir)?;
    }
    if std::fs::metadata(path).is_ok_and(|m| m.len() > LOG_ROTATE_BYTES) {
        let mut old = path.as_os_str().to_owned();
        old.push(".1");
        // A log that cannot be moved aside is still worth appending to.
        let _ = std::fs::rename(path, PathBuf::from(old));
    }
    super::private_file::append(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn the_log_lives_in_the_data_dir() {
        let p = Paths::with_config(None);
        if let (Some(data), Some(log)) = (p.data_dir, p.log_file) {
            assert_eq!(log.parent(), Some(data.as_path()));
        }
    }

    #[test]
    fn a_new_log_is_owner_only_and_a_big_one_is_moved_aside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("nested").join("switchboard.log");
        open_log(&path)
            .and_then(|mut f| f.write_all(b"first\n"))
            .expect("log");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let big = vec![b'x'; LOG_ROTATE_BYTES as usize + 1];
        std::fs::write(&path, &big).expect("grow");
        open_log(&path)
            .and_then(|mut f| f.write_all(b"fresh\n"))
            .expect("reopen");
        assert_eq!(std::fs::read(&path).expect("read"), b"fresh\n");
        let aside = dir.path().join("nested").join("switchboard.log.1");
        assert_eq!(
            std::fs::metadata(aside).expect("aside").len(),
            big.len() as u64
        );
    }

    #[cfg(unix)]
    #[test]
    fn an_open_log_is_tightened_and_a_planted_link_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("switchboard.log");
        std::fs::write(&path, "old\n").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        open_log(&path).expect("open");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "an existing 0644 log is tightened");
        let target = dir.path().join("bashrc");
        std::fs::write(&target, "keep\n").expect("target");
        let link = dir.path().join("planted.log");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        assert!(open_log(&link).is_err());
        assert_eq!(std::fs::read(&target).expect("read"), b"keep\n");
    }
}
