//! The SVG plots and files `hypersteal-suite sim` writes.

use super::*;

pub(super) fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

type Series = Vec<(String, Vec<(f64, f64)>)>;

pub(super) fn series(results: &[SimResult], y: impl Fn(&SimResult) -> f64) -> Series {
    let mut out: Series = Vec::new();
    for r in results {
        let key = format!("{} ({})", r.policy, r.topology);
        let pt = (r.procs as f64, y(r));
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(pt),
            None => out.push((key, vec![pt])),
        }
    }
    out
}

pub(super) fn series_requests(results: &[SimResult]) -> Series {
    let mut s = series(results, |r| r.requests as f64);
    for (_, v) in &mut s {
        v.retain(|&(_, y)| y > 0.0);
    }
    s.retain(|(_, v)| !v.is_empty());
    s
}

/// A line chart over `P` on a log2 axis; `log_y` puts `y` on a log10 axis.
pub(super) fn plot(
    path: &Path,
    title: &str,
    y_label: &str,
    log_y: bool,
    series: &Series,
) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let pts = series.iter().flat_map(|(_, v)| v.iter());
    let (x_max, y_min, y_max) = pts.fold((2.0f64, f64::MAX, 0.0f64), |(x, lo, hi), &(px, py)| {
        (x.max(px), lo.min(py), hi.max(py))
    });
    if y_max <= 0.0 {
        return Ok(());
    }
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let lx = |x: f64| x.max(1.0).log2();
    let ly = |y: f64| if log_y { y.max(1e-9).log10() } else { y };
    let (y0, y1) = if log_y {
        (ly(y_min.max(1e-9)).floor(), ly(y_max).ceil())
    } else {
        (0.0, y_max * 1.05)
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..lx(x_max), y0..y1)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("processors (log2)")
        .y_desc(if log_y {
            format!("log10 {y_label}")
        } else {
            y_label.to_string()
        })
        .x_label_formatter(&|x| format!("{}", 2f64.powf(*x).round()))
        .draw()
        .map_err(|e| err(&e))?;
    for (i, (name, pts)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|&(x, y)| (lx(x), ly(y))),
                color.stroke_width(2),
            ))
            .map_err(|e| err(&e))?
            .label(name.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}
