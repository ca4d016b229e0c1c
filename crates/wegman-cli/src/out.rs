//! Standard output and standard error without panics.
//!
//! `println!` and `eprintln!` panic when the stream is closed or full
//! (`> /dev/full`, `| head -c0`), so the command never uses them. A failed
//! write to standard output is an error (exit 2, "writing output: …"); a
//! closed pipe ends the command quietly with exit 2, as coreutils' tools end
//! quietly on SIGPIPE. Writes to standard error are best-effort: if even
//! stderr is gone there is nobody left to tell.

use std::fmt::Display;
use std::io::{self, Write};

use wegman_store::sink::Sink;

/// The error a command returns when standard output is a closed pipe: `main`
/// exits 2 without a message.
pub const CLOSED_PIPE: &str = "\0closed pipe";

/// The error text for a failed write to standard output.
pub fn write_error(e: &io::Error) -> String {
    if e.kind() == io::ErrorKind::BrokenPipe {
        CLOSED_PIPE.to_string()
    } else {
        format!("writing output: {}", wegman_store::input::describe(e))
    }
}

/// Write `text` and a newline to standard output, flushed.
pub fn line(text: impl Display) -> Result<(), String> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    writeln!(out, "{text}").and_then(|()| out.flush()).map_err(|e| write_error(&e))
}

/// `wegman: TEXT` on standard error (ignoring a failure to write it).
pub fn warn(text: impl Display) {
    let _ = writeln!(io::stderr().lock(), "wegman: {text}");
}

/// The command's [`Sink`] for `tag` and `check`: standard output (flushed per line) and standard error.
pub struct Console;

impl Sink for Console {
    fn line(&mut self, text: &str) -> Result<(), String> {
        line(text)
    }

    fn warn(&mut self, text: std::fmt::Arguments<'_>) {
        warn(text);
    }
}
