//! Files only their owner may read (logs, the command history, journals, forward's cursors and
//! answers, the demo's session file, the service's database): opened without following a
//! symbolic link, created `0600`, tightened to `0600` through the open handle when found looser,
//! and refused when they are not a regular file of the current user (another user's file is
//! neither written nor chmod-ed). Whole-file rewrites are atomic ([`replace`]: a temporary file
//! created exclusively beside it, synced, renamed over it), and folders holding such files are
//! the owner's only ([`dir`], [`fallback_dir`]). Anything that writes such a file should open it
//! here.
//!
//! A planted link (`~/.local/share/switchboard/command_history -> ~/.bashrc`) would otherwise
//! make Switchboard write, or chmod, a file of the attacker's choosing.
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

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

/// Opens `path` for reading and appending, creating it `0600` (see the module's rules): for a
/// journal read and added to under a lock.
///
/// # Errors
/// As [`append`].
pub fn read_append(path: &Path) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.create(true).read(true).append(true);
    open(path, o)
}

/// Opens an existing `path` for reading under the module's rules (no link followed, a regular
/// file of the current user); `Ok(None)` when it does not exist. Never creates nor chmods.
///
/// # Errors
/// As [`append`].
pub fn read(path: &Path) -> io::Result<Option<File>> {
    let mut o = OpenOptions::new();
    o.read(true);
    match open_checked(path, o, false) {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Replaces `path` with `contents` atomically: see [`replace_with`].
///
/// # Errors
/// As [`replace_with`].
pub fn replace(path: &Path, contents: &[u8]) -> io::Result<()> {
    replace_with(path, |w| w.write_all(contents))
}

/// Replaces `path` atomically with what `fill` writes: a temporary file created exclusively
/// (`O_EXCL`, no link followed, `0600`) in the same folder, filled, synced to disk, renamed over
/// `path`, and the folder synced; a crash leaves the old file or the new one, never half of one.
/// An existing `path` that is a symbolic link, not a regular file, or another user's is refused
/// and left as it is.
///
/// # Errors
/// The refusal ([`io::ErrorKind::InvalidInput`]) or the failing step's error; the temporary file
/// is removed.
pub fn replace_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => check_meta(path, &meta)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let folder = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(d) => d.to_path_buf(),
        None => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (tmp, mut f) = create_temp(&folder, &name)?;
    let written = (|| {
        let mut w = io::BufWriter::new(&mut f);
        fill(&mut w)?;
        w.flush()?;
        drop(w);
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // The rename itself is durable only once the folder is.
    if let Ok(d) = File::open(&folder) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// A new temporary file beside `name` in `folder`, created exclusively.
fn create_temp(folder: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut last = None;
    for _ in 0..16 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = folder.join(format!(
            ".{name}.{}.{}{nanos:x}.tmp",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let mut o = OpenOptions::new();
        o.write(true).create_new(true);
        match open(&tmp, o) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary file name was free")))
}

/// Removes `path` when it is a regular file of the current user (a link is left alone: removing
/// it would not follow it, but it is not ours to remove); `Ok(false)` when it was not removed.
///
/// # Errors
/// The removal's error.
pub fn remove(path: &Path) -> io::Result<bool> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if check_meta(path, &meta).is_ok() => std::fs::remove_file(path).map(|()| true),
        Ok(_) => Ok(false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Makes sure `path` is a folder only its owner can use: missing folders are created `0700`
/// (parents too); the folder itself must not be a symbolic link and must be the current user's
/// (another user's is refused, never chmod-ed); a looser one of ours is tightened to `0700`
/// through its handle.
///
/// # Errors
/// The creation's error; [`io::ErrorKind::InvalidInput`] for a link, something that is not a
/// folder, or another user's folder.
pub fn dir(path: &Path) -> io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(path)?;
    #[cfg(unix)]
    {
        use rustix::fs::{Mode, OFlags};
        let refuse = |why: &str| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} {why}; refusing to use it", path.display()),
            )
        };
        let fd = match rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => fd,
            Err(e) if e == rustix::io::Errno::LOOP || e == rustix::io::Errno::NOTDIR => {
                return Err(refuse("is a symbolic link or not a folder"));
            }
            Err(e) => return Err(e.into()),
        };
        let st = rustix::fs::fstat(&fd)?;
        if st.st_uid != rustix::process::geteuid().as_raw() {
            return Err(refuse("belongs to another user"));
        }
        if st.st_mode & 0o077 != 0 {
            rustix::fs::fchmod(&fd, Mode::from_raw_mode(0o700))?;
        }
    }
    Ok(())
}

/// A folder of the current user's for private files when there is no data folder:
/// `$XDG_RUNTIME_DIR/switchboard` when that is set, else `<temp dir>/switchboard-<uid>`, made and
/// checked by [`dir`] (never a fixed name in the shared temporary folder, where another user
/// could plant a link or a folder of theirs first).
///
/// # Errors
/// As [`dir`].
pub fn fallback_dir() -> io::Result<PathBuf> {
    let runtime = std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    let path = match runtime {
        Some(r) => r.join("switchboard"),
        #[cfg(unix)]
        None => std::env::temp_dir().join(format!(
            "switchboard-{}",
            rustix::process::geteuid().as_raw()
        )),
        #[cfg(not(unix))]
        None => std::env::temp_dir().join("switchboard"),
    };
    dir(&path)?;
    Ok(path)
}

/// Refuses what `symlink_metadata` shows is a link, not a regular file, or another user's.
fn check_meta(path: &Path, meta: &std::fs::Metadata) -> io::Result<()> {
    let refuse = |why: &str| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} {why}; refusing to use it", path.display()),
        )
    };
    if meta.file_type().is_symlink() {
        return Err(refuse("is a symbolic link"));
    }
    if !meta.is_file() {
        return Err(refuse("is not a regular file"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.uid() != rustix::process::geteuid().as_raw() {
            return Err(refuse("belongs to another user"));
        }
    }
    Ok(())
}

/// Opens with the given options plus the rules: no link followed, `0600` on creation, checked and
/// tightened through the handle (never by path, which a swapped link could redirect).
fn open(path: &Path, o: OpenOptions) -> io::Result<File> {
    open_checked(path, o, true)
}

/// [`open`], tightening a looser file only when `tighten` (a read never changes anything).
fn open_checked(path: &Path, mut o: OpenOptions, tighten: bool) -> io::Result<File> {
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
        if tighten && meta.mode() & 0o077 != 0 {
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

    #[test]
    fn replace_is_atomic_private_and_refuses_links_and_other_users_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("cursor.json");
        replace(&p, b"one").expect("create");
        assert_eq!(mode(&p), 0o600);
        replace(&p, b"two").expect("replace");
        assert_eq!(std::fs::read(&p).expect("read"), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 1, "no temporary file left: {names:?}");

        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep\n").expect("victim");
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).expect("m");
        let link = dir.path().join("demo.toml");
        std::os::unix::fs::symlink(&victim, &link).expect("symlink");
        let e = replace(&link, b"secret").expect_err("a link is refused");
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(std::fs::symlink_metadata(&link).expect("m").is_symlink());
        assert_eq!(std::fs::read(&victim).expect("read"), b"keep\n");
        assert_eq!(mode(&victim), 0o644);
        assert!(!remove(&link).expect("remove"), "a link is not removed");
        assert!(read(&link).is_err(), "nor read through");

        if rustix::process::geteuid().is_root() {
            let theirs = dir.path().join("theirs");
            std::fs::write(&theirs, "theirs\n").expect("theirs");
            std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o644)).expect("m");
            rustix::fs::chown(
                &theirs,
                Some(rustix::fs::Uid::from_raw(4242)),
                Some(rustix::fs::Gid::from_raw(4242)),
            )
            .expect("chown");
            for r in [
                replace(&theirs, b"x"),
                write(&theirs, b"x"),
                append(&theirs).map(drop),
                read_append(&theirs).map(drop),
                read(&theirs).map(drop),
            ] {
                let e = r.expect_err("another user's file is refused");
                assert!(e.to_string().contains("another user"), "{e}");
            }
            assert_eq!(std::fs::read(&theirs).expect("read"), b"theirs\n");
            assert_eq!(mode(&theirs), 0o644, "not chmod-ed");
            assert!(!remove(&theirs).expect("remove"), "not removed");
        }
    }

    #[test]
    fn private_folders_are_0700_and_links_or_other_users_folders_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let made = dir.path().join("data").join("switchboard");
        super::dir(&made).expect("made");
        assert_eq!(mode(&made), 0o700);
        std::fs::set_permissions(&made, std::fs::Permissions::from_mode(0o755)).expect("m");
        super::dir(&made).expect("again");
        assert_eq!(mode(&made), 0o700, "ours, tightened");

        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).expect("mkdir");
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o755)).expect("m");
        let link = dir.path().join("switchboard-0");
        std::os::unix::fs::symlink(&elsewhere, &link).expect("symlink");
        assert!(super::dir(&link).is_err(), "a planted link is refused");
        assert_eq!(mode(&elsewhere), 0o755, "its target untouched");

        if rustix::process::geteuid().is_root() {
            let theirs = dir.path().join("theirs");
            std::fs::create_dir(&theirs).expect("mkdir");
            std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o777)).expect("m");
            rustix::fs::chown(
                &theirs,
                Some(rustix::fs::Uid::from_raw(4242)),
                Some(rustix::fs::Gid::from_raw(4242)),
            )
            .expect("chown");
            let e = super::dir(&theirs).expect_err("another user's folder");
            assert!(e.to_string().contains("another user"), "{e}");
            assert_eq!(mode(&theirs), 0o777, "not chmod-ed");
        }
    }
}
