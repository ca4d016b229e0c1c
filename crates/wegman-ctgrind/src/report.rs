//! What memcheck said about a run: its error summary, the suppressions it
//! used and the functions its errors were reported in, read from valgrind's
//! log (run with `--show-error-list=yes`, or `-s`, for the suppression
//! counts).
//!
//! A [`Report`] also travels as one tab-separated line ([`Report::line`],
//! [`Report::from_line`]): the ctgrind tests of wegman-capi and wegman-cli
//! print theirs, and `tools/ctgrind` collects them into its table.

/// The start of a [`Report::line`].
pub const LINE_TAG: &str = "ctgrind-report";

/// The start of the memcheck messages that are errors (as opposed to notes
/// such as "Uninitialised value was created by a client request").
const ERROR_KINDS: &[&str] = &[
    "Conditional jump or move depends on uninitialised value",
    "Use of uninitialised value",
    "Syscall param",
    "Invalid read",
    "Invalid write",
    "Invalid free",
    "Mismatched free",
    "Source and destination overlap",
];

/// One distinct error: what memcheck said and the call stack, innermost
/// function first (inlined frames included when the binary has line
/// tables).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flag {
    /// e.g. "Use of uninitialised value of size 8".
    pub kind: String,
    /// Function names, innermost first.
    pub stack: Vec<String>,
}

impl Flag {
    /// The function the error was reported in.
    pub fn function(&self) -> &str {
        self.stack.first().map_or("?", String::as_str)
    }
}

/// memcheck's verdict on one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Errors reported (`ERROR SUMMARY: N errors`), suppressed ones not counted.
    pub errors: u64,
    /// Distinct contexts those errors came from.
    pub contexts: u64,
    /// Each suppression used, with how many times, in valgrind's order.
    pub suppressed: Vec<(String, u64)>,
    /// The distinct errors, in order of first appearance.
    pub flags: Vec<Flag>,
}

impl Report {
    /// Read valgrind's log (its stderr). Fails if it has no `ERROR SUMMARY`
    /// (valgrind did not finish, or did not run memcheck).
    pub fn parse(log: &str) -> Result<Report, String> {
        let lines: Vec<&str> = log.lines().map(strip_pid).collect();
        let summary = lines
            .iter()
            .rev()
            .find_map(|l| l.strip_prefix("ERROR SUMMARY: "))
            .ok_or_else(|| format!("no ERROR SUMMARY in valgrind's log:\n{log}"))?;
        // "5 errors from 2 contexts (suppressed: 10 from 1)"
        let words: Vec<&str> = summary.split_whitespace().collect();
        let number = |i: usize| words.get(i).and_then(|w| w.parse::<u64>().ok());
        let (Some(errors), Some(contexts)) = (number(0), number(3)) else {
            return Err(format!("unexpected ERROR SUMMARY: {summary}"));
        };
        let mut report = Report { errors, contexts, ..Report::default() };
        for (i, line) in lines.iter().enumerate() {
            if let Some(rest) = line.strip_prefix("used_suppression:") {
                let mut w = rest.split_whitespace();
                if let (Some(Ok(n)), Some(name)) = (w.next().map(str::parse::<u64>), w.next()) {
                    match report.suppressed.iter_mut().find(|(s, _)| s == name) {
                        Some((_, total)) => *total += n,
                        None => report.suppressed.push((name.to_owned(), n)),
                    }
                }
            } else if ERROR_KINDS.iter().any(|k| line.starts_with(k)) {
                let stack = lines[i + 1..]
                    .iter()
                    .map(|f| f.trim_start())
                    .take_while(|f| f.starts_with("at 0x") || f.starts_with("by 0x"))
                    .map(|f| frame_function(f).to_owned())
                    .collect();
                let flag = Flag { kind: (*line).to_owned(), stack };
                if !report.flags.contains(&flag) {
                    report.flags.push(flag);
                }
            }
        }
        Ok(report)
    }

    /// How many times the suppression `name` was used (0 if never).
    pub fn uses(&self, name: &str) -> u64 {
        self.suppressed.iter().filter(|(s, _)| s == name).map(|(_, n)| n).sum()
    }

    /// The distinct functions errors were reported in, in order.
    pub fn functions(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for f in &self.flags {
            if !out.contains(&f.function()) {
                out.push(f.function());
            }
        }
        out
    }

    /// Whether memcheck reported nothing.
    pub fn is_clean(&self) -> bool {
        self.errors == 0 && self.contexts == 0
    }

    /// The report as one line: [`LINE_TAG`], `label`, errors, contexts,
    /// `name:uses` of each suppression (comma-separated), the functions
    /// flagged (`;`-separated), all separated by tabs.
    pub fn line(&self, label: &str) -> String {
        let supp: Vec<String> = self.suppressed.iter().map(|(s, n)| format!("{s}:{n}")).collect();
        format!(
            "{LINE_TAG}\t{label}\t{}\t{}\t{}\t{}",
            self.errors,
            self.contexts,
            supp.join(","),
            self.functions().join(";")
        )
    }

