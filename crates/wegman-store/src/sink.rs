//! Where `tag` and `check` send what they report.

/// The command writes result lines to standard output and warnings to
/// standard error; the Python bindings collect both instead.
pub trait Sink {
    /// One result line (without its newline); an error stops the run.
    fn line(&mut self, text: &str) -> Result<(), String>;
    /// One warning, for a human.
    fn warn(&mut self, text: std::fmt::Arguments<'_>);
}
