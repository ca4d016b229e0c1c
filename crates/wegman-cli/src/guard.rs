//! What every command does before it loads a key or spends a nonce.
//!
//! - No core dump: a core file written on SIGQUIT or a crash would hold the
//!   key (a review found k and r in one). `RLIMIT_CORE` is set to 0, which
//!   also binds the children, and the process is marked not dumpable
//!   (`PR_SET_DUMPABLE` 0), which also keeps other processes of the same
//!   user from attaching with ptrace or reading `/proc/PID/mem`.
//! - Standard output open for writing: `tag` writes its manifest there after
//!   reserving nonces, so with stdout closed (`wegman tag >&-`) the nonces
//!   would be spent and the manifest lost; and a file the command opens
//!   could take descriptor 1 and receive its output. Refused up front.

/// Disable core dumps and ptrace attachment for this process.
pub fn no_core_dumps() -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{DumpableBehavior, Resource, Rlimit, set_dumpable_behavior, setrlimit};
        setrlimit(Resource::Core, Rlimit { current: Some(0), maximum: Some(0) })
            .map_err(|e| format!("cannot disable core dumps (RLIMIT_CORE): {e}"))?;
        set_dumpable_behavior(DumpableBehavior::NotDumpable)
            .map_err(|e| format!("cannot disable core dumps (PR_SET_DUMPABLE): {e}"))?;
    }
    Ok(())
}

/// Err unless standard output is an open descriptor opened for writing.
pub fn stdout_writable() -> Result<(), String> {
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::fd::AsFd;
        let stdout = std::io::stdout();
        let flags = rustix::fs::fcntl_getfl(stdout.as_fd())
            .map_err(|e| format!("standard output is not open ({e}): refusing to run without it"))?;
        if flags & OFlags::RWMODE == OFlags::RDONLY {
            return Err("standard output is open for reading only: refusing to run without it".into());
        }
        // The standard library reopens a closed descriptor 0-2 on
        // /dev/null, read-write, before main: that, not a shell's
        // `>/dev/null` (write-only), is what a closed stdout looks like here.
        let st = rustix::fs::fstat(stdout.as_fd()).map_err(|e| format!("standard output: {e}"))?;
        let is_null = rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::CharacterDevice
            && rustix::fs::major(st.st_rdev) == 1
            && rustix::fs::minor(st.st_rdev) == 3;
        if is_null && flags & OFlags::RWMODE == OFlags::RDWR {
            return Err("standard output is closed: refusing to run without it".into());
        }
    }
    Ok(())
}
