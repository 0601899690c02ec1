//! Whether a config file may run commands (`api_key_cmd`, `organization_key_cmd`), decided as
//! ssh decides for its own config: the file must be yours (or root's) and writable by nobody
//! else, and so must every folder above it up to your home directory (only the folder holding it
//! when it is outside your home). A sticky bit does not make a folder others can write safe,
//! as in ssh: such a folder still lets them plant a file before yours exists.
use std::path::{Path, PathBuf};

/// Why a config file may not run commands, and what fixes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untrusted {
    /// What is wrong, naming the file or folder.
    pub reason: String,
    /// The command that fixes it (`chmod 600 FILE`, …).
    pub fix: String,
}

/// `Ok` when the file at `path` may run commands; else why not.
///
/// # Errors
/// [`Untrusted`] when the file, or a folder above it, is owned by another user or writable by
/// group or others, or when it cannot be inspected.
#[cfg(unix)]
pub fn check(path: &Path) -> Result<(), Untrusted> {
    use std::os::unix::fs::MetadataExt;
    let unreadable = |p: &Path, e: std::io::Error| Untrusted {
        reason: format!("{} cannot be inspected ({e})", p.display()),
        fix: format!("check that {} exists and is yours", p.display()),
    };
    // The file itself, through any symlink (a dotfiles link is fine; its target is judged).
    let real = std::fs::canonicalize(path).map_err(|e| unreadable(path, e))?;
    let me = rustix::process::geteuid().as_raw();
    let owned = |uid: u32| uid == me || uid == 0;
    let meta = std::fs::metadata(&real).map_err(|e| unreadable(&real, e))?;
    if !owned(meta.uid()) {
        return Err(Untrusted {
            reason: format!(
                "{} is owned by another user (uid {})",
                real.display(),
                meta.uid()
            ),
            fix: format!("chown {me} {0} && chmod 600 {0}", real.display()),
        });
    }
    if meta.mode() & 0o022 != 0 {
        return Err(Untrusted {
            reason: format!("{} can be written by group or others", real.display()),
            fix: format!("chmod 600 {}", real.display()),
        });
    }
    let home: Option<PathBuf> = dirs::home_dir().and_then(|h| std::fs::canonicalize(h).ok());
    let under_home = home.as_ref().is_some_and(|h| real.starts_with(h));
    for dir in real.ancestors().skip(1) {
        let meta = std::fs::metadata(dir).map_err(|e| unreadable(dir, e))?;
        if !owned(meta.uid()) {
            return Err(Untrusted {
                reason: format!(
                    "folder {} (holding {}) is owned by another user (uid {})",
                    dir.display(),
                    real.display(),
                    meta.uid()
                ),
                fix: format!(
                    "move the config to a folder of your own, then chmod 600 it ({})",
                    real.display()
                ),
            });
        }
        if meta.mode() & 0o022 != 0 {
            return Err(Untrusted {
                reason: format!(
                    "folder {} (holding {}) can be written by group or others",
                    dir.display(),
                    real.display()
                ),
                fix: format!(
                    "chmod go-w {} && chmod 600 {}",
                    dir.display(),
                    real.display()
                ),
            });
        }
        if !under_home || home.as_deref() == Some(dir) {
            break;
        }
    }
    Ok(())
}

/// Other systems have no such modes to judge: everything may run.
#[cfg(not(unix))]
pub fn check(_: &Path) -> Result<(), Untrusted> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn chmod(p: &Path, mode: u32) {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }

    #[test]
    fn modes_and_owners_decide_as_ssh_does() {
        let dir = tempfile::tempdir().expect("tempdir");
        let folder = dir.path().join("conf");
        std::fs::create_dir(&folder).expect("mkdir");
        let file = folder.join("config.toml");
        std::fs::write(&file, "").expect("write");
        chmod(&folder, 0o755);
        chmod(&file, 0o600);
        assert_eq!(check(&file), Ok(()));
        chmod(&file, 0o644);
        assert_eq!(check(&file), Ok(()), "readable by others is not writable");

        for mode in [0o660, 0o666, 0o602] {
            chmod(&file, mode);
            let e = check(&file).expect_err("writable by others");
            assert!(e.fix.contains("chmod 600"), "{e:?}");
            assert!(e.reason.contains("config.toml"), "{e:?}");
        }
        chmod(&file, 0o600);
        for mode in [0o777, 0o1777, 0o775] {
            chmod(&folder, mode);
            let e = check(&file).expect_err("a folder others can write");
            assert!(e.reason.contains("folder"), "{e:?}");
            assert!(e.fix.contains("chmod go-w"), "{e:?}");
        }
        chmod(&folder, 0o700);
        // A symlink is judged by its target.
        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink(&file, &link).expect("symlink");
        assert_eq!(check(&link), Ok(()));
        chmod(&file, 0o666);
        assert!(check(&link).is_err());
    }
}
