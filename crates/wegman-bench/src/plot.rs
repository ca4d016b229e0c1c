//! SVG charts, written by hand (no plotting dependency): per table, ticks
//! per message against length 0..8192, and throughput against length up to
//! the longest message, each as four panels (one per regime).

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use crate::report::TableResult;
use crate::workload::Regime;

/// Contender colours in table order (ours first, in red).
const COLOURS: [&str; 10] =
    ["#c0392b", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
const W: f64 = 1000.0;
const PANEL_W: f64 = 500.0;
const PANEL_H: f64 = 330.0;
const TOP: f64 = 84.0;
const H: f64 = TOP + 2.0 * PANEL_H + 8.0;
/// Plot area inside a panel: left, right, top, bottom margins.
const M: (f64, f64, f64, f64) = (66.0, 18.0, 30.0, 46.0);

struct Line {
    name: &'static str,
    colour: &'static str,
    ours: bool,
    points: Vec<(f64, f64)>,
}

struct Panel {
    title: String,
    log_x: bool,
    x_max: f64,
    x_label: &'static str,
    y_label: &'static str,
    /// Cap the y axis at this many times our highest point (so one slow
    /// peer does not flatten the rest); lines above are clipped and named.
    y_cap: Option<f64>,
    lines: Vec<Line>,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// A round step giving about `n` intervals up to `max`.
fn nice_step(max: f64, n: f64) -> f64 {
    let raw = (max / n).max(f64::MIN_POSITIVE);
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0].into_iter().map(|m| m * mag).find(|&s| s >= raw).unwrap_or(10.0 * mag)
}

fn num(v: f64) -> String {
    if v >= 1e6 && (v / 1e6).fract() == 0.0 {
        format!("{}M", v / 1e6)
    } else if v >= 1e4 && (v / 1e3).fract() == 0.0 {
        format!("{}k", v / 1e3)
    } else if v.fract() == 0.0 {
        format!("{v}")
    } else {
        format!("{v:.1}")
    }
}

fn bytes_label(v: f64) -> String {
    let v = v as u64;
    if v >= 1 << 20 {
        format!("{}M", v >> 20)
    } else if v >= 1 << 10 {
        format!("{}K", v >> 10)
    } else {
        v.to_string()
    }
}

fn panel_svg(s: &mut String, p: &Panel, ox: f64, oy: f64) {
    let (x0, y0) = (ox + M.0, oy + M.2);
    let (pw, ph) = (PANEL_W - M.0 - M.1, PANEL_H - M.2 - M.3);
    let top = |ls: &mut dyn Iterator<Item = &Line>| ls.flat_map(|l| l.points.iter().map(|q| q.1)).fold(0.0, f64::max);
    let mut y_max = top(&mut p.lines.iter()).max(1e-9);
    let mut clipped = Vec::new();
    if let Some(cap) = p.y_cap {
        let limit = cap * top(&mut p.lines.iter().filter(|l| l.ours));
        if limit > 0.0 && y_max > limit {
            y_max = limit;
            clipped = p.lines.iter().filter(|l| top(&mut std::iter::once(*l)) > limit).map(|l| l.name).collect();
        }
    }
    let y_step = nice_step(y_max, 5.0);
    let y_top = (y_max / y_step).ceil() * y_step;
    let x_min: f64 = if p.log_x { 1.0 } else { 0.0 };
    let sx = |x: f64| {
        if p.log_x {
            x0 + pw * (x.max(1.0).log2() - x_min.log2()) / (p.x_max.log2() - x_min.log2())
        } else {
            x0 + pw * x / p.x_max
        }
    };
    let sy = |y: f64| y0 + ph - ph * y / y_top;

    let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" class="pt">{}</text>"#, x0, oy + 18.0, esc(&p.title));
    let _ =
        writeln!(s, r##"<rect x="{x0:.1}" y="{y0:.1}" width="{pw:.1}" height="{ph:.1}" fill="#fff" stroke="#999"/>"##);
    // Horizontal grid and y labels.
    let mut y = 0.0;
    while y <= y_top + y_step / 2.0 {
        let py = sy(y);
        let _ = writeln!(s, r##"<line x1="{x0:.1}" x2="{:.1}" y1="{py:.1}" y2="{py:.1}" stroke="#e4e4e4"/>"##, x0 + pw);
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" class="yl">{}</text>"#, x0 - 5.0, py + 4.0, num(y));
        y += y_step;
    }
    // Vertical grid and x labels.
    let xs: Vec<f64> = if p.log_x {
        let mut v = Vec::new();
        let mut x = 1.0;
        while x <= p.x_max * 1.0001 {
            v.push(x);
            x *= 4.0;
        }
        v
    } else {
        let step = nice_step(p.x_max, 8.0);
        (0..).map(|i| i as f64 * step).take_while(|&x| x <= p.x_max * 1.0001).collect()
    };
    for x in xs {
        let px = sx(x);
        let _ = writeln!(s, r##"<line x1="{px:.1}" x2="{px:.1}" y1="{y0:.1}" y2="{:.1}" stroke="#e4e4e4"/>"##, y0 + ph);
        let label = if p.log_x { bytes_label(x) } else { num(x) };
        let _ = writeln!(s, r#"<text x="{px:.1}" y="{:.1}" class="xl">{label}</text>"#, y0 + ph + 15.0);
    }
    let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" class="xl">{}</text>"#, x0 + pw / 2.0, y0 + ph + 33.0, p.x_label);
    let _ = writeln!(
        s,
        r#"<text transform="translate({:.1},{:.1}) rotate(-90)" class="xl">{}</text>"#,
        ox + 16.0,
        y0 + ph / 2.0,
        p.y_label
    );
    // Clip the lines to the plot area (ids must be unique within the file).
    let clip = format!("c{}_{}", ox as u32, oy as u32);
    let _ = writeln!(
        s,
        r#"<clipPath id="{clip}"><rect x="{x0:.1}" y="{y0:.1}" width="{pw:.1}" height="{ph:.1}"/></clipPath><g clip-path="url(#{clip})">"#
    );
    for l in &p.lines {
        let pts: Vec<String> = l.points.iter().map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y))).collect();
        let width = if l.ours { 2.2 } else { 1.4 };
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{}" stroke-width="{width}" points="{}"/>"#,
            l.colour,
            pts.join(" ")
        );
        if l.points.len() <= 64 {
            for &(x, y) in &l.points {
                let _ = writeln!(s, r#"<circle cx="{:.1}" cy="{:.1}" r="2.2" fill="{}"/>"#, sx(x), sy(y), l.colour);
            }
        }
    }
    s.push_str("</g>\n");
    if !clipped.is_empty() {
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" class="yl">above the top: {} (see the table)</text>"#,
            x0 + pw - 6.0,
            y0 + 14.0,
            esc(&clipped.join(", "))
        );
    }
}

fn chart(title: &str, caption: &str, legend: &[(String, &str)], panels: &[Panel]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif">"#
    );
    let _ = writeln!(
        s,
        "<style>.t{{font-size:15px;font-weight:bold}} .c{{font-size:11px;fill:#555}} .pt{{font-size:12px;font-weight:bold}} \
         .xl{{font-size:10px;text-anchor:middle}} .yl{{font-size:10px;text-anchor:end}} .lg{{font-size:12px}}</style>"
    );
    let _ = writeln!(s, r##"<rect width="{W}" height="{H}" fill="#fafafa"/>"##);
    let _ = writeln!(s, r#"<text x="14" y="22" class="t">{}</text>"#, esc(title));
    let _ = writeln!(s, r#"<text x="14" y="40" class="c">{}</text>"#, esc(caption));
    let mut x = 14.0;
    for (name, colour) in legend {
        let _ = writeln!(s, r#"<rect x="{x:.1}" y="54" width="18" height="4" fill="{colour}"/>"#);
        let _ = writeln!(s, r#"<text x="{:.1}" y="61" class="lg">{}</text>"#, x + 24.0, esc(name));
        x += 40.0 + 7.5 * name.len() as f64;
    }
    for (i, p) in panels.iter().enumerate() {
        panel_svg(&mut s, p, (i % 2) as f64 * PANEL_W, TOP + (i / 2) as f64 * PANEL_H);
    }
    s.push_str("</svg>\n");
    s
}

/// What a chart shows.
#[derive(Clone, Copy)]
enum Kind {
    /// Ticks per message for lengths up to this.
    Ticks(usize),
    /// GB/s against log length.
    Throughput,
}

fn panels(t: &TableResult, tsc_mhz: f64, kind: Kind) -> Vec<Panel> {
    let throughput = matches!(kind, Kind::Throughput);
    let regimes: Vec<Regime> = t.regimes();
    regimes
        .iter()
        .map(|&regime| {
            let rows: Vec<_> = t
                .rows
                .iter()
                .filter(|r| {
                    r.regime == regime
                        && match kind {
                            Kind::Ticks(max) => r.len <= max,
                            Kind::Throughput => r.len >= 1,
                        }
                })
                .collect();
            let x_max = match kind {
                Kind::Ticks(max) => max as f64,
                Kind::Throughput => rows.iter().map(|r| r.len).max().unwrap_or(1).max(2) as f64,
            };
            let lines = t
                .labels
                .iter()
                .enumerate()
                .map(|(i, l)| Line {
                    name: l.name,
                    colour: COLOURS[i % COLOURS.len()],
                    ours: l.ours,
                    points: rows
                        .iter()
                        .map(|r| {
                            let m = r.stats[i].median;
                            let y = if throughput { r.len as f64 / m * tsc_mhz / 1e3 } else { m };
                            (r.len as f64, y)
                        })
                        .collect(),
                })
                .collect();
            Panel {
                title: regime.short().to_string(),
                log_x: throughput,
                x_max,
                x_label: "message length (bytes)",
                y_label: if throughput { "GB/s (lengths ≥ 1)" } else { "TSC ticks per message (median)" },
                y_cap: (!throughput).then_some(2.5),
                lines,
            }
        })
        .collect()
}

/// Write, for every table, `<family>-<table>-ticks.svg` (lengths 0..8192),
/// `-ticks-short.svg` (0..1024, where per-message costs show) and
/// `-throughput.svg` (1 byte up to the longest length).
pub fn write(dir: &Path, tables: &[TableResult], tsc_mhz: f64, caption: &str) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for t in tables {
        let legend: Vec<(String, &str)> =
            t.labels.iter().enumerate().map(|(i, l)| (l.name.to_string(), COLOURS[i % COLOURS.len()])).collect();
        let name = format!("{} {}", t.family, t.id);
        let charts = [
            ("ticks", Kind::Ticks(8192), format!("{name}: TSC ticks per message, lengths 0..8192 (lower is better)")),
            (
                "ticks-short",
                Kind::Ticks(1024),
                format!("{name}: TSC ticks per message, lengths 0..1024 (lower is better)"),
            ),
            ("throughput", Kind::Throughput, format!("{name}: throughput in GB/s (higher is better)")),
        ];
        for (suffix, kind, title) in charts {
            let svg = chart(&title, caption, &legend, &panels(t, tsc_mhz, kind));
            let path = dir.join(format!("{}-{}-{suffix}.svg", t.family, t.id));
            std::fs::write(&path, svg)?;
            written.push(path);
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_round() {
        assert_eq!(nice_step(8192.0, 8.0), 2000.0);
        assert_eq!(nice_step(100.0, 5.0), 20.0);
        assert_eq!(nice_step(0.9, 5.0), 0.2);
        assert_eq!(bytes_label(65536.0), "64K");
        assert_eq!(num(20000.0), "20k");
    }
}
