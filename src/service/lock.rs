//! One service per database (api.md §6): an exclusive advisory lock on `<db>.lock`, which also
//! says who holds it (pid and address), so a second start is refused naming the holder.
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The held lock; released when dropped (or when the process ends, however it ends).
#[derive(Debug)]
pub struct DbLock {
    file: File,
}

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another service holds it.
    #[error(
        "the database {db} is in use by another switchboard service ({holder}); stop it or pass \
         another --db"
    )]
    Held {
        /// The database file.
        db: String,
        /// What the holder wrote: its pid and address.
        holder: String,
    },
    /// The lock file could not be opened or locked.
    #[error("lock file {path}: {source}")]
    Io {
        /// The lock file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// `<db>.lock`.
fn lock_path(db: &Path) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push(".lock");
    PathBuf::from(p)
}

impl DbLock {
    /// Takes the lock of `db` without waiting, and writes this process's pid into it.
    pub fn acquire(db: &Path) -> Result<Self, LockError> {
        let path = lock_path(db);
        let io = |source| LockError::Io {
            path: path.display().to_string(),
            source,
        };
        // No planted link followed, another user's lock file refused (`private_file`).
        let mut file = crate::config::private_file::read_append(&path).map_err(io)?;
        match fs4::FileExt::try_lock(&file) {
            Ok(()) => {}
            Err(fs4::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder: String = crate::text::sanitize::line(holder.trim())
                    .chars()
                    .take(200)
                    .collect();
                return Err(LockError::Held {
                    db: db.display().to_string(),
                    holder: if holder.is_empty() {
                        "starting".into()
                    } else {
                        holder
                    },
                });
            }
            Err(fs4::TryLockError::Error(e)) => return Err(io(e)),
        }
        let mut lock = Self { file };
        lock.announce(None).map_err(io)?;
        Ok(lock)
    }

    /// Writes who holds the lock: this pid and, once bound, the address.
    pub fn announce(&mut self, addr: Option<&str>) -> std::io::Result<()> {
        let text = match addr {
            Some(a) => format!("pid {}, {a}\n", std::process::id()),
            None => format!("pid {}\n", std::process::id()),
        };
        self.file.set_len(0)?;
        self.file.seek(SeekFrom::Start(0))?;
        self.file.write_all(text.as_bytes())?;
        self.file.flush()
    }
}
