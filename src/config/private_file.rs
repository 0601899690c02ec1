//! Files only their owner may read (logs, the command history, replay history, journals, the
//! service's database): opened without following a symbolic link, created `0600`, tightened to
//! `0600` through the open handle when found looser, and refused when they are not a regular file
//! of the current user. Anything that writes such a file should open it here.
//!
//! A planted link (`~/.local/share/switchboard/command_history -> ~/.bashrc`) would otherwise
//! make Switchboard write, or chmod, a file of the attacker's choosing.
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Opens `path` for appending, creating it `0600` (see the module's rules).
///
/// # Errors
/// The open's error; [`io::ErrorKind::InvalidInput`] for a symbolic link, something that is not
/// a regular file, or a file of another user.
pub fn append(path: &Path) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.create(true).append(true);
    open(path, o)
}

/// Replaces the contents of `path` with `contents`, creating it `0600` (see the module's rules).
///
/// # Errors
/// As [`append`], and the write's error.
pub fn write(path: &Path, contents: &[u8]) -> io::Result<()> {
    let mut o = OpenOptions::new();
    // Truncated only after the checks: a refused file keeps its contents.
    o.create(true).write(true);
    let mut f = open(path, o)?;
    f.set_len(0)?;
    f.write_all(contents)?;
    f.flush()
}

/// Makes sure `path` exists as a private file (created empty if missing), without writing to it:
/// for files another library then opens (the service's SQLite database and its `-wal`/`-shm`).
///
/// # Errors
/// As [`append`].
pub fn ensure(path: &Path) -> io::Result<()> {
    append(path).map(drop)
}

/// Opens with the given options plus the rules: no link followed, `0600` on creation, checked and
/// tightened through the handle (never by path, which a swapped link could redirect).
fn open(path: &Path, mut o: OpenOptions) -> io::Result<File> {
    let refuse = |why: &str| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} {why}; refusing to use it", path.display()),
        )
    };
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
        // NONBLOCK: a planted FIFO fails at once rather than hang the open.
        o.custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32);
    }
    let f = match o.open(path) {
        Ok(f) => f,
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            return Err(refuse("is a symbolic link"));
        }
        Err(e) => return Err(e),
    };
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(refuse("is not a regular file"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        if meta.uid() != rustix::process::geteuid().as_raw() {
            return Err(refuse("belongs to another user"));
        }
        if meta.mode() & 0o077 != 0 {
            f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
    }
    Ok(f)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(p: &Path) -> u32 {
        std::fs::symlink_metadata(p)
            .expect("meta")
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn new_files_are_0600_and_looser_ones_are_tightened() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("history");
        write(&p, b"one\n").expect("write");
        assert_eq!(mode(&p), 0o600);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        append(&p)
            .and_then(|mut f| f.write_all(b"two\n"))
            .expect("append");
        assert_eq!(mode(&p), 0o600);
        assert_eq!(std::fs::read(&p).expect("read"), b"one\ntwo\n");
        write(&p, b"three\n").expect("rewrite");
        assert_eq!(std::fs::read(&p).expect("read"), b"three\n");
    }

    #[test]
    fn a_planted_symlink_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("bashrc");
        std::fs::write(&target, "keep\n").expect("target");
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let link = dir.path().join("history");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        for r in [
            write(&link, b"evil\n"),
            append(&link).map(drop),
            ensure(&link),
        ] {
            let e = r.expect_err("a symlink is refused");
            assert!(e.to_string().contains("symbolic link"), "{e}");
        }
        assert_eq!(std::fs::read(&target).expect("read"), b"keep\n");
        assert_eq!(mode(&target), 0o644, "the target was not chmod-ed");
        let dangling = dir.path().join("log");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).expect("symlink");
        assert!(append(&dangling).is_err());
        assert!(
            !dir.path().join("nowhere").exists(),
            "nothing created through the link"
        );
    }

    #[test]
    fn a_fifo_or_a_folder_is_refused_without_hanging() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .expect("mkfifo");
        assert!(append(&fifo).is_err());
        assert!(append(dir.path()).is_err());
    }
}
