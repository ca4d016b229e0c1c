//! `wegman completions SHELL` and `wegman man`: what a package installs
//! beside the binary, generated from the same clap definitions that parse
//! the command line, so they cannot drift from it.

use std::io::Write;
use std::path::Path;

use clap::CommandFactory;

use crate::out;

/// The completion script for `shell` on standard output.
pub(crate) fn completions<C: CommandFactory>(shell: clap_complete::Shell) -> Result<u8, String> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut C::command(), "wegman", &mut script);
    print(&script)
}

/// The manual page `wegman.1` in roff on standard output or, with `dir`,
/// that page and one per command (`wegman-tag.1`, …) written into `dir`.
pub(crate) fn man_pages<C: CommandFactory>(dir: Option<&Path>) -> Result<u8, String> {
    match dir {
        Some(dir) => {
            clap_mangen::generate_to(C::command(), dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            Ok(0)
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(C::command()).render(&mut page).map_err(|e| out::write_error(&e))?;
            print(&page)
        }
    }
}

fn print(bytes: &[u8]) -> Result<u8, String> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(bytes).and_then(|()| stdout.flush()).map_err(|e| out::write_error(&e))?;
    Ok(0)
}