    /// A [`Report::line`] read back, wherever it starts in `line` (a test
    /// harness may have printed a progress dot before it): the label and
    /// the report (whose flags keep only the functions, with the kind `"?"`).
    pub fn from_line(line: &str) -> Option<(String, Report)> {
        let line = &line[line.find(LINE_TAG)?..];
        let f: Vec<&str> = line.trim_end_matches(['\r', '\n']).split('\t').collect();
        let [LINE_TAG, label, errors, contexts, supp, functions] = f[..] else { return None };
        let suppressed = supp
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|s| s.rsplit_once(':').and_then(|(n, u)| Some((n.to_owned(), u.parse().ok()?))))
            .collect::<Option<Vec<_>>>()?;
        let flags = functions
            .split(';')
            .filter(|s| !s.is_empty())
            .map(|s| Flag { kind: "?".into(), stack: vec![s.to_owned()] })
            .collect();
        Some((
            label.to_owned(),
            Report { errors: errors.parse().ok()?, contexts: contexts.parse().ok()?, suppressed, flags },
        ))
    }
}

/// A log line without valgrind's `==pid== ` (or, for its own notes such as
/// the suppression counts, `--pid-- `) prefix.
fn strip_pid(line: &str) -> &str {
    for mark in ["==", "--"] {
        if let Some((pid, rest)) = line.strip_prefix(mark).and_then(|l| l.split_once(&format!("{mark} ")))
            && pid.bytes().all(|b| b.is_ascii_digit())
        {
            return rest;
        }
    }
    line
}

/// `at 0x10A2B3: wegman::ct::eq16 (ct.rs:16)` -> `wegman::ct::eq16`. Rust
/// names may contain spaces (`<T as Trait>::f`), so the location is cut at
/// the last " (".
fn frame_function(frame: &str) -> &str {
    let after = frame.split_once(": ").map_or(frame, |(_, f)| f);
    after.rsplit_once(" (").map_or(after, |(name, _)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "\
==41== Memcheck, a memory error detector
==41== Conditional jump or move depends on uninitialised value(s)
==41==    at 0x10A2B3: wegman::ct::ctgrind_leak (ct.rs:40)
==41==    by 0x10A2B3: <wegman::mmh::Tag as core::cmp::PartialEq>::eq (mac.rs:59)
==41==    by 0x10C000: main (in /tmp/x)
==41==  Uninitialised value was created by a client request
==41==    at 0x10B000: wegman_ctgrind::client::classify (client.rs:70)
==41==
==41== Use of uninitialised value of size 8
==41==    at 0x10A2C0: wegman::ct::ctgrind_leak (ct.rs:41)
==41==
==41== ERROR SUMMARY: 7 errors from 2 contexts (suppressed: 3 from 1)
==41==
--41-- used_suppression:      3 wegman-cwc-verdict-is-public /w/ctgrind.supp:9 suppressed: 3 from 1
==41==
==41== ERROR SUMMARY: 7 errors from 2 contexts (suppressed: 3 from 1)
";

    #[test]
    fn reads_the_summary_suppressions_and_flagged_functions() {
        let r = Report::parse(LOG).unwrap();
        assert_eq!((r.errors, r.contexts), (7, 2));
        assert_eq!(r.suppressed, vec![("wegman-cwc-verdict-is-public".to_owned(), 3)]);
        assert_eq!(r.uses("wegman-cwc-verdict-is-public"), 3);
        assert_eq!(r.functions(), vec!["wegman::ct::ctgrind_leak"]);
        assert_eq!(r.flags.len(), 2);
        assert_eq!(r.flags[0].stack[1], "<wegman::mmh::Tag as core::cmp::PartialEq>::eq");
        assert!(!r.is_clean());
    }

    #[test]
    fn a_line_reads_back() {
        let r = Report::parse(LOG).unwrap();
        let (label, back) = Report::from_line(&r.line("o3 leak")).unwrap();
        assert_eq!(label, "o3 leak");
        assert_eq!((back.errors, back.contexts, &back.suppressed), (7, 2, &r.suppressed));
        assert_eq!(back.functions(), r.functions());
        assert!(Report::from_line("ctgrind: 3 passed").is_none());
        // Nothing flagged (the line ends in a tab), after a test's progress dot.
        let clean = Report { errors: 0, contexts: 0, suppressed: vec![], flags: vec![] };
        let (label, back) = Report::from_line(&format!(".{}", clean.line("O1"))).unwrap();
        assert_eq!((label.as_str(), back), ("O1", clean));
    }

    #[test]
    fn a_log_without_summary_is_an_error() {
        assert!(Report::parse("==1== Memcheck\n").is_err());
    }
}
